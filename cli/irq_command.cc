// `tk irq [stats|hist|freq|log] [options] [FILE|-]`: interrupt handler durations and softirq
// raise latency (lttng-irqstats / irqfreq / irqlog, bcc hardirqs -d / softirqs -d).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "analyses/irq/irq.h"
#include "analyses/sched/timehist.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/report_flags.h"
#include "core/absl_compat.h"
#include "core/filter.h"
#include "core/kernel_events.h"

namespace tk::cli {
namespace {

struct IrqFlags {
  ReportFlags report;
  irq::IrqOptions opts;
  std::string irqs, vecs;
  bool hard_only = false, soft_only = false;
};

void AddIrqFlags(CLI::App* c, IrqFlags* f) {
  AddReportFlags(c, &f->report, false);
  c->add_option("--min", f->opts.min_us, "Only durations of at least this many µs");
  c->add_option("--max", f->opts.max_us, "Only durations of at most this many µs");
  c->add_option("--irq", f->irqs, "Only these hard IRQ numbers (1,2-5)");
  c->add_option("--softirq", f->vecs, "Only these softirq vectors (0-9)");
  c->add_flag("--hard-only", f->hard_only, "Hard IRQs only");
  c->add_flag("--soft-only", f->soft_only, "Softirqs only");
}

// Copies stdin into an unlinked-on-exit temporary file, so that it can be read twice.
struct Spool {
  std::string path;
  ~Spool() {
    if (!path.empty()) std::remove(path.c_str());
  }
  absl::Status FromStdin() {
    const char* tmp = std::getenv("TMPDIR");
    std::string t = std::string(tmp && *tmp ? tmp : "/tmp") + "/tk-irq-XXXXXX";
    int fd = mkstemp(t.data());
    if (fd < 0) return absl::UnavailableError("cannot create a temporary file for stdin");
    path = t;
    char buf[1 << 16];
    for (ssize_t n; (n = read(0, buf, sizeof(buf))) != 0;) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 || write(fd, buf, static_cast<size_t>(n)) != n) {
        close(fd);
        return absl::UnavailableError("cannot spool stdin to " + path);
      }
    }
    close(fd);
    return absl::OkStatus();
  }
};

// tk irq freq without --min and --max: each table spans its series' own [min, max], so a
// first pass (the stats) finds the ranges and a second fills fixed tables as durations come
// (memory: series × buckets, whatever the input's size). stdin is spooled to read it twice.
int RunFreqTwoPass(IrqFlags& f) {
  Spool spool;
  ReportFlags flags = f.report;
  Pipeline pipe;
  if (flags.path == "-") {
    pipe.name = "<stdin>";  // as Input names it
    if (absl::Status st = spool.FromStdin(); !st.ok()) return Fail(SV(st.message()), kExitUsage);
    flags.path = spool.path;
  }
  irq::IrqOptions first = f.opts;
  first.mode = irq::IrqOptions::Mode::kStats;
  std::ostream null_out(nullptr);
  irq::IrqAnalysis stats(first, null_out);
  pipe.needs = kIrqNeeds.missing;
  if (int rc = RunPipeline(flags.path, ParseOptions(), stats, pipe); rc != kExitOk) {
    return rc;
  }
  irq::IrqOptions second = f.opts;
  for (bool soft : {false, true}) {
    for (const auto& [n, ser] : soft ? stats.soft() : stats.hard()) {
      second.freq_ranges[{soft, n}] = {ser.duration.min() / 1000.0, ser.duration.max() / 1000.0};
    }
  }
  irq::IrqAnalysis a(second, std::cout);
  pipe.diagnostics_printed = true;  // by the first pass
  return RunReport(flags, a, kIrqNeeds.missing, pipe);
}

int Run(IrqFlags& f, irq::IrqOptions::Mode mode) {
  irq::IrqOptions& o = f.opts;
  o.mode = mode;
  o.json = f.report.json;
  if (std::optional<FilterOptions> fo = f.report.Filter("irq")) {
    o.filter = std::move(*fo);
  } else {
    return kExitUsage;
  }
  for (auto [text, out] : {std::pair{&f.irqs, &o.irqs}, std::pair{&f.vecs, &o.vecs}}) {
    if (text->empty()) continue;
    absl::StatusOr<std::vector<int32_t>> v = ParseIdList(*text);
    if (!v.ok()) return Fail("irq: " + std::string(SV(v.status().message())), kExitUsage);
    *out = *v;
  }
  if (f.hard_only && f.soft_only)
    return Fail("irq: --hard-only and --soft-only exclude each other", kExitUsage);
  o.hard = !f.soft_only;
  o.soft = !f.hard_only;
  if (o.top < 0) return Fail("irq: --top must be at least 0", kExitUsage);
  if (o.freq_resolution < 1) return Fail("irq: --freq-resolution must be at least 1", kExitUsage);
  if (mode == irq::IrqOptions::Mode::kFreq && (o.min_us < 0 || o.max_us < 0)) {
    return RunFreqTwoPass(f);
  }
  irq::IrqAnalysis a(o, std::cout);
  return RunReport(f.report, a, kIrqNeeds.missing);
}

}  // namespace

int RunIrq(int argc, char** argv) {
  CLI::App app(
      "tk irq: hard IRQ and softirq handler durations per IRQ number and vector (count, min, "
      "avg, max, stdev in µs) and softirq raise latency, sorted by number (lttng-irqstats). "
      "Needs irq:irq_handler_entry/exit and irq:softirq_raise/entry/exit "
      "(perf record -a -e 'irq:*', trace-cmd record -e irq).",
      "tk irq");
  IrqFlags stats, hist, freq, log;
  AddIrqFlags(&app, &stats);
  app.add_option("--top,--limit", stats.opts.top,
                 "Also list the N longest interrupts of each IRQ and vector (0 = none)")
      ->capture_default_str();
  CLI::App* h = app.add_subcommand(
      "hist",
      "log2 histograms: per handler name, handled exits only (bcc hardirqs -d); per "
      "softirq vector (bcc softirqs -d)");
  AddIrqFlags(h, &hist);
  CLI::App* fr = app.add_subcommand(
      "freq", "linear frequency tables of handler durations per IRQ and vector (lttng-irqfreq)");
  AddIrqFlags(fr, &freq);
  fr->add_option("--freq-resolution", freq.opts.freq_resolution, "Buckets per table")
      ->capture_default_str();
  CLI::App* lg = app.add_subcommand(
      "log",
      "one row per interrupt as it ends: [begin, end] duration CPU type number name "
      "(raised at) (lttng-irqlog); --json: JSON Lines");
  AddIrqFlags(lg, &log);
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  using Mode = irq::IrqOptions::Mode;
  if (h->parsed()) return Run(hist, Mode::kHist);
  if (fr->parsed()) return Run(freq, Mode::kFreq);
  if (lg->parsed()) return Run(log, Mode::kLog);
  return Run(stats, Mode::kStats);
}

}  // namespace tk::cli
