#include "parsers/perf_data/attr.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "parsers/perf_data/abi.h"

namespace tk::parsers::perf_data {
namespace {

constexpr uint32_t kAttrSizeVer0 = 64;

uint64_t ReverseBits(uint64_t v) {
  uint64_t r = 0;
  for (int i = 0; i < 64; ++i) r |= ((v >> i) & 1) << (63 - i);
  return r;
}

// Reads a field at `off` when the attr is long enough to have it.
template <typename T>
void Field(std::string_view bytes, size_t off, bool swap, T* out) {
  if (off + sizeof(T) > bytes.size()) return;
  ByteReader r(bytes.substr(off, sizeof(T)), swap);
  r.Read(out);
}

}  // namespace

absl::StatusOr<EventAttr> ParseAttr(std::string_view bytes, bool swap) {
  if (bytes.size() < kAttrSizeVer0) {
    return absl::InvalidArgumentError(
        absl::StrCat("perf_event_attr of ", bytes.size(), " bytes (at least 64 expected)"));
  }
  EventAttr a;
  Field(bytes, 0, swap, &a.type);
  Field(bytes, 4, swap, &a.size);
  // Fields past the recorded size are not the attr's (they may be the id section).
  uint32_t size = a.size == 0 ? kAttrSizeVer0 : a.size;
  if (size < bytes.size()) bytes = bytes.substr(0, size);
  Field(bytes, 8, swap, &a.config);
  Field(bytes, 16, swap, &a.sample_period);
  Field(bytes, 24, swap, &a.sample_type);
  Field(bytes, 32, swap, &a.read_format);
  Field(bytes, 40, swap, &a.flags);
  if (swap) a.flags = ReverseBits(a.flags);
  Field(bytes, 72, swap, &a.branch_sample_type);
  Field(bytes, 80, swap, &a.sample_regs_user);
  Field(bytes, 88, swap, &a.sample_stack_user);
  Field(bytes, 96, swap, &a.sample_regs_intr);
  return a;
}

std::string DefaultEventName(const EventAttr& a) {
  static constexpr const char* kHw[] = {
      "cycles",   "instructions", "cache-references",        "cache-misses",
      "branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
      "stalled-cycles-backend", "ref-cycles"};
  static constexpr const char* kSw[] = {
      "cpu-clock",    "task-clock",   "page-faults",      "context-switches",
      "cpu-migrations", "minor-faults", "major-faults",   "alignment-faults",
      "emulation-faults", "dummy",    "bpf-output",       "cgroup-switches"};
  std::string name;
  if (a.type == kTypeHardware && a.config < std::size(kHw)) {
    name = kHw[a.config];
  } else if (a.type == kTypeSoftware && a.config < std::size(kSw)) {
    name = kSw[a.config];
  } else if (a.type == kTypeRaw) {
    name = absl::StrFormat("r%x", a.config);
  } else if (a.type == kTypeTracepoint) {
    name = absl::StrCat("tracepoint:", a.config);
  } else {
    name = absl::StrFormat("unknown-%u:0x%x", a.type, a.config);
  }
  // evsel__add_modifiers: k/u/h for the contexts not excluded when any is excluded, "p"
  // per precise_ip level, H/G when exclude_host/exclude_guest differ from the default.
  std::string mods;
  bool guest_default = false;
  if (a.exclude_kernel() || a.exclude_user() || a.exclude_hv()) {
    if (!a.exclude_kernel()) mods += 'k';
    if (!a.exclude_user()) mods += 'u';
    if (!a.exclude_hv()) mods += 'h';
    guest_default = true;
  }
  if (a.precise_ip()) {
    mods.append(static_cast<size_t>(a.precise_ip()), 'p');
    guest_default = true;
  }
  if (a.exclude_host() || a.exclude_guest() == guest_default) {
    if (!a.exclude_host()) mods += 'H';
    if (!a.exclude_guest()) mods += 'G';
  }
  if (!mods.empty()) absl::StrAppend(&name, ":", mods);
  return name;
}

IdLayout ComputeIdLayout(uint64_t st) {
  IdLayout l;
  if (st & kSampleIdentifier) {
    l.id_pos = 0;
    l.is_pos = 1;
    return l;
  }
  if (!(st & kSampleId)) return l;
  int idx = 0;
  for (uint64_t bit : {kSampleIp, kSampleTid, kSampleTime, kSampleAddr})
    if (st & bit) ++idx;
  l.id_pos = idx;
  idx = 1;
  if (st & kSampleCpu) ++idx;
  if (st & kSampleStreamId) ++idx;
  l.is_pos = idx;
  return l;
}

int TrailerWords(uint64_t st) {
  int n = 0;
  for (uint64_t bit : {kSampleTid, kSampleTime, kSampleId, kSampleStreamId, kSampleCpu,
                       kSampleIdentifier})
    if (st & bit) ++n;
  return n;
}

}  // namespace tk::parsers::perf_data
