// tk info: what a trace file holds. Format-specific header facts come from the reader's
// Describe*() (perf.data, trace.dat); the event counts come from one pass of the parser, so
// they are the same numbers every analysis sees.
#include <iostream>
#include <map>

#include "absl/container/flat_hash_map.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "core/absl_compat.h"
#include "core/input.h"
#include "core/intern.h"
#include "core/stats.h"
#include "core/timestamp.h"
#include "nlohmann/json.hpp"

namespace tk::cli {
namespace {

// Counts events by name, samples, lost events and the time span.
class CountingSink final : public EventSink {
 public:
  // Stacks only for --call-graph dwarf files: their unwinding counters are part of the info.
  void set_stacks(bool on) { stacks_ = on; }
  EventMask wants() const override { return EventMask::All().WithStacks(stacks_); }
  absl::Status OnEvent(const Event& e) override {
    switch (e.kind()) {
      case EventKind::kComm:
      case EventKind::kFork:
      case EventKind::kExit:
        ++side_band_;
        return absl::OkStatus();
      case EventKind::kLost: {
        const Lost& l = std::get<Lost>(e.body);
        if (l.kind == Lost::Kind::kThrottle || l.kind == Lost::Kind::kUnthrottle) {
          ++throttle_;
        } else {
          // PERF_RECORD_LOST and PERF_RECORD_LOST_SAMPLES count the same drops two ways
          // (ring buffer full: the kernel emits both), so they are kept apart, never summed.
          if (l.kind == Lost::Kind::kLostSamples) {
            lost_samples_ += l.count;
          } else {
            lost_ += l.count;
          }
          ++lost_records_;
        }
        return absl::OkStatus();
      }
      default:
        break;
    }
    ++samples_;
    auto it = events_.find(e.name);
    if (it == events_.end()) it = events_.emplace(names_.Intern(e.name), 0).first;
    ++it->second;
    if (e.ts_ns >= 0) {
      if (first_ < 0 || e.ts_ns < first_) first_ = e.ts_ns;
      if (e.ts_ns > last_) last_ = e.ts_ns;
    }
    if (e.cpu >= 0) cpus_seen_ = std::max(cpus_seen_, e.cpu + 1);
    return absl::OkStatus();
  }

  void Fill(nlohmann::json& j) const {
    j["samples"] = samples_;
    nlohmann::json ev = nlohmann::json::object();
    std::map<std::string_view, uint64_t> sorted(events_.begin(), events_.end());
    for (const auto& [name, n] : sorted) ev[std::string(name)] = n;
    j["events"] = ev;
    // `lost` is what perf report calls "Total Lost Samples" when the file has LOST_SAMPLES
    // records, else the sum of LOST records / ring-buffer overruns (trace.dat, text).
    j["lost"] = lost_samples_ > 0 ? lost_samples_ : lost_;
    j["lost_events"] = lost_;
    j["lost_samples"] = lost_samples_;
    j["lost_records"] = lost_records_;
    j["throttle_records"] = throttle_;
    j["side_band_records"] = side_band_;
    if (first_ >= 0) {
      j["first_sample_time"] = FormatTimestamp(first_, 9);
      j["last_sample_time"] = FormatTimestamp(last_, 9);
      j["duration_s"] = FormatTimestamp(last_ - first_, 6);
    }
    if (cpus_seen_ > 0) j["cpus_seen"] = cpus_seen_;
  }

 private:
  bool stacks_ = false;
  uint64_t samples_ = 0, lost_ = 0, lost_samples_ = 0, lost_records_ = 0, throttle_ = 0, side_band_ = 0;
  int64_t first_ = -1, last_ = -1;
  int32_t cpus_seen_ = 0;
  Interner names_;
  absl::flat_hash_map<std::string_view, uint64_t> events_;
};

void PrintText(const nlohmann::json& j, std::ostream& out, const std::string& indent = "") {
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it->is_object()) {
      out << indent << it.key() << ":\n";
      PrintText(*it, out, indent + "  ");
    } else if (it->is_array()) {
      out << indent << it.key() << ":";
      bool scalars = true;
      for (const auto& v : *it) scalars = scalars && !v.is_structured();
      if (scalars) {
        for (const auto& v : *it) out << " " << (v.is_string() ? v.get<std::string>() : v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
        out << "\n";
      } else {
        out << "\n";
        for (const auto& v : *it) out << indent << "  - " << v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      }
    } else {
      out << indent << it.key() << ": " << (it->is_string() ? it->get<std::string>() : it->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
          << "\n";
    }
  }
}

// The counters (core/stats.h) that fired: {"name": {"value", "severity", "description"}}.
nlohmann::json CountersJson(const Diagnostics& diag) {
  nlohmann::json c = nlohmann::json::object();
  for (const StatInfo& s : kStats) {
    if (uint64_t n = diag.count(s.id)) {
      c[std::string(s.name)] = {{"value", n},
                                {"severity", std::string(SeverityName(s.severity))},
                                {"description", std::string(s.description)}};
    }
  }
  return c;
}

// "counters:" then one "  name  value  description" line each, names and values aligned.
void PrintCounters(const nlohmann::json& c, std::ostream& out) {
  if (c.empty()) return;
  size_t w = 0, vw = 0;
  for (auto it = c.begin(); it != c.end(); ++it) {
    w = std::max(w, it.key().size());
    vw = std::max(vw, std::to_string((*it)["value"].get<uint64_t>()).size());
  }
  out << "counters:\n";
  for (auto it = c.begin(); it != c.end(); ++it) {
    std::string v = std::to_string((*it)["value"].get<uint64_t>());
    out << "  " << it.key() << std::string(w - it.key().size() + 2, ' ')
        << std::string(vw - v.size(), ' ') << v << "  "
        << (*it)["description"].get<std::string>() << "\n";
  }
}

}  // namespace

int RunInfo(int argc, char** argv) {
  CLI::App app("Describe a trace file: format, header facts, events with counts, lost events.",
               "tk info");
  std::string path = "perf.data";
  bool json = false;
  ParseOptions opts;
  app.add_option("file", path, "Input file (perf.data, trace.dat, perf script or ftrace text); - for stdin")
      ->capture_default_str();
  app.add_flag("--json", json, "Print one JSON object");
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;

  nlohmann::json j = nlohmann::json::object();
  bool dwarf = false;  // an event samples user stacks (--call-graph dwarf)
  CountingSink counter;
  // The header facts, before the events are counted: they say whether the file has
  // --call-graph dwarf stacks, whose unwinding counters are part of the info.
  auto describe = [&](Input& in, Format format, Parser& parser) -> int {
    j["file"] = in.name();
    j["format"] = std::string(FormatName(format));
    if (parser.Describes()) {
      if (absl::Status st = in.EnsureMapped(); !st.ok()) return Fail(SV(st.message()), kExitUsage);
      absl::StatusOr<std::string> d = parser.Describe(in);
      if (!d.ok()) return Fail(SV(d.status().message()), kExitData);
      nlohmann::json facts = nlohmann::json::parse(*d);
      for (auto it = facts.begin(); it != facts.end(); ++it) j[it.key()] = *it;
    }
    if (j.contains("perf_events")) {
      for (const auto& ev : j["perf_events"]) {
        dwarf |= ev.contains("sample_type") &&
                 ev["sample_type"].dump().find("STACK_USER") != std::string::npos;
      }
    }
    counter.set_stacks(dwarf);
    return -1;
  };
  nlohmann::json unwinding = nlohmann::json::object();
  uint64_t malformed = 0;
  nlohmann::json counters;
  Pipeline pipe;
  pipe.before_parse = describe;
  pipe.after_parse = [&](const Diagnostics& diag) {
    for (Stat k : {Stat::kDwarfUnwoundToEnd, Stat::kDwarfCutAtDumpEnd,
                   Stat::kDwarfStoppedNoCfiOrElf, Stat::kDwarfStoppedMaxStack,
                   Stat::kDwarfNoUserRegs}) {
      unwinding[std::string(Describe(k).name.substr(6))] = diag.count(k);  // without "dwarf_"
    }
    malformed = diag.total_malformed();
    counters = CountersJson(diag);
  };
  pipe.nothing_reason = [] { return std::string(); };  // an input with no events is described
  opts.inline_frames = false;  // unwinding counters only: no inline lookups
  if (int rc = RunPipeline(path, opts, counter, pipe); rc != kExitOk) return rc;
  counter.Fill(j);
  if (dwarf) j["dwarf_unwinding"] = unwinding;
  if (malformed) j["malformed_records"] = malformed;
  j["counters"] = counters;
  if (json) {
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    nlohmann::json counters = std::move(j["counters"]);
    j.erase("counters");
    PrintText(j, std::cout);
    PrintCounters(counters, std::cout);
  }
  return FinishOutput(std::cout);
}

}  // namespace tk::cli
