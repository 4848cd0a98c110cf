#include "analyses/sched/perf_format.h"

#include <cstdarg>
#include <cstdio>
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

}  // namespace

void AppendRight(std::string* out, std::string_view s, int width) {
  if (static_cast<int>(s.size()) < width) out->append(width - s.size(), ' ');
  out->append(s);
}

void AppendLeft(std::string* out, std::string_view s, int width) {
  out->append(s);
  if (static_cast<int>(s.size()) < width) out->append(width - s.size(), ' ');
}

void AppendUsecTimestamp(std::string* out, int64_t ns, int width) {
  // "%*s" of "sec.usec": the seconds are right-aligned so that the whole is `width` wide.
  AppendTimestamp(ns < 0 ? 0 : ns, 6, out, width - 7);
}

void AppendCpu(std::string* out, int32_t cpu) {
  if (cpu < 0 || cpu > 9999) {
    AppendF(out, "[%04d] ", cpu);
    return;
  }
  char b[7] = {'[', static_cast<char>('0' + cpu / 1000), static_cast<char>('0' + cpu / 100 % 10),
               static_cast<char>('0' + cpu / 10 % 10), static_cast<char>('0' + cpu % 10), ']', ' '};
  out->append(b, sizeof(b));
}

std::string UsecTimestamp(int64_t ns) { return FormatTimestamp(ns < 0 ? 0 : ns, 6); }

void AppendSchedTime(std::string* out, uint64_t ns, int width) {
  char buf[40];
  char* end = buf + sizeof(buf);
  char* p = end;
  *--p = ' ';
  uint64_t usecs = (ns % 1000000) / 1000;
  *--p = static_cast<char>('0' + usecs % 10);
  *--p = static_cast<char>('0' + usecs / 10 % 10);
  *--p = static_cast<char>('0' + usecs / 100);
  *--p = '.';
  char* digits_end = p;
  p = Digits(ns / 1000000, p);
  int n = static_cast<int>(digits_end - p);
  if (n < width) out->append(width - n, ' ');
  out->append(p, end - p);
}

void FlushIfBig(std::string* buf, std::ostream& out) {
  if (buf->size() < (64u << 10)) return;
  out.write(buf->data(), static_cast<std::streamsize>(buf->size()));
  buf->clear();
}

}  // namespace tk::sched
