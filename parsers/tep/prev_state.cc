#include "parsers/tep/prev_state.h"

#include <bit>
#include <cstring>
#include <string>

extern "C" {
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>
}

namespace tk::parsers::tep {
namespace {

// Cache at most this many distinct values (a corrupt file could present millions).
constexpr size_t kMaxCached = 4096;

void StoreUnsigned(char* p, int size, uint64_t v, bool big_endian) {
  for (int i = 0; i < size; ++i) {
    int shift = big_endian ? (size - 1 - i) * 8 : i * 8;
    p[i] = static_cast<char>((v >> shift) & 0xff);
  }
}

}  // namespace

TaskState TaskStateFromPrinted(std::string_view s) {
  // Tokens between '|' ; a token "0x..." is a bit without a name.
  std::string letters;
  bool other = false;
  size_t p = 0;
  while (p <= s.size()) {
    size_t bar = s.find('|', p);
    if (bar == std::string_view::npos) bar = s.size();
    std::string_view tok = s.substr(p, bar - p);
    if (tok.substr(0, 2) == "0x") {
      other = true;
    } else {
      if (!letters.empty()) letters.push_back('|');
      letters.append(tok);
    }
    p = bar + 1;
  }
  TaskState st = TaskState::FromLetters(letters);
  if (other) {
    st.bits |= TaskState::kOther;
    st.preempted = false;
  }
  return st;
}

TaskState TaskStateFromReportBits(uint64_t v) {
  static constexpr uint16_t kBits[] = {TaskState::kS, TaskState::kD, TaskState::kT,
                                       TaskState::kt, TaskState::kX, TaskState::kZ,
                                       TaskState::kP, TaskState::kI};
  TaskState st;
  for (int i = 0; i < 8; ++i) {
    if (v & (uint64_t{1} << i)) st.bits |= kBits[i];
  }
  if (v & ~uint64_t{0x1ff}) st.bits |= TaskState::kOther;
  st.preempted = st.bits == 0 && (v & 0x100);
  return st;
}

bool PrevStateDecoder::Print(uint64_t value, TaskState* out) {
  if (!ev_->print_fmt.args) return false;  // no (or a dropped) print fmt
  struct tep_format_field* type = tep_find_common_field(ev_, "common_type");
  if (!type || type->offset < 0 || (type->size != 2 && type->size != 4 && type->size != 1)) {
    return false;
  }
  if (field_.size < 1 || field_.size > 8) return false;
  // A zeroed record as long as the fixed fields, plus slack: every __data_loc reads as an
  // empty string at offset 0 and char arrays are empty.
  std::string rec(static_cast<size_t>(FixedSize(ev_)) + 64, '\0');
  bool big = tep_is_file_bigendian(ev_->tep);
  StoreUnsigned(rec.data() + type->offset, type->size, static_cast<uint64_t>(ev_->id), big);
  StoreUnsigned(rec.data() + field_.offset, field_.size, value, big);

  struct tep_record record;
  std::memset(&record, 0, sizeof record);
  record.data = rec.data();
  record.size = static_cast<int>(rec.size());
  record.record_size = record.size;
  struct trace_seq seq;
  trace_seq_init(&seq);
  tep_print_event(ev_->tep, &seq, &record, "%s", TEP_PRINT_INFO);
  trace_seq_terminate(&seq);
  std::string_view text(seq.buffer, seq.len);
  bool ok = false;
  size_t at = text.find("prev_state=");
  if (at != std::string_view::npos) {
    std::string_view rest = text.substr(at + 11);
    size_t end = rest.find(' ');
    std::string_view letters = rest.substr(0, end);
    if (!letters.empty()) {
      *out = TaskStateFromPrinted(letters);
      ok = true;
    }
  }
  trace_seq_destroy(&seq);
  return ok;
}

TaskState PrevStateDecoder::Compute(uint64_t value) {
  TaskState st;
  if (layout_) {
    st = TaskStateFromPrinted(FormatState(*layout_, value));
  } else if (!Print(value, &st)) {
    st = TaskStateFromReportBits(value);
  }
  return st;
}

TaskState PrevStateDecoder::DecodeSlow(uint64_t value) {
  if (value < kSmall) {
    small_[value] = Compute(value);
    small_set_[value] = true;
    return small_[value];
  }
  auto it = cache_.find(value);
  if (it != cache_.end()) return it->second;
  TaskState st = Compute(value);
  if (cache_.size() < kMaxCached) cache_.emplace(value, st);
  return st;
}

}  // namespace tk::parsers::tep
