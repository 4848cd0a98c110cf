// The tokenizer half of the ftrace text reader: pure functions that classify and split one line
// of /sys/kernel/tracing/trace or `trace-cmd report` output. Decoding the event text into a
// typed event is tp_text's job.
#ifndef TK_PARSERS_FTRACE_TEXT_LINE_PARSER_H_
#define TK_PARSERS_FTRACE_TEXT_LINE_PARSER_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace tk::parsers::ftrace_text {

// One event line, split. Views borrow the line.
struct EventLine {
  std::string_view comm;   // "<idle>", "<...>" (unknown), "kworker/u4:2", "Web Content"
  int32_t tid = -1;        // the PID column (a thread id)
  int32_t tgid = -1;       // the TGID column; -1 when absent or "-------"
  int32_t cpu = -1;
  std::string_view flags;  // irq-info column "d..2." ("" when absent)
  int64_t ts_ns = -1;
  std::string_view name;   // "sched_switch" (ftrace prints no system); "" for function lines
  std::string_view text;   // after "name: ", leading padding removed
};
std::optional<EventLine> ParseEventLine(std::string_view line);

// "CPU:1 [LOST 123 EVENTS]" and the like; count 0 = unknown.
struct LostLine {
  int32_t cpu = -1;
  uint64_t count = 0;
};
std::optional<LostLine> ParseLostLine(std::string_view line);

// Header and comment lines that carry no event.
struct HeaderLine {
  enum class Kind { kComment, kCpus, kVersion, kEntries, kCpuEmpty, kBufferStarted };
  Kind kind = Kind::kComment;
  uint64_t a = 0, b = 0;  // cpus / version / entries-in-buffer, entries-written / cpu
};
std::optional<HeaderLine> ParseHeaderLine(std::string_view line);

}  // namespace tk::parsers::ftrace_text

#endif  // TK_PARSERS_FTRACE_TEXT_LINE_PARSER_H_
