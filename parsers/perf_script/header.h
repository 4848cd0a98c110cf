// The event header line of `perf script` output: comm, pid/tid, cpu, time, period, event name
// and whatever perf printed after the event name (tracepoint fields or a one-frame stack).
//
//   swapper     0 [000]   267.436250:      50000 cpu-clock:pppH:
//   java 25607 4794564.109216: cycles:
//   V8 WorkerThread 25607 4794564.109216: cycles:
//   java 24636/25607 [000] 4794564.109216: cycles:
//   vote   913    72.176760:     257597 cycles:uppp:
//   false 64414 20110.539270:      34467 cycles:u:  ffffffff9aa3c8de [unknown] ([unknown])
//   :-1    -1 [000]   267.889726:      50000 cpu-clock:pppH:
//   java 19983 cycles:
//   dd 9615 [001] 3378.902848: sched:sched_switch: prev_comm=dd prev_pid=9615 ... ==> ...
//   sh  9292   762.351300: PERF_RECORD_FORK(9294:9294):(9292:9292)
//   CPU 3: 12 events lost
#ifndef TK_PARSERS_PERF_SCRIPT_HEADER_H_
#define TK_PARSERS_PERF_SCRIPT_HEADER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tk::parsers::perf_script {

// Side-band records perf script prints with --show-task-events / --show-lost-events /
// --show-mmap-events, instead of an event name.
enum class SideBand : uint8_t {
  kNone,         // an ordinary event (sample or tracepoint)
  kLost,         // "PERF_RECORD_LOST lost 25", "CPU 3: 12 events lost"
  kLostSamples,  // "PERF_RECORD_LOST_SAMPLES lost 3"
  kComm,         // "PERF_RECORD_COMM exec: sh:9292/9292"
  kFork,         // "PERF_RECORD_FORK(9294:9294):(9292:9292)"
  kExit,         // "PERF_RECORD_EXIT(9294:9294):(9292:9292)"
  kOther,        // PERF_RECORD_MMAP2 and the like: nothing an analysis uses
};

// A decoded header line. Views borrow the line.
struct Header {
  std::string_view comm;   // may hold spaces; may be one character; ":-1" for unknown tasks
  int32_t pid = -1;        // -1 unless perf printed "PID/TID"
  int32_t tid = -1;        // the single number when only one is printed
  int32_t cpu = -1;        // "[003]"
  int64_t ts_ns = -1;      // "4794564.109216:"
  uint64_t period = 1;     // the number before the event name
  bool has_period = false;
  std::string_view event;  // "cycles:uppp", "sched:sched_switch"; empty when not printed
  std::string_view rest;   // after "event:", trimmed: tracepoint fields or "ADDR SYM (DSO)"
  SideBand side = SideBand::kNone;
  uint64_t lost = 0;                     // kLost / kLostSamples
  int32_t other_pid = -1, other_tid = -1;  // kFork/kExit: parent; kComm: pid/tid of the comm
  bool exec = false;                     // kComm: "exec:"
  std::string_view side_comm;            // kComm: the new comm
};

// Parses a header line (leading/trailing blanks allowed). The comm is everything before the
// first all-digit word ("PID", "PID/TID" or "-1") after which the rest of the line has the
// header's shape ([CPU], TIME:, PERIOD, EVENT:) — so a comm may itself hold a number, as in
// "GC Thread 2 1234 [000] ...". Returns nullopt when the line is not a header.
std::optional<Header> ParseHeader(std::string_view line);
// The same into `*h` (left in an unspecified state when false): no Header copies. perf's
// usual layout ("COMM TID [CPU] SECONDS.FRACTION: PERIOD EVENT: ...", one-word comm) is
// parsed in one pass; every other line by ParseHeaderGeneral, which gives the same for that
// layout too (tests/perf_script/header_test.cc compares them).
bool ParseHeaderInto(std::string_view line, Header* h);
bool ParseHeaderGeneral(std::string_view line, Header* h);
// ParseHeaderInto, remembering the last two lines of perf's usual layout it parsed: a line
// equal to one of them but for the digits of its time (the next sample of the same thread
// on the same CPU; a system-wide profile's CPUs take turns) takes that one's fields and
// parses only the time: 87% of the headers of a 2-CPU `perf record -a -g` text, which then
// cost a fifth of a full parse. The results are ParseHeaderInto's (header_test compares).
class HeaderParser {
 public:
  bool Parse(std::string_view line, Header* h);

 private:
  static constexpr size_t kMaxSeen = 256;  // longer lines are not remembered
  struct Seen {
    std::string bytes;  // the line (untrimmed); empty: none
    // Offsets in it: the seconds, the '.', the ':' after the fraction, the views' starts.
    size_t time = 0, dot = 0, colon = 0, comm = 0, event = 0, rest = 0;
    Header header;  // its fields (views into a line gone: only their sizes are used)
  };
  Seen seen_[2];
  int last_ = 0;  // the one used last
};

// `h`'s views moved from the line at `from` to its copy at `to`.
void RebaseHeader(const char* from, const char* to, Header* h);

}  // namespace tk::parsers::perf_script

#endif  // TK_PARSERS_PERF_SCRIPT_HEADER_H_
