// How an analysis reports: the one pattern of tk's analyses (sched, iolat, irq, syscalls,
// cputop and its hist, memtop follow it; flamegraph has the same shape over folded text:
// LayOut() builds the Layout, WriteSvg and WriteJson write it; the --compat modes that print
// only the anchor's text, `perf trace -s` and `perf kmem`, have their text writer alone).
//
//   - An *analysis* is an EventSink. OnEvent() consumes events; Finish() completes the state
//     and builds the *report*, a plain struct (LatencyReport, HistReport, iolat's
//     WriteSyncReport, ...) the analysis hands out by `const XReport& report() const`. Neither
//     writes any output, so a run that fails (a parse error, an input without the events the
//     command needs) prints its one error line and nothing else.
//   - A report has exactly one text writer and one JSON writer, free functions next to it:
//         void WriteText(const XReport& r, std::ostream& out);
//         void WriteJson(const XReport& r, std::ostream& out);
//     The report's options that change the layout (units, grouping) travel in the report,
//     not as a pointer to the analysis' options. JSON strings go through AppendJsonString
//     (json.h) or nlohmann's dump with error_handler_t::replace: valid UTF-8 either way.
//   - The CLI runs the pipeline and, when it succeeded, calls WriteReport() below.
//   - A report too long to hold (timehist's rows, `tk iolat log`) streams: the analysis is
//     given the ostream and the format (text or JSON Lines) at construction and writes each
//     row as its event arrives; the table header comes with the first row, never from the
//     constructor. Finish() builds the rest (the summary), and `WriteRest()`, called by the CLI
//     once the pipeline succeeded, writes it (and the header when no row came).
#ifndef TK_ANALYSES_COMMON_REPORT_H_
#define TK_ANALYSES_COMMON_REPORT_H_

#include <ostream>

namespace tk::common {

// Writes a finished report as text or JSON (the writers are found by argument-dependent
// lookup in the report's namespace).
template <typename Report>
void WriteReport(const Report& r, bool json, std::ostream& out) {
  if (json) WriteJson(r, out);
  else WriteText(r, out);
}

}  // namespace tk::common

#endif  // TK_ANALYSES_COMMON_REPORT_H_
