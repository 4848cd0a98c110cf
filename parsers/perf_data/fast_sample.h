// The fast path of tracepoint SAMPLEs of sched events (sched_switch, sched_waking, ...), the
// bulk of a `perf sched record` file: parsed and checked by offsets computed once per event,
// then the payload decoded into the Event's body (DecodeBody), all on the decoding thread
// (Decoder::Handle). With two threads the reading thread only frames and orders the records:
// parsing there and handing the parsed sample over cost more in cache traffic than the parse.
//
// Per event (attr) whose sample_type holds only fields of fixed size before RAW
//   IDENTIFIER IP TID TIME ADDR ID STREAM_ID CPU PERIOD [CALLCHAIN] RAW     (perf sched record:
//   IP|TID|TIME|CPU|PERIOD|RAW|IDENTIFIER)
// the byte offset of each field is fixed (CALLCHAIN's length is read), so a sample is a few
// loads; the payload is decoded by tep::SchedFastDecoder with the fields TepDecoder resolved.
// Every check ParseSample and TepDecoder make is made here: a record that fails one is left
// to the full path (Decoder::Handle), which reports it. Anything else (other sample types,
// other tracepoints, stacks wanted) takes the full path too.
#ifndef TK_PARSERS_PERF_DATA_FAST_SAMPLE_H_
#define TK_PARSERS_PERF_DATA_FAST_SAMPLE_H_

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "core/byte_reader.h"
#include "core/event.h"
#include "parsers/perf_data/abi.h"
#include "parsers/perf_data/sample.h"
#include "parsers/tep/sched_decode.h"

namespace tk::parsers::tep {
class TepDecoder;
}

namespace tk::parsers::perf_data {

// A parsed sample: Decoder::HandleFast makes the Event of it (adding the comm and the body).
struct FastSample {
  int64_t ts_ns = -1;
  int32_t cpu = -1, pid = -1, tid = -1;
  uint64_t period = 0;
  std::string_view raw;  // the payload, checked: it Matches its layout
  int16_t layout = -1;   // in the decoder's SchedFastDecoder
  bool callchain = false;
};

enum class FastResult : uint8_t {
  kNo,     // not for the fast path: decode the record with Decoder::Handle
  kSkip,   // a valid sample of a kind the sink does not want (counted, not delivered)
  kEvent,  // *out is filled
};

class FastSampleDecoder {
 public:
  // Computes the per-event offsets and sched layouts; empty (every record kNo) without `tep`
  // or when the sink wants stacks. Call while nothing decodes: it resolves formats in `tep`.
  void Build(const EventTable& table, tep::TepDecoder* tep, EventMask wants);
  bool empty() const { return events_.empty(); }

  // A whole SAMPLE record (header included).
  FastResult Decode(std::string_view rec, FastSample* out);
  // The payload's body and the event's name ("sched:sched_switch", valid as long as the
  // TepDecoder) of a sample Decode gave as kEvent.
  std::string_view DecodeBody(const FastSample& s, Body* body) {
    sched_->Decode(s.layout, s.raw, body);
    return sched_->layout(s.layout).name;
  }

 private:
  struct PerEvent {
    int handle = -1;         // in sched_; -1: this event takes the full path
    uint16_t prefix = 0;     // bytes before RAW (before CALLCHAIN's entries when it has one)
    int16_t tid_at = -1, time_at = -1, cpu_at = -1, period_at = -1;  // -1: not sampled
    bool callchain = false;
    uint64_t default_period = 0;
  };
  const EventTable* table_ = nullptr;
  bool swap_ = false;
  EventMask wants_;
  std::vector<PerEvent> events_;
  std::unique_ptr<tep::SchedFastDecoder> sched_;
};

// Inline: out of line, the sample went through memory to the caller, whose wider reloads
// stalled on store forwarding (a quarter of Decoder::HandleFast).
inline FastResult FastSampleDecoder::Decode(std::string_view rec, FastSample* out) {
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

#endif  // TK_PARSERS_PERF_DATA_FAST_SAMPLE_H_
