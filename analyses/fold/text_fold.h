// Folding `perf script` text that is in memory (a mapped file) on two cores: the text is cut
// at a blank line near its middle, each half is parsed and folded into its own FoldSink on
// its own thread, and the two are merged. The output is identical to a one-thread fold:
//  - the default event type is taken from the first event of the whole text before splitting;
//  - the second half's line numbers continue the first half's;
//  - when either half reports a malformed line, lost events or unordered time (messages whose
//    order and "first at line N" only a sequential pass gets right), the text is folded again
//    on one thread so the messages are exactly a sequential run's.
#ifndef TK_ANALYSES_FOLD_TEXT_FOLD_H_
#define TK_ANALYSES_FOLD_TEXT_FOLD_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "analyses/fold/fold.h"
#include "core/diag.h"
#include "core/filter.h"

namespace tk::analyses::fold {

struct TextFoldOptions {
  int threads = 2;  // 1 = sequential; more than 2 is treated as 2
  // Texts smaller than this are folded on one thread (BM_FoldText: below ~4 MiB the thread
  // start and merge cost more than they save).
  size_t parallel_min_bytes = 4 << 20;
  // `text` is a read-only private file mapping (Input::Open of a regular file): parsed pages
  // are dropped from the process so a 1 GB file folds in a few MiB of RSS.
  bool release_parsed_pages = false;
  // Only the events this filter accepts are folded (each part's parse, the first-type scan
  // and a refold all go through it). Null: every event.
  const Filter* filter = nullptr;
};

// How a FoldText call went (for tests and benchmarks).
struct TextFoldStats {
  int parts = 1;          // 2 when the text was cut and folded on two threads
  bool refolded = false;  // a half had something to report: folded again on one thread
};

// Folds `text` (named `name` in messages) into `out`, which must be fresh; `diag` gets the
// malformed-line and note messages of a sequential parse.
absl::Status FoldText(std::string_view text, const std::string& name, const TextFoldOptions& opt,
                      FoldSink& out, Diagnostics& diag, TextFoldStats* stats = nullptr);

// The offset just after the first blank line ("\n\n" or "\n\r\n") found from byte `from`, or
// npos. Cutting there keeps every event whole, its terminating blank line included.
size_t FindSplit(std::string_view text, size_t from);

}  // namespace tk::analyses::fold

#endif  // TK_ANALYSES_FOLD_TEXT_FOLD_H_
