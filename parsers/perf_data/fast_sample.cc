#include "parsers/perf_data/fast_sample.h"

#include "core/byte_reader.h"
#include "parsers/perf_data/abi.h"
#include "parsers/tep/tep_decoder.h"

namespace tk::parsers::perf_data {
namespace {

// The fields that may precede RAW for the fast path, each a u64 word (TID and CPU are two
// u32), in the kernel's order; CALLCHAIN is handled apart.
constexpr uint64_t kFixedBits = kSampleIdentifier | kSampleIp | kSampleTid | kSampleTime |
                                kSampleAddr | kSampleId | kSampleStreamId | kSampleCpu |
                                kSamplePeriod;

// The per-event offsets, or handle -1 when the sample_type does not suit.
bool Offsets(uint64_t st, int16_t* tid, int16_t* time, int16_t* cpu, int16_t* period,
             uint16_t* prefix) {
  if (!(st & kSampleRaw) || (st & ~(kFixedBits | kSampleCallchain | kSampleRaw))) return false;
  int16_t at = 0;
  for (uint64_t bit : {kSampleIdentifier, kSampleIp, kSampleTid, kSampleTime, kSampleAddr,
                       kSampleId, kSampleStreamId, kSampleCpu, kSamplePeriod}) {
    if (!(st & bit)) continue;
    if (bit == kSampleTid) *tid = at;
    if (bit == kSampleTime) *time = at;
    if (bit == kSampleCpu) *cpu = at;
    if (bit == kSamplePeriod) *period = at;
    at += 8;
  }
  if (st & kSampleCallchain) at += 8;  // nr
  *prefix = static_cast<uint16_t>(at);
  return true;
}

}  // namespace

void FastSampleDecoder::Build(const EventTable& table, tep::TepDecoder* tep, EventMask wants) {
  table_ = &table;
  swap_ = table.swap();
  wants_ = wants;
  events_.clear();
  if (!tep || wants.stacks()) return;
  // The payloads' byte order is the tracing data's, as TepDecoder reads them (not the perf.data
  // header's swap flag, which is relative to the host).
  sched_ = std::make_unique<tep::SchedFastDecoder>(tep->big_endian());
  bool any = false;
  std::vector<PerEvent> events(table.size());
  for (size_t i = 0; i < table.size(); ++i) {
    const EventAttr& a = table.attr(static_cast<int>(i));
    PerEvent& p = events[i];
    if (a.type != kTypeTracepoint ||
        !Offsets(a.sample_type, &p.tid_at, &p.time_at, &p.cpu_at, &p.period_at, &p.prefix)) {
      continue;
    }
    tep::SchedLayout layout;
    if (a.config > 0xffff || !tep->SchedLayoutOf(static_cast<int>(a.config), &layout)) continue;
    if (i > INT16_MAX) break;
    p.handle = sched_->Add(std::move(layout));
    p.callchain = (a.sample_type & kSampleCallchain) != 0;
    p.default_period = a.freq() ? 1 : a.sample_period;
    any = any || p.handle >= 0;
  }
  if (any) events_ = std::move(events);
}

FastResult FastSampleDecoder::Decode(std::string_view rec, FastSample* out) {
  std::string_view body = rec.substr(8);
  int ev = table_->EventOf(kSample, body);
  if (ev < 0 || static_cast<size_t>(ev) >= events_.size()) return FastResult::kNo;
  const PerEvent& p = events_[static_cast<size_t>(ev)];
  if (p.handle < 0 || body.size() < p.prefix) return FastResult::kNo;
  const char* d = body.data();
  size_t pos = p.prefix;
  if (p.callchain) {
    uint64_t nr = Load<uint64_t>(d + pos - 8, swap_);
    if (nr > (body.size() - pos) / 8) return FastResult::kNo;
    pos += nr * 8;
  }
  if (body.size() - pos < 4) return FastResult::kNo;
  uint32_t n = Load<uint32_t>(d + pos, swap_);
  pos += 4;
  if (n > body.size() - pos) return FastResult::kNo;
  std::string_view raw = body.substr(pos, n);
  if (!sched_->Matches(p.handle, raw)) return FastResult::kNo;
  const tep::SchedLayout& l = sched_->layout(p.handle);
  if (!wants_.Has(l.kind)) return FastResult::kSkip;
  out->ts_ns = p.time_at >= 0 ? static_cast<int64_t>(Load<uint64_t>(d + p.time_at, swap_)) : -1;
  out->pid = p.tid_at >= 0 ? static_cast<int32_t>(Load<uint32_t>(d + p.tid_at, swap_)) : -1;
  out->tid = p.tid_at >= 0 ? static_cast<int32_t>(Load<uint32_t>(d + p.tid_at + 4, swap_)) : -1;
  out->cpu = p.cpu_at >= 0 ? static_cast<int32_t>(Load<uint32_t>(d + p.cpu_at, swap_)) : -1;
  out->period = p.period_at >= 0 ? Load<uint64_t>(d + p.period_at, swap_) : p.default_period;
  out->callchain = p.callchain;
  out->raw = raw;
  out->layout = static_cast<int16_t>(p.handle);
  return FastResult::kEvent;
}

}  // namespace tk::parsers::perf_data
