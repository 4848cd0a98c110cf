#include "parsers/ftrace_text/line_parser.h"

#include "core/timestamp.h"
#include "parsers/tp_text/text_fields.h"

namespace tk::parsers::ftrace_text {
namespace {

// ftrace pads its columns with spaces only (a tab belongs to the text).
constexpr std::string_view kPad = " ";
bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Position of the timestamp token that ends right before the first ": " it is followed by,
// or npos. The comm comes first on the line and may hold ": " itself only if it is
// followed by something that looks like a timestamp, which no real comm does.
size_t FindTimestamp(std::string_view line, size_t* colon) {
  for (size_t from = 0;;) {
    size_t p = line.find(": ", from);
    if (p == std::string_view::npos) {
      // A last field may end the line ("... 715.919128:" never happens, but "name:" may).
      return std::string_view::npos;
    }
    size_t q = p;
    while (q > 0 && (IsDigit(line[q - 1]) || line[q - 1] == '.')) --q;
    if (q < p && q > 0 && line[q - 1] == ' ' && IsDigit(line[q])) {
      *colon = p;
      return q;
    }
    from = p + 1;
  }
}

}  // namespace

// An event line of /sys/kernel/tracing/trace (with and without the irq-info and tgid
// columns, 3.x 4-letter and 6.x 5-letter flags) and of `trace-cmd report`:
//             bash-8912    [000] d..2.   715.924552: sched_switch: prev_comm=bash prev_pid=8912 ...
//           <idle>-0       [001] dNh2.   715.925448: sched_wakeup: comm=sh pid=8915 prio=120 target_cpu=001
//             bash-8912    (-------) [000] ...1.   715.919128: sched_wake_idle_without_ipi: cpu=1
//  record-sched.sh-17589   (  17589) [000] .....   987.332282: sched_process_fork: comm=record-sched.sh ...
//             bash-8912    [000]    715.919128: sched_wake_idle_without_ipi: cpu=1
//     kworker/u8:1-33    [001]   910.167783: sched_switch:         kworker/u8:1:33 [120] R ==> ksoftirqd/1:22 [120]
//      Web Content-3100  [001] d..3  1234.000001: sched_switch: prev_comm=Web Content prev_pid=3100 ...
//    firefox-bin-4072 [000] 946.722298: mutex_unlock <-unix_stream_recvmsg      (function tracer)
//  record-i-14172   0dNs4.   910.166639: sched_wakeup:         rcu_preempt:15 [120] CPU:000  (report -l)
// The comm is right-aligned in 16 columns and may hold spaces and '-': the PID is after the
// last '-' before the columns, which are found from the timestamp backwards.
std::optional<EventLine> ParseEventLine(std::string_view line) {
  EventLine ev;
  size_t colon = 0;
  size_t ts_pos = FindTimestamp(line, &colon);
  if (ts_pos == std::string_view::npos) return std::nullopt;
  std::optional<int64_t> ts = ParseTimestampNs(line.substr(ts_pos, colon - ts_pos));
  if (!ts) return std::nullopt;
  ev.ts_ns = *ts;

  std::string_view head = TrimRight(line.substr(0, ts_pos), kPad);
  if (!head.empty() && head.back() != ']') {  // the irq-info flags column
    size_t sp = head.rfind(' ');
    if (sp == std::string_view::npos) return std::nullopt;
    ev.flags = head.substr(sp + 1);
    head = TrimRight(head.substr(0, sp), kPad);
  }
  if (!head.empty() && head.back() != ']' && !ev.flags.empty() && IsDigit(ev.flags[0])) {
    // `trace-cmd report -l`: no brackets, the CPU number runs into the flags ("0dNs4.").
    size_t d = 0;
    while (d < ev.flags.size() && IsDigit(ev.flags[d])) ++d;
    std::optional<int32_t> cpu = ParseInt32(ev.flags.substr(0, d));
    if (!cpu) return std::nullopt;
    ev.cpu = *cpu;
    ev.flags.remove_prefix(d);
  } else {
    if (head.empty() || head.back() != ']') return std::nullopt;
    size_t lb = head.rfind('[');
    if (lb == std::string_view::npos) return std::nullopt;
    std::optional<int32_t> cpu = ParseInt32(head.substr(lb + 1, head.size() - lb - 2));
    if (!cpu || *cpu < 0) return std::nullopt;
    ev.cpu = *cpu;
    head = TrimRight(head.substr(0, lb), kPad);
  }
  if (!head.empty() && head.back() == ')') {  // the tgid column: "(  17589)" or "(-------)"
    size_t lp = head.rfind('(');
    if (lp == std::string_view::npos) return std::nullopt;
    std::string_view inner = TrimLeft(head.substr(lp + 1, head.size() - lp - 2), kPad);
    if (!inner.empty() && IsDigit(inner[0])) {
      std::optional<int32_t> tgid = ParseInt32(inner);
      if (!tgid) return std::nullopt;
      ev.tgid = *tgid;
    } else if (inner.empty() || inner.find_first_not_of('-') != std::string_view::npos) {
      return std::nullopt;  // only "(-------)" stands for an unknown tgid
    }
    head = TrimRight(head.substr(0, lp), kPad);
  }
  head = TrimLeft(head, kPad);
  size_t dash = head.rfind('-');
  if (dash == std::string_view::npos) return std::nullopt;
  std::optional<int32_t> tid = ParseInt32(head.substr(dash + 1));
  if (!tid || *tid < 0) return std::nullopt;
  ev.tid = *tid;
  ev.comm = head.substr(0, dash);

  std::string_view rest = line.substr(colon + 2);
  size_t c = rest.find(':');
  size_t sp = rest.find(' ');
  if (c != std::string_view::npos && c > 0 && (sp == std::string_view::npos || c < sp) &&
      (c + 1 == rest.size() || rest[c + 1] == ' ')) {
    ev.name = rest.substr(0, c);
    ev.text = TrimLeft(rest.substr(c + 1), kPad);
  } else {
    ev.text = rest;  // the function tracer: "func <-parent"
  }
  return ev;
}

// Lost events, as the kernel's trace file and trace-cmd report print them:
//   CPU:0 [LOST 204 EVENTS]
//   CPU:4 [LOST EVENTS]
//   CPU:7 [204600 EVENTS DROPPED]
//   CPU:1 [EVENTS DROPPED]
std::optional<LostLine> ParseLostLine(std::string_view line) {
  line = TrimLeft(line, kPad);
  if (!StartsWith(line, "CPU:")) return std::nullopt;
  size_t sp = line.find(" [");
  if (sp == std::string_view::npos || line.back() != ']') return std::nullopt;
  std::optional<int32_t> cpu = ParseInt32(line.substr(4, sp - 4));
  if (!cpu) return std::nullopt;
  LostLine l;
  l.cpu = *cpu;
  std::string_view inner = line.substr(sp + 2, line.size() - sp - 3);
  std::string_view num;
  if (StartsWith(inner, "LOST ")) {
    inner.remove_prefix(5);
    if (inner == "EVENTS") return l;
    if (inner.size() < 7 || inner.substr(inner.size() - 7) != " EVENTS") return std::nullopt;
    num = inner.substr(0, inner.size() - 7);
  } else {
    if (inner == "EVENTS DROPPED") return l;
    constexpr std::string_view kTail = " EVENTS DROPPED";
    if (inner.size() <= kTail.size() || inner.substr(inner.size() - kTail.size()) != kTail) {
      return std::nullopt;
    }
    num = inner.substr(0, inner.size() - kTail.size());
  }
  std::optional<uint64_t> n = ParseUint(num);
  if (!n) return std::nullopt;
  l.count = *n;
  return l;
}

// Lines without an event:
//   # tracer: nop
//   # entries-in-buffer/entries-written: 1217/1217   #P:2
//   ##### CPU 1 buffer started ####
//   cpus=2                        (trace-cmd report)
//   version = 6                   (trace-cmd report of some versions)
//   CPU 0 is empty                (trace-cmd report)
std::optional<HeaderLine> ParseHeaderLine(std::string_view line) {
  HeaderLine h;
  if (StartsWith(line, "#")) {
    constexpr std::string_view kEntries = "# entries-in-buffer/entries-written: ";
    if (StartsWith(line, "##### CPU ")) {
      h.kind = HeaderLine::Kind::kBufferStarted;
    } else if (StartsWith(line, kEntries)) {
      std::string_view v = line.substr(kEntries.size());
      size_t slash = v.find('/');
      size_t end = v.find(' ');
      if (slash != std::string_view::npos) {
        auto a = ParseUint(v.substr(0, slash));
        auto b = ParseUint(v.substr(slash + 1, end == std::string_view::npos ? end : end - slash - 1));
        if (a && b) {
          h.kind = HeaderLine::Kind::kEntries;
          h.a = *a;
          h.b = *b;
        }
      }
    }
    return h;
  }
  if (StartsWith(line, "cpus=")) {
    auto n = ParseUint(TrimRight(line.substr(5), kPad));
    if (!n) return std::nullopt;
    h.kind = HeaderLine::Kind::kCpus;
    h.a = *n;
    return h;
  }
  if (StartsWith(line, "version = ")) {
    auto n = ParseUint(TrimRight(line.substr(10), kPad));
    if (!n) return std::nullopt;
    h.kind = HeaderLine::Kind::kVersion;
    h.a = *n;
    return h;
  }
  if (StartsWith(line, "CPU ") && line.size() > 13 &&
      line.substr(line.size() - 9) == " is empty") {
    auto n = ParseUint(line.substr(4, line.size() - 13));
    if (!n) return std::nullopt;
    h.kind = HeaderLine::Kind::kCpuEmpty;
    h.a = *n;
    return h;
  }
  return std::nullopt;
}

}  // namespace tk::parsers::ftrace_text
