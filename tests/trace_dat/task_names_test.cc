// One task table: a trace.dat event's comm is learned in the parser from every record (saved
// cmdlines, then the comms inside sched_switch / sched_wakeup / sched_process_fork), not only
// from the records the running analysis asked for. So the same block or irq event names the
// same task under tk script's mask (everything), tk iolat's (block only), tk sched's (sched
// only) and tk irq's (the irq family only). On these recordings the saved cmdlines name
// (nearly) every pid, so this guards the rule; a recording whose cmdlines table overflowed is
// where it matters (kernels since 6.8 no longer let the table shrink below a page, so none is
// committed).
#include <map>
#include <sstream>
#include <string>
#include <tuple>

#include "core/diag.h"
#include "core/input.h"
#include "core/sink.h"
#include "gtest/gtest.h"
#include "parsers/trace_dat/trace_dat_parser.h"
#include "tests/support/golden.h"

namespace tk {
namespace {

// (ts, cpu, name) → comm of every event the mask lets through.
class CommSink final : public EventSink {
 public:
  explicit CommSink(EventMask m) : mask_(m) {}
  EventMask wants() const override { return mask_; }
  absl::Status OnEvent(const Event& e) override {
    comms_[{e.ts_ns, e.cpu, std::string(e.name)}] = std::string(e.comm);
    return absl::OkStatus();
  }
  std::map<std::tuple<int64_t, int32_t, std::string>, std::string> comms_;

 private:
  EventMask mask_;
};

CommSink Collect(const std::string& file, EventMask mask) {
  CommSink sink(mask);
  auto in = Input::Open(file);
  EXPECT_TRUE(in.ok());
  std::ostringstream err;
  Diagnostics diag((*in)->name(), &err);
  EXPECT_TRUE(parsers::trace_dat::NewTraceDatParser({})->Parse(**in, sink, diag).ok()) << err.str();
  return sink;
}

TEST(TraceDatTasks, SameCommWhateverTheMask) {
  for (const char* rel : {"testdata/lttng/recorded/lttng.trace.dat",
                          "testdata/trace_dat/sched_block.v7.dat", "testdata/trace_dat/overrun.v7.dat",
                          "testdata/recorded/iolat/writesync.trace.dat",
                          "testdata/recorded/lost/lost.trace.dat",
                          "testdata/recorded/sched/sched.trace.dat"}) {
    const std::string f = testing::SourcePath(rel);
    ASSERT_TRUE(testing::FileExists(f)) << f;
    CommSink all = Collect(f, EventMask::AllTyped());
    ASSERT_GT(all.comms_.size(), 100u) << rel;
    const EventMask masks[] = {
        EventMask().Add(EventKind::kBlockRq),                             // tk iolat
        EventMask().Add(EventKind::kSchedSwitch).Add(EventKind::kSchedWakeup),  // tk sched
        EventMask().Add(EventKind::kIrq).Add(EventKind::kSoftirq),        // tk irq
        EventMask().Add(EventKind::kSyscall),                             // tk syscalls
        EventMask().Add(EventKind::kPage),                                // tk memtop
    };
    size_t compared = 0, named = 0;
    for (const EventMask& m : masks) {
      for (const auto& [key, comm] : Collect(f, m).comms_) {
        auto it = all.comms_.find(key);
        ASSERT_NE(it, all.comms_.end()) << rel << " " << std::get<2>(key);
        EXPECT_EQ(comm, it->second) << rel << " " << std::get<2>(key) << " at " << std::get<0>(key);
        ++compared;
        named += !comm.empty();
      }
    }
    EXPECT_GT(compared, 100u) << rel;
    EXPECT_GT(named, compared / 2) << rel;
  }
}

}  // namespace
}  // namespace tk
