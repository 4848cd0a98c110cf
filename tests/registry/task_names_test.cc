// One task table (core/task_table.h): every parser names an event's thread (comm, pid, tid)
// from what it learned from every record, not only from the records the running analysis
// asked for. So the same event names the same task under tk script's mask (everything), tk
// iolat's (block only), tk sched's (sched only), tk irq's, tk syscalls' and tk memtop's, in
// every format: perf.data (PERF_RECORD_COMM/FORK, decoded whatever the mask), trace.dat
// (saved cmdlines, then the comms inside sched records, decoded for that even when unwanted),
// perf script and ftrace text (the header of each line).
#include <cctype>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>

#include "core/diag.h"
#include "core/input.h"
#include "core/sink.h"
#include "gtest/gtest.h"
#include "parsers/parser.h"
#include "tests/support/golden.h"

namespace tk {
namespace {

using Key = std::tuple<int64_t, int32_t, int32_t, std::string>;  // ts, cpu, tid, name
using Task = std::pair<std::string, int32_t>;                      // comm, pid

class TaskSink final : public EventSink {
 public:
  explicit TaskSink(EventMask m) : mask_(m) {}
  EventMask wants() const override { return mask_; }
  absl::Status OnEvent(const Event& e) override {
    tasks_[{e.ts_ns, e.cpu, e.tid, std::string(e.name)}] = {std::string(e.comm), e.pid};
    return absl::OkStatus();
  }
  std::map<Key, Task> tasks_;

 private:
  EventMask mask_;
};

std::map<Key, Task> Collect(const std::string& file, EventMask mask) {
  TaskSink sink(mask);
  auto in = Input::Open(file);
  EXPECT_TRUE(in.ok());
  std::ostringstream err;
  Diagnostics diag((*in)->name(), &err);
  ParseOptions opts;
  opts.use_buildid_cache = opts.use_host_kallsyms = false;
  EXPECT_TRUE(ParseInput(**in, opts, sink, diag).ok()) << err.str();
  return std::move(sink.tasks_);
}

TEST(TaskNames, SameTaskWhateverTheMaskInEveryFormat) {
  for (const char* rel : {"testdata/recorded/sched/sched.perf.data",
                          "testdata/recorded/sched/sched.trace.dat",
                          "testdata/recorded/sched/sched.perf-script.txt",
                          "testdata/recorded/sched/sched.ftrace.txt",
                          "testdata/recorded/sched/sched.ftrace-tgid.txt",
                          "testdata/recorded/iolat/writesync.perf.data",
                          "testdata/recorded/iolat/writesync.trace.dat",
                          "testdata/recorded/iolat/writesync.perf-script.txt",
                          "testdata/recorded/iolat/writesync.ftrace.txt",
                          "testdata/trace_dat/sched_block.v7.dat",
                          "testdata/trace_dat/overrun.v7.dat",
                          "testdata/recorded/lost/lost.trace.dat",
                          "testdata/lttng/recorded/lttng.perf.data",
                          "testdata/lttng/recorded/kmem.perf.data",
                          "testdata/lttng/recorded/lttng.trace.dat",
                          "testdata/lttng/recorded/lttng.perf-script.txt",
                          "testdata/lttng/recorded/lttng.ftrace.txt"}) {
    const std::string f = testing::SourcePath(rel);
    ASSERT_TRUE(testing::FileExists(f)) << f;
    const std::map<Key, Task> all = Collect(f, EventMask::AllTyped());
    ASSERT_GT(all.size(), 100u) << rel;
    const EventMask masks[] = {
        EventMask().Add(EventKind::kBlockRq),                                   // tk iolat
        EventMask().Add(EventKind::kSchedSwitch).Add(EventKind::kSchedWakeup),  // tk sched
        EventMask().Add(EventKind::kSchedMigrate).Add(EventKind::kSchedStat),
        EventMask().Add(EventKind::kIrq).Add(EventKind::kSoftirq),              // tk irq
        EventMask().Add(EventKind::kSyscall),                                   // tk syscalls
        EventMask().Add(EventKind::kPage),                                      // tk memtop
        EventMask().Add(EventKind::kGeneric),                                   // the rest
    };
    size_t compared = 0, named = 0;
    for (const EventMask& m : masks) {
      for (const auto& [key, task] : Collect(f, m)) {
        auto it = all.find(key);
        ASSERT_NE(it, all.end()) << rel << " " << std::get<3>(key);
        EXPECT_EQ(task, it->second) << rel << " " << std::get<3>(key) << " at " << std::get<0>(key);
        ++compared;
        named += !task.first.empty();
      }
    }
    EXPECT_GT(compared, 100u) << rel;
    EXPECT_GT(named, compared / 2) << rel;
  }
}

// A copy of a trace.dat v6 whose saved cmdlines are unreadable (each "PID COMM" line's first
// digit made an 'x', sizes kept): its tasks are then named only by the comms inside sched
// records, which the parser must learn even under a mask that holds no sched event.
std::string WithoutSavedCmdlines(const std::string& src) {
  std::ifstream f(src, std::ios::binary);
  std::string d((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  auto cmdline_like = [&](size_t at, size_t end) {
    size_t i = at;
    while (i < end && std::isdigit(static_cast<unsigned char>(d[i]))) ++i;
    return i > at && i + 1 < end && d[i] == ' ' && end - at < 40 &&
           std::isgraph(static_cast<unsigned char>(d[i + 1]));
  };
  // The longest run of cmdline-like lines is the saved cmdlines section.
  size_t best_at = 0, best_n = 0, run_at = 0, run_n = 0;
  for (size_t at = 0; at < d.size();) {
    size_t end = d.find('\n', at);
    if (end == std::string::npos) break;
    if (cmdline_like(at, end)) {
      if (run_n++ == 0) run_at = at;
      if (run_n > best_n) best_n = run_n, best_at = run_at;
    } else {
      run_n = 0;
    }
    at = end + 1;
  }
  EXPECT_GT(best_n, 50u) << src;
  for (size_t at = best_at, n = 0; n < best_n; ++n, at = d.find('\n', at) + 1) d[at] = 'x';
  const std::string out = ::testing::TempDir() + "/no-cmdlines.trace.dat";
  std::ofstream(out, std::ios::binary) << d;
  return out;
}

TEST(TaskNames, TraceDatLearnsFromUnwantedSchedRecords) {
  const std::string f =
      WithoutSavedCmdlines(testing::SourcePath("testdata/recorded/sched/sched.v6.trace.dat"));
  const std::map<Key, Task> all = Collect(f, EventMask::AllTyped());
  size_t compared = 0, named = 0;
  for (EventMask m : {EventMask().Add(EventKind::kGeneric), EventMask().Add(EventKind::kIrq)
                          .Add(EventKind::kSoftirq).Add(EventKind::kSchedStat)}) {
    for (const auto& [key, task] : Collect(f, m)) {
      auto it = all.find(key);
      ASSERT_NE(it, all.end()) << std::get<3>(key);
      EXPECT_EQ(task, it->second) << std::get<3>(key) << " at " << std::get<0>(key);
      ++compared;
      named += task.first != "swapper" && !task.first.empty();
    }
  }
  EXPECT_GT(compared, 100u);
  EXPECT_GT(named, 10u);  // names that came only from sched_switch / sched_wakeup comms
}

}  // namespace
}  // namespace tk
