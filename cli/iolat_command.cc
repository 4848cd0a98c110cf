// Placeholder until `tk iolat` lands.
#include "cli/commands.h"
#include "cli/common.h"

namespace tk::cli {

int RunIolat(int argc, char** argv) {
  CLI::App app("tk iolat: not implemented yet", "tk iolat");
  std::string path = "perf.data";
  app.add_option("file", path, "Input file, - for stdin");
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  return Fail("iolat: not implemented yet", kExitUsage);
}

}  // namespace tk::cli
