#include "analyses/sched/perf_format.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ostream>

#include "core/timestamp.h"

namespace tk::sched {

void AppendF(std::string* out, const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if (static_cast<size_t>(n) < sizeof(buf)) {
    out->append(buf, n);
    return;
  }
  std::string big(n + 1, '\0');
  va_start(ap, fmt);
  vsnprintf(big.data(), big.size(), fmt, ap);
  va_end(ap);
  out->append(big.data(), n);
}

namespace {

// Decimal digits of v, written backwards ending at `end`; returns the first digit.
char* Digits(uint64_t v, char* end) {
  do {
    *--end = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v);
  return end;
}

// "00" to "99", two digits at a time.
constexpr char kPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

// v in decimal, right-aligned with spaces in at least `width` columns ("%*lu"). Writes 16
// bytes or more (the padding is stored in one piece), returns the end of the number.
__attribute__((always_inline)) inline char* PutPadded(char* p, uint64_t v, int width) {
  static constexpr uint64_t kPow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                        100000000, 1000000000, 10000000000ULL,
                                        100000000000ULL, 1000000000000ULL,
                                        10000000000000ULL, 100000000000000ULL,
                                        1000000000000000ULL, 10000000000000000ULL,
                                        100000000000000000ULL, 1000000000000000000ULL,
                                        10000000000000000000ULL};
  int n = 1;
  while (n < 20 && v >= kPow10[n]) ++n;
  const int w = std::max(n, width);
  if (w <= 16) std::memcpy(p, "                ", 16);
  else std::memset(p, ' ', w);
  char* end = p + w;
  if (v <= UINT32_MAX) {
    char* q = end;
    uint32_t x = static_cast<uint32_t>(v);
    do {
      *--q = static_cast<char>('0' + x % 10);
      x /= 10;
    } while (x);
  } else {
    Digits(v, end);
  }
  return end;
}

}  // namespace

char* PutLeft(char* p, std::string_view s, int width) {
  std::memcpy(p, s.data(), s.size());
  p += s.size();
  for (int i = static_cast<int>(s.size()); i < width; ++i) *p++ = ' ';
  return p;
}

char* PutUsecTimestamp(char* p, int64_t ns, int width) {
  // "%*s" of "sec.usec" (perf's timestamp__scnprintf_usec): the seconds right-aligned so that
  // the whole is `width` wide, the microseconds truncated.
  uint64_t v = ns < 0 ? 0 : static_cast<uint64_t>(ns);
  p = PutPadded(p, v / 1000000000, width - 7);
  uint32_t usec = static_cast<uint32_t>(v % 1000000000) / 1000;
  *p++ = '.';
  std::memcpy(p, kPairs + 2 * (usec / 10000), 2);
  std::memcpy(p + 2, kPairs + 2 * (usec / 100 % 100), 2);
  std::memcpy(p + 4, kPairs + 2 * (usec % 100), 2);
  return p + 6;
}

char* PutCpu(char* p, int32_t cpu) {
  p[0] = '[';
  p[1] = static_cast<char>('0' + cpu / 1000);
  p[2] = static_cast<char>('0' + cpu / 100 % 10);
  p[3] = static_cast<char>('0' + cpu / 10 % 10);
  p[4] = static_cast<char>('0' + cpu % 10);
  p[5] = ']';
  p[6] = ' ';
  return p + 7;
}

char* PutSchedTime(char* p, uint64_t ns, int width) {
  // "%*lu.%03lu ": whole milliseconds padded to `width`, then the truncated microseconds.
  p = PutPadded(p, ns / 1000000, width);
  uint32_t usecs = static_cast<uint32_t>(ns % 1000000) / 1000;
  p[0] = '.';
  p[1] = static_cast<char>('0' + usecs / 100);
  p[2] = static_cast<char>('0' + usecs / 10 % 10);
  p[3] = static_cast<char>('0' + usecs % 10);
  p[4] = ' ';
  return p + 5;
}

void AppendCpu(std::string* out, int32_t cpu) {
  if (cpu < 0 || cpu > 9999) {
    AppendF(out, "[%04d] ", cpu);
    return;
  }
  char b[7];
  out->append(b, PutCpu(b, cpu) - b);
}

std::string UsecTimestamp(int64_t ns) { return FormatTimestamp(ns < 0 ? 0 : ns, 6); }

void AppendSchedTime(std::string* out, uint64_t ns, int width) {
  char b[96];
  out->append(b, PutSchedTime(b, ns, std::min(width, 64)) - b);
}

void FlushIfBig(std::string* buf, std::ostream& out) {
  if (buf->size() < (64u << 10)) return;
  out.write(buf->data(), static_cast<std::streamsize>(buf->size()));
  buf->clear();
}

}  // namespace tk::sched
