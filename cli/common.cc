#include "cli/common.h"

#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include "core/absl_compat.h"
#include "core/diag.h"
#include "core/input.h"
#include "core/kernel_events.h"
#include "core/run_settings.h"

namespace tk::cli {

namespace {

// --threads and --quiet, on every command and subcommand that does not have its own (tk fold
// has its own --threads, tk report its -q,--quiet): they set core/run_settings.h.
int g_threads_flag = 0;
bool g_quiet_flag = false;

void AddRunOptions(CLI::App& app) {
  if (!app.get_option_no_throw("--threads")) {
    app.add_option("--threads", g_threads_flag,
                   "Threads (default 2 on 2+ cores): perf.data is framed and time-ordered, "
                   "a trace.dat's CPU streams merged, on one while the other decodes and "
                   "analyses; output is the same with 1")
        ->check(CLI::PositiveNumber);
  }
  if (!app.get_option_no_throw("--quiet")) {
    app.add_flag("--quiet", g_quiet_flag, "No progress line on stderr (shown on a terminal for runs over 2 s)");
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) AddRunOptions(*sub);
}

// The value of the parsed command's --threads / --quiet, whichever app they belong to.
void ApplyRunOptions(CLI::App& app, int* threads, bool* quiet) {
  if (const CLI::Option* o = app.get_option_no_throw("--threads"); o && o->count()) {
    *threads = o->as<int>();
  }
  if (const CLI::Option* o = app.get_option_no_throw("--quiet"); o && o->count()) *quiet = true;
  for (CLI::App* sub : app.get_subcommands()) ApplyRunOptions(*sub, threads, quiet);
}

}  // namespace

int ParseArgs(CLI::App& app, int argc, char** argv) {
  AddRunOptions(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    std::cout << app.help();
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    // One line, "tk fold: what" (the app's name already is "tk CMD").
    return UsageError(app.get_name(), e.what());
  }
  int threads = 0;
  bool quiet = false;
  ApplyRunOptions(app, &threads, &quiet);
  if (threads <= 0) {
    // The CPUs this process may run on (no file read: hardware_concurrency() opens
    // /sys/devices/system/cpu/online, a host file no input needs).
    cpu_set_t set;
    CPU_ZERO(&set);
    threads = sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) >= 2 ? 2 : 1;
  }
  SetDefaultThreads(threads);
  EnableProgress(!quiet && ::isatty(STDERR_FILENO));
  return -1;
}

const CLI::Validator& NonNegative() {
  static const CLI::Validator v(
      [](std::string& s) -> std::string {
        return !s.empty() && s[0] == '-' ? "must not be negative: " + s : std::string();
      },
      "N>=0");
  return v;
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
  // Splits file-mode perf.data of at least this many bytes of records in two halves parsed on
  // two threads (ParseOptions::perf_data_split_min_bytes; off by default; tests force it).
  app.add_option("--perf-data-split-min", opts->perf_data_split_min_bytes)->group("");
}

int UsageError(std::string_view command, std::string_view what) {
  std::cerr << command << ": " << what << " (see '" << command << " --help')\n";
  return kExitUsage;
}

void AddFoldNameFlags(CLI::App& app, FoldNameFlags* f, const std::string& filter_help) {
  app.add_flag("--kernel", f->names.annotate_kernel, "Annotate kernel functions with _[k]");
  app.add_flag("--jit", f->names.annotate_jit, "Annotate JIT functions with _[j]");
  app.add_flag("--all", f->all, "All annotations (--kernel --jit)");
  app.add_flag("--addrs", f->names.include_addrs,
               "Include raw addresses where symbols cannot be found: [dso <addr>]");
  app.add_option("--event-filter", f->event_filter, filter_help);
}

int Fail(std::string_view message, int code) {
  std::cerr << "tk: " << message << "\n";
  return code;
}

namespace {

bool IsSideBand(EventKind k) {
  return k == EventKind::kComm || k == EventKind::kFork || k == EventKind::kExit ||
         k == EventKind::kLost;
}

// The events an analysis cannot do without, from what it wants: the typed families (irq,
// syscalls, page events) for the reports built on them, block requests for iolat, context
// switches for sched; any event (*any) otherwise.
EventMask KeyKinds(EventMask wants, bool* any) {
  *any = false;
  EventMask families;
  for (EventKind k : {EventKind::kIrq, EventKind::kSoftirq, EventKind::kSyscall, EventKind::kPage})
    if (wants.Has(k)) families.Add(k);
  if (families.Has(EventKind::kIrq) || families.Has(EventKind::kSoftirq) ||
      families.Has(EventKind::kSyscall) || families.Has(EventKind::kPage))
    return families;
  if (wants.Has(EventKind::kBlockRq)) return EventMask().Add(EventKind::kBlockRq);
  if (wants.Has(EventKind::kSchedSwitch)) return EventMask().Add(EventKind::kSchedSwitch);
  *any = true;
  return EventMask();
}

// The analysis itself, its events counted on the way by the analysis' key kind, so a command
// can say what its input lacks instead of printing an empty report. A wrapper rather than a
// second sink in a Fanout: the Fanout's loop and second virtual call per event were 2.6% of
// tk report's decoding thread (callgrind, session 8); this costs a mask test.
class KeyEventCounter final : public EventSink {
 public:
  KeyEventCounter(EventSink& analysis, EventMask analysis_wants) : analysis_(analysis) {
    bool any = false;
    EventMask key = KeyKinds(analysis_wants, &any);
    if (!any) {
      key_ = key;
      return;
    }
    for (int k = 0; k < kNumEventKinds; ++k) {  // any event the analysis reads, side-band aside
      const EventKind kind = static_cast<EventKind>(k);
      if (analysis_wants.Has(kind) && !IsSideBand(kind)) key_.Add(kind);
    }
  }
  EventMask wants() const override { return analysis_.wants(); }
  void OnTraceInfo(const TraceInfo& info) override { analysis_.OnTraceInfo(info); }
  // The analysis first: its error stops the pass before the event is counted.
  absl::Status OnEvent(const Event& e) override {
    if (absl::Status st = analysis_.OnEvent(e); !st.ok()) return st;
    if (key_.Has(e.kind())) ++events_;
    return absl::OkStatus();
  }
  absl::Status Finish() override { return analysis_.Finish(); }
  uint64_t events() const { return events_; }

 private:
  EventSink& analysis_;
  EventMask key_;
  uint64_t events_ = 0;
};

}  // namespace

std::string MissingEvents(EventMask wants) {
  constexpr const char* kAnyEvent =
      "none of the events this command reads (tk info lists what the file holds)";
  bool any;
  const EventMask key = KeyKinds(wants, &any);
  if (any) return kAnyEvent;
  for (const RecordingNeeds* n : kAllRecordingNeeds) {
    bool needs_any;
    if (KeyKinds(n->kinds, &needs_any) == key) return n->missing;
  }
  return kAnyEvent;
}

namespace {
std::unique_ptr<OpenedInput> g_opened;  // OpenInputOnce's, until RunPipeline takes it
}  // namespace

absl::StatusOr<OpenedInput*> OpenInputOnce(const std::string& path) {
  if (g_opened && g_opened->path == path) return g_opened.get();
  absl::StatusOr<std::unique_ptr<Input>> in = Input::Open(path);
  if (!in.ok()) return in.status();
  auto opened = std::make_unique<OpenedInput>();
  opened->path = path;
  opened->input = *std::move(in);
  // A failed read of the first bytes is an I/O error.
  if (absl::StatusOr<std::string_view> head = opened->input->Peek(8192); !head.ok()) {
    return head.status();
  }
  (void)DetectParser(*opened->input, ParseOptions(), &opened->format);
  g_opened = std::move(opened);
  return g_opened.get();
}

std::unique_ptr<OpenedInput> TakeOpenedInput(const std::string& path) {
  if (!g_opened || g_opened->path != path) return nullptr;
  return std::move(g_opened);
}

int RunPipeline(const std::string& path, const ParseOptions& opts, EventSink& sink,
                const Pipeline& p) {
  if (absl::StatusOr<OpenedInput*> o = OpenInputOnce(path); !o.ok()) {
    return Fail(SV(o.status().message()), kExitUsage);
  }
  const std::unique_ptr<OpenedInput> opened = TakeOpenedInput(path);
  Input& input = *opened->input;
  const Format format = opened->format;
  absl::StatusOr<std::unique_ptr<Parser>> parser = ParserFor(input, format, opts);
  if (p.detected) *p.detected = format;
  if (!parser.ok()) return Fail(SV(parser.status().message()), kExitData);
  if (p.facts) {
    absl::StatusOr<std::string> facts = DescribeFacts(input, **parser);
    *p.facts = facts.ok() ? *std::move(facts) : "{}";
  }
  if (p.before_parse) {
    if (int rc = p.before_parse(input, format, **parser); rc >= 0) return rc;
  }
  std::ostream silent(nullptr);  // a stream with no buffer writes nothing
  const std::string& name = p.name.empty() ? input.name() : p.name;
  Diagnostics diag(name, p.diagnostics_printed ? &silent : nullptr);
  // Counted only where the command has no check of its own. (Parts are not counted: the
  // partitioned analyses, tk fold and tk report, name what their input lacks themselves.)
  KeyEventCounter counted(sink, sink.wants());
  absl::Status st;
  if (p.parts) {
    st = (*parser)->ParseParts(input, *p.parts, diag);
  } else if (p.nothing_reason) {
    st = (*parser)->Parse(input, sink, diag);
  } else {
    st = (*parser)->Parse(input, counted, diag);
  }
  if (p.out && absl::IsCancelled(st) && !*p.out) {
    // The output failed (the sink's only error): a closed pipe (`tk script | head`) is success.
    return errno == EPIPE ? kExitOk : WriteError();
  }
  diag.PrintSummary();
  if (p.after_parse) p.after_parse(diag);
  if (!st.ok()) return Fail(SV(st.message()), kExitData);
  std::string why = p.nothing_reason ? p.nothing_reason()
                    : counted.events() > 0 ? std::string()
                    : p.needs              ? std::string(p.needs)
                                           : MissingEvents(sink.wants());
  if (!why.empty()) return Fail(name + ": " + why, kExitData);
  return kExitOk;
}

int RunPipeline(const std::string& path, const ParseOptions& opts, EventSink& sink,
                Format* detected, const char* needs) {
  Pipeline p;
  p.detected = detected;
  p.needs = needs;
  return RunPipeline(path, opts, sink, p);
}

int FinishOutput(std::ostream& out) {
  out.flush();
  if (out.fail()) {
    if (errno == EPIPE) return kExitOk;
    return WriteError();
  }
  return kExitOk;
}

int WriteError() {
  return Fail(std::string("error writing output: ") + std::strerror(errno), kExitUsage);
}

}  // namespace tk::cli
