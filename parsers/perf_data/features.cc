// Feature sections. Each is a little format of its own; strings are `{u32 len; char[len]}`
// with len counting the NUL padding ("vm\0\0\0\0\0\0" has len 8).
//
//   HOSTNAME/OSRELEASE/VERSION/ARCH/CPUDESC/CPUID: one string
//   NRCPUS: {u32 available, u32 online}      TOTAL_MEM: u64 kB
//   CMDLINE: {u32 nr; string × nr}           CLOCKID: u64
//   EVENT_DESC: {u32 nr, u32 attr_size; {attr, u32 nr_ids, string name, u64 ids[nr_ids]} × nr}
//   BUILD_ID: records {hdr{type,misc,size}, s32 pid, u8 build_id[24], char filename[]} with
//             the id length in build_id[20] when misc bit 15 is set, else 20
//   COMPRESSED: {u32 version, type, level, ratio, mmap_len}
//   SAMPLE_TIME: {u64 first, u64 last}
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/absl_compat.h"
#include "parsers/perf_data/abi.h"
#include "parsers/perf_data/metadata.h"

namespace tk::parsers::perf_data {
namespace {

bool ReadString(ByteReader& r, std::string* out) {
  uint32_t len;
  std::string_view s;
  if (!r.Read(&len) || !r.Bytes(len, &s)) return false;
  size_t nul = s.find('\0');
  *out = std::string(s.substr(0, nul));
  return true;
}

std::string Hex(std::string_view bytes) {
  std::string s;
  for (unsigned char c : bytes) absl::StrAppendFormat(&s, "%02x", c);
  return s;
}

bool ParseBuildIds(ByteReader& r, std::vector<BuildIdEntry>* out) {
  while (r.remaining() >= 8) {
    size_t start = r.pos();
    uint32_t type;
    uint16_t misc, size;
    if (!r.Read(&type) || !r.Read(&misc) || !r.Read(&size)) return false;
    if (size < 8 + 4 + 24 || size > r.remaining() + 8) return false;
    BuildIdEntry e;
    std::string_view id, name;
    if (!r.Read(&e.pid) || !r.Bytes(24, &id)) return false;
    size_t id_len = (misc & (1u << 15)) ? static_cast<uint8_t>(id[20]) : 20;
    e.build_id = Hex(id.substr(0, std::min<size_t>(id_len, 20)));
    e.cpumode = misc & kMiscCpumodeMask;
    if (!r.Bytes(start + size - r.pos(), &name)) return false;
    e.filename = std::string(name.substr(0, name.find('\0')));
    out->push_back(std::move(e));
  }
  return true;
}

bool ParseEventDesc(ByteReader& r, Metadata* m) {
  uint32_t nr, attr_size;
  if (!r.Read(&nr) || !r.Read(&attr_size)) return false;
  for (uint32_t i = 0; i < nr; ++i) {
    std::string_view attr;
    uint32_t nr_ids;
    std::string name;
    if (!r.Bytes(attr_size, &attr) || !r.Read(&nr_ids) || !ReadString(r, &name)) return false;
    if (nr_ids > r.remaining() / 8) return false;
    std::vector<uint64_t> ids(nr_ids);
    for (uint64_t& id : ids) r.Read(&id);
    m->desc_names.emplace_back(std::move(ids), std::move(name));
  }
  return true;
}

}  // namespace

absl::Status Metadata::AddFeature(int bit, std::string_view bytes) {
  if (std::find(features.begin(), features.end(), bit) == features.end()) {
    features.insert(std::upper_bound(features.begin(), features.end(), bit), bit);
  }
  ByteReader r(bytes, swap);
  bool ok = true;
  switch (bit) {
    case kFeatHostname: ok = ReadString(r, &hostname); break;
    case kFeatOsRelease: ok = ReadString(r, &os_release); break;
    case kFeatVersion: ok = ReadString(r, &perf_version); break;
    case kFeatArch: ok = ReadString(r, &arch); break;
    case kFeatCpuDesc: ok = ReadString(r, &cpu_desc); break;
    case kFeatCpuId: ok = ReadString(r, &cpu_id); break;
    case kFeatNrCpus: ok = r.Read(&nr_cpus_available) && r.Read(&nr_cpus_online); break;
    case kFeatTotalMem: ok = r.Read(&total_mem_kb); break;
    case kFeatClockId: ok = has_clockid = r.Read(&clockid); break;
    case kFeatSampleTime: ok = r.Read(&first_sample_time) && r.Read(&last_sample_time); break;
    case kFeatCmdline: {
      uint32_t nr;
      ok = r.Read(&nr) && nr <= r.remaining() / 4;
      cmdline.clear();
      for (uint32_t i = 0; ok && i < nr; ++i) {
        std::string arg;
        ok = ReadString(r, &arg);
        if (i) cmdline += ' ';
        cmdline += arg;
      }
      break;
    }
    case kFeatEventDesc: ok = ParseEventDesc(r, this); break;
    case kFeatBuildId: ok = ParseBuildIds(r, &build_ids); break;
    case kFeatTracingData: tracing_data = std::string(bytes); break;
    case kFeatCompressed:
      ok = has_compression = r.Read(&comp_version) && r.Read(&comp_type) &&
                             r.Read(&comp_level) && r.Read(&comp_ratio) && r.Read(&comp_mmap_len);
      break;
    default: break;
  }
  if (!ok) {
    std::string what =
        absl::StrCat("malformed ", AV(FeatureName(bit)), " feature section (", bytes.size(), " bytes)");
    if (bit == kFeatCompressed) return absl::InvalidArgumentError(what);
    warnings.push_back(absl::StrCat(what, "; ignored, as perf does"));
  }
  return absl::OkStatus();
}

void Metadata::ResolveNames() {
  for (size_t i = 0; i < events.size(); ++i) {
    EventInfo& ev = events[i];
    if (ev.named) continue;
    const std::string* found = nullptr;
    for (const auto& [ids, name] : desc_names) {
      for (uint64_t id : ids) {
        if (std::find(ev.ids.begin(), ev.ids.end(), id) != ev.ids.end()) found = &name;
      }
      if (found) break;
    }
    // Without ids (attrs without id arrays), EVENT_DESC lists events in attr order.
    if (!found && desc_names.size() == events.size()) found = &desc_names[i].second;
    if (found) {
      ev.name = *found;
      ev.named = true;
    } else if (ev.name.empty()) {
      ev.name = DefaultEventName(ev.attr);
    }
  }
}

// EVENT_UPDATE: {hdr, u64 type, u64 id, data}; type 2 (NAME) carries the event's name.
void Metadata::ApplyEventUpdate(std::string_view body) {
  ByteReader r(body, swap);
  uint64_t type, id;
  if (!r.Read(&type) || !r.Read(&id) || type != 2) return;
  std::string_view name = body.substr(r.pos());
  name = name.substr(0, name.find('\0'));
  for (EventInfo& ev : events) {
    if (std::find(ev.ids.begin(), ev.ids.end(), id) != ev.ids.end()) {
      ev.name = std::string(name);
      ev.named = true;
    }
  }
}

}  // namespace tk::parsers::perf_data
