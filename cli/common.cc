#include "cli/common.h"

#include <cerrno>
#include <iostream>

#include "core/absl_compat.h"
#include "core/diag.h"
#include "core/input.h"

namespace tk::cli {

int ParseArgs(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    std::cout << app.help();
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    std::cerr << "tk: " << app.get_name() << ": " << e.what() << "\n";
    std::cerr << "Run '" << app.get_name() << " --help' for usage.\n";
    return kExitUsage;
  }
  return -1;
}

void AddSymbolOptions(CLI::App& app, ParseOptions* opts) {
  app.add_option("--symfs", opts->symfs,
                 "Look for DSOs (by their recorded path) under this directory first");
  app.add_option("--kallsyms", opts->kallsyms, "Kernel symbols from this kallsyms file");
  app.add_flag("!--no-buildid-cache", opts->use_buildid_cache,
               "Do not look in perf's build-id cache (~/.debug)");
  app.add_flag("!--no-host-kallsyms", opts->use_host_kallsyms,
               "Never use this host's kernel symbols (/proc/kallsyms, the vdso), even when the "
               "build id matches");
  app.add_flag("!--no-inline", opts->inline_frames,
               "--call-graph dwarf stacks: no frames for inlined functions (perf script "
               "--no-inline)");
}

int Fail(std::string_view message, int code) {
  std::cerr << "tk: " << message << "\n";
  return code;
}

int RunPipeline(const std::string& path, const ParseOptions& opts, EventSink& sink,
                Format* detected) {
  absl::StatusOr<std::unique_ptr<Input>> in = Input::Open(path);
  if (!in.ok()) return Fail(SV(in.status().message()), kExitUsage);
  Diagnostics diag((*in)->name());
  absl::Status st = ParseInput(**in, opts, sink, diag, detected);
  diag.PrintSummary();
  if (!st.ok()) return Fail(SV(st.message()), kExitData);
  return kExitOk;
}

int FinishOutput(std::ostream& out) {
  out.flush();
  if (out.fail()) {
    if (errno == EPIPE) return kExitOk;
    return Fail("error writing output", kExitUsage);
  }
  return kExitOk;
}

}  // namespace tk::cli
