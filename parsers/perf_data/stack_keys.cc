#include "parsers/perf_data/stack_keys.h"

#include <cstring>

#include "core/byte_reader.h"
#include "parsers/perf_data/abi.h"
#include "parsers/perf_data/side_band.h"

namespace tk::parsers::perf_data {

void RawStackKey(const ParsedSample& s, uint16_t misc, const EventAttr& attr,
                 const UnwoundStacks* stacks, const UnwoundStacks::Stack* unwound,
                 std::vector<uint64_t>* key) {
  std::vector<uint64_t>& k = *key;
  k.clear();
  const bool dwarf = DwarfUser(attr);
  k.push_back((s.has_callchain ? 1u : 0u) | (IsKernelMode(misc) ? 2u : 0u) | (dwarf ? 4u : 0u) |
              (unwound ? 8u : 0u) | (s.has_user_ip ? 16u : 0u) |
              (uint64_t{static_cast<uint32_t>(s.pid)} << 32));
  k.push_back(s.ip);
  if (dwarf) {
    k.push_back(s.has_user_ip ? s.user_ip : 0);
    k.push_back(s.user_regs_abi);
  }
  if (unwound) {
    k.push_back(static_cast<uint64_t>(unwound->why));
    k.push_back(unwound->frames_end - unwound->frames_begin);
    for (uint32_t i = unwound->frames_begin; i < unwound->frames_end; ++i) {
      const UnwoundStacks::Frame& uf = stacks->frames[i];
      k.push_back(uf.pc);
      k.push_back((uf.exact ? 1u : 0u) | (uint64_t{uf.names_end - uf.names_begin} << 1));
      for (uint32_t n = uf.names_begin; n < uf.names_end; ++n) {
        k.push_back(reinterpret_cast<uintptr_t>(stacks->names[n].data()));
        k.push_back(stacks->names[n].size());
      }
    }
  }
  if (s.has_callchain) {
    const size_t at = k.size();
    k.resize(at + s.callchain_nr);
    std::memcpy(k.data() + at, s.callchain.data(), s.callchain_nr * 8);
  }
}

const StackKeys::Layout& StackKeys::NewLayout(int ev) {
  const size_t i = static_cast<size_t>(ev);
  if (i >= layouts_.size()) layouts_.resize(i + 1);
  Layout& l = layouts_[i];
  l.known = true;
  const EventAttr& attr = table_.attr(ev);
  const uint64_t st = attr.sample_type;
  l.fixed = !(st & kSampleRead) && !DwarfUser(attr);
  l.ip = FixedSampleFieldOffset(st, kSampleIp);
  l.tid = FixedSampleFieldOffset(st, kSampleTid);
  const int16_t end = FixedSampleFieldOffset(st, 0);
  l.callchain = (st & kSampleCallchain) ? end : -1;
  l.min_size = static_cast<size_t>(end) + ((st & kSampleCallchain) ? 8 : 0);
  return l;
}

inline bool StackKeys::FixedKey(std::string_view rec, FixedWords* key) {
  if (!active_ || rec.size() < 8 || Load<uint32_t>(rec.data(), meta_.swap) != kSample) return false;
  const std::string_view body = rec.substr(8);
  const int ev = table_.EventOf(kSample, body);
  if (ev < 0) return false;
  const Layout& l = LayoutOf(ev);
  if (!l.fixed || body.size() < l.min_size) return false;
  // RawStackKey's words for such a sample, read where ParseSample would find them.
  const uint16_t misc = Load<uint16_t>(rec.data() + 4, meta_.swap);
  const char* b = body.data();
  uint64_t nr = 0;
  if (l.callchain >= 0) {
    nr = Load<uint64_t>(b + l.callchain, meta_.swap);
    if (nr > (body.size() - l.min_size) / 8) return false;
  }
  const uint32_t pid = l.tid >= 0 ? Load<uint32_t>(b + l.tid, meta_.swap) : ~uint32_t{0};
  key->head[0] = (l.callchain >= 0 ? 1u : 0u) | (IsKernelMode(misc) ? 2u : 0u) | (uint64_t{pid} << 32);
  key->head[1] = l.ip >= 0 ? Load<uint64_t>(b + l.ip, meta_.swap) : 0;
  key->tail = nr ? std::string_view(b + l.callchain + 8, nr * 8) : std::string_view();
  return true;
}

void StackKeys::Ahead(std::string_view rec) {
  if (ahead_end_ - ahead_next_ == kAhead) return;  // full: Feed keys it as usual
  AheadKey& a = ahead_[ahead_end_ % kAhead];
  if (!FixedKey(rec, &a.key)) return;
  a.rec = rec.data();
  a.size = rec.size();
  a.hash = symbolize::StackKeys::Hash(a.key.head_bytes(), a.key.tail);
  keys_.Prefetch(a.hash);
  ++ahead_end_;
}

uint32_t StackKeys::Feed(std::string_view rec, const UnwoundStacks* stacks, int unwound_index) {
  if (ahead_next_ != ahead_end_) {
    AheadKey& a = ahead_[ahead_next_ % kAhead];
    if (a.rec == rec.data() && a.size == rec.size()) {
      a.rec = nullptr;
      ++ahead_next_;
      return keys_.Intern(a.key.head_bytes(), a.key.tail, a.hash);
    }
  }
  if (!active_ || rec.size() < 8 || Load<uint32_t>(rec.data(), meta_.swap) != kSample) return 0;
  const std::string_view body = rec.substr(8);
  const int ev = table_.EventOf(kSample, body);
  if (ev < 0) return 0;
  if (LayoutOf(ev).fixed) {
    FixedWords k;
    if (!FixedKey(rec, &k)) return 0;
    return keys_.Intern(k.head_bytes(), k.tail,
                        symbolize::StackKeys::Hash(k.head_bytes(), k.tail));
  }
  const uint16_t misc = Load<uint16_t>(rec.data() + 4, meta_.swap);
  const EventAttr& attr = table_.attr(ev);
  if (!ParseSample(body, attr, meta_.swap, &sample_).ok()) return 0;
  RawStackKey(sample_, misc, attr, stacks, UnwoundStackOf(attr, sample_, stacks, unwound_index),
              &key_);
  return Intern();
}

}  // namespace tk::parsers::perf_data
