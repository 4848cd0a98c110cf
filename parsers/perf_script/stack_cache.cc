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
  if (blank_ && p < blank_) {
    // The pair found last starts at or after `p` (p is not the blank line itself) and no
    // pair lies between: it is the first from `p` too.
    return static_cast<size_t>(blank_ - p);
  }
  if (none_) return std::string_view::npos;
  const char* q = FindDoubleNewline(p, p + rest.size());
  if (!q) {
    none_ = true;  // nor after any later position
    return std::string_view::npos;
  }
  blank_ = q + 1;
  return static_cast<size_t>(blank_ - p);
}

const StackCache::Entry* StackCache::Add(const Key& k, absl::Span<const Frame> frames,
                                         bool callchain) {
  const std::string_view block = k.bytes;
  const size_t cost = block.size() + frames.size() * sizeof(Frame) + sizeof(Entry) + 32;
  if (block.size() > kMaxBlock || held_ + cost > kMaxBytes) return nullptr;
  auto inside = [&](std::string_view v) {
    return v.empty() || (v.data() >= block.data() &&
                         v.data() + v.size() <= block.data() + block.size());
  };
  for (const Frame& f : frames) {
    if (!inside(f.symbol) || !inside(f.dso)) return nullptr;  // not views of the block
  }
  Key copy = k;
  copy.bytes = bytes_.Copy(block);
  const std::string_view key = copy.bytes;
  auto rebase = [&](std::string_view v) {
    return v.empty() ? std::string_view()
                     : std::string_view(key.data() + (v.data() - block.data()), v.size());
  };
  Entry e;
  e.id = index_.size() + 1;
  e.first_frame = static_cast<uint32_t>(frames_.size());
  e.frames = static_cast<uint32_t>(frames.size());
  e.lines = static_cast<uint32_t>(std::count(block.begin(), block.end(), '\n'));
  e.callchain = callchain;
  for (Frame f : frames) {
    f.symbol = rebase(f.symbol);
    f.dso = rebase(f.dso);
    frames_.push_back(f);
  }
  held_ += cost;
  return &index_.emplace(copy, e).first->second;
}

}  // namespace tk::parsers::perf_script
