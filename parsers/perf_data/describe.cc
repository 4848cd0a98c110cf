// DescribePerfData: header facts for `tk info` (what `perf report --header-only` shows).
#include <bit>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"
#include "parsers/perf_data/abi.h"
#include "parsers/perf_data/perf_data_parser.h"
#include "parsers/perf_data/session.h"

namespace tk::parsers::perf_data {
namespace {

std::string SampleTypeNames(uint64_t st) {
  static constexpr const char* kNames[] = {
      "IP",        "TID",         "TIME",     "ADDR",      "READ",           "CALLCHAIN",
      "ID",        "CPU",         "PERIOD",   "STREAM_ID", "RAW",            "BRANCH_STACK",
      "REGS_USER", "STACK_USER",  "WEIGHT",   "DATA_SRC",  "IDENTIFIER",     "TRANSACTION",
      "REGS_INTR", "PHYS_ADDR",   "AUX",      "CGROUP",    "DATA_PAGE_SIZE", "CODE_PAGE_SIZE",
      "WEIGHT_STRUCT"};
  std::vector<std::string> parts;
  for (size_t i = 0; i < 64; ++i) {
    if (!((st >> i) & 1)) continue;
    parts.push_back(i < std::size(kNames) ? kNames[i] : absl::StrCat("bit", i));
  }
  return absl::StrJoin(parts, "|");
}

nlohmann::json EventsJson(const Metadata& m) {
  nlohmann::json evs = nlohmann::json::array();
  for (const EventInfo& ev : m.events) {
    nlohmann::json e;
    e["name"] = ev.name;
    e["type"] = ev.attr.type;
    e["config"] = ev.attr.config;
    e["attr_size"] = ev.attr.size;
    e[ev.attr.freq() ? "sample_freq" : "sample_period"] = ev.attr.sample_period;
    e["sample_type"] = SampleTypeNames(ev.attr.sample_type);
    e["ids"] = ev.ids.size();
    evs.push_back(std::move(e));
  }
  return evs;
}

absl::StatusOr<nlohmann::json> Describe(Input& in) {
  uint64_t records = 0, compressed = 0;
  absl::StatusOr<Metadata> m = ReadMetadata(in, &records, &compressed);
  if (!m.ok()) return m.status();
  nlohmann::json j = nlohmann::json::object();
  auto put = [&](const char* key, const std::string& v) {
    if (!v.empty()) j[key] = v;
  };
  put("perf_version", m->perf_version);
  put("hostname", m->hostname);
  put("os_release", m->os_release);
  put("arch", m->arch);
  if (m->nr_cpus_online) {
    j["nr_cpus_online"] = m->nr_cpus_online;
    j["nr_cpus_available"] = m->nr_cpus_available;
  }
  put("cpu_desc", m->cpu_desc);
  put("cpuid", m->cpu_id);
  if (m->total_mem_kb) j["total_mem_kb"] = m->total_mem_kb;
  put("cmdline", m->cmdline);
  // The recording's byte order, in trace.dat's words: this host's order unless swapped.
  const bool little = (std::endian::native == std::endian::little) != m->swap;
  j["byte_order"] = little ? "little-endian" : "big-endian";
  j["pipe_mode"] = m->pipe;
  if (!m->pipe) {
    j["attr_size"] = m->attr_size;
    j["data_offset"] = m->data_offset;
    j["data_size"] = m->data_size;
  }
  j["truncated"] = m->truncated;
  j["records"] = records;
  j["perf_events"] = EventsJson(*m);
  nlohmann::json feats = nlohmann::json::array();
  for (int bit : m->features) feats.push_back(std::string(FeatureName(bit)));
  j["features"] = feats;
  nlohmann::json ids = nlohmann::json::array();
  for (const BuildIdEntry& b : m->build_ids) {
    ids.push_back(nlohmann::json{{"build_id", b.build_id}, {"filename", b.filename}});
  }
  j["build_ids"] = ids;
  if (m->has_compression || compressed) {
    j["compression"] = nlohmann::json{{"type", m->comp_type == 1 || m->comp_type == 0 ? "zstd" : absl::StrCat("type ", m->comp_type)},
                                      {"level", m->comp_level},
                                      {"ratio", m->comp_ratio},
                                      {"compressed_records", compressed}};
  } else {
    j["compression"] = "none";
  }
  j["tracing_data_bytes"] = m->tracing_data.size();
  return j;
}

}  // namespace

absl::StatusOr<std::string> DescribePerfData(Input& in) {
  absl::StatusOr<nlohmann::json> j = Describe(in);
  if (!j.ok()) return j.status();
  return j->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace tk::parsers::perf_data
