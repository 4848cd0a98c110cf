#include "parsers/perf_data/sample.h"

#include <algorithm>

#include "core/absl_compat.h"
#include "core/byte_reader.h"
#include "parsers/perf_data/abi.h"

namespace tk::parsers::perf_data {
namespace {

// READ: {value, [enabled], [running], [id], [lost]} or, with GROUP,
// {nr, [enabled], [running], {value, [id], [lost]} × nr}.
bool SkipRead(ByteReader& r, uint64_t fmt) {
  uint64_t v;
  int per_value = 1 + ((fmt & kReadId) ? 1 : 0) + ((fmt & kReadLost) ? 1 : 0);
  int times = ((fmt & kReadTotalTimeEnabled) ? 1 : 0) + ((fmt & kReadTotalTimeRunning) ? 1 : 0);
  if (!(fmt & kReadGroup)) return r.Skip(8 * static_cast<size_t>(per_value + times));
  uint64_t nr;
  if (!r.Read(&nr) || !r.Skip(8 * static_cast<size_t>(times))) return false;
  if (nr > r.remaining() / 8 / per_value) return false;
  (void)v;
  return r.Skip(nr * 8 * per_value);
}

bool SkipRegs(ByteReader& r, uint64_t mask) {
  uint64_t abi;
  if (!r.Read(&abi)) return false;
  return abi == 0 || r.Skip(8 * static_cast<size_t>(__builtin_popcountll(mask)));
}

bool ReadPidTid(ByteReader& r, ParsedSample* s) {
  uint32_t pid, tid;
  if (!r.Read(&pid) || !r.Read(&tid)) return false;
  s->pid = static_cast<int32_t>(pid);
  s->tid = static_cast<int32_t>(tid);
  return true;
}

bool ReadCpu(ByteReader& r, ParsedSample* s) {
  uint32_t cpu, res;
  if (!r.Read(&cpu) || !r.Read(&res)) return false;
  s->cpu = static_cast<int32_t>(cpu);
  return true;
}

// A malformed SAMPLE: what is wrong (the caller counts it as a malformed record).
absl::Status Bad(std::string_view what) { return absl::InvalidArgumentError(AV(what)); }

// The fields after CALLCHAIN, which tk only steps over (RAW is kept).
absl::Status ParseTail(ByteReader& r, const EventAttr& a, ParsedSample* s) {
  uint64_t st = a.sample_type;
  if (st & kSampleRaw) {
    uint32_t size;
    if (!r.Read(&size) || !r.Bytes(size, &s->raw)) return Bad("RAW data exceeds the record");
    s->has_raw = true;
  }
  if (st & kSampleBranchStack) {
    uint64_t nr;
    if (!r.Read(&nr)) return Bad("BRANCH_STACK truncated");
    if ((a.branch_sample_type & kBranchHwIndex) && !r.Skip(8)) return Bad("BRANCH_STACK truncated");
    if (nr > r.remaining() / 24 || !r.Skip(nr * 24)) return Bad("BRANCH_STACK exceeds the record");
  }
  if (st & kSampleRegsUser) {
    // {u64 abi, u64 regs[popcount(mask)]}: regs in mask-bit order; x86's IP is bit 8
    // (PERF_REG_X86_IP). abi 0 (PERF_SAMPLE_REGS_ABI_NONE): no registers (a kernel thread).
    size_t at = r.pos();
    if (!SkipRegs(r, a.sample_regs_user)) return Bad("REGS_USER truncated");
    constexpr uint64_t kIpBit = 1ULL << 8;
    if (r.pos() - at > 8) {
      s->user_regs_abi = Load<uint64_t>(r.data().data() + at, r.swap());
      s->user_regs = r.data().substr(at + 8, r.pos() - at - 8);
    }
    if ((a.sample_regs_user & kIpBit) && r.pos() - at > 8) {
      ByteReader ip(r.data().substr(at + 8 + 8 * static_cast<size_t>(__builtin_popcountll(a.sample_regs_user & (kIpBit - 1))), 8), r.swap());
      s->has_user_ip = ip.Read(&s->user_ip);
    }
  }
  if (st & kSampleStackUser) {
    uint64_t size;
    if (!r.Read(&size) || size > r.remaining() || !r.Bytes(size, &s->user_stack)) {
      return Bad("STACK_USER exceeds the record");
    }
    s->user_stack_size = size;
    if (size && !r.Read(&s->user_stack_dyn_size)) return Bad("STACK_USER dyn_size missing");
  }
  if ((st & (kSampleWeight | kSampleWeightStruct)) && !r.Read(&s->weight)) return Bad("WEIGHT truncated");
  for (uint64_t bit : {kSampleDataSrc, kSampleTransaction}) {
    if ((st & bit) && !r.Skip(8)) return Bad("DATA_SRC/TRANSACTION truncated");
  }
  if ((st & kSampleRegsIntr) && !SkipRegs(r, a.sample_regs_intr)) return Bad("REGS_INTR truncated");
  for (uint64_t bit : {kSamplePhysAddr, kSampleCgroup, kSampleDataPageSize, kSampleCodePageSize}) {
    if ((st & bit) && !r.Skip(8)) return Bad("PHYS_ADDR/CGROUP/PAGE_SIZE truncated");
  }
  if (st & kSampleAux) {
    uint64_t size;
    if (!r.Read(&size) || size > r.remaining() || !r.Skip(size)) return Bad("AUX exceeds the record");
  }
  return absl::OkStatus();
}

// Every field to its default, one store each: `*s = ParsedSample{}` (and a fresh
// `ParsedSample s;`) zeroed the 208 bytes with `rep stos`, whose start-up was 9% of the
// decoding thread of `tk fold` on a `perf record -a -g` file (most of OnSample's own time).
void ResetSample(ParsedSample* s) {
  s->ip = 0;
  s->pid = s->tid = -1;
  s->time = 0;
  s->has_time = false;
  s->addr = 0;
  s->id = 0;
  s->cpu = -1;
  s->period = 0;
  s->has_period = false;
  s->callchain = {};
  s->callchain_nr = 0;
  s->has_callchain = false;
  ResetVariableParts(s);
  s->weight = 0;
}

}  // namespace

int16_t FixedSampleFieldOffset(uint64_t sample_type, uint64_t bit) {
  if (bit && !(sample_type & bit)) return -1;
  int16_t at = 0;
  for (uint64_t b : {kSampleIdentifier, kSampleIp, kSampleTid, kSampleTime, kSampleAddr,
                     kSampleId, kSampleStreamId, kSampleCpu, kSamplePeriod}) {
    if (b == bit) return at;
    if (sample_type & b) at += 8;
  }
  return at;
}

absl::Status ParseSample(std::string_view body, const EventAttr& a, bool swap, ParsedSample* s) {
  ResetSample(s);
  ByteReader r(body, swap);
  uint64_t st = a.sample_type;
  if ((st & kSampleIdentifier) && !r.Read(&s->id)) return Bad("sample truncated in IDENTIFIER");
  if ((st & kSampleIp) && !r.Read(&s->ip)) return Bad("sample truncated in IP");
  if ((st & kSampleTid) && !ReadPidTid(r, s)) return Bad("sample truncated in TID");
  if (st & kSampleTime) {
    if (!r.Read(&s->time)) return Bad("sample truncated in TIME");
    s->has_time = true;
  }
  if ((st & kSampleAddr) && !r.Read(&s->addr)) return Bad("sample truncated in ADDR");
  if ((st & kSampleId) && !r.Read(&s->id)) return Bad("sample truncated in ID");
  if ((st & kSampleStreamId) && !r.Skip(8)) return Bad("sample truncated in STREAM_ID");
  if ((st & kSampleCpu) && !ReadCpu(r, s)) return Bad("sample truncated in CPU");
  if (st & kSamplePeriod) {
    if (!r.Read(&s->period)) return Bad("sample truncated in PERIOD");
    s->has_period = true;
  }
  if ((st & kSampleRead) && !SkipRead(r, a.read_format)) return Bad("READ values exceed the record");
  if (st & kSampleCallchain) {
    if (!r.Read(&s->callchain_nr) || s->callchain_nr > r.remaining() / 8 ||
        !r.Bytes(s->callchain_nr * 8, &s->callchain)) {
      return Bad("CALLCHAIN exceeds the record");
    }
    s->has_callchain = true;
  }
  return ParseTail(r, a, s);
}

SampleLayout SampleLayoutOf(const EventAttr& a) {
  SampleLayout l;
  const uint64_t st = a.sample_type;
  constexpr uint64_t kVariable = kSampleRaw | kSampleBranchStack | kSampleRegsUser |
                                 kSampleStackUser | kSampleRegsIntr | kSampleAux;
  if ((st & kVariable) || ((st & kSampleRead) && (a.read_format & kReadGroup))) return l;
  l.fixed = true;
  l.ip = FixedSampleFieldOffset(st, kSampleIp);
  l.tid = FixedSampleFieldOffset(st, kSampleTid);
  l.time = FixedSampleFieldOffset(st, kSampleTime);
  l.addr = FixedSampleFieldOffset(st, kSampleAddr);
  // ID is read after IDENTIFIER: it wins when both are sampled.
  l.id = FixedSampleFieldOffset(st, kSampleId);
  if (l.id < 0) l.id = FixedSampleFieldOffset(st, kSampleIdentifier);
  l.cpu = FixedSampleFieldOffset(st, kSampleCpu);
  l.period = FixedSampleFieldOffset(st, kSamplePeriod);
  int head = FixedSampleFieldOffset(st, 0);
  if (st & kSampleRead) {
    const uint64_t fmt = a.read_format;
    head += 8 * (1 + ((fmt & kReadId) ? 1 : 0) + ((fmt & kReadLost) ? 1 : 0) +
                 ((fmt & kReadTotalTimeEnabled) ? 1 : 0) + ((fmt & kReadTotalTimeRunning) ? 1 : 0));
  }
  if (st & kSampleCallchain) l.callchain = static_cast<int16_t>(head);
  l.head = static_cast<uint16_t>(head);
  l.weight = (st & (kSampleWeight | kSampleWeightStruct)) != 0;
  int tail = l.weight ? 8 : 0;
  for (uint64_t bit : {kSampleDataSrc, kSampleTransaction, kSamplePhysAddr, kSampleCgroup,
                       kSampleDataPageSize, kSampleCodePageSize}) {
    if (st & bit) tail += 8;
  }
  l.tail = static_cast<uint16_t>(tail);
  return l;
}

bool ParseTrailer(std::string_view body, const EventAttr& a, bool swap, ParsedSample* s) {
  if (!a.sample_id_all()) return true;
  size_t n = static_cast<size_t>(TrailerWords(a.sample_type)) * 8;
  if (body.size() < n) return false;
  ByteReader r(body.substr(body.size() - n), swap);
  uint64_t st = a.sample_type;
  if (st & kSampleTid) ReadPidTid(r, s);
  if (st & kSampleTime) s->has_time = r.Read(&s->time);
  if (st & kSampleId) r.Read(&s->id);
  if (st & kSampleStreamId) r.Skip(8);
  if (st & kSampleCpu) ReadCpu(r, s);
  if (st & kSampleIdentifier) r.Read(&s->id);
  return true;
}

void EventTable::Build(const Metadata& meta) {
  swap_ = meta.swap;
  attrs_.clear();
  by_id_.clear();
  sample_time_at_.clear();
  for (size_t i = 0; i < meta.events.size(); ++i) {
    attrs_.push_back(meta.events[i].attr);
    sample_time_at_.push_back(FixedSampleFieldOffset(meta.events[i].attr.sample_type, kSampleTime));
    for (uint64_t id : meta.events[i].ids) by_id_.emplace(id, static_cast<int>(i));
  }
  // A dense index when the ids span at most 64k values (256 KiB).
  constexpr uint64_t kMaxDense = 1 << 16;
  dense_.clear();
  if (!by_id_.empty()) {
    uint64_t lo = UINT64_MAX, hi = 0;
    for (const auto& [id, ev] : by_id_) {
      lo = std::min(lo, id);
      hi = std::max(hi, id);
    }
    if (hi - lo < kMaxDense) {
      dense_base_ = lo;
      dense_.assign(hi - lo + 1, -1);
      for (const auto& [id, ev] : by_id_) dense_[id - lo] = ev;
    }
  }
  layout_ = attrs_.empty() ? IdLayout{} : ComputeIdLayout(attrs_[0].sample_type);
}

int EventTable::EventOfOther(std::string_view body) const {
  if (layout_.is_pos < 0 || !attrs_[0].sample_id_all()) return 0;
  size_t back = static_cast<size_t>(layout_.is_pos) * 8;
  if (body.size() < back) return -1;
  uint64_t id = Load<uint64_t>(body.data() + body.size() - back, swap_);
  return id == 0 ? 0 : Lookup(id);
}

uint64_t EventTable::TimeOfOther(uint32_t type, std::string_view body) const {
  if (type >= kUserTypeStart) return 0;
  int ev = EventOf(type, body);
  if (ev < 0) return 0;
  const EventAttr& a = attrs_[static_cast<size_t>(ev)];
  uint64_t st = a.sample_type;
  if (!(st & kSampleTime) || !a.sample_id_all()) return 0;
  size_t n = static_cast<size_t>(TrailerWords(st)) * 8;
  if (body.size() < n) return 0;
  size_t off = body.size() - n + ((st & kSampleTid) ? 8 : 0);
  if (body.size() < off + 8) return 0;
  return Load<uint64_t>(body.data() + off, swap_);
}

}  // namespace tk::parsers::perf_data
