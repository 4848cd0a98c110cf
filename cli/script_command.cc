// Placeholder until `tk script` lands.
#include "cli/commands.h"
#include "cli/common.h"

namespace tk::cli {

int RunScript(int argc, char** argv) {
  CLI::App app("tk script: not implemented yet", "tk script");
  std::string path = "perf.data";
  app.add_option("file", path, "Input file, - for stdin");
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  return Fail("script: not implemented yet", kExitUsage);
}

}  // namespace tk::cli
