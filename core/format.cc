#include "core/format.h"

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/strings.h"

namespace tk {

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
