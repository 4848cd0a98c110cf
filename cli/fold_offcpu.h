// The off-CPU half of `tk fold`: --off-cpu and --wakeup (analyses/offcpu).
#ifndef TK_CLI_FOLD_OFFCPU_H_
#define TK_CLI_FOLD_OFFCPU_H_

#include <cstdint>
#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "analyses/offcpu/offcpu.h"
#include "core/diag.h"
#include "core/filter.h"
#include "core/input.h"
#include "parsers/parser.h"

namespace tk::cli {

struct OffCpuFlags {
  bool off_cpu = false;  // --off-cpu
  bool wakeup = false;   // --wakeup
  std::string states;    // --state S,D,R
  uint64_t min_us = 1;   // --min-us
  uint64_t max_us = UINT64_MAX;  // --max-us
  bool on() const { return off_cpu || wakeup; }
};

// Adds --off-cpu, --wakeup, --state, --min-us, --max-us to `app`.
void AddOffCpuFlags(CLI::App& app, OffCpuFlags* flags);

// --state/--min-us/--max-us without --off-cpu or --wakeup: prints the usage error and returns
// its exit code; else -1.
int CheckOffCpuFlags(const CLI::App& app, const OffCpuFlags& flags);

// Folds `path` off-CPU (or wakeup) style into `*out` on the one pipeline (cli/common.h),
// printing the notes and errors tk fold prints. Returns the exit code (kExitOk: `*out` holds
// the stacks).
int FoldOffCpu(const std::string& path, const ParseOptions& popts, const OffCpuFlags& flags,
               const analyses::fold::FoldOptions& fold, const FilterOptions& filter,
               std::unique_ptr<analyses::offcpu::OffCpuSink>* out);
// The same for an input the caller opened and described already (DescribeInput: tk pprof
// reads its header facts), parsed by the parser that came with them.
int FoldOffCpu(Input& in, Parser& parser, const OffCpuFlags& flags,
               const analyses::fold::FoldOptions& fold, const FilterOptions& filter,
               Diagnostics& diag, std::unique_ptr<analyses::offcpu::OffCpuSink>* out);

// Folds `path` off-CPU (or wakeup) style with `fold`'s roots and frame names; writes folded
// lines or JSON to stdout, notes to stderr. Returns the exit code.
int RunOffCpuFold(const std::string& path, const ParseOptions& popts, const OffCpuFlags& flags,
                  const analyses::fold::FoldOptions& fold, const FilterOptions& filter,
                  bool json);

}  // namespace tk::cli

#endif  // TK_CLI_FOLD_OFFCPU_H_
