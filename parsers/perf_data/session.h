// One pass over a perf.data input: tokenizer → header records / reorder queue → decoder.
#ifndef TK_PARSERS_PERF_DATA_SESSION_H_
#define TK_PARSERS_PERF_DATA_SESSION_H_

#include "absl/status/status.h"
#include "core/diag.h"
#include "core/input.h"
#include "core/sink.h"
#include "parsers/parser.h"
#include "parsers/perf_data/metadata.h"

namespace tk::parsers::perf_data {

// Reads `in` (file or pipe mode, detected from the header size), pushes events into `sink`
// in time order and calls sink.Finish(). Errors: "NAME: offset N: what".
absl::Status RunSession(Input& in, const ParseOptions& opts, EventSink& sink, Diagnostics& diag);

// Reads the header and, in pipe mode, the header records at the start of the stream (up to
// the first sample), for `tk info`. `in` must be mapped.
absl::StatusOr<Metadata> ReadMetadata(Input& in, uint64_t* records, uint64_t* compressed);

}  // namespace tk::parsers::perf_data

#endif  // TK_PARSERS_PERF_DATA_SESSION_H_
