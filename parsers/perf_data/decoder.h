// Decoding: one time-ordered record → tk::Event(s) pushed into the sink, and the side-band
// state (threads, maps) that samples need. Framing and ordering are the tokenizer's and the
// reorder queue's; this class sees one whole record at a time.
//
// Handled kernel records: SAMPLE (9), MMAP (1), MMAP2 (10), COMM (3), FORK (7), EXIT (4),
// LOST (2), LOST_SAMPLES (13), THROTTLE/UNTHROTTLE (5/6), KSYMBOL (17). Others (SWITCH,
// NAMESPACES, CGROUP, BPF_EVENT, TEXT_POKE, READ, AUX, ITRACE_START) carry nothing tk models.
#ifndef TK_PARSERS_PERF_DATA_DECODER_H_
#define TK_PARSERS_PERF_DATA_DECODER_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "core/byte_reader.h"
#include "core/diag.h"
#include "core/sink.h"
#include "parsers/parser.h"
#include "parsers/perf_data/abi.h"
#include "parsers/perf_data/fast_sample.h"
#include "parsers/perf_data/metadata.h"
#include "parsers/perf_data/sample.h"
#include "parsers/perf_data/side_band.h"
#include "parsers/perf_data/unwind_ahead.h"
#include "parsers/symbolize/machine.h"
#include "parsers/symbolize/stack_memo.h"
#include "parsers/unwind/unwinder.h"

namespace tk::parsers::tep {
class TraceEvents;
class TepDecoder;
}  // namespace tk::parsers::tep

namespace tk::parsers::perf_data {

// perf script prints at most this many frames per stack (PERF_MAX_STACK_DEPTH).
inline constexpr int kMaxStack = 127;

// The unwinding counters as one line ("--call-graph dwarf: N user stacks: ...").
std::string UnwindSummary(const unwind::UnwindStats& u);
// The same as counters (core/stats.h, shown by `tk info`).
std::vector<std::pair<Stat, uint64_t>> UnwindCounters(const unwind::UnwindStats& u);

class Decoder {
 public:
  Decoder(Metadata& meta, const EventTable& table, const ParseOptions& opts, EventSink& sink,
          Diagnostics& diag);
  ~Decoder();

  // Call when events, names or features changed (pipe-mode header records).
  void Refresh();
  // Loads the tracepoint formats from meta.tracing_data (once it is known).
  void LoadTracingData(uint64_t offset);

  // One record (header included) at input offset `offset`. A sched tracepoint sample takes
  // the fast path (fast_sample.h) unless it fails one of its checks.
  absl::Status Handle(std::string_view rec, uint64_t offset) {
    if (!fast_.empty() && rec.size() >= 8 && LoadRecordType(rec) == kSample) {
      return HandleSample(rec, offset);
    }
    return HandleFull(rec, offset);
  }
  // Without the fast path.
  absl::Status HandleFull(std::string_view rec, uint64_t offset);

  // Prints notes (lost events, symbols not found) through diag. Call at the end.
  void Finish();

  uint64_t samples() const { return samples_; }

  // What the stages ahead of the decoder made of the next record Handle gets: its
  // --call-graph dwarf stack, stacks->stacks[index] (AheadUnwinder::Feed's answer; -1: none),
  // and its stack's key id (StackKeys::Feed's; 0: none).
  // The memo's entry for a stack key id a later record has (SetAhead's), asked for ahead.
  void PrefetchStack(uint32_t stack_key) const { memo_.Prefetch(stack_key); }
  // The sink's entry for the stack of key id `stack_key` (EventSink::PrefetchStack), once
  // PrefetchStack brought the memo's entry in.
  void PrefetchSinkStack(uint32_t stack_key) const {
    if (const uint64_t id = memo_.IdOf(stack_key)) sink_.PrefetchStack(id);
  }
  void SetAhead(const UnwoundStacks* stacks, int index, uint32_t stack_key) {
    unwound_ = stacks;
    unwound_index_ = index;
    stack_key_ = stack_key;
  }

 private:
  uint32_t LoadRecordType(std::string_view rec) const { return Load<uint32_t>(rec.data(), meta_.swap); }
  void BuildFast();
  // A SAMPLE through the fast path, else HandleFull.
  absl::Status HandleSample(std::string_view rec, uint64_t offset);
  // Machine::Comm through a small cache (a sched recording asks for the same few threads
  // over and over); emptied whenever the Machine learns a comm or a fork.
  std::string_view CachedComm(int32_t pid, int32_t tid);
  void ForgetComms();
  // sample_event_ with every field a sample sets reset (the body and name are the caller's).
  Event& StartSampleEvent(int64_t ts_ns, int32_t cpu, int32_t pid, int32_t tid, uint64_t period,
                          bool callchain);

  using Handler = absl::Status (Decoder::*)(uint16_t misc, std::string_view body, uint64_t off);
  absl::Status OnSample(uint16_t misc, std::string_view body, uint64_t off);
  absl::Status OnMmap(uint16_t misc, std::string_view body, uint64_t off);
  absl::Status OnMmap2(uint16_t misc, std::string_view body, uint64_t off);
  absl::Status OnComm(uint16_t misc, std::string_view body, uint64_t off);
  absl::Status OnFork(uint16_t misc, std::string_view body, uint64_t off);
  absl::Status OnExit(uint16_t misc, std::string_view body, uint64_t off);
  // The common part of the Event of a FORK/EXIT record (time, cpu, ids, comm, name).
  Event TaskEvent(const TaskRecord& r, std::string_view body, std::string_view name);
  absl::Status OnLost(uint16_t misc, std::string_view body, uint64_t off);
  absl::Status OnLostSamples(uint16_t misc, std::string_view body, uint64_t off);
  absl::Status OnThrottle(uint16_t misc, std::string_view body, uint64_t off);
  absl::Status OnUnthrottle(uint16_t misc, std::string_view body, uint64_t off);
  absl::Status OnKsymbol(uint16_t misc, std::string_view body, uint64_t off);

  // The sample_id_all trailer of a non-sample record; fills pid/tid/time/cpu.
  ParsedSample Trailer(std::string_view body, int* event_index);
  // The frames of a sample's stack into frames_ (dropped: dropped_ip_, stack_dropped_).
  void BuildStack(const ParsedSample& s, uint16_t misc, const EventAttr& attr,
                  const UnwoundStacks::Stack* unwound);
  // Sets e.stack, e.dropped_stack_ip and e.stack_id, from memo_ when the key was seen.
  void SetStack(const ParsedSample& s, uint16_t misc, const EventAttr& attr, Event& e);
  // Appends the user frames of a --call-graph dwarf sample, unwound (by the AheadUnwinder)
  // from its registers and stack copy; false when they stand for no user part.
  bool AppendUnwound(const ParsedSample& s, const UnwoundStacks::Stack& st);
  absl::Status Emit(Event& e);
  absl::Status EmitLost(Lost::Kind kind, uint64_t count, std::string_view body);
  void Malformed(std::string_view what, uint64_t off);

  Metadata& meta_;
  const EventTable& table_;
  EventSink& sink_;
  Diagnostics& diag_;
  EventMask wants_;
  symbolize::Machine machine_;
  const UnwoundStacks* unwound_ = nullptr;
  int unwound_index_ = -1;
  uint32_t stack_key_ = 0;  // SetAhead's
  unwind::UnwindStats unwind_stats_;  // of the stacks used
  bool inline_frames_ = true;
  bool inline_outermost_keeps_dso_ = false;  // ParseOptions::inline_outermost_keeps_dso
  std::vector<Handler> handlers_;
  std::vector<std::string> names_;  // per event index
  std::vector<Frame> frames_;
  symbolize::StackMemo memo_;  // Event::stack_id: distinct stacks, by key id and generations
  Frame dropped_ip_;            // the sample IP of a stack BuildStack dropped
  bool stack_dropped_ = false;
  Event sample_event_;  // OnSample's and HandleSample's, reused
  ParsedSample parsed_;  // OnSample's, reused
  std::vector<SampleLayout> layouts_;  // by event index (BuildFast)
  FastSampleDecoder fast_;
  bool fast_enabled_ = true;
  bool prefetch_dsos_ = false;  // a second thread may load DSO symbols (Refresh)
  struct CachedThread {
    int32_t pid = 0, tid = -1;  // tid -1: empty
    std::string_view comm;
  };
  std::array<CachedThread, 256> comm_cache_;
  std::unique_ptr<tep::TraceEvents> trace_events_;
  std::unique_ptr<tep::TepDecoder> tep_;
  bool tracing_loaded_ = false;
  uint64_t samples_ = 0;
  uint64_t lost_ = 0, lost_samples_ = 0, throttles_ = 0;
};

}  // namespace tk::parsers::perf_data

#endif  // TK_PARSERS_PERF_DATA_DECODER_H_
