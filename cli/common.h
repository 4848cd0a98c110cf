// What every subcommand shares: argument parsing with CLI11, the input pipeline, exit codes.
//
// Exit codes (ARCHITECTURE.md rule 10): 0 ok (a closed stdout pipe is ok), 1 data error,
// 2 usage or I/O error.
#ifndef TK_CLI_COMMON_H_
#define TK_CLI_COMMON_H_

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "analyses/fold/frame_name.h"
#include "core/diag.h"
#include "core/format.h"
#include "core/input.h"
#include "core/part_sink.h"
#include "core/sink.h"
#include "parsers/parser.h"

namespace tk::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitData = 1;
inline constexpr int kExitUsage = 2;

// Parses argv (argv[0] is "tk CMD"). Returns -1 to go on, else the exit code to return
// (0 after --help, 2 after a usage error, with the message printed).
int ParseArgs(CLI::App& app, int argc, char** argv);

// A CLI11 check for counts (-n): refuses a negative number in one short line.
const CLI::Validator& NonNegative();

// Adds --symfs and --kallsyms (and hidden test switches) writing into `opts`.
void AddSymbolOptions(CLI::App& app, ParseOptions* opts);

// tk fold's frame-naming flags (--kernel, --jit, --all, --addrs) and --event-filter, for the
// commands that name frames as tk fold does. Apply() after parsing folds --all in.
struct FoldNameFlags {
  analyses::fold::FrameNameOptions names;
  std::string event_filter;
  bool all = false;
  void Apply() {
    if (all) names.annotate_kernel = names.annotate_jit = true;
  }
};
void AddFoldNameFlags(CLI::App& app, FoldNameFlags* f, const std::string& filter_help);

// The one line for an input without the key events of a sink that wants `wants`: what is
// missing and how to record it (RunPipeline's check; a Pipeline::nothing_reason may reuse it).
std::string MissingEvents(EventMask wants);

// What a command adds to the one pipeline (RunPipeline); every member is optional.
struct Pipeline {
  // Receives the detected format.
  Format* detected = nullptr;
  // Replaces the generic missing-events line with the command's own ("no irq:* events:
  // record with ...").
  const char* needs = nullptr;
  // The input was read once before in this run (tk irq freq's second pass), whose
  // malformed records, notes and summary were printed then: they are not printed twice.
  bool diagnostics_printed = false;
  // The input's name in messages when it is not the path's (a spooled stdin: "<stdin>").
  std::string name;
  // Receives the parser's Describe() of the input before the parse: the header facts (one
  // JSON object) of the formats that have them, for the numbers perf takes from a file's
  // header rather than its events (tk script's event-name width, --compat perf-6.1's record
  // count); "{}" for text formats and when the header cannot be read.
  std::string* facts = nullptr;
  // The stream the sink writes while the parse runs (tk script): when a write fails (the
  // sink's CancelledError stops the parse), a closed pipe is success and nothing more is
  // printed, any other failure a write error (exit 2).
  std::ostream* out = nullptr;
  // The analysis takes its input in parts (Parser::ParseParts); `sink` is then its Whole().
  PartitionedSink* parts = nullptr;
  // After detection, before the parse: the input (named as in messages), its format and its
  // parser (tk info reads the header facts here). Returns -1 to go on, else the exit code.
  std::function<int(Input& in, Format f, Parser& parser)> before_parse;
  // After the parse and the malformed-record summary, whether or not it failed, before any
  // error is printed (tk fold prints stackcollapse's "Filtering for events" note here, tk info
  // reads the counters).
  std::function<void(const Diagnostics& diag)> after_parse;
  // Replaces the missing-events check: why the parse gave the command nothing to report, as
  // one line, or "" (tk fold names what its input lacks itself; tk info has no such check).
  std::function<std::string()> nothing_reason;
};

// The input of this run, opened and its format detected once, for a command that must look at
// it before its pipeline runs (tk flamegraph's folded-or-trace choice, a percent --time's
// sample span from the perf.data header): RunPipeline on the same path then parses this Input,
// opening and detecting nothing again (stdin can be read only once).
struct OpenedInput {
  std::string path;
  std::unique_ptr<Input> input;
  Format format = Format::kUnknown;  // the registry's answer (DetectParser)
};
// Opens `path` ("-" = stdin) and detects its format, or returns the one opened for `path`
// already. Errors: opening or reading the first bytes (I/O, exit 2).
absl::StatusOr<OpenedInput*> OpenInputOnce(const std::string& path);
// Hands the input opened for `path` over (null when there is none): RunPipeline's, or tk
// flamegraph's for folded stacks.
std::unique_ptr<OpenedInput> TakeOpenedInput(const std::string& path);

// The pipeline every command runs: opens `path` ("-" = stdin; failure: exit 2), detects its
// format once, makes its parser, parses into `sink` and prints any error as "tk: FILE: offset
// N: what" (exit 1) after the malformed-record summary. An input that gave the sink none of
// the events it wants (side-band records aside) is a data error naming what to record ("no
// sched:sched_switch events: record with perf sched record ..."). Returns an exit code.
int RunPipeline(const std::string& path, const ParseOptions& opts, EventSink& sink,
                const Pipeline& p);
// The same without hooks: `detected` and `needs` as in Pipeline.
int RunPipeline(const std::string& path, const ParseOptions& opts, EventSink& sink,
                Format* detected = nullptr, const char* needs = nullptr);

// Flushes `out`; a closed pipe (EPIPE) is not an error. Returns an exit code.
int FinishOutput(std::ostream& out);

// Prints "tk: " + message to stderr and returns `code`.
int Fail(std::string_view message, int code);

// A usage error: prints the one line "tk CMD: what (see 'tk CMD --help')" and returns 2.
// `command` is the app's name ("tk fold", "tk sched latency").
int UsageError(std::string_view command, std::string_view what);

// "tk: error writing output: STRERROR(errno)", exit 2 (call right after the failed write).
int WriteError();

}  // namespace tk::cli

#endif  // TK_CLI_COMMON_H_
