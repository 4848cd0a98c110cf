// --call-graph dwarf user stacks unwound one stage ahead of the decoder, so that with two
// threads the unwinding runs on the reading thread while the decoding thread symbolizes,
// folds and prints (issue 12: "use the second core").
//
// The unwinder needs the maps of a sample's process as they were at the sample's time, and
// those change with the MMAP, COMM (exec), FORK and EXIT records around it. The AheadUnwinder
// is fed every record in delivery order (the order the decoder sees) and keeps its own copy
// of that state: a symbolize::Machine holding only the user maps and their files, and the
// unwind::Unwinder with its per-process modules and per-file CFI caches. Both are touched by
// the one thread that calls Feed, never by the decoder; results go to the decoder inside the
// batch they belong to (core/batch_pipe.h: the hand-off orders them), and the inline names
// in them are views into the Unwinder's interned names, which live as long as it does.
//
// The same stage runs with one thread (Feed just before the decoder's Handle), so outputs
// are identical for --threads 1 and 2 by construction: the same code sees the same records in
// the same order.
//
// Which samples are unwound: those the decoder would unwind (the sink wants stacks, the event
// samples REGS_USER and STACK_USER without a user callchain, the record parses, its kernel
// callchain has only contexts perf knows, the dump is not empty). A tracepoint sample is
// unwound before the decoder knows whether the sink wants its kind; the unwinder's state
// (which modules a process reported) then also includes such samples.
#ifndef TK_PARSERS_PERF_DATA_UNWIND_AHEAD_H_
#define TK_PARSERS_PERF_DATA_UNWIND_AHEAD_H_

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "core/event.h"
#include "parsers/parser.h"
#include "parsers/perf_data/metadata.h"
#include "parsers/perf_data/sample.h"
#include "parsers/symbolize/machine.h"
#include "parsers/unwind/unwinder.h"

namespace tk::parsers::perf_data {

// The unwound user stacks of one batch of records.
struct UnwoundStacks {
  struct Frame {
    uint64_t pc = 0;
    bool exact = false;  // look up pc (the leaf, a frame a signal interrupted), else pc - 1
    uint32_t names_begin = 0, names_end = 0;  // its inline names (innermost first) in `names`
  };
  struct Stack {
    unwind::StopReason why = unwind::StopReason::kNoRegs;
    uint32_t frames_begin = 0, frames_end = 0;  // in `frames`, leaf first
  };
  std::vector<Stack> stacks;
  std::vector<Frame> frames;
  std::vector<std::string_view> names;

  void Clear() {
    stacks.clear();
    frames.clear();
    names.clear();
  }
};

class AheadUnwinder {
 public:
  // `meta` and `table` are read on the calling thread of Feed (the reader's).
  AheadUnwinder(const Metadata& meta, const EventTable& table, const ParseOptions& opts,
                EventMask wants);

  // Call when events or build ids changed (as Decoder::Refresh).
  void Refresh();

  // One record (header included) in delivery order. A sample to unwind gets its stack
  // appended to `out`: returns its index there, else -1.
  int Feed(std::string_view rec, UnwoundStacks* out);

  // No more records: frees the maps, files and CFI caches (on the feeding thread, while the
  // decoder finishes); the names in results already given stay valid.
  void Finish();

 private:
  int FeedSample(std::string_view body, UnwoundStacks* out);
  bool WouldUnwind(const EventAttr& attr, const ParsedSample& s) const;

  const Metadata& meta_;
  const EventTable& table_;
  const bool stacks_wanted_, samples_wanted_, inline_frames_;
  bool active_ = false;  // some event has --call-graph dwarf stacks
  std::unique_ptr<symbolize::Machine> machine_;  // null after Finish
  // The Machine's maps and file search, as the unwinder's module source.
  class Modules : public unwind::ModuleSource {
   public:
    explicit Modules(const std::unique_ptr<symbolize::Machine>& m) : machine_(m) {}
    std::optional<unwind::Module> FindModule(int32_t pid, uint64_t addr) override;

   private:
    const std::unique_ptr<symbolize::Machine>& machine_;
  };
  Modules modules_;
  unwind::Unwinder unwinder_;
  std::vector<unwind::UnwoundFrame> unwound_;
};

}  // namespace tk::parsers::perf_data

#endif  // TK_PARSERS_PERF_DATA_UNWIND_AHEAD_H_
