// PERF_RECORD_SAMPLE bodies and the sample_id_all trailer of other records.
//
// A SAMPLE body holds, for each bit set in the event's sample_type, in this (the kernel's)
// order:
//   IDENTIFIER u64 | IP u64 | TID {u32 pid, u32 tid} | TIME u64 | ADDR u64 | ID u64 |
//   STREAM_ID u64 | CPU {u32 cpu, u32 res} | PERIOD u64 | READ (read_format) |
//   CALLCHAIN {u64 nr, u64 ips[nr]} | RAW {u32 size, char data[size]} (4+size 8-aligned) |
//   BRANCH_STACK {u64 nr, [u64 hw_idx], {from, to, flags}[nr]} |
//   REGS_USER {u64 abi, u64 regs[popcount(sample_regs_user)] if abi} |
//   STACK_USER {u64 size, char data[size], u64 dyn_size if size} | WEIGHT(_STRUCT) u64 |
//   DATA_SRC u64 | TRANSACTION u64 | REGS_INTR (as REGS_USER) | PHYS_ADDR u64 | CGROUP u64 |
//   DATA_PAGE_SIZE u64 | CODE_PAGE_SIZE u64 | AUX {u64 size, data}
// Every field is stepped over even when unused, so nothing after it is misread.
#ifndef TK_PARSERS_PERF_DATA_SAMPLE_H_
#define TK_PARSERS_PERF_DATA_SAMPLE_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "core/byte_reader.h"
#include "parsers/perf_data/abi.h"
#include "parsers/perf_data/attr.h"
#include "parsers/perf_data/metadata.h"

namespace tk::parsers::perf_data {

struct ParsedSample {
  uint64_t ip = 0;
  int32_t pid = -1, tid = -1;
  uint64_t time = 0;
  bool has_time = false;
  uint64_t addr = 0;
  uint64_t id = 0;
  int32_t cpu = -1;
  uint64_t period = 0;
  bool has_period = false;
  std::string_view callchain;  // nr u64 entries in file byte order (read with Load<uint64_t>)
  uint64_t callchain_nr = 0;
  bool has_callchain = false;
  std::string_view raw;
  bool has_raw = false;
  uint64_t user_stack_size = 0;  // STACK_USER bytes recorded (DWARF unwinding input)
  std::string_view user_stack;   // those bytes; the first user_stack_dyn_size are valid
  uint64_t user_stack_dyn_size = 0;
  uint64_t user_regs_abi = 0;    // REGS_USER abi: 0 none, 1 x86 32-bit, 2 x86_64
  std::string_view user_regs;    // popcount(sample_regs_user) u64 values, file byte order
  uint64_t user_ip = 0;          // REGS_USER's x86 IP register (bit 8 of the mask), if sampled
  bool has_user_ip = false;
  uint64_t weight = 0;
};

// Parses a SAMPLE body (after the 8-byte header) into *s, every field set (those the
// sample_type lacks to their defaults: *s may be reused). An error status says what is wrong.
absl::Status ParseSample(std::string_view body, const EventAttr& attr, bool swap,
                        ParsedSample* s);

// Where ParseSample finds the fields of an event's samples when each is at a fixed offset but
// for the callchain's length: no RAW, BRANCH_STACK, REGS_USER/INTR, STACK_USER or AUX, and a
// READ without GROUP (perf record -g's IP|TID|TIME|CALLCHAIN|ID|CPU|PERIOD). ParseSample
// reads its way through every field of the sample_type with a bounds check and a branch
// each: ~210 instructions a `perf record -a -g` sample, 8% of `tk fold`'s.
struct SampleLayout {
  bool fixed = false;  // ParseFixedSample applies
  // Byte offsets (-1: not sampled); callchain is where its length is.
  int16_t ip = -1, tid = -1, time = -1, addr = -1, id = -1, cpu = -1, period = -1;
  int16_t callchain = -1;
  uint16_t head = 0;   // bytes before CALLCHAIN (the fixed words and READ)
  uint16_t tail = 0;   // bytes after it (WEIGHT, DATA_SRC, ...: 8 each)
  bool weight = false;  // the tail starts with WEIGHT or WEIGHT_STRUCT
};
SampleLayout SampleLayoutOf(const EventAttr& attr);

// The fields a fixed layout never has (RAW, the user stack and registers): what ParseSample's
// reset and ParseFixedSample both clear.
inline void ResetVariableParts(ParsedSample* s) {
  s->raw = {};
  s->has_raw = false;
  s->user_stack_size = 0;
  s->user_stack = {};
  s->user_stack_dyn_size = 0;
  s->user_regs_abi = 0;
  s->user_regs = {};
  s->user_ip = 0;
  s->has_user_ip = false;
}

// ParseSample for an event whose layout is fixed: *s as ParseSample sets it, true; false
// when the body is too short for its fields (ParseSample then says what is wrong).
inline bool ParseFixedSample(std::string_view body, const SampleLayout& l, bool swap,
                             ParsedSample* s) {
  const char* b = body.data();
  uint64_t nr = 0;
  size_t need = l.head + l.tail;
  if (l.callchain >= 0) {
    if (body.size() < need + 8u) return false;
    nr = Load<uint64_t>(b + l.callchain, swap);
    need += 8;
    if (nr > (body.size() - need) / 8) return false;
    need += nr * 8;
  }
  if (body.size() < need) return false;
  s->ip = l.ip >= 0 ? Load<uint64_t>(b + l.ip, swap) : 0;
  if (l.tid >= 0) {
    const uint32_t pid = Load<uint32_t>(b + l.tid, swap), tid = Load<uint32_t>(b + l.tid + 4, swap);
    if constexpr (std::endian::native == std::endian::little) {
      // One 8-byte store: OnSample reads pid and tid back with one 8-byte load, which two
      // 4-byte stores cannot forward to (a store-forwarding stall: ~25% of OnSample's perf
      // samples sat on the instruction after that load, cc20k.data).
      static_assert(offsetof(ParsedSample, tid) == offsetof(ParsedSample, pid) + 4);
      const uint64_t both = uint64_t{tid} << 32 | pid;
      std::memcpy(&s->pid, &both, 8);
    } else {
      s->pid = static_cast<int32_t>(pid);
      s->tid = static_cast<int32_t>(tid);
    }
  } else {
    s->pid = s->tid = -1;
  }
  s->has_time = l.time >= 0;
  s->time = s->has_time ? Load<uint64_t>(b + l.time, swap) : 0;
  s->addr = l.addr >= 0 ? Load<uint64_t>(b + l.addr, swap) : 0;
  s->id = l.id >= 0 ? Load<uint64_t>(b + l.id, swap) : 0;
  s->cpu = l.cpu >= 0 ? static_cast<int32_t>(Load<uint32_t>(b + l.cpu, swap)) : -1;
  s->has_period = l.period >= 0;
  s->period = s->has_period ? Load<uint64_t>(b + l.period, swap) : 0;
  s->has_callchain = l.callchain >= 0;
  s->callchain_nr = nr;
  s->callchain =
      s->has_callchain ? std::string_view(b + l.callchain + 8, nr * 8) : std::string_view();
  ResetVariableParts(s);
  s->weight = l.weight ? Load<uint64_t>(b + need - l.tail, swap) : 0;
  return true;
}

// Parses the sample_id_all trailer at the end of a non-sample record's body (pid, tid,
// time, id, cpu when present). Returns false when the body is shorter than the trailer.
bool ParseTrailer(std::string_view body, const EventAttr& attr, bool swap, ParsedSample* s);

// The byte offset in a SAMPLE body of `bit`, one of the fields of one u64 word each that come
// first (IDENTIFIER IP TID TIME ADDR ID STREAM_ID CPU PERIOD: TID and CPU are two u32), or -1
// when `sample_type` lacks it; kFixedSampleBits with `bit` 0 gives where READ starts.
int16_t FixedSampleFieldOffset(uint64_t sample_type, uint64_t bit);
inline constexpr uint64_t kFixedSampleBits = kSampleIdentifier | kSampleIp | kSampleTid |
                                             kSampleTime | kSampleAddr | kSampleId |
                                             kSampleStreamId | kSampleCpu | kSamplePeriod;

// Which event a record belongs to, and its time, without decoding it.
class EventTable {
 public:
  // Indexes `meta.events` (ids → event). Call again when pipe-mode HEADER_ATTRs add events.
  void Build(const Metadata& meta);

  // Index of the event of a record (type, body after header); -1 when its id is unknown.
  // Inline: it runs twice per record (time order, then the decode).
  int EventOf(uint32_t type, std::string_view body) const {
    if (attrs_.size() <= 1) return attrs_.empty() ? -1 : 0;
    if (type != kSample) return EventOfOther(body);
    if (layout_.id_pos < 0) return 0;
    size_t off = static_cast<size_t>(layout_.id_pos) * 8;
    if (body.size() < off + 8) return -1;
    uint64_t id = Load<uint64_t>(body.data() + off, swap_);
    return id == 0 ? 0 : Lookup(id);
  }
  // The record's time, or 0 when it has none (then it is not reordered).
  uint64_t TimeOf(uint32_t type, std::string_view body) const {
    if (type != kSample) return TimeOfOther(type, body);
    int ev = EventOf(type, body);
    if (ev < 0) return 0;
    int16_t at = sample_time_at_[static_cast<size_t>(ev)];
    if (at < 0 || body.size() < static_cast<size_t>(at) + 8) return 0;
    return Load<uint64_t>(body.data() + at, swap_);
  }

  const EventAttr& attr(int i) const { return attrs_[static_cast<size_t>(i)]; }
  size_t size() const { return attrs_.size(); }
  bool swap() const { return swap_; }

 private:
  // The event of a sample id. perf's ids are the kernel's event ids, handed out one after
  // another, so they usually span a small range: then `dense_[id - dense_base_]` (-1: unknown)
  // answers in one load instead of a hash lookup (EventOf runs twice per record: 8% of
  // `tk sched latency` on a 0.8 GB perf sched recording). Else `by_id_`.
  int Lookup(uint64_t id) const {
    if (!dense_.empty()) {
      uint64_t i = id - dense_base_;
      return i < dense_.size() ? dense_[i] : -1;
    }
    auto it = by_id_.find(id);
    return it == by_id_.end() ? -1 : it->second;
  }

  int EventOfOther(std::string_view body) const;
  uint64_t TimeOfOther(uint32_t type, std::string_view body) const;

  std::vector<EventAttr> attrs_;
  std::vector<int16_t> sample_time_at_;  // per event: TIME's offset in a SAMPLE body, -1 none
  absl::flat_hash_map<uint64_t, int> by_id_;
  std::vector<int32_t> dense_;
  uint64_t dense_base_ = 0;
  IdLayout layout_;
  bool swap_ = false;
};

}  // namespace tk::parsers::perf_data

#endif  // TK_PARSERS_PERF_DATA_SAMPLE_H_
