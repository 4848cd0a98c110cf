// What tk flamegraph and tk diff share: an input that is either folded stacks or a trace
// tk folds first (with tk fold's flags).
#ifndef TK_CLI_FLAMEGRAPH_COMMAND_H_
#define TK_CLI_FLAMEGRAPH_COMMAND_H_

#include <map>
#include <memory>
#include <vector>
#include <string>
#include <string_view>

#include "CLI/CLI.hpp"
#include "cli/filter_options.h"
#include "core/input.h"

namespace tk::cli {

// tk fold's flags, passed through to `tk fold` when an input is a trace.
struct FoldArgs {
  std::map<std::string, std::string> values;  // --symfs, --kallsyms, --event-filter, ...
  std::map<std::string, bool> flags;          // --pid, --kernel, --off-cpu, ...
  FilterFlags filters;                        // --time, -p/--pids, -t/--tids, --comm, -C
  std::vector<std::string> Argv() const;
};
void AddFoldArgs(CLI::App& app, FoldArgs* a);

// Whether the first bytes of a text input look like folded stacks: most of its first lines
// (and the first one) are "STACK COUNT" lines.
bool LooksFolded(std::string_view head);

struct FoldedInput {
  std::string name;             // the input's name in messages ("<stdin>" for "-")
  std::unique_ptr<Input> input;  // folded stacks (a trace's input is tk fold's)
  std::string folded;     // the folded text when the input was a trace
  std::string_view text;  // the folded lines (the mapped input, or `folded`)
  bool from_trace = false;
};

// Opens `path` ("-" is stdin) and gets its folded lines: a folded file as it is (mapped; a
// stream is spooled), a trace folded with `fold` (whose pipeline takes the Input opened and
// detected here: cli/common.h OpenInputOnce). `force_folded` skips the detection. Returns
// an exit code; errors are printed.
int LoadFolded(const std::string& path, bool force_folded, FoldArgs& fold, FoldedInput* out);

}  // namespace tk::cli

#endif  // TK_CLI_FLAMEGRAPH_COMMAND_H_
