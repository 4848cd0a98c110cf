// The parser interface and the registry: each format's parser owns its sniffer (the magic
// or line shape that names it) and its Describe(); the registry (registry.cc) asks them in
// order, maps a detected Format to its parser and runs it.
#ifndef TK_PARSERS_PARSER_H_
#define TK_PARSERS_PARSER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/diag.h"
#include "core/format.h"
#include "core/input.h"
#include "core/part_sink.h"
#include "core/sink.h"

namespace tk {

namespace parsers::symbolize {
class SharedLoads;
}

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
  // With inline_frames: a frame's outermost DWARF name keeps the frame's DSO even when it
  // differs from the ELF symbol's (tk pprof: the Location stays in its binary's mapping).
  // Off, as perf script: such a name's DSO is "inlined".
  bool inline_outermost_keeps_dso = false;
  // Threads a parser may use; 0 = the process default (core/run_settings.h: 1 unless the
  // command line's --threads, default 2 on 2+ cores, set it). perf.data uses 2 as a reading
  // and a decoding stage; the events and their order are the same with 1.
  int threads = 0;
  // perf.data: decode sched tracepoint samples on the fast path
  // (parsers/perf_data/fast_sample.h). Off only to test that path against the full one.
  bool fast_decode = true;
  // perf.data in file mode, parsed in parts (ParseParts, threads >= 2): a data section of at
  // least this many bytes is cut in two at a FINISHED_ROUND near its middle and the halves
  // are parsed on two threads (parsers/perf_data/session.h); smaller ones in one pass.
  // Off by default (no size is that large): on two cores the one-pass pipeline's busiest
  // thread runs as many instructions as a half, with fewer cache misses (docs/performance.md,
  // session 9); `--perf-data-split-min BYTES` turns it on.
  uint64_t perf_data_split_min_bytes = UINT64_MAX;
  // Tests: the first part ends at the first FINISHED_ROUND at or after this file offset
  // (0: the middle of the data section).
  uint64_t perf_data_split_at = 0;
  // perf.data: symbol loads shared with the other parts' parses (set by the split).
  std::shared_ptr<parsers::symbolize::SharedLoads> shared_symbols;
};

class Parser {
 public:
  virtual ~Parser() = default;
  // Reads all of `in`, pushing events into `sink` in time order, then calls sink.Finish().
  // Fatal problems return a Status whose message is "NAME: offset N: what" (or "line N");
  // malformed records go to `diag` and are skipped.
  virtual absl::Status Parse(Input& in, EventSink& sink, Diagnostics& diag) = 0;
  // The same into an analysis that can take its input in parts: a parser that can cut its
  // input parses the parts on ParseOptions::threads threads into sinks of their own and
  // merges them in order (perf script text in memory); the others parse once into Whole().
  virtual absl::Status ParseParts(Input& in, PartitionedSink& sinks, Diagnostics& diag) {
    return Parse(in, sinks.Whole(), diag);
  }
  // Whether Describe() has header facts for this format (binary formats do, text does not).
  virtual bool Describes() const { return false; }
  // The format's header facts for `tk info`, read without decoding the events: one JSON
  // object, as text, whose keys `tk info` prints as they are. `in` must be mapped
  // (Input::EnsureMapped).
  virtual absl::StatusOr<std::string> Describe(Input& in) {
    (void)in;
    return std::string("{}");
  }
};

// Decides from up to the first few KiB of the input, asking each parser's sniffer:
//   perf.data magics (either byte order) and the trace.dat magic are exact;
//   text: ftrace when a "# tracer:" / "cpus=" / "version = " header comes first; else the
//   first line that is no comment decides: a perf script event header ("comm PID [CPU] TIME:"
//   or "comm PID TIME:"; checked before the ftrace shape, since an exited thread's
//   ":-1 -1 [000]" ends in "-1" like "comm-PID") is perf script text, a `comm-PID [CPU]` line
//   ftrace text; a line starting with whitespace that is neither is skipped, any other line
//   is perf script text (as is text of only comments). Zero bytes are kEmpty; binary data (a
//   NUL or control byte in the first 512 bytes) that has no known magic is kUnknown.
Format DetectFormat(std::string_view head);

// The parser for `f`, or an error naming the format that is not supported.
absl::StatusOr<std::unique_ptr<Parser>> NewParser(Format f, const ParseOptions& opts);

// Detects the format of `in` (from its first 8 KiB) and makes its parser. Errors are
// "NAME: what" for an empty input and "NAME: offset 0: what" for an unknown or unsupported
// one; a failed read returns its Status unchanged. `detected` (optional) receives the format
// whatever the outcome past the read.
absl::StatusOr<std::unique_ptr<Parser>> DetectParser(Input& in, const ParseOptions& opts,
                                                    Format* detected = nullptr);

// The parser for `in`, whose format `f` DetectParser found before (errors as its): a command
// that had to look at its input before the pipeline (cli/common.h OpenInputOnce) detects once.
absl::StatusOr<std::unique_ptr<Parser>> ParserFor(Input& in, Format f, const ParseOptions& opts);

// How many times this process detected a format (DetectParser): a test checks that a command
// detects its input once.
uint64_t FormatDetections();

// The parser's header facts for `in` (Parser::Describe(), mapping `in` first); "{}" for a
// format that has none (text).
absl::StatusOr<std::string> DescribeFacts(Input& in, Parser& parser);

// What the registry says of an input before its parse: the format, detected once, and the
// header facts of its parser (DescribeFacts). For a command that needs them before or beside
// its pipeline (tk pprof's profile comments, tk flamegraph's folded-or-trace choice, --time
// N%'s sample span); the pipeline itself hands them over as Pipeline::detected / facts.
struct InputFacts {
  Format format = Format::kUnknown;
  std::string facts = "{}";
  std::unique_ptr<Parser> parser;  // the format's parser, to parse `in` without detecting again
};
// Errors as DetectParser's, and Describe()'s for a header it cannot read.
absl::StatusOr<InputFacts> DescribeInput(Input& in, const ParseOptions& opts);

// Opens nothing: detects the format of `in`, makes its parser and runs it into `sink`.
// `detected` (optional) receives the format.
absl::Status ParseInput(Input& in, const ParseOptions& opts, EventSink& sink, Diagnostics& diag,
                        Format* detected = nullptr);

}  // namespace tk

#endif  // TK_PARSERS_PARSER_H_
