// `tk report --format top`: pprof -top's table by function, from the same samples.
//
//       flat  flat%   sum%        cum   cum%
//    29.25ms 29.40% 29.40%    59.05ms 59.35%  do_syscall_64
//
// Functions are named as `tk fold` names frames (so the rows are the functions `tk pprof`
// writes): parameters stripped, an unresolved frame as "[libc.so.6]". flat is the period of
// samples whose leaf is the function, cum the period of samples with the function anywhere on
// the stack (once per sample); rows sorted by flat, then name, then cum, as pprof sorts them.
// Values are the sample period in one unit for the table, chosen as pprof chooses it
// (cpu-clock and task-clock periods are nanoseconds). One event type, chosen as `tk fold`
// chooses it.
#ifndef TK_ANALYSES_REPORT_TOP_H_
#define TK_ANALYSES_REPORT_TOP_H_

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analyses/fold/frame_name.h"
#include "core/sink.h"

namespace tk::analyses::report {

// The function names of one frame as `tk fold` prints them, the inlined callee first (Java
// "a->b" frames give several); empty when fold skips the frame. `scratch` is reused.
void FrameFunctions(const Frame& f, const fold::FrameNameOptions& opt, std::string* scratch,
                    std::vector<std::string_view>* out);

// Whether an event's samples are in nanoseconds (pprof's cpu/nanoseconds): cpu-clock,
// task-clock with any modifiers.
bool IsTimeEvent(std::string_view name);

// pprof's measurement.ScaledLabel for a value in `unit` ("nanoseconds" or "count") shown in
// `to` ("ms", ..., or "minimum": the value's own best unit).
std::string ScaledValue(int64_t v, std::string_view unit, std::string_view to = "minimum");

class TopSink final : public EventSink {
 public:
  explicit TopSink(std::string event_filter = "") : filter_(std::move(event_filter)) {}
  EventMask wants() const override { return EventMask().Add(EventKind::kSample).WithStacks(); }
  absl::Status OnEvent(const Event& e) override;

  void WriteText(std::ostream& out) const;
  void WriteJson(std::ostream& out) const;

 private:
  struct Row {
    std::string name;
    uint64_t flat = 0, cum = 0, last_sample = 0;
  };
  std::vector<const Row*> Sorted() const;

  std::string filter_;
  uint64_t total_ = 0, sample_no_ = 0;
  absl::flat_hash_map<std::string, Row> rows_;
  std::string scratch_;
  std::vector<std::string_view> names_;
};

}  // namespace tk::analyses::report

#endif  // TK_ANALYSES_REPORT_TOP_H_
