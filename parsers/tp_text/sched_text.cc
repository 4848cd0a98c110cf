#include "parsers/tp_text/sched_text.h"

#include "parsers/tp_text/text_fields.h"

namespace tk::parsers::tp_text {
namespace {

// Bit i of a 4.14+ TASK_REPORT state is "SDTtXZPI"[i]; TASK_REPORT_MAX (0x100) is "+".
// libtraceevent's plugin_sched_switch.c names bit i kPluginLetters[i].
constexpr char kPluginLetters[] = "SDTtZXxW";
constexpr uint64_t kReportMax = 0x100;

// TaskState's bits 0..7 are the TASK_REPORT bits in the same order, so a number maps directly.
TaskState StateFromBits(uint64_t v) {
  TaskState st;
  st.bits = static_cast<uint16_t>(v & 0xff);
  if (v >> 9) st.bits |= TaskState::kOther;  // bits no 4.14+ kernel reports
  st.preempted = st.bits == 0 && (v & kReportMax);
  return st;
}

// "comm:pid" as trace-cmd's plugins print it; the comm may hold ':' and spaces
// ("kworker/u4:2:77", "Web Content:3100"), so the pid is after the last ':'.
bool SplitCommPid(std::string_view s, std::string_view* comm, int32_t* pid) {
  size_t colon = s.rfind(':');
  if (colon == std::string_view::npos) return false;
  std::optional<int32_t> p = ParseInt32(s.substr(colon + 1));
  if (!p) return false;
  *comm = s.substr(0, colon);
  *pid = *p;
  return true;
}

// Strips a trailing " [NUM]" (the plugins' priority) from `s` into `prio`.
bool TakeBracketNumber(std::string_view* s, int32_t* prio) {
  if (s->empty() || s->back() != ']') return true;  // the plugin omits absent fields
  size_t open = s->rfind(" [");
  if (open == std::string_view::npos) return false;
  std::optional<int32_t> v = ParseInt32(s->substr(open + 2, s->size() - open - 3));
  if (!v) return false;
  *prio = *v;
  *s = s->substr(0, open);
  return true;
}

// trace-cmd report's sched_switch plugin (libtraceevent plugin_sched_switch.c):
//   bash:8912 [120] S ==> swapper/0:0 [120]
//   <idle>:0 [120] R ==> kworker/0:1H:44 [100]
//   Web Content:3100 [120] D|W ==> swapper/1:0 [120]
std::optional<SchedSwitch> ParsePluginSwitch(std::string_view text) {
  size_t arrow = text.find(" ==> ");
  if (arrow == std::string_view::npos) return std::nullopt;
  std::string_view left = text.substr(0, arrow);
  std::string_view right = text.substr(arrow + 5);
  while (!right.empty() && right.back() == ' ') right.remove_suffix(1);
  SchedSwitch s;
  size_t sp = left.rfind(' ');
  if (sp == std::string_view::npos) return std::nullopt;
  s.prev_state = StateFromPluginLetters(left.substr(sp + 1));
  left = left.substr(0, sp);
  if (!TakeBracketNumber(&left, &s.prev_prio) || !SplitCommPid(left, &s.prev_comm, &s.prev_pid) ||
      !TakeBracketNumber(&right, &s.next_prio) || !SplitCommPid(right, &s.next_comm, &s.next_pid)) {
    return std::nullopt;
  }
  return s;
}

// trace-cmd report's sched_wakeup / sched_wakeup_new plugin:
//   kworker/0:1H:44 [100] CPU:000
//   loop1:2464 [100] success=1 CPU:000
std::optional<SchedWakeup> ParsePluginWakeup(std::string_view text) {
  SchedWakeup w;
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  size_t sp = text.rfind(' ');
  if (sp != std::string_view::npos && text.compare(sp + 1, 4, "CPU:") == 0) {
    std::optional<int32_t> cpu = ParseInt32(text.substr(sp + 5));
    if (!cpu) return std::nullopt;
    w.target_cpu = *cpu;
    text = text.substr(0, sp);
    sp = text.rfind(' ');
  }
  if (sp != std::string_view::npos && text.compare(sp + 1, 8, "success=") == 0) {
    std::optional<int32_t> ok = ParseInt32(text.substr(sp + 9));
    if (!ok) return std::nullopt;
    w.success = *ok;
    text = text.substr(0, sp);
  }
  if (!TakeBracketNumber(&text, &w.prio) || !SplitCommPid(text, &w.comm, &w.pid)) {
    return std::nullopt;
  }
  return w;
}

}  // namespace

TaskState StateFromText(std::string_view s) {
  if (!s.empty() && IsDigit(s[0])) {
    if (std::optional<uint64_t> v = ParseUint(s)) return StateFromBits(*v);
  }
  return TaskState::FromLetters(s);
}

TaskState StateFromPluginLetters(std::string_view s) {
  uint64_t bits = 0;
  for (char c : s) {
    if (c == '|' || c == 'R') continue;
    bool found = false;
    for (int i = 0; i < 8; ++i) {
      if (kPluginLetters[i] == c) {
        bits |= 1u << i;
        found = true;
      }
    }
    if (!found) bits |= 1u << 9;  // unknown letter: kept visible as '?'
  }
  return StateFromBits(bits);
}

// The kernel's print format, 2.6.3x to 6.x, and `trace-cmd report -R` (raw fields, no "==>",
// longs in hex):
//   prev_comm=dd prev_pid=9615 prev_prio=120 prev_state=D ==> next_comm=swapper/1 next_pid=0 next_prio=120
//   prev_comm=kworker/u4:2 H prev_pid=77 prev_prio=120 prev_state=R+ ==> next_comm=bash next_pid=1 next_prio=120
//   prev_comm=bash prev_pid=8912 prev_prio=120 prev_state=0x1 next_comm=swapper/0 next_pid=0 next_prio=120
// Anything else is tried as trace-cmd's plugin form (ParsePluginSwitch).
std::optional<SchedSwitch> ParseSchedSwitch(std::string_view text) {
  KvCursor c(text);
  SchedSwitch s;
  std::optional<std::string_view> prev_comm = c.String("prev_comm", "prev_pid");
  if (!prev_comm) return ParsePluginSwitch(text);
  s.prev_comm = *prev_comm;
  auto prev_pid = c.Int("prev_pid");
  auto prev_prio = c.Int("prev_prio");
  auto prev_state = c.Token("prev_state");
  c.Skip("==>");
  auto next_comm = c.String("next_comm", "next_pid");
  auto next_pid = c.Int("next_pid");
  auto next_prio = c.Int("next_prio");
  if (!prev_pid || !prev_prio || !prev_state || !next_comm || !next_pid || !next_prio) {
    return std::nullopt;
  }
  s.prev_pid = static_cast<int32_t>(*prev_pid);
  s.prev_prio = static_cast<int32_t>(*prev_prio);
  s.prev_state = StateFromText(*prev_state);
  s.next_comm = *next_comm;
  s.next_pid = static_cast<int32_t>(*next_pid);
  s.next_prio = static_cast<int32_t>(*next_prio);
  return s;
}

// sched_wakeup / sched_waking / sched_wakeup_new, kernel formats by era:
//   comm=sh pid=8915 prio=120 target_cpu=001                      (4.x – 6.x)
//   comm=loop1 pid=2464 prio=100 success=1 target_cpu=000         (3.x)
//   comm=foo pid=1 prio=120 success=1                             (2.6.3x)
// and trace-cmd's plugin form (ParsePluginWakeup).
std::optional<SchedWakeup> ParseSchedWakeup(std::string_view text) {
  KvCursor c(text);
  SchedWakeup w;
  std::optional<std::string_view> comm = c.String("comm", "pid");
  if (!comm) return ParsePluginWakeup(text);
  w.comm = *comm;
  auto pid = c.Int("pid");
  auto prio = c.Int("prio");
  if (!pid || !prio) return std::nullopt;
  w.pid = static_cast<int32_t>(*pid);
  w.prio = static_cast<int32_t>(*prio);
  if (auto ok = c.Int("success")) w.success = static_cast<int32_t>(*ok);
  if (auto cpu = c.Int("target_cpu")) w.target_cpu = static_cast<int32_t>(*cpu);
  if (!c.AtEnd()) return std::nullopt;
  return w;
}

//   comm=perf pid=8773 prio=120 orig_cpu=0 dest_cpu=1
std::optional<SchedMigrate> ParseSchedMigrate(std::string_view text) {
  KvCursor c(text);
  SchedMigrate m;
  auto comm = c.String("comm", "pid");
  auto pid = c.Int("pid");
  auto prio = c.Int("prio");
  auto orig = c.Int("orig_cpu");
  auto dest = c.Int("dest_cpu");
  if (!comm || !pid || !prio || !orig || !dest) return std::nullopt;
  m.comm = *comm;
  m.pid = static_cast<int32_t>(*pid);
  m.prio = static_cast<int32_t>(*prio);
  m.orig_cpu = static_cast<int32_t>(*orig);
  m.dest_cpu = static_cast<int32_t>(*dest);
  return m;
}

//   comm=perf pid=8773 runtime=454031 [ns]                                  (6.8+)
//   comm=Thread-103 pid=3979 runtime=5014167 [ns] vruntime=244334517704 [ns] (older)
//   comm=dd pid=9615 delay=1234 [ns]                          (sched_stat_wait/sleep/iowait)
//   comm=bash pid=1 runtime=5014167 vruntime=244334517704    (trace-cmd report -R)
std::optional<SchedStat> ParseSchedStat(std::string_view text) {
  KvCursor c(text);
  SchedStat s;
  auto comm = c.String("comm", "pid");
  auto pid = c.Int("pid");
  if (!comm || !pid) return std::nullopt;
  s.comm = *comm;
  s.pid = static_cast<int32_t>(*pid);
  std::optional<uint64_t> v = c.Uint("runtime");
  if (!v) v = c.Uint("delay");
  if (!v) return std::nullopt;
  s.delay_ns = *v;
  c.Skip("[ns]");
  if (auto vr = c.Uint("vruntime")) s.vruntime = *vr;
  c.Skip("[ns]");
  return s;
}

//   comm=sh pid=8774 child_comm=sh child_pid=8776
//   parent_comm=sh parent_pid=8774 child_comm=sh child_pid=8776      (trace-cmd report -R)
std::optional<SchedFork> ParseSchedFork(std::string_view text) {
  KvCursor c(text);
  SchedFork f;
  auto parent = c.String("comm", "pid");
  std::optional<int64_t> ppid;
  if (parent) {
    ppid = c.Int("pid");
  } else {
    parent = c.String("parent_comm", "parent_pid");
    ppid = c.Int("parent_pid");
  }
  auto child = c.String("child_comm", "child_pid");
  auto cpid = c.Int("child_pid");
  if (!parent || !ppid || !child || !cpid) return std::nullopt;
  f.parent_comm = *parent;
  f.parent_pid = static_cast<int32_t>(*ppid);
  f.child_comm = *child;
  f.child_pid = static_cast<int32_t>(*cpid);
  return f;
}

//   comm=dd pid=8776 prio=120 group_dead=true        (sched_process_exit, 6.x)
//   comm=dd pid=8776 prio=120                        (sched_process_free; exit before 6.x)
std::optional<SchedExit> ParseSchedExit(std::string_view text) {
  KvCursor c(text);
  SchedExit x;
  auto comm = c.String("comm", "pid");
  auto pid = c.Int("pid");
  auto prio = c.Int("prio");
  if (!comm || !pid || !prio) return std::nullopt;
  x.comm = *comm;
  x.pid = static_cast<int32_t>(*pid);
  x.prio = static_cast<int32_t>(*prio);
  if (auto g = c.Token("group_dead")) x.group_dead = *g == "true" ? 1 : *g == "false" ? 0 : -1;
  return x;
}

}  // namespace tk::parsers::tp_text
