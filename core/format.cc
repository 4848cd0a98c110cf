#include "core/format.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"

namespace tk {
namespace {

std::string_view StripTrailing(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}
std::string_view Strip(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// "  <idle>-0     [001] d..2.  1234.5: ..." or "bash-1234  (  1234) [000] ...": the text before
// the first " [NNN]" ends in "-PID" (optionally followed by a "(TGID)" column).
bool LooksLikeFtraceLine(std::string_view line) {
  size_t br = line.find(" [");
  while (br != std::string_view::npos) {
    size_t close = line.find(']', br);
    if (close == std::string_view::npos) return false;
    if (AllDigits(line.substr(br + 2, close - br - 2))) break;
    br = line.find(" [", br + 1);
  }
  if (br == std::string_view::npos) return false;
  std::string_view before = StripTrailing(line.substr(0, br));
  if (!before.empty() && before.back() == ')') {  // tgid column "(  1234)" or "(-------)"
    size_t open = before.rfind('(');
    if (open == std::string_view::npos) return false;
    before = StripTrailing(before.substr(0, open));
  }
  size_t dash = before.rfind('-');
  if (dash == std::string_view::npos) return false;
  return AllDigits(before.substr(dash + 1));
}

// A `perf script` event header, its comm right-aligned or not:
//   "            perf 14376 [000]   910.086195:                       sched:sched_wakeup: ..."
//   "java 24636/25607 [000] 4794564.109216: cycles:"
// i.e. "PID[/TID] [CPU] SECONDS.FRACTION:" after the comm. perf pads comms with spaces, so a
// tracepoint-only text has no line that starts without whitespace.
bool LooksLikePerfScriptHeader(std::string_view line) {
  size_t br = line.find(" [");
  while (br != std::string_view::npos) {
    size_t close = line.find(']', br);
    if (close == std::string_view::npos) return false;
    if (close > br + 2 && AllDigits(line.substr(br + 2, close - br - 2))) {
      std::string_view before = StripTrailing(line.substr(0, br));
      size_t sp = before.find_last_of(" \t");
      if (sp == std::string_view::npos) return false;
      std::string_view pid = before.substr(sp + 1);
      size_t slash = pid.find('/');
      bool pid_ok = slash == std::string_view::npos
                        ? AllDigits(pid) || pid == "-1"
                        : AllDigits(pid.substr(0, slash)) && AllDigits(pid.substr(slash + 1));
      if (!pid_ok || pid.empty()) return false;
      std::string_view rest = Strip(line.substr(close + 1));
      size_t colon = rest.find(':');
      if (colon == std::string_view::npos) return false;
      std::string_view ts = rest.substr(0, colon);
      size_t dot = ts.find('.');
      return dot != std::string_view::npos && dot > 0 && AllDigits(ts.substr(0, dot)) &&
             AllDigits(ts.substr(dot + 1));
    }
    br = line.find(" [", br + 1);
  }
  return false;
}

}  // namespace

std::string_view FormatName(Format f) {
  switch (f) {
    case Format::kUnknown: return "unknown";
    case Format::kEmpty: return "empty";
    case Format::kPerfData: return "perf.data";
    case Format::kPerfDataPipe: return "perf.data (pipe mode)";
    case Format::kPerfDataV1: return "perf.data v1";
    case Format::kTraceDat: return "trace.dat";
    case Format::kPerfScriptText: return "perf script text";
    case Format::kFtraceText: return "ftrace text";
  }
  return "unknown";
}

Format DetectFormat(std::string_view head) {
  if (head.empty()) return Format::kEmpty;
  if (head.size() >= 8) {
    std::string_view magic = head.substr(0, 8);
    if (magic == "PERFILE2" || magic == "2ELIFREP") {
      if (head.size() >= 16) {
        uint64_t size;
        std::memcpy(&size, head.data() + 8, 8);
        if (magic == "2ELIFREP") size = __builtin_bswap64(size);
        return size == 16 ? Format::kPerfDataPipe : Format::kPerfData;
      }
      return Format::kPerfData;
    }
    if (magic == "PERFFILE") return Format::kPerfDataV1;
  }
  if (head.size() >= 10 && head.substr(0, 10) == std::string_view("\x17\x08\x44tracing", 10)) {
    return Format::kTraceDat;
  }
  // Binary garbage is not text.
  size_t probe = std::min<size_t>(head.size(), 512);
  for (size_t i = 0; i < probe; ++i) {
    unsigned char c = head[i];
    if (c == 0 || (c < 0x20 && c != '\n' && c != '\r' && c != '\t')) return Format::kUnknown;
  }
  // The first non-comment line decides. The last line may be cut by the peek size; a cut line
  // still shows its "comm-PID [CPU]" or "comm PID" prefix.
  while (!head.empty()) {
    size_t nl = head.find('\n');
    std::string_view line = head.substr(0, nl);
    head = nl == std::string_view::npos ? std::string_view() : head.substr(nl + 1);
    if (line.starts_with("# tracer:") || line.starts_with("cpus=") ||
        line.starts_with("version = ")) {
      return Format::kFtraceText;
    }
    std::string_view t = Strip(line);
    if (t.empty() || t[0] == '#') continue;
    if (line[0] == ' ' || line[0] == '\t') {
      // Frames of a perf script stack start with whitespace; ftrace lines are right-aligned
      // comms and also start with spaces, so check the ftrace shape first.
      // ":-1    -1 [000] ..." (an exited thread in perf script) ends in "-1" like "comm-PID".
      if (LooksLikePerfScriptHeader(line)) return Format::kPerfScriptText;
      if (LooksLikeFtraceLine(line)) return Format::kFtraceText;
      continue;
    }
    if (LooksLikePerfScriptHeader(line)) return Format::kPerfScriptText;
    if (LooksLikeFtraceLine(line)) return Format::kFtraceText;
    return Format::kPerfScriptText;
  }
  // Only comments and blank lines: perf script text (its parser decides whether any line is an
  // event).
  return Format::kPerfScriptText;
}

std::string_view CompressionOf(std::string_view head) {
  // Magics: gzip RFC 1952 (1f 8b), xz (fd '7zXZ' 00), zstd frame (28 b5 2f fd), bzip2 "BZh".
  if (head.starts_with("\x1f\x8b")) return "gzip";
  if (head.starts_with(std::string_view("\xfd" "7zXZ\0", 6))) return "xz";
  if (head.starts_with("\x28\xb5\x2f\xfd")) return "zstd";
  if (head.size() >= 4 && head.starts_with("BZh") && head[3] >= '1' && head[3] <= '9') {
    return "bzip2";
  }
  return "";
}

std::string RefusalMessage(Format f, std::string_view head) {
  if (f == Format::kEmpty) return "empty input";
  std::string_view z = CompressionOf(head);
  if (!z.empty()) {
    std::string_view tool = z == "gzip" ? "zcat" : z == "xz" ? "xzcat" : z == "zstd" ? "zstdcat" : "bzcat";
    return absl::StrCat(AV(z), "-compressed input: decompress it first (", AV(tool),
                        " FILE | tk CMD -)");
  }
  return "unknown input format (not perf.data, trace.dat, perf script or ftrace text)";
}

bool LooksLikeFoldedStack(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  size_t sp = line.rfind(' ');
  if (sp == std::string_view::npos || sp == 0 || line[0] == ' ' || line[0] == '\t') return false;
  return AllDigits(line.substr(sp + 1));
}

std::string NoEventMessage(std::string_view format, std::string_view first) {
  std::string quoted = absl::StrCat("\"", AV(first.substr(0, 80)), first.size() > 80 ? "...\"" : "\"");
  if (LooksLikeFoldedStack(first)) {
    return absl::StrCat("already folded stacks (\"frame;frame COUNT\" lines, as tk fold prints "
                        "them), not a trace: draw them with tk flamegraph; first line ",
                        quoted);
  }
  return absl::StrCat("unknown input format: no line is ", AV(format),
                      " event (not perf.data, trace.dat, perf script or ftrace text); first line ",
                      quoted);
}

}  // namespace tk
