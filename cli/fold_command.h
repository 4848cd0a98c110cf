// tk fold's options and folding, for the commands that fold a trace first (tk flamegraph,
// tk diff): the same flags, the same folding, the same messages.
#ifndef TK_CLI_FOLD_COMMAND_H_
#define TK_CLI_FOLD_COMMAND_H_

#include <memory>

#include <iosfwd>

#include "CLI/CLI.hpp"
#include "analyses/fold/fold.h"
#include "cli/fold_offcpu.h"
#include "core/input.h"
#include "parsers/parser.h"

namespace tk::cli {

struct FoldArgs {
  analyses::fold::FoldOptions fo;
  bool all = false;
  int threads = 0;
  ParseOptions popts;
  OffCpuFlags offcpu;  // --off-cpu, --wakeup and their bounds
};

// Adds tk fold's flags (--pid --tid --kernel --jit --all --addrs --event-filter, the symbol
// options, --off-cpu --wakeup --state --min-us --max-us) writing into `a`.
void AddFoldArgs(CLI::App& app, FoldArgs* a);

// After parsing: the flag combinations tk fold rejects. An exit code, or -1 to go on.
int CheckFoldArgs(const CLI::App& app, const FoldArgs& a);

// Folds the trace `in` as tk fold does (its diagnostics on stderr) and writes the folded lines
// (or tk fold's JSON) to `out`. Returns an exit code.
int FoldToText(Input& in, FoldArgs& a, bool json, std::ostream& out);

}  // namespace tk::cli

#endif  // TK_CLI_FOLD_COMMAND_H_
