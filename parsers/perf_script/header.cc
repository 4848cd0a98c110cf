#include "parsers/perf_script/header.h"

#include <bit>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/strings.h"
#include "core/timestamp.h"

namespace tk::parsers::perf_script {
namespace {

// "PID", "PID/TID", "-1", "-1/-1" → pid, tid (pid = -1 when only one number is printed).
bool ParsePidTid(std::string_view w, int32_t* pid, int32_t* tid) {
  size_t slash = w.find('/');
  if (slash == std::string_view::npos) {
    *pid = -1;
    return ParseDecimal(w, tid);
  }
  return ParseDecimal(w.substr(0, slash), pid) && ParseDecimal(w.substr(slash + 1), tid);
}

// "[003]"
bool ParseCpu(std::string_view w, int32_t* cpu) {
  if (w.size() < 3 || w.front() != '[' || w.back() != ']') return false;
  return ParseDecimal(w.substr(1, w.size() - 2), cpu) && *cpu >= 0;
}

// The side-band records perf script prints in place of an event name:
//   PERF_RECORD_COMM exec: sh:9292/9292        PERF_RECORD_COMM: perf-exec:9292/9292
//   PERF_RECORD_FORK(9294:9294):(9292:9292)    PERF_RECORD_EXIT(9294:9294):(9292:9292)
//   PERF_RECORD_LOST lost 25                   PERF_RECORD_LOST_SAMPLES lost 3
//   PERF_RECORD_MMAP2 9292/9292: [0x564e22fb4000(0x13000) @ 0x4000 fe:00 247230 0]: r-xp ...
void ParseSideBand(std::string_view s, Header* h) {
  h->side = SideBand::kOther;
  auto pair = [](std::string_view p, int32_t* a, int32_t* b) {
    // "(9294:9294)"
    if (p.size() < 5 || p.front() != '(' || p.back() != ')') return false;
    p = p.substr(1, p.size() - 2);
    size_t colon = p.find(':');
    return colon != std::string_view::npos && ParseDecimal(p.substr(0, colon), a) &&
           ParseDecimal(p.substr(colon + 1), b);
  };
  bool fork = s.starts_with("PERF_RECORD_FORK(");
  if (fork || s.starts_with("PERF_RECORD_EXIT(")) {
    std::string_view p = s.substr(16);  // "(9294:9294):(9292:9292)"
    size_t mid = p.find("):(");
    if (mid != std::string_view::npos &&
        pair(p.substr(0, mid + 1), &h->pid, &h->tid) &&
        pair(p.substr(mid + 2), &h->other_pid, &h->other_tid)) {
      h->side = fork ? SideBand::kFork : SideBand::kExit;
    }
    return;
  }
  if (s.starts_with("PERF_RECORD_COMM")) {
    std::string_view p = s.substr(16);
    h->exec = p.starts_with(" exec:");
    size_t colon = p.find(':');
    if (colon == std::string_view::npos) return;
    p = Trim(p.substr(colon + 1));  // "sh:9292/9292"; a comm may hold ':'
    size_t last = p.rfind(':');
    if (last == std::string_view::npos) return;
    if (ParsePidTid(p.substr(last + 1), &h->other_pid, &h->other_tid) && h->other_pid >= 0) {
      h->side_comm = p.substr(0, last);
      h->side = SideBand::kComm;
    }
    return;
  }
  bool samples = s.starts_with("PERF_RECORD_LOST_SAMPLES");
  if (samples || s.starts_with("PERF_RECORD_LOST")) {
    size_t at = s.find(" lost ");
    if (at == std::string_view::npos) return;
    std::string_view n = NextWord(s.substr(at + 6), nullptr);
    if (ParseDecimal(n, &h->lost)) h->side = samples ? SideBand::kLostSamples : SideBand::kLost;
  }
}

// Everything after the PID word: "[000] 267.436250:      50000 cpu-clock:pppH: REST".
// Each part is optional but the order is perf's; a header needs a time or an event.
bool ParseTail(std::string_view s, Header* h) {
  std::string_view rest;
  std::string_view w = NextWord(s, &rest);
  if (ParseCpu(w, &h->cpu)) w = NextWord(rest, &rest);
  bool have_time = false;
  if (w.size() >= 2 && w.back() == ':' && IsDigit(w[0])) {
    std::optional<int64_t> ts = ParseTimestampNs(w.substr(0, w.size() - 1));
    if (!ts) return false;
    h->ts_ns = *ts;
    have_time = true;
    w = NextWord(rest, &rest);
  }
  if (w.empty()) return have_time;  // "comm 123 [000] 1.000000:" (-F without event)
  if (w.starts_with("PERF_RECORD_")) {
    ParseSideBand(Trim(std::string_view(w.data(), rest.data() + rest.size() - w.data())), h);
    return true;
  }
  if (IsDigit(w[0])) {
    if (!ParseDecimal(w, &h->period)) return false;
    h->has_period = true;
    w = NextWord(rest, &rest);
  }
  if (w.size() < 2 || w.back() != ':') return false;
  h->event = w.substr(0, w.size() - 1);
  h->rest = Trim(rest);
  return true;
}

// "CPU 3: 12 events lost"
bool ParseCpuLost(std::string_view line, Header* h) {
  if (!line.starts_with("CPU ") || !line.ends_with(" events lost")) return false;
  std::string_view rest;
  std::string_view cpu = NextWord(line.substr(4), &rest);
  if (cpu.size() < 2 || cpu.back() != ':' || !ParseDecimal(cpu.substr(0, cpu.size() - 1), &h->cpu))
    return false;
  std::string_view n = NextWord(rest, &rest);
  if (!ParseDecimal(n, &h->lost) || Trim(rest) != "events lost") return false;
  h->side = SideBand::kLost;
  return true;
}

// `n` (1..18) decimal digits at `p`, or -1 when one is not a digit (core/strings.h's parser:
// digits only, no sign).
inline int64_t Digits(const char* p, size_t n) {
  uint64_t v = 0;
  return ParseDecimal<uint64_t>(std::string_view(p, n), &v) ? static_cast<int64_t>(v) : -1;
}

// The first six blank-separated words of a trimmed line (a missing one begins and ends at
// the line's end) and where the seventh begins.
struct Words {
  const char* begin[7];
  const char* end[6];
};

void SplitWords(std::string_view line, Words* w) {
  const char* e = line.data() + line.size();
  const char* s = line.data();
  for (int i = 0; i < 6; ++i) {
    w->begin[i] = s;
    w->end[i] = SkipWord(s, e);
    s = SkipBlanks(w->end[i], e);
  }
  w->begin[6] = s;
}

// What ParseUsualHeader reads its fields from. A line of at most 64 bytes is copied into
// `buf` (at kPad, spaces around it): its numbers are then read eight bytes at a time
// (Digits8) without reading outside the line's memory, and `slashes` / `dots` have bit i set
// when byte i of the line is '/' / '.'. `copied` is false for longer lines (read in place).
struct LineView {
  static constexpr size_t kPad = 8;
  const char* line = nullptr;
  bool copied = false;
  uint64_t slashes = 0, dots = 0;
  alignas(16) char buf[kPad + 64 + 8];
  // The copy of the line's byte at `p`.
  const char* At(const char* p) const { return buf + kPad + (p - line); }
  // The first '/' (or '.') in [b, e) of the line, or nullptr.
  const char* Find(char c, const char* b, const char* e) const {
    if (!copied) return static_cast<const char*>(std::memchr(b, c, static_cast<size_t>(e - b)));
    const auto from = static_cast<unsigned>(b - line), to = static_cast<unsigned>(e - line);
    if (from >= to) return nullptr;  // (also keeps the shift below 64)
    uint64_t m = (c == '/' ? slashes : dots) >> from;
    if (to - from < 64) m &= (uint64_t{1} << (to - from)) - 1;
    return m ? b + std::countr_zero(m) : nullptr;
  }
};

// `n` (1..8) decimal digits ending at `end`, with at least 8 readable bytes before `end`;
// -1 when one is not a digit. Eight bytes at once: the digits' bytes masked in, checked to be
// '0'-'9', then combined in pairs, fours and eights (two digits of a byte pair are
// 10 * first + second, and so on).
inline int64_t Digits8(const char* end, size_t n) {
  uint64_t w;
  std::memcpy(&w, end - 8, 8);
  const uint64_t mask = ~uint64_t{0} << (8 * (8 - n));  // the last n bytes (little-endian)
  w &= mask;
  const uint64_t zeros = 0x3030303030303030ULL & mask;
  constexpr uint64_t kHigh = 0xF0F0F0F0F0F0F0F0ULL;
  // (Bytes 0x30-0x39 only: the first test leaves 0x30-0x3F, adding 6 moves 0x3A-0x3F out.)
  if ((w & kHigh) != zeros || ((w + 0x0606060606060606ULL) & kHigh) != zeros) return -1;
  w -= zeros;
  w = (w * 10 + (w >> 8)) & 0x00FF00FF00FF00FFULL;
  w = (w * 100 + (w >> 16)) & 0x0000FFFF0000FFFFULL;
  w = (w * 10000 + (w >> 32)) & 0xFFFFFFFFULL;
  return static_cast<int64_t>(w);
}

// The digits at [p, p + n) of the line `v` views (Digits8 on its copy when there is one).
inline int64_t NumberAt(const LineView& v, const char* p, size_t n) {
  if (v.copied && n - 1 < 8) return Digits8(v.At(p + n), n);
  return Digits(p, n);
}

#if defined(__SSE2__)
// SplitWords for a line of at most 64 bytes whose only blanks are spaces (perf's): one mask
// of its spaces, the words' first and last bytes from it; the line copied into `v`. False
// for other lines.
bool SplitShortLine(std::string_view line, Words* w, LineView* v) {
  const size_t n = line.size();
  if (n > 64) return false;
  char* buf = v->buf + LineView::kPad;
  std::memset(v->buf, ' ', sizeof v->buf);
  std::memcpy(buf, line.data(), n);
  uint64_t spaces = 0, others = 0, slashes = 0, dots = 0;
  for (int k = 0; k < 4; ++k) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(buf + 16 * k));
    auto bits = [&](char c) {
      return static_cast<uint64_t>(static_cast<uint32_t>(
                 _mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(c)))))
             << (16 * k);
    };
    spaces |= bits(' ');
    others |= bits('\t') | bits('\r');
    slashes |= bits('/');
    dots |= bits('.');
  }
  if (others) return false;
  v->copied = true;
  v->slashes = slashes;
  v->dots = dots;
  const uint64_t word = ~spaces;  // (the padding is spaces)
  uint64_t firsts = word & ~(word << 1);
  uint64_t lasts = word & ~(word >> 1);
  const char* p = line.data();
  const char* e = p + n;
  for (int i = 0; i < 6; ++i) {
    if (!firsts) {
      w->begin[i] = w->end[i] = e;
      continue;
    }
    w->begin[i] = p + std::countr_zero(firsts);
    w->end[i] = p + std::countr_zero(lasts) + 1;
    firsts &= firsts - 1;
    lasts &= lasts - 1;
  }
  w->begin[6] = firsts ? p + std::countr_zero(firsts) : e;
  return true;
}
#endif

// The header perf script prints for a sample or tracepoint by default, the comm one word:
//   "COMM TID [CPU] SECONDS.FRACTION: [PERIOD] EVENT: REST"   (also "PID/TID")
// parsed in one pass with what ParseHeaderInto's general loop would give it: that loop
// takes the first word as the comm and the second as the PID when the rest parses
// (ParseTail), which is what this checks, field by field, with the same numbers' limits
// (fewer digits, so no overflow check is needed). False, with *h unspecified, for any other
// shape: the general loop then decides. `line` is trimmed, not a comment, not "CPU ...".
struct TimeAt {
  const char* begin;  // the seconds' first digit
  const char* dot;
  const char* colon;  // after the fraction
};

bool ParseUsualHeader(std::string_view line, Header* h, TimeAt* at = nullptr) {
  Words ws;
  LineView v;
  v.line = line.data();
#if defined(__SSE2__)
  if (!SplitShortLine(line, &ws, &v)) SplitWords(line, &ws);
#else
  SplitWords(line, &ws);
#endif
  const char* p = line.data();
  const char* e = p + line.size();
  // PID word: "TID" or "PID/TID", at most 9 digits each (ParseDecimal<int32> takes them).
  const char* w = ws.begin[1];
  const char* we = ws.end[1];
  const char* slash = v.Find('/', w, we);
  int64_t pid = -1, tid;
  if (slash) {
    if (slash == w || slash - w > 9 || we - slash - 1 > 9 || we - slash - 1 == 0) return false;
    pid = NumberAt(v, w, static_cast<size_t>(slash - w));
    tid = NumberAt(v, slash + 1, static_cast<size_t>(we - slash - 1));
    if (pid < 0) return false;
  } else {
    if (we == w || we - w > 9) return false;
    tid = NumberAt(v, w, static_cast<size_t>(we - w));
  }
  if (tid < 0) return false;
  // "[CPU]"
  w = ws.begin[2];
  we = ws.end[2];
  if (we - w < 3 || we - w > 11 || *w != '[' || we[-1] != ']') return false;
  const int64_t cpu = NumberAt(v, w + 1, static_cast<size_t>(we - w - 2));
  if (cpu < 0) return false;
  // "SECONDS.FRACTION:", at most 8 digits of seconds and 9 of fraction.
  w = ws.begin[3];
  we = ws.end[3];
  if (we - w < 4 || we[-1] != ':') return false;
  const char* dot = v.Find('.', w, we);
  if (!dot || dot == w || dot - w > 8) return false;
  const size_t frac_digits = static_cast<size_t>(we - 1 - dot - 1);
  if (frac_digits == 0 || frac_digits > 9) return false;
  const int64_t sec = NumberAt(v, w, static_cast<size_t>(dot - w));
  int64_t frac = NumberAt(v, dot + 1, frac_digits);
  if (sec < 0 || frac < 0) return false;
  for (size_t i = frac_digits; i < 9; ++i) frac *= 10;
  // "[PERIOD] EVENT:"
  int event = 4;
  w = ws.begin[4];
  we = ws.end[4];
  if (w == e) return false;
  uint64_t period = 1;
  bool has_period = false;
  if (IsDigit(*w)) {
    if (we - w > 18) return false;
    const int64_t v_period = NumberAt(v, w, static_cast<size_t>(we - w));
    if (v_period < 0) return false;
    period = static_cast<uint64_t>(v_period);
    has_period = true;
    event = 5;
    w = ws.begin[5];
    we = ws.end[5];
  }
  if (we - w < 2 || we[-1] != ':' || *w == 'P') return false;  // (P: PERF_RECORD_ side-band)
  *h = Header{};
  h->comm = std::string_view(p, static_cast<size_t>(ws.end[0] - p));
  h->pid = static_cast<int32_t>(pid);
  h->tid = static_cast<int32_t>(tid);
  h->cpu = static_cast<int32_t>(cpu);
  h->ts_ns = sec * 1000000000 + frac;
  if (at) *at = TimeAt{ws.begin[3], dot, ws.end[3] - 1};
  h->period = period;
  h->has_period = has_period;
  h->event = std::string_view(w, static_cast<size_t>(we - 1 - w));
  const char* rest = ws.begin[event + 1];
  h->rest = std::string_view(rest, static_cast<size_t>(e - rest));
  return true;
}

}  // namespace

std::optional<Header> ParseHeader(std::string_view line) {
  Header h;
  if (!ParseHeaderInto(line, &h)) return std::nullopt;
  return h;
}

bool ParseHeaderInto(std::string_view line, Header* out) {
  std::string_view t = Trim(line);
  if (!t.empty() && t[0] != '#' && !t.starts_with("CPU ") && ParseUsualHeader(t, out)) {
    return true;
  }
  return ParseHeaderGeneral(line, out);
}

bool HeaderParser::Parse(std::string_view line, Header* h) {
  const size_t n = line.size();
  const char* p = line.data();
  for (int k = 0; k < 2; ++k) {
    Seen& s = seen_[(last_ + k) & 1];
    if (s.bytes.size() != n || n == 0 || p[s.dot] != '.' ||
        !EqualBytes(p, s.bytes.data(), s.time) ||
        !EqualBytes(p + s.colon, s.bytes.data() + s.colon, n - s.colon)) {
      continue;
    }
    // Only the time's digits differ: ParseUsualHeader would split the words as it did for
    // `s` and read every other field the same; the seconds and fraction are checked as it
    // checks them (digits only; their counts are `s`'s).
    const size_t sec_digits = s.dot - s.time, frac_digits = s.colon - s.dot - 1;
    const int64_t sec = s.dot >= 8 && sec_digits <= 8 ? Digits8(p + s.dot, sec_digits)
                                                       : Digits(p + s.time, sec_digits);
    int64_t frac = frac_digits <= 8 ? Digits8(p + s.colon, frac_digits)
                                    : Digits(p + s.dot + 1, frac_digits);
    if (sec < 0 || frac < 0) break;  // (another line: parsed in full)
    for (size_t i = frac_digits; i < 9; ++i) frac *= 10;
    *h = s.header;
    h->comm = std::string_view(p + s.comm, s.header.comm.size());
    h->event = std::string_view(p + s.event, s.header.event.size());
    h->rest = std::string_view(p + s.rest, s.header.rest.size());
    h->ts_ns = sec * 1000000000 + frac;
    last_ = (last_ + k) & 1;
    return true;
  }
  std::string_view t = Trim(line);
  TimeAt at;
  if (!t.empty() && t[0] != '#' && !t.starts_with("CPU ") && ParseUsualHeader(t, h, &at)) {
    if (n <= kMaxSeen) {
      // Kept in place of the one used less recently.
      last_ ^= 1;
      Seen& s = seen_[last_];
      s.bytes.assign(p, n);
      s.time = static_cast<size_t>(at.begin - p);
      s.dot = static_cast<size_t>(at.dot - p);
      s.colon = static_cast<size_t>(at.colon - p);
      s.comm = static_cast<size_t>(h->comm.data() - p);
      s.event = static_cast<size_t>(h->event.data() - p);
      s.rest = static_cast<size_t>(h->rest.data() - p);
      s.header = *h;
    }
    return true;
  }
  return ParseHeaderGeneral(line, h);
}

bool ParseHeaderGeneral(std::string_view line, Header* out) {
  line = Trim(line);
  if (line.empty() || line[0] == '#') return false;
  *out = Header{};
  if (line[0] == 'C' && ParseCpuLost(line, out)) return true;
  // (A failed ParseCpuLost may have set the CPU: kept, as the fields a failed ParseTail set
  // are not.)
  const int32_t base_cpu = out->cpu;
  const uint64_t base_lost = out->lost;
  // The first word is always (part of) the comm; try each later PID-shaped word.
  std::string_view rest;
  NextWord(line, &rest);
  for (;;) {
    std::string_view after;
    std::string_view w = NextWord(rest, &after);
    if (w.empty()) return false;
    int32_t pid, tid;
    if ((IsDigit(w[0]) || (w[0] == '-' && w.size() > 1)) && ParsePidTid(w, &pid, &tid)) {
      out->pid = pid;
      out->tid = tid;
      if (ParseTail(after, out)) {
        out->comm = Trim(line.substr(0, w.data() - line.data()));
        return true;
      }
      *out = Header{};  // ParseTail may have set some fields
      out->cpu = base_cpu;
      out->lost = base_lost;
    }
    rest = after;
  }
}

void RebaseHeader(const char* from, const char* to, Header* h) {
  auto move = [&](std::string_view* v) {
    if (!v->empty()) *v = std::string_view(to + (v->data() - from), v->size());
  };
  move(&h->comm);
  move(&h->event);
  move(&h->rest);
  move(&h->side_comm);
}

}  // namespace tk::parsers::perf_script
