#include "analyses/sched/perf_format.h"

#include <cstdarg>
#include <cstdio>
#include <ostream>

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

std::string UsecTimestamp(int64_t ns) {
  if (ns < 0) ns = 0;
  uint64_t u = static_cast<uint64_t>(ns);
  char buf[48];
  snprintf(buf, sizeof(buf), "%lu.%06lu", static_cast<unsigned long>(u / 1000000000),
           static_cast<unsigned long>((u % 1000000000) / 1000));
  return buf;
}

void AppendSchedTime(std::string* out, uint64_t ns, int width) {
  unsigned long msecs = ns / 1000000;
  unsigned long usecs = (ns % 1000000) / 1000;
  AppendF(out, "%*lu.%03lu ", width, msecs, usecs);
}

void JsonString(std::string* out, std::string_view s) {
  out->push_back('"');
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (u < 0x20) {
      AppendF(out, "\\u%04x", u);
    } else {
      out->push_back(c);
    }
  }
  out->push_back('"');
}

void FlushIfBig(std::string* buf, std::ostream& out) {
  if (buf->size() < (64u << 10)) return;
  out.write(buf->data(), static_cast<std::streamsize>(buf->size()));
  buf->clear();
}

}  // namespace tk::sched
