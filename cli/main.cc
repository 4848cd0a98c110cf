// tk: offline analysis of Linux traces. Dispatches `tk CMD ...`, `tk help [CMD [SUBCMD]]` and
// `tk --version`.
#include <csignal>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/common.h"

namespace {

struct Command {
  const char* name;
  int (*run)(int, char**);
  const char* summary;
};

constexpr Command kCommands[] = {
    {"fold", tk::cli::RunFold, "fold stacks for flame graphs (stackcollapse-perf.pl output)"},
    {"sched", tk::cli::RunSched, "scheduler latency: perf sched latency/timehist, histograms"},
    {"iolat", tk::cli::RunIolat, "block I/O latency and write-sync detection per device"},
    {"script", tk::cli::RunScript, "print every event in time order (text or JSON Lines)"},
    {"info", tk::cli::RunInfo, "describe a trace file: format, events, counts, lost events"},
    {"cputop", tk::cli::RunCputop, "CPU time per thread and per CPU (lttng-cputop), cpudist"},
    {"irq", tk::cli::RunIrq, "hard IRQ and softirq durations, raise latency (lttng-irqstats)"},
    {"syscalls", tk::cli::RunSyscalls, "system call counts, errors and times per thread"},
    {"memtop", tk::cli::RunMemtop, "pages allocated and freed per thread, perf kmem summary"},
    {"report", tk::cli::RunReport, "perf report --stdio's table (Children/Self by comm,dso,sym)"},
    {"pprof", tk::cli::RunPprof, "export samples as a gzipped pprof profile.proto"},
    {"sql", tk::cli::RunSql, "events into SQLite, CSV or JSON Lines tables; SQL queries"},
    {"merge", tk::cli::RunMerge, "exact sum of folded stack files (fleet map/reduce)"},
    {"flamegraph", tk::cli::RunFlamegraph, "SVG flame graph (flamegraph.pl's) of folded stacks or a trace"},
    {"diff", tk::cli::RunDiff, "differential folded stacks of two profiles (difffolded.pl)"},
};

void Usage(std::ostream& out) {
  out << "usage: tk COMMAND [options] [FILE|-]\n\n"
         "Reads perf.data, trace.dat, `perf script` text or ftrace/`trace-cmd report` text\n"
         "(format detected from the first bytes; - is stdin).\n\ncommands:\n";
  for (const Command& c : kCommands) {
    size_t n = std::strlen(c.name);
    out << "  " << c.name << std::string(n < 12 ? 12 - n : 2, ' ') << c.summary << "\n";
  }
  out << "  help        tk help COMMAND [SUBCOMMAND]: the options of a command\n"
         "\ntk --version prints the version.\n";
}

const Command* Find(std::string_view name) {
  for (const Command& c : kCommands)
    if (name == c.name) return &c;
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  // A closed stdout pipe (tk fold ... | head) must end quietly with exit 0: writes then fail
  // with EPIPE and FinishOutput maps that to success.
  std::signal(SIGPIPE, SIG_IGN);
  std::ios::sync_with_stdio(false);
  if (argc < 2) {
    Usage(std::cerr);
    return tk::cli::kExitUsage;
  }
  std::string_view cmd = argv[1];
  if (cmd == "-h" || cmd == "--help") {
    Usage(std::cout);
    return 0;
  }
  if (cmd == "--version" || cmd == "-V") {
    std::cout << "tk " << TK_VERSION << "\n";
    return 0;
  }
  if (cmd == "help") {
    // `tk help`, `tk help help`: the command list; `tk help CMD [SUB...]`: `tk CMD [SUB...] --help`.
    if (argc < 3 || std::string_view(argv[2]) == "help") {
      Usage(std::cout);
      return 0;
    }
    const Command* c = Find(argv[2]);
    if (!c) return tk::cli::Fail(std::string("unknown command '") + argv[2] + "'", 2);
    std::string name = std::string("tk ") + c->name;
    char help[] = "--help";
    std::vector<char*> args = {name.data()};
    for (int i = 3; i < argc; ++i) args.push_back(argv[i]);
    args.push_back(help);
    return c->run(static_cast<int>(args.size()), args.data());
  }
  const Command* c = Find(cmd);
  if (!c) {
    std::cerr << "tk: unknown command '" << cmd << "' (tk help lists the commands)\n";
    return tk::cli::kExitUsage;
  }
  std::string name = std::string("tk ") + c->name;
  std::vector<char*> args(argv + 1, argv + argc);
  args[0] = name.data();
  return c->run(static_cast<int>(args.size()), args.data());
}
