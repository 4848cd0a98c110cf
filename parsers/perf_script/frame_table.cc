#include "parsers/perf_script/frame_table.h"

#include <bit>
#include <cstring>

#include "core/strings.h"
#include "parsers/perf_script/frame.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tk::parsers::perf_script {
namespace {

constexpr uint64_t kMul = 0x9e3779b97f4a7c15ULL;

// One eight-byte word (little-endian, bytes past the tail's end zero) into the hash.
inline uint64_t Mix(uint64_t h, uint64_t w) {
  h = (h ^ w) * kMul;
  return h ^ (h >> 29);
}
inline uint64_t Final(uint64_t h, size_t n) {
  h = (h ^ n) * kMul;
  return h ^ (h >> 32);
}

// The address as ParseFrameLine's fast path reads it: blanks, then up to 16 hex digits
// ending at a blank or the end. Returns the end of the digits, or nullptr.
inline const char* Address(const char* p, const char* e, uint64_t* ip) {
  const char* a = SkipBlanks(p, e);
  const char* q = ParseHexPrefix(a, e, ip);
  if (q == a || (q < e && !IsBlank(*q))) return nullptr;
  return q;
}

#if defined(__SSE2__)
// perf's own layout of the address: "\t" and the address right-aligned in 16 columns
// ("%16" PRIx64), then ' ': the 16 bytes checked and converted at once. nullptr for anything
// else (Address then decides); else what Address returns for the line.
inline const char* FieldAddress(const char* p, const char* e, uint64_t* ip) {
  if (e - p < 18 || p[17] != ' ') return nullptr;
  const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 1));
  const __m128i space = _mm_cmpeq_epi8(x, _mm_set1_epi8(' '));
  const __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
                                      _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)));
  const __m128i lower = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('a' - 1)),
                                      _mm_cmplt_epi8(x, _mm_set1_epi8('f' + 1)));
  const unsigned ms = static_cast<unsigned>(_mm_movemask_epi8(space));
  const unsigned mh = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(digit, lower)));
  // Every byte a space or a digit, some digits, the spaces first (a run from bit 0).
  if ((ms | mh) != 0xFFFF || mh == 0 || (ms & (ms + 1)) != 0) return nullptr;
  // '0'-'9' & 15 is the digit, 'a'-'f' & 15 is 1-6 (+9), ' ' & 15 is 0 (a leading zero).
  __m128i nib = _mm_and_si128(x, _mm_set1_epi8(0x0F));
  nib = _mm_add_epi8(nib, _mm_and_si128(lower, _mm_set1_epi8(9)));
  // Each byte pair (first digit in the lower byte) into one byte, first digit high; the
  // eight bytes, the most significant first, then read as one big-endian number.
  __m128i pairs = _mm_or_si128(_mm_slli_epi16(nib, 4), _mm_srli_epi16(nib, 8));
  pairs = _mm_packus_epi16(_mm_and_si128(pairs, _mm_set1_epi16(0x00FF)), pairs);
  *ip = __builtin_bswap64(static_cast<uint64_t>(_mm_cvtsi128_si64(pairs)));
  return p + 17;
}
#endif

}  // namespace

uint64_t FrameTable::Hash(const char* s, size_t n) {
  uint64_t h = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, s + i, 8);
    h = Mix(h, w);
  }
  if (const size_t r = n - i) {
    // The last 1-7 bytes as a word whose other bytes are zero, without a memcpy call (the
    // comm memo hashes a short comm per header): two overlapping 4-byte loads, or three
    // single bytes.
    uint64_t w = 0;
    if constexpr (std::endian::native == std::endian::little) {
      const char* t = s + i;
      if (r >= 4) {
        uint32_t lo, hi;
        std::memcpy(&lo, t, 4);
        std::memcpy(&hi, t + r - 4, 4);
        w = lo | (uint64_t{hi} << (8 * (r - 4)));
      } else {
        w = uint64_t{static_cast<unsigned char>(t[0])} |
            (uint64_t{static_cast<unsigned char>(t[r / 2])} << (8 * (r / 2))) |
            (uint64_t{static_cast<unsigned char>(t[r - 1])} << (8 * (r - 1)));
      }
    } else {
      std::memcpy(&w, s + i, r);
    }
    h = Mix(h, w);
  }
  return Final(h, n);
}

std::string_view FrameTable::Intern(std::string_view s) {
  if (s.empty()) return {};
  auto it = names_.find(absl::string_view(s.data(), s.size()));
  if (it != names_.end()) return {it->data(), it->size()};
  std::string_view kept = store_.Copy(s);
  names_.insert(absl::string_view(kept.data(), kept.size()));
  return kept;
}

const FrameTable::Record* FrameTable::Find(const char* tail, size_t n, uint64_t hash) const {
  if (slots_.empty()) return nullptr;
  for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
    const Slot& s = slots_[i];
    if (!s.rec) return nullptr;
    if (s.hash == hash && s.rec->len == n && EqualBytes(s.rec->bytes(), tail, n)) {
      return s.rec;
    }
  }
}

void FrameTable::Grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 4096 : 2 * old.size(), Slot{});
  mask_ = slots_.size() - 1;
  for (const Slot& s : old) {
    if (!s.rec) continue;
    size_t i = s.hash & mask_;
    while (slots_[i].rec) i = (i + 1) & mask_;
    slots_[i] = s;
  }
}

Frame FrameTable::Add(std::string_view line, const char* tail, size_t n, uint64_t hash,
                      uint64_t ip) {
  // The address parsed as ParseFrameLine's fast path parses it, so from here its result
  // depends only on the tail (and the address).
  std::optional<Frame> parsed = ParseFrameLine(line);
  Frame f = InternNames(*parsed);  // (the address parsed: never nullopt)
  if (tail_bytes_ + n > kMaxTailBytes) return f;
  auto* rec = reinterpret_cast<Record*>(store_.Allocate(sizeof(Record) + n, alignof(Record)));
  rec->frame = f;
  rec->frame.ip = 0;
  rec->len = static_cast<uint32_t>(n);
  std::memcpy(rec + 1, tail, n);
  tail_bytes_ += n;
  if (2 * (size_ + 1) > slots_.size()) Grow();
  size_t i = hash & mask_;
  while (slots_[i].rec) i = (i + 1) & mask_;
  slots_[i] = Slot{hash, rec};
  ++size_;
  f.ip = ip;
  return f;
}

std::optional<Frame> FrameTable::Parse(std::string_view line) {
  const char* e = line.data() + line.size();
  uint64_t ip;
  const char* q = Address(line.data(), e, &ip);
  if (!q) {  // another shape: parsed the general way each time
    std::optional<Frame> f = ParseFrameLine(line);
    if (f) *f = InternNames(*f);
    return f;
  }
  const size_t n = static_cast<size_t>(e - q);
  const uint64_t hash = Hash(q, n);
  if (const Record* r = Find(q, n, hash)) {
    Frame f = r->frame;
    f.ip = ip;
    return f;
  }
  return Add(line, q, n, hash, ip);
}

bool FrameTable::ScanLine(const char* p, const char* e, Line* l) const {
  uint64_t ip;
#if defined(__SSE2__)
  const char* q = FieldAddress(p, e, &ip);
  if (!q) q = Address(p, e, &ip);
#else
  const char* q = Address(p, e, &ip);
#endif
  if (!q || q == e || *q != ' ') return false;
  // The "\n": sixteen bytes at a time where sixteen remain.
  const char* nl = nullptr;
  const char* s = q;
#if defined(__SSE2__)
  const __m128i newline = _mm_set1_epi8('\n');
  while (e - s >= 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    const unsigned m = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, newline)));
    if (m) {
      nl = s + std::countr_zero(m);
      break;
    }
    s += 16;
  }
#endif
  if (!nl) {
    while (s < e && *s != '\n') ++s;
    if (s == e) return false;
    nl = s;
  }
  if (IsBlank(nl[-1])) return false;  // "\r\n", trailing blanks: the tokenizer decides
  // The hash of the tail, as Hash computes it (the last word read as the tail's last eight
  // bytes, shifted down: the bytes Hash copies into a zeroed word).
  const size_t n = static_cast<size_t>(nl - q);
  uint64_t h;
  if (n < 8 || std::endian::native != std::endian::little) {
    h = Hash(q, n);
  } else {
    h = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t w;
      std::memcpy(&w, q + i, 8);
      h = Mix(h, w);
    }
    if (const size_t r = n - i) {
      uint64_t w;
      std::memcpy(&w, nl - 8, 8);
      h = Mix(h, w >> (8 * (8 - r)));
    }
    h = Final(h, n);
  }
  l->p = p;
  l->tail = q;
  l->nl = nl;
  l->hash = h;
  l->ip = ip;
  if (!slots_.empty()) __builtin_prefetch(&slots_[l->hash & mask_]);
  return true;
}

void FrameTable::Prefetch(Line* l) const {
  l->candidate = nullptr;
  if (slots_.empty()) return;
  // The first slots of the probe (a cache line holds four): a tail that collided is found
  // here too, not by Find after a wait for its record.
  const Slot* s = nullptr;
  for (size_t k = 0, i = l->hash & mask_; k < 4; ++k, i = (i + 1) & mask_) {
    const Slot& t = slots_[i];
    if (!t.rec) return;
    if (t.hash == l->hash) {
      s = &t;
      break;
    }
  }
  if (!s) return;
  l->candidate = s->rec;
  const char* r = reinterpret_cast<const char*>(s->rec);
  __builtin_prefetch(r);
  __builtin_prefetch(r + 64);
}

Frame FrameTable::Resolve(const Line& l) {
  const size_t n = static_cast<size_t>(l.nl - l.tail);
  const auto* r = static_cast<const Record*>(l.candidate);
  if (!r || r->len != n || !EqualBytes(r->bytes(), l.tail, n)) {
    r = Find(l.tail, n, l.hash);
  }
  if (!r) return Add(std::string_view(l.p, static_cast<size_t>(l.nl - l.p)), l.tail, n, l.hash, l.ip);
  Frame f = r->frame;
  f.ip = l.ip;
  return f;
}

void FrameTable::ScanAhead(const char* e) {
  const char* a = ahead_;
  // The text itself, a few lines before the scan reaches it (the hardware's prefetch stops
  // at page ends; its first read of each line was a fifth of ScanLine's time).
  if (e - a > kTextAhead) __builtin_prefetch(a + kTextAhead);
  Line& l = ring_[write_ % kAhead];
  if (*a == '\t' && ScanLine(a, e, &l)) {
    ahead_ = l.nl + 1;
    ++write_;
    if (write_ - staged_ > kStage) Prefetch(&ring_[staged_++ % kAhead]);
    return;
  }
  if (*a == '\n') {  // a stack's end
    ahead_ = a + 1;
    return;
  }
  const void* nl = std::memchr(a, '\n', static_cast<size_t>(e - a));
  ahead_ = nl ? static_cast<const char*>(nl) + 1 : e;
}

bool FrameTable::TakeAhead(const char* p, const char* e, Line* l) {
  if (!ahead_ || ahead_ <= p || p < asked_) {
    // The scan is behind (or not started, or the caller went back, past lines it dropped):
    // it starts at p.
    ahead_ = p;
    read_ = write_ = staged_ = 0;
  }
  asked_ = p;
  while (read_ < write_ && ring_[read_ % kAhead].p < p) ++read_;
  if (staged_ < read_) staged_ = read_;
  while (write_ - read_ < kAhead && ahead_ < e) ScanAhead(e);
  // The scan looked at every line start from where it began to ahead_, p among them: a line
  // it did not keep is one ScanLine does not take.
  if (read_ == write_ || ring_[read_ % kAhead].p != p) return false;
  Line& r = ring_[read_ % kAhead];
  if (staged_ == read_) {
    Prefetch(&r);
    ++staged_;
  }
  ++read_;
  *l = r;
  return true;
}

const char* FrameTable::ParseLinesAhead(const char* p, const char* e, std::vector<Frame>* out,
                                        uint64_t* lines) {
  uint64_t n = 0;
  Line l;
  while (p < e && *p == '\t' && TakeAhead(p, e, &l)) {
    out->push_back(Resolve(l));
    p = l.nl + 1;
    ++n;
  }
  *lines = n;
  return p;
}

const char* FrameTable::ParseLines(const char* p, const char* e, std::vector<Frame>* out,
                                   uint64_t* lines) {
  if (e == stable_end_ && e) return ParseLinesAhead(p, e, out, lines);
  constexpr size_t kRun = 32;
  Line run[kRun];
  uint64_t n = 0;
  for (;;) {
    size_t k = 0;
    while (k < kRun && p < e && *p == '\t' && ScanLine(p, e, &run[k])) p = run[k++].nl + 1;
    for (size_t i = 0; i < k; ++i) Prefetch(&run[i]);
    for (size_t i = 0; i < k; ++i) out->push_back(Resolve(run[i]));
    n += k;
    if (k < kRun) break;
  }
  *lines = n;
  return p;
}

}  // namespace tk::parsers::perf_script
