// Parsing `perf script` text that is in memory (a mapped file) on two cores: the text is cut
// at a blank line near its middle, each half is parsed into its own sink (from the caller's
// PartitionedSink) on its own thread, and the two are merged in order. The result is a
// one-thread parse's:
//  - what the parts must know of the text's start comes from PartitionedSink::Prescan, fed
//    from the start of the whole text before splitting;
//  - when either half reports a malformed line, lost events or unordered time (messages whose
//    order and "first at line N" only a sequential pass gets right), or the second half
//    starts earlier than the first ends, the text is parsed again on one thread into
//    PartitionedSink::Whole, so the messages are exactly a sequential run's.
#ifndef TK_PARSERS_PERF_SCRIPT_SPLIT_PARSE_H_
#define TK_PARSERS_PERF_SCRIPT_SPLIT_PARSE_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "core/diag.h"
#include "core/part_sink.h"

namespace tk::parsers::perf_script {

struct SplitOptions {
  int threads = 2;  // 1 = sequential; more than 2 is treated as 2
  // Texts smaller than this are parsed on one thread (BM_FoldText: below ~4 MiB the thread
  // start and merge cost more than they save).
  size_t parallel_min_bytes = 4 << 20;
  // `text` is a read-only private file mapping (Input::Open of a regular file): parsed pages
  // are dropped from the process so a 1 GB file is parsed in a few MiB of RSS.
  bool release_parsed_pages = false;
};

// How a ParseSplit call went (for tests and benchmarks).
struct SplitStats {
  int parts = 1;          // 2 when the text was cut and parsed on two threads
  bool reparsed = false;  // a half had something to report: parsed again on one thread
};

// Parses `text` (named `name` in messages) into `sinks`; `diag` gets the malformed-line and
// note messages of a sequential parse.
absl::Status ParseSplit(std::string_view text, const std::string& name, const SplitOptions& opt,
                        PartitionedSink& sinks, Diagnostics& diag, SplitStats* stats = nullptr);

// The offset just after the first blank line ("\n\n" or "\n\r\n") found from byte `from`, or
// npos. Cutting there keeps every event whole, its terminating blank line included.
size_t FindSplit(std::string_view text, size_t from);

}  // namespace tk::parsers::perf_script

#endif  // TK_PARSERS_PERF_SCRIPT_SPLIT_PARSE_H_
