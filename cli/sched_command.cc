// Placeholder until `tk sched` lands.
#include "cli/commands.h"
#include "cli/common.h"

namespace tk::cli {

int RunSched(int argc, char** argv) {
  CLI::App app("tk sched: not implemented yet", "tk sched");
  std::string path = "perf.data";
  app.add_option("file", path, "Input file, - for stdin");
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  return Fail("sched: not implemented yet", kExitUsage);
}

}  // namespace tk::cli
