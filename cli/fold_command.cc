// Placeholder until `tk fold` lands.
#include "cli/commands.h"
#include "cli/common.h"

namespace tk::cli {

int RunFold(int argc, char** argv) {
  CLI::App app("tk fold: not implemented yet", "tk fold");
  std::string path = "perf.data";
  app.add_option("file", path, "Input file, - for stdin");
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  return Fail("fold: not implemented yet", kExitUsage);
}

}  // namespace tk::cli
