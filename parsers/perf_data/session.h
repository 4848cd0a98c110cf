// One pass over a perf.data input: tokenizer → header records / reorder queue → decoder.
#ifndef TK_PARSERS_PERF_DATA_SESSION_H_
#define TK_PARSERS_PERF_DATA_SESSION_H_

#include "absl/status/status.h"
#include "core/diag.h"
#include "core/input.h"
#include "core/part_sink.h"
#include "core/sink.h"
#include "parsers/parser.h"
#include "parsers/perf_data/metadata.h"

namespace tk::parsers::perf_data {

// Reads `in` (file or pipe mode, detected from the header size), pushes events into `sink`
// in time order and calls sink.Finish(). Errors: "NAME: offset N: what".
absl::Status RunSession(Input& in, const ParseOptions& opts, EventSink& sink, Diagnostics& diag);

// How a RunSessionParts call went (for tests and benchmarks).
struct SplitStats {
  int parts = 1;          // 2 when the data was cut and parsed on two threads
  bool reparsed = false;  // a part had something to report: parsed again in one pass
};

// RunSession into an analysis that takes its input in parts (Parser::ParseParts). A mapped
// file-mode input of at least ParseOptions::perf_data_split_min_bytes of records, with
// threads >= 2, is cut at a FINISHED_ROUND near the middle of its data section; each part
// is read, time-ordered, decoded and symbolized on a thread of its own into a sink of
// `sinks` (NewPart), and the parts merge in order. The result is a one-pass parse's:
//  - the first part is the records a one-pass parse delivers up to the cut's round; the
//    second replays the side-band records before the cut (MMAP, COMM, FORK, ...) through
//    its own reorder queue, so its Machine sees them in the same time order, and queues the
//    cut round's records as a one-pass parse does, so it delivers the rest in the same order;
//  - what a Machine loads lazily (DSO and kernel symbols) is the same whenever it is loaded
//    as long as nothing it depends on changes after the first sample: when a build id comes
//    in an MMAP2, or kernel maps change (a module MMAP, KSYMBOL) after the first sample, or
//    header records change the events, exactness is not guaranteed and the input is parsed
//    again in one pass;
//  - when either part has anything to report but symbol notes (malformed records, lost
//    events, unordered time, ...), the input is parsed again in one pass into
//    PartitionedSink::Whole, so messages and counters are exactly a one-pass run's; the
//    parts' symbol notes are merged as one pass would print them.
// Pipe mode, stdin streamed, compressed records, --call-graph dwarf and small inputs are
// parsed in one pass into Whole().
absl::Status RunSessionParts(Input& in, const ParseOptions& opts, PartitionedSink& sinks,
                             Diagnostics& diag, SplitStats* stats = nullptr);

// Reads the header and, in pipe mode, the header records at the start of the stream (up to
// the first sample), for `tk info`. `in` must be mapped.
absl::StatusOr<Metadata> ReadMetadata(Input& in, uint64_t* records, uint64_t* compressed);

}  // namespace tk::parsers::perf_data

#endif  // TK_PARSERS_PERF_DATA_SESSION_H_
