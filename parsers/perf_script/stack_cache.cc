#include "parsers/perf_script/stack_cache.h"

#include <algorithm>
#include <bit>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tk::parsers::perf_script {

const char* FindDoubleNewline(const char* p, const char* e) {
#if defined(__SSE2__)
  // Sixteen bytes at a time: bit k of `m` is set when p[k] is '\n'; a pair is a set bit whose
  // lower neighbour (or the previous chunk's last byte, `carry`) is set too.
  const __m128i nl = _mm_set1_epi8('\n');
  uint32_t carry = 0;
  while (e - p >= 16) {
    __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    uint32_t m = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, nl)));
    uint32_t pair = m & ((m << 1) | carry);
    if (pair) return p + std::countr_zero(pair) - 1;
    carry = m >> 15;
    p += 16;
  }
  if (carry && p < e && *p == '\n') return p - 1;
#endif
  for (; e - p >= 2; ++p) {
    if (p[0] == '\n' && p[1] == '\n') return p;
  }
  return nullptr;
}

size_t BlockFinder::BlockLength(std::string_view rest) {
  const char* p = rest.data();
  if (!rest.empty() && *p == '\n') return 0;
  if (from_ && p >= from_) {
    // The first pair from from_ is the first from p too when p is before it (p is not the
    // blank line itself, tested above); none from from_, none from p.
    if (none_) return std::string_view::npos;
    if (p < blank_) return static_cast<size_t>(blank_ - p);
  }
  from_ = p;
  const char* q = FindDoubleNewline(p, p + rest.size());
  none_ = q == nullptr;
  if (none_) return std::string_view::npos;
  blank_ = q + 1;
  return static_cast<size_t>(blank_ - p);
}

const StackCache::Entry* StackCache::Add(const Key& k, absl::Span<const Frame> frames,
                                         bool callchain) {
  const std::string_view block = k.bytes;
  const size_t record = frames.size() * sizeof(KeptFrame) + block.size();
  const size_t cost = record + sizeof(Slot) * 2 + 8;
  if (block.size() > kMaxBlock || held_ + cost > kMaxBytes) return nullptr;
  auto inside = [&](std::string_view v) {
    return v.empty() || (v.data() >= block.data() &&
                         v.data() + v.size() <= block.data() + block.size());
  };
  for (const Frame& f : frames) {
    if (!inside(f.symbol) || !inside(f.dso)) return nullptr;  // not views of the block
  }
  char* mem = bytes_.Allocate(record, alignof(KeptFrame));
  auto* kept = reinterpret_cast<KeptFrame*>(mem);
  char* bytes = mem + frames.size() * sizeof(KeptFrame);
  if (!block.empty()) std::memcpy(bytes, block.data(), block.size());
  auto at = [&](std::string_view v) {
    return static_cast<uint16_t>(v.empty() ? 0 : v.data() - block.data());
  };
  for (size_t i = 0; i < frames.size(); ++i) {
    const Frame& f = frames[i];
    kept[i] = KeptFrame{f.ip, f.sym_offset, at(f.symbol), static_cast<uint16_t>(f.symbol.size()),
                        at(f.dso), static_cast<uint16_t>(f.dso.size())};
  }
  Entry e;
  e.record = kept;
  e.bytes = bytes;
  e.id = size_ + 1;
  e.frames = static_cast<uint32_t>(frames.size());
  e.lines = static_cast<uint32_t>(std::count(block.begin(), block.end(), '\n'));
  e.callchain = callchain;
  held_ += cost;
  if (2 * (size_ + 1) > slots_.size()) Grow();
  size_t i = k.hash & mask_;
  while (slots_[i].entry.bytes) i = (i + 1) & mask_;  // the block is not in the table (Find)
  slots_[i] = Slot{k.hash, static_cast<uint32_t>(block.size()), e};
  ++size_;
  return &slots_[i].entry;
}

void StackCache::Grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 4096 : 2 * old.size(), Slot{});
  mask_ = slots_.size() - 1;
  for (const Slot& s : old) {
    if (!s.entry.bytes) continue;
    size_t i = s.hash & mask_;
    while (slots_[i].entry.bytes) i = (i + 1) & mask_;
    slots_[i] = s;
  }
}

void StackCache::CopyFrames(const Entry& e, const char* block, std::vector<Frame>* out) const {
  for (uint32_t i = 0; i < e.frames; ++i) {
    const KeptFrame& k = e.record[i];
    Frame f;
    f.ip = k.ip;
    f.sym_offset = k.sym_offset;
    if (k.symbol_len) f.symbol = std::string_view(block + k.symbol_at, k.symbol_len);
    if (k.dso_len) f.dso = std::string_view(block + k.dso_at, k.dso_len);
    out->push_back(f);
  }
}

}  // namespace tk::parsers::perf_script
