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
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>

#include "core/diag.h"
#include "core/input.h"
#include "core/sink.h"
#include "gtest/gtest.h"
#include "parsers/parser.h"
#include "parsers/symbolize/machine.h"
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

void ParseInto(const std::string& file, EventSink& sink) {
  auto in = Input::Open(file);
  ASSERT_TRUE(in.ok()) << file;
  std::ostringstream err;
  Diagnostics diag((*in)->name(), &err);
  ParseOptions opts;
  opts.use_buildid_cache = opts.use_host_kallsyms = false;
  EXPECT_TRUE(ParseInput(**in, opts, sink, diag).ok()) << err.str();
}

std::map<Key, Task> Collect(const std::string& file, EventMask mask) {
  TaskSink sink(mask);
  ParseInto(file, sink);
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

// perf.data's machine keeps its threads in a TaskTable with perf's rules: tid 0 is "swapper"
// until a COMM names it, a thread never named is ":TID", a COMM names a thread for good, a
// child takes its parent's record name at FORK (not a ":TID" placeholder), and a FORK of a
// reused tid starts a new, unnamed thread.
TEST(TaskNames, PerfDataMachineNamesThreadsAsPerf) {
  parsers::symbolize::SymbolizeOptions o;
  o.use_buildid_cache = o.use_host_kallsyms = false;
  parsers::symbolize::Machine m(o);
  EXPECT_EQ(m.Comm(0, 0), "swapper");
  EXPECT_EQ(m.Comm(7, 7), ":7");
  m.OnComm(10, 10, "parent");
  m.OnFork(10, 12, 10, 10, false);  // a thread of process 10
  EXPECT_EQ(m.Comm(10, 12), "parent");
  m.OnComm(10, 12, "worker");
  EXPECT_EQ(m.Comm(10, 12), "worker");
  EXPECT_EQ(m.Comm(10, 10), "parent");
  m.OnFork(13, 13, 7, 7, false);  // the parent was never named: neither is the child
  EXPECT_EQ(m.Comm(13, 13), ":13");
  m.OnFork(14, 12, 7, 7, false);  // tid 12 reused by a new process: its old name is gone
  EXPECT_EQ(m.Comm(14, 12), ":12");
  m.OnComm(0, 0, "idle");
  EXPECT_EQ(m.Comm(0, 0), "idle");
  m.OnComm(10, 12, "");  // prctl(PR_SET_NAME, ""): perf prints the empty name
  EXPECT_EQ(m.Comm(10, 12), "");
  m.OnFork(10, 15, 10, 12, false);
  EXPECT_EQ(m.Comm(10, 15), "");
}

// Event::pid is the process as the input says it for that record, -1 where the input never
// says (docs/inputs.md "Tasks"): perf.data always (hidden: perf script's default header does
// not print it), trace.dat never, perf script text when its header prints it, ftrace text in
// its TGID column (the idle task's "-------" is -1). A thread never has two pids, and no
// format names a thread's pid in one record and leaves it out of another, which is why the
// parsers' task tables have no pid to add.
class PidSink final : public EventSink {
 public:
  EventMask wants() const override { return EventMask::AllTyped(); }
  absl::Status OnEvent(const Event& e) override {
    if (e.tid < 0) return absl::OkStatus();  // lost records name no thread
    ++events;
    known += e.pid >= 0;
    hidden += e.pid_hidden;
    if (e.pid >= 0 && !pids.try_emplace(e.tid, e.pid).second && pids[e.tid] != e.pid)
      ++changed;
    if (e.pid < 0 && e.tid != 0) unknown_tids.insert(e.tid);
    return absl::OkStatus();
  }
  uint64_t events = 0, known = 0, hidden = 0, changed = 0;
  std::map<int32_t, int32_t> pids;
  std::set<int32_t> unknown_tids;
};

TEST(TaskNames, PidIsWhatTheRecordSaysPerFormat) {
  enum class Pids { kAll, kNone, kAllButIdle };
  const std::pair<const char*, Pids> cases[] = {
      {"testdata/recorded/sched/sched.perf.data", Pids::kAll},
      {"testdata/recorded/iolat/writesync.perf.data", Pids::kAll},
      {"testdata/lttng/recorded/lttng.perf.data", Pids::kAll},
      {"testdata/recorded/sched/sched.trace.dat", Pids::kNone},
      {"testdata/recorded/iolat/writesync.trace.dat", Pids::kNone},
      {"testdata/recorded/sched/sched.perf-script.txt", Pids::kNone},  // default header: tid
      {"testdata/recorded/sched/sched.ftrace.txt", Pids::kNone},
      {"testdata/recorded/sched/sched.ftrace-tgid.txt", Pids::kAllButIdle},
      {"testdata/recorded/iolat/writesync.ftrace-tgid.txt", Pids::kAllButIdle},
  };
  for (const auto& [rel, want] : cases) {
    SCOPED_TRACE(rel);
    PidSink sink;
    ParseInto(testing::SourcePath(rel), sink);
    ASSERT_GT(sink.events, 100u);
    EXPECT_EQ(sink.changed, 0u);
    switch (want) {
      case Pids::kAll:
        EXPECT_EQ(sink.known, sink.events);
        EXPECT_GT(sink.hidden, sink.events / 2);  // the samples; side-band records show theirs
        break;
      case Pids::kNone:
        EXPECT_EQ(sink.known, 0u);
        EXPECT_EQ(sink.hidden, 0u);
        break;
      case Pids::kAllButIdle:
        EXPECT_GT(sink.known, sink.events / 2);
        EXPECT_TRUE(sink.unknown_tids.empty()) << *sink.unknown_tids.begin();
        EXPECT_EQ(sink.hidden, 0u);
        break;
    }
  }
}

}  // namespace
}  // namespace tk
