// A sink that copies every event it gets (views die after OnEvent).
#ifndef TK_TESTS_PERF_DATA_COLLECT_SINK_H_
#define TK_TESTS_PERF_DATA_COLLECT_SINK_H_

#include <string>
#include <vector>

#include "core/sink.h"

namespace tk::testing {

struct Got {
  EventKind kind;
  int64_t ts = -1;
  int32_t cpu = -1, pid = -1, tid = -1;
  std::string comm, name;
  uint64_t period = 0;
  std::vector<Frame> frames;
  std::vector<std::string> syms, dsos;
  uint64_t lost = 0;
  std::string detail;  // sched_switch: "prev_comm prev_pid prev_prio next_comm next_pid next_prio"
};

class CollectSink final : public EventSink {
 public:
  explicit CollectSink(EventMask mask = EventMask::All()) : mask_(mask) {}
  EventMask wants() const override { return mask_; }
  absl::Status OnEvent(const Event& e) override {
    Got g;
    g.kind = e.kind();
    g.ts = e.ts_ns;
    g.cpu = e.cpu;
    g.pid = e.pid;
    g.tid = e.tid;
    g.comm = std::string(e.comm);
    g.name = std::string(e.name);
    g.period = e.period;
    for (const Frame& f : e.stack) {
      g.frames.push_back(Frame{f.ip, {}, {}});
      g.syms.emplace_back(f.symbol);
      g.dsos.emplace_back(f.dso);
    }
    if (const Lost* l = std::get_if<Lost>(&e.body)) g.lost = l->count;
    if (const SchedSwitch* w = std::get_if<SchedSwitch>(&e.body)) {
      g.detail = std::string(w->prev_comm) + " " + std::to_string(w->prev_pid) + " " +
                 std::to_string(w->prev_prio) + " " + std::string(w->next_comm) + " " +
                 std::to_string(w->next_pid) + " " + std::to_string(w->next_prio);
    }
    events.push_back(std::move(g));
    return absl::OkStatus();
  }
  absl::Status Finish() override {
    ++finished;
    return absl::OkStatus();
  }
  std::vector<Got> events;
  int finished = 0;

 private:
  EventMask mask_;
};

}  // namespace tk::testing

#endif  // TK_TESTS_PERF_DATA_COLLECT_SINK_H_
