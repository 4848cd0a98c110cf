// What tk flamegraph and tk diff share: an input that is either folded stacks or a trace
// tk folds first (with tk fold's flags).
#ifndef TK_CLI_FLAMEGRAPH_COMMAND_H_
#define TK_CLI_FLAMEGRAPH_COMMAND_H_

#include <memory>
#include <string>
#include <string_view>

#include "CLI/CLI.hpp"
#include "cli/fold_command.h"
#include "core/input.h"

namespace tk::cli {

// Whether the first bytes of a text input look like folded stacks: most of its first lines
// (and the first one) are "STACK COUNT" lines.
bool LooksFolded(std::string_view head);

struct FoldedInput {
  std::unique_ptr<Input> input;
  std::string folded;     // the folded text when the input was a trace
  std::string_view text;  // the folded lines (the mapped input, or `folded`)
  bool from_trace = false;
};

// Opens `path` ("-" is stdin) and gets its folded lines: a folded file as it is (mapped; a
// stream is spooled), a trace folded with `fold`. `force_folded` skips the detection. Returns
// an exit code; errors are printed.
int LoadFolded(const std::string& path, bool force_folded, FoldArgs& fold, FoldedInput* out);

}  // namespace tk::cli

#endif  // TK_CLI_FLAMEGRAPH_COMMAND_H_
