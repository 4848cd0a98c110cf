#include "parsers/perf_data/fast_sample.h"

#include "core/byte_reader.h"
#include "parsers/perf_data/abi.h"
#include "parsers/tep/tep_decoder.h"

namespace tk::parsers::perf_data {
namespace {

// The per-event offsets, or false when the sample_type does not suit: only the fields of
// one word each (FixedSampleFieldOffset) and CALLCHAIN may precede RAW.
bool Offsets(uint64_t st, int16_t* tid, int16_t* time, int16_t* cpu, int16_t* period,
             uint16_t* prefix) {
  if (!(st & kSampleRaw) || (st & ~(kFixedSampleBits | kSampleCallchain | kSampleRaw))) return false;
  *tid = FixedSampleFieldOffset(st, kSampleTid);
  *time = FixedSampleFieldOffset(st, kSampleTime);
  *cpu = FixedSampleFieldOffset(st, kSampleCpu);
  *period = FixedSampleFieldOffset(st, kSamplePeriod);
  int16_t at = FixedSampleFieldOffset(st, 0);
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

}  // namespace tk::parsers::perf_data
