// Every counter tk keeps about its input, declared once (Perfetto's src/trace_processor/
// storage/stats.h is the model). Parsers and analyses count through the enum id, never a
// string; `tk info` prints each counter that fired with its name, value and description, and
// Diagnostics (core/diag.h) prints the first occurrence of each and, for errors, the
// "N <noun> skipped (first at ...)" summary.
//
// X(id, name, severity, noun, description):
//   name         stable snake_case key (tk info, --json)
//   severity     kError: a malformed record, counted and skipped; kDataLoss: the recorder
//                dropped data; kInfo: noteworthy, nothing lost; kCount: a number for tk info
//   noun         how stderr's summary line names a count ("3 malformed lines skipped")
//   description  one sentence for tk info
#ifndef TK_CORE_STATS_H_
#define TK_CORE_STATS_H_

#include <cstdint>
#include <string_view>

#include "absl/types/span.h"

// clang-format off
#define TK_STATS(X)                                                                          \
  X(kMalformedLines, "malformed_lines", kError, "malformed lines",                           \
    "text lines that are no event, stack frame or known header line; skipped")               \
  X(kUnparsableTracepointFields, "unparsable_tracepoint_fields", kError,                     \
    "unparsable tracepoint fields",                                                          \
    "perf script lines of a typed tracepoint whose fields do not parse; skipped")            \
  X(kUndecodableEventTexts, "undecodable_event_texts", kError, "undecodable event texts",    \
    "ftrace text lines of a typed tracepoint whose text does not parse; skipped")            \
  X(kMalformedRecords, "malformed_records", kError, "malformed records",                     \
    "perf.data records shorter than their type or sample_type needs; skipped")               \
  X(kUnknownOrShortRecords, "unknown_or_short_records", kError,                              \
    "records of unknown event or too short",                                                 \
    "trace.dat ring-buffer records of an event id without format, or shorter than it")       \
  X(kCorruptPages, "corrupt_ring_buffer_pages", kError, "corrupt ring-buffer pages",         \
    "trace.dat ring-buffer pages with an impossible header; the page is skipped")            \
  X(kLostEvents, "lost_events", kDataLoss, "lost events",                                    \
    "events the recorder dropped: perf LOST records, ring-buffer overruns, "                 \
    "'CPU N: M events lost' lines")                                                          \
  X(kLostSamples, "lost_samples", kDataLoss, "lost samples",                                 \
    "samples perf dropped (LOST_SAMPLES records, perf report's Total Lost Samples)")         \
  X(kOverwrittenEvents, "overwritten_events", kDataLoss, "overwritten events",               \
    "events the ftrace ring buffer overwrote (entries-written minus entries-in-buffer)")     \
  X(kThrottled, "throttled", kDataLoss, "throttle records",                                  \
    "THROTTLE records: the kernel lowered the sampling rate")                                \
  X(kCutRecords, "cut_records", kDataLoss, "cut records",                                    \
    "perf.data data ending inside a record; read up to the last whole record")               \
  X(kUnfinishedHeader, "unfinished_header", kDataLoss, "unfinished headers",                 \
    "perf.data with data size 0 in its header (perf killed before it finished)")             \
  X(kTruncatedLastEvent, "truncated_last_event", kDataLoss, "truncated last events",         \
    "perf script text whose last stack is not ended by a blank line (input cut short?)")     \
  X(kOutOfOrder, "out_of_order", kInfo, "out-of-order events",                               \
    "events earlier than one already passed on (perf.data: older than a delivered round); "  \
    "kept, unsorted")                                                                        \
  X(kAuxSkipped, "aux_skipped", kInfo, "AUX records",                                        \
    "AUX area trace data (Intel PT, CoreSight): not decoded")                                \
  X(kTracingDataUnreadable, "tracing_data_unreadable", kInfo, "unreadable tracing data",     \
    "perf.data tracepoint formats that do not parse: tracepoint samples keep their name only") \
  X(kHeaderWarnings, "header_warnings", kInfo, "header warnings",                            \
    "perf.data feature sections that cannot be read; ignored, as perf does")                 \
  X(kSymbolNotes, "symbol_notes", kInfo, "symbol notes",                                     \
    "symbolization problems: no kernel symbols, unreadable or mismatched DSOs")              \
  X(kInstancesSkipped, "instances_skipped", kInfo, "instances skipped",                      \
    "trace.dat ftrace instances besides the top buffer: not read")                           \
  X(kTimeShiftIgnored, "time_shift_ignored", kInfo, "time shifts ignored",                   \
    "trace.dat TIME_SHIFT (guest/host) corrections: not applied")                            \
  X(kInvalidUtf8, "invalid_utf8_lines", kInfo, "lines with invalid UTF-8",                   \
    "folded-stack lines with invalid UTF-8, kept with U+FFFD")                               \
  X(kDwarfUserStacks, "dwarf_user_stacks", kCount, "dwarf user stacks",                      \
    "--call-graph dwarf user stacks unwound (the five dwarf_* counters split them)")         \
  X(kDwarfUnwoundToEnd, "dwarf_unwound_to_end", kCount, "stacks unwound to the end",         \
    "dwarf user stacks unwound to their outermost frame")                                    \
  X(kDwarfCutAtDumpEnd, "dwarf_cut_at_dump_end", kCount, "stacks cut at the dump end",       \
    "dwarf user stacks cut where the recorded stack copy ends")                              \
  X(kDwarfStoppedNoCfiOrElf, "dwarf_stopped_no_cfi_or_elf", kCount, "stacks without CFI",    \
    "dwarf user stacks stopped at a frame without CFI or ELF file")                          \
  X(kDwarfStoppedMaxStack, "dwarf_stopped_max_stack", kCount, "stacks at max depth",         \
    "dwarf user stacks stopped at the maximum depth")                                        \
  X(kDwarfNoUserRegs, "dwarf_no_user_regs", kCount, "stacks without registers",              \
    "dwarf user stack samples without user registers (kernel threads)")
// clang-format on

namespace tk {

enum class Stat : uint16_t {
#define TK_STAT_ENUM(id, name, severity, noun, description) id,
  TK_STATS(TK_STAT_ENUM)
#undef TK_STAT_ENUM
};

enum class StatSeverity : uint8_t { kError, kDataLoss, kInfo, kCount };

struct StatInfo {
  Stat id;
  std::string_view name;
  StatSeverity severity;
  std::string_view noun;
  std::string_view description;
};

inline constexpr StatInfo kStats[] = {
#define TK_STAT_INFO(id, name, severity, noun, description) \
  {Stat::id, name, StatSeverity::severity, noun, description},
    TK_STATS(TK_STAT_INFO)
#undef TK_STAT_INFO
};
inline constexpr int kNumStats = static_cast<int>(sizeof(kStats) / sizeof(kStats[0]));

constexpr const StatInfo& Describe(Stat s) { return kStats[static_cast<int>(s)]; }
// "error", "data_loss", "info", "count".
std::string_view SeverityName(StatSeverity s);

}  // namespace tk

#endif  // TK_CORE_STATS_H_
