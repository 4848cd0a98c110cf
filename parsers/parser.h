// The parser interface and the registry that maps a detected Format to its parser.
#ifndef TK_PARSERS_PARSER_H_
#define TK_PARSERS_PARSER_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/diag.h"
#include "core/format.h"
#include "core/input.h"
#include "core/sink.h"

namespace tk {

// Options every parser may use; each field's default is documented.
struct ParseOptions {
  // Symbolization (perf.data): a directory prefixed to recorded DSO paths (perf's --symfs);
  // empty = none.
  std::string symfs;
  // A kallsyms file for kernel symbols; empty = perf's build-id cache, then /proc/kallsyms
  // when the running kernel's build id matches the recording's.
  std::string kallsyms;
  // Use ~/.debug (perf's build-id cache). Tests turn it off so they never read the host.
  bool use_buildid_cache = true;
  // Read /proc/kallsyms when its build id matches. Tests turn it off.
  bool use_host_kallsyms = true;
  // perf.data --call-graph dwarf: expand inlined functions in unwound user frames (perf
  // script's default; --no-inline turns it off).
  bool inline_frames = true;
  // Threads a parser may use; 0 = the process default (core/run_settings.h: 1 unless the
  // command line's --threads, default 2 on 2+ cores, set it). perf.data uses 2 as a reading
  // and a decoding stage; the events and their order are the same with 1.
  int threads = 0;
};

class Parser {
 public:
  virtual ~Parser() = default;
  // Reads all of `in`, pushing events into `sink` in time order, then calls sink.Finish().
  // Fatal problems return a Status whose message is "NAME: offset N: what" (or "line N");
  // malformed records go to `diag` and are skipped.
  virtual absl::Status Parse(Input& in, EventSink& sink, Diagnostics& diag) = 0;
};

// The parser for `f`, or an error naming the format that is not supported.
absl::StatusOr<std::unique_ptr<Parser>> NewParser(Format f, const ParseOptions& opts);

// Opens nothing: detects the format of `in`, makes its parser and runs it into `sink`.
// `detected` (optional) receives the format.
absl::Status ParseInput(Input& in, const ParseOptions& opts, EventSink& sink, Diagnostics& diag,
                        Format* detected = nullptr);

}  // namespace tk

#endif  // TK_PARSERS_PARSER_H_
