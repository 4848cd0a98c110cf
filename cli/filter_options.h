// The filter flags of every command (--time, -p/--pid, --tid, --comm, -C/--cpu, -d/--device),
// added to a CLI11 app by one function and turned into core's FilterOptions by another. What
// each filter means per command: docs/filters.md.
#ifndef TK_CLI_FILTER_OPTIONS_H_
#define TK_CLI_FILTER_OPTIONS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"
#include "core/filter.h"

namespace tk::cli {

// The flags as given, each occurrence kept (a repeated flag adds to its list).
struct FilterFlags {
  std::vector<std::string> time, pids, tids, comms, cpus, devices;
};

// CLI11 names of each flag. perf's spelling where perf has the flag; a short name is left out
// where the command already means something else by it (fold's --pid/--tid are
// stackcollapse-perf.pl's, sched latency's -p and -C are perf sched latency's). Empty: the
// command has no such filter.
struct FilterNames {
  std::string time = "--time";
  std::string pid = "-p,--pid";
  std::string tid = "--tid";
  std::string comm = "--comm,--comms";
  std::string cpu = "-C,--cpu";
  std::string device;  // iolat: "-d,--device"
};

// Adds the filter flags to `app` (in the help's "Filters" group), writing into `flags`.
void AddFilterOptions(CLI::App* app, FilterFlags* flags, const FilterNames& names = {});

// Parses `flags`. A bad value prints "tk CMD: --flag: what" and gives nullopt (exit 2).
// A percent --time ("10%/2") is resolved against the sample span in the perf.data header of
// `path` (as perf, which takes the span from there), read from the run's one opening of the
// input (cli/common.h OpenInputOnce), which the pipeline then parses.
std::optional<FilterOptions> ResolveFilter(const FilterFlags& flags, std::string_view cmd,
                                           const std::string& path);

}  // namespace tk::cli

#endif  // TK_CLI_FILTER_OPTIONS_H_
