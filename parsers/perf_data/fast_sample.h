// The fast path of tracepoint SAMPLEs of sched events (sched_switch, sched_waking, ...), the
// bulk of a `perf sched record` file: parsed and checked on the reading thread, by offsets
// computed once per event; the decoding thread decodes the payload into the Event's body
// (DecodeBody) as it builds the Event. (Decoding the payload on the reading thread too left
// that thread with 63% of the work, and copied each body once more.)
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

#include "core/event.h"
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

  // A whole SAMPLE record (header included). One caller at a time, and no Build meanwhile;
  // may run beside DecodeBody on another thread.
  FastResult Decode(std::string_view rec, FastSample* out);
  // The payload's body and the event's name ("sched:sched_switch", valid as long as the
  // TepDecoder) of a sample Decode gave as kEvent. One caller at a time.
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

}  // namespace tk::parsers::perf_data

#endif  // TK_PARSERS_PERF_DATA_FAST_SAMPLE_H_
