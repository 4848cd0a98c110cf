// The raw keys of sample stacks, one stage ahead of the decoder (as the AheadUnwinder): with
// two threads they are built, hashed and looked up on the reading thread, which only frames
// and orders records otherwise, and the decoding thread gets a key id with each record
// (symbolize/stack_memo.h). The same stage runs with one thread (just before the decoder's
// Handle), so outputs are identical for --threads 1 and 2 by construction.
//
// A sample's stack is a function of its key and of the generations of the maps its addresses
// are resolved in, which the decoder adds (Decoder::SetStack has the soundness argument). The
// key:
//   - the raw callchain, context markers included (which addresses are kernel, user, guest;
//     an unknown marker drops the stack; the kMaxStack cut), in file byte order;
//   - the sample's pid (whose maps), IP and the kernel-mode bit of misc (a sample without
//     callchain, a dropped stack's IP);
//   - --call-graph dwarf: the attr bits that choose the DWARF path, and the unwound user stack
//     itself (the AheadUnwinder's answer: stop reason, each frame's pc and whether it is
//     looked up at pc, and its inline names as the views the Unwinder interned, which are the
//     same pointer for the same name of a file), else the user IP that stands for the user
//     part. So DWARF samples are keyed by their unwound ips, after unwinding.
// Constant for the parse: the inline options, the symbol search options.
#ifndef TK_PARSERS_PERF_DATA_STACK_KEYS_H_
#define TK_PARSERS_PERF_DATA_STACK_KEYS_H_

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/event.h"
#include "parsers/perf_data/metadata.h"
#include "parsers/perf_data/sample.h"
#include "parsers/perf_data/unwind_ahead.h"
#include "parsers/symbolize/stack_memo.h"

namespace tk::parsers::perf_data {

// The user part of the stack is unwound from REGS_USER and STACK_USER (--call-graph dwarf).
inline bool DwarfUser(const EventAttr& attr) {
  return attr.exclude_callchain_user() && (attr.sample_type & kSampleStackUser);
}

// The AheadUnwinder's stack for a sample (`index` as its Feed returned), null when it was
// not unwound: it unwinds every sample with registers and a stack dump (its WouldUnwind).
inline const UnwoundStacks::Stack* UnwoundStackOf(const EventAttr& attr, const ParsedSample& s,
                                                  const UnwoundStacks* stacks, int index) {
  if (!DwarfUser(attr) || !(attr.sample_type & kSampleRegsUser) || s.user_stack.empty()) {
    return nullptr;
  }
  if (!stacks || index < 0) return nullptr;
  return &stacks->stacks[static_cast<size_t>(index)];
}

// The key of a sample's stack (the list above) into `key`.
void RawStackKey(const ParsedSample& s, uint16_t misc, const EventAttr& attr,
                 const UnwoundStacks* stacks, const UnwoundStacks::Stack* unwound,
                 std::vector<uint64_t>* key);

class StackKeys {
 public:
  // `meta` and `table` are read on the calling thread of Feed (the reader's).
  StackKeys(const Metadata& meta, const EventTable& table, EventMask wants)
      : meta_(meta), table_(table), active_(wants.stacks()) {}

  // Call when the events changed (the table was rebuilt).
  void Refresh() {
    layouts_.clear();
    for (AheadKey& a : ahead_) a.rec = nullptr;
    ahead_next_ = ahead_end_ = 0;
  }

  // One record (header included) in delivery order, with the AheadUnwinder's answer for it:
  // a SAMPLE's key id (StackKeys::Intern), 0 for anything else, a sample that does not parse
  // (the decoder reports it), or the first sight of its key.
  uint32_t Feed(std::string_view rec, const UnwoundStacks* stacks, int unwound_index);
  // A record Feed gets a few records later (in order): its key is built and hashed now and
  // its seen slot asked for, so that Feed finds the slot in the cache (the slot's load missed
  // at most samples: 64 KiB of slots hit in random order, while the records stream through).
  // Only samples of a fixed layout; anything else is keyed by Feed as usual.
  void Ahead(std::string_view rec);

 private:
  // Where an event's samples have IP, TID and CALLCHAIN (-1: not sampled), for events whose
  // key these give (no READ before the callchain, no DWARF user part): such a sample is keyed
  // without ParseSample, which then ran twice per sample (here and in the decoder) and was
  // the largest part of both threads' instructions.
  struct Layout {
    bool known = false, fixed = false;
    int16_t ip = -1, tid = -1, callchain = -1;
    size_t min_size = 0;  // the fixed fields' bytes
  };
  const Layout& LayoutOf(int ev) {
    const size_t i = static_cast<size_t>(ev);
    return i < layouts_.size() && layouts_[i].known ? layouts_[i] : NewLayout(ev);
  }
  const Layout& NewLayout(int ev);
  // A fixed-layout sample's key, RawStackKey's words: the first two into `head`, the
  // callchain as `tail`, a view of the record's own bytes (not copied: the record outlives
  // its Feed); false when the record is not one (or is short).
  struct FixedWords {
    uint64_t head[2];
    std::string_view tail;
    std::string_view head_bytes() const {
      return std::string_view(reinterpret_cast<const char*>(head), sizeof(head));
    }
  };
  [[gnu::always_inline]] inline bool FixedKey(std::string_view rec, FixedWords* key);
  static std::string_view Bytes(const std::vector<uint64_t>& key) {
    return std::string_view(reinterpret_cast<const char*>(key.data()), key.size() * 8);
  }
  uint32_t Intern() { return keys_.Intern(Bytes(key_)); }

  const Metadata& meta_;
  const EventTable& table_;
  const bool active_;  // the sink wants stacks
  std::vector<Layout> layouts_;  // by event index
  ParsedSample sample_;  // reused
  std::vector<uint64_t> key_;  // reused
  // Ahead's keys, oldest first at ahead_next_ (a ring: Feed takes the oldest when it is its
  // record's; one that is not, a record delivered otherwise, is keyed as usual).
  struct AheadKey {
    const char* rec = nullptr;  // null: none
    size_t size = 0;
    size_t hash = 0;
    FixedWords key;
  };
  static constexpr size_t kAhead = 16;
  std::array<AheadKey, kAhead> ahead_;
  size_t ahead_next_ = 0, ahead_end_ = 0;  // positions mod kAhead, counting up
  symbolize::StackKeys keys_;
};

}  // namespace tk::parsers::perf_data

#endif  // TK_PARSERS_PERF_DATA_STACK_KEYS_H_
