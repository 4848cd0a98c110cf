// perf_event_attr: the part of each event's configuration the reader needs, parsed from any
// attr size (64 bytes for PERF_ATTR_SIZE_VER0 up to 136 and beyond: unknown tails ignored).
//
// Layout (offsets in bytes):
//   0 u32 type        4 u32 size        8 u64 config      16 u64 sample_period|freq
//  24 u64 sample_type 32 u64 read_format 40 u64 flag bits (disabled:1, inherit:1, ...)
//  48 u32 wakeup      52 u32 bp_type    56 u64 config1    64 u64 config2
//  72 u64 branch_sample_type  80 u64 sample_regs_user  88 u32 sample_stack_user
//  92 s32 clockid     96 u64 sample_regs_intr ...
#ifndef TK_PARSERS_PERF_DATA_ATTR_H_
#define TK_PARSERS_PERF_DATA_ATTR_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/byte_reader.h"

namespace tk::parsers::perf_data {

struct EventAttr {
  uint32_t type = 0;
  uint32_t size = 0;  // perf_event_attr.size as recorded
  uint64_t config = 0;
  uint64_t sample_period = 0;  // or sample_freq when `freq`
  uint64_t sample_type = 0;
  uint64_t read_format = 0;
  uint64_t flags = 0;  // the bit-field word, normalised to little-endian bit numbering
  uint64_t branch_sample_type = 0;
  uint64_t sample_regs_user = 0;
  uint64_t sample_regs_intr = 0;
  uint32_t sample_stack_user = 0;

  bool flag(int bit) const { return (flags >> bit) & 1; }
  bool freq() const { return flag(10); }
  bool sample_id_all() const { return flag(18); }
  int precise_ip() const { return static_cast<int>((flags >> 15) & 3); }
  bool exclude_user() const { return flag(4); }
  bool exclude_kernel() const { return flag(5); }
  bool exclude_hv() const { return flag(6); }
  bool exclude_host() const { return flag(19); }
  bool exclude_guest() const { return flag(20); }
  bool exclude_callchain_user() const { return flag(22); }
};

// Parses one attr of `bytes` (its recorded size; fields beyond it stay 0). A size field of 0
// means PERF_ATTR_SIZE_VER0 (64). In a byte-swapped file the bit-field word was laid out
// MSB-first by the big-endian writer: swapped, then bit-reversed.
absl::StatusOr<EventAttr> ParseAttr(std::string_view bytes, bool swap);

// perf's default event name for an attr without a recorded name: "cycles", "cpu-clock",
// "r1a2", plus modifiers as evsel__add_modifiers prints them (":u", ":ppp", ":pppH").
std::string DefaultEventName(const EventAttr& a);

// Where the sample id sits, in u64 words (perf's id_pos / is_pos). A SAMPLE's id is word
// `id_pos` from the start of its body; a non-sample record's id is word `is_pos` counted
// from the end of its sample_id_all trailer. -1 when the sample_type has no id.
struct IdLayout {
  int id_pos = -1;
  int is_pos = -1;
};
IdLayout ComputeIdLayout(uint64_t sample_type);

// Number of u64 words in the sample_id_all trailer of non-sample records:
// TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER — only the bits set.
int TrailerWords(uint64_t sample_type);

}  // namespace tk::parsers::perf_data

#endif  // TK_PARSERS_PERF_DATA_ATTR_H_
