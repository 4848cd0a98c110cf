// tk script [--json] [--ns] [FILE|-]: every event in time order, as perf script prints it or as
// JSON Lines (analyses/script/script.h has the shapes, event_fields.h the field keys).
#include <algorithm>
#include <iostream>
#include <string>

#include "analyses/script/script.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/filter_options.h"
#include "core/absl_compat.h"
#include "nlohmann/json.hpp"

namespace tk::cli {

int RunScript(int argc, char** argv) {
  CLI::App app(
      "Print every event in time order: one line per event shaped like `perf script` "
      "(tracepoint fields in the kernel's print format, samples with their stacks), or JSON "
      "Lines with --json (keys ts_ns, cpu, pid, tid, comm, event, fields; fields keyed by the "
      "tracepoint format's field names, the same for every input format).",
      "tk script");
  std::string path = "perf.data";
  analyses::script::Options sopts;
  bool ns = false;
  ParseOptions popts;
  app.add_option("file", path,
                 "Input file (perf.data, trace.dat, perf script or ftrace text); - for stdin")
      ->capture_default_str();
  app.add_flag("--json", sopts.json, "JSON Lines: one object per event");
  app.add_flag("--ns", ns, "Times with 9 decimals (nanoseconds) instead of 6");
  std::string fields;
  app.add_option("-F,--fields", fields,
                 "Text fields, as perf script -F: comm,tid,pid,cpu,time,period,event,trace,ip,"
                 "sym,symoff,dso (one list for every event type)");
  app.add_flag("--show-task-events", sopts.show_task_events,
               "Also print COMM/FORK/EXIT records (perf.data side-band), as perf script does");
  AddSymbolOptions(app, &popts);
  FilterFlags ff;
  FilterNames fnames;
  fnames.comm = "-c,--comms,--comm";  // perf script's -c/--comms
  AddFilterOptions(&app, &ff, fnames);
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  std::optional<FilterOptions> fopts = ResolveFilter(ff, "script", path);
  if (!fopts) return kExitUsage;
  const Filter filter(std::move(*fopts));
  if (ns) sopts.time_digits = 9;
  if (!fields.empty()) {
    absl::StatusOr<uint32_t> bits = analyses::script::ParseFields(fields);
    if (!bits.ok()) return Fail("script: " + std::string(SV(bits.status().message())), kExitUsage);
    sopts.fields = *bits;
  }

  analyses::script::ScriptSink sink(sopts, std::cout);
  FilterSink filtered(filter, sink);
  EventSink& target = filter.empty() ? static_cast<EventSink&>(sink) : filtered;
  Pipeline p;
  std::string facts;
  p.facts = &facts;
  p.out = &std::cout;
  // perf pads event names to the longest of the file's events (perf.data's attrs).
  p.before_parse = [&](Input&, Format, Parser&) {
    nlohmann::json d = nlohmann::json::parse(facts, nullptr, false);
    if (d.is_object() && d.contains("perf_events"))
      for (const auto& ev : d["perf_events"])
        if (ev.contains("name"))
          sink.set_name_width(std::max(sink.name_width(), ev["name"].get<std::string>().size()));
    return -1;
  };
  p.nothing_reason = [] { return std::string(); };  // an input without events prints nothing
  if (int rc = RunPipeline(path, popts, target, p); rc != kExitOk) return rc;
  return FinishOutput(std::cout);
}

}  // namespace tk::cli
