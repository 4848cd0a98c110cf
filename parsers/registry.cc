// The registry: asks each parser's sniffer in order, maps the detected format to its parser.
#include <optional>

#include "absl/strings/str_cat.h"
#include "parsers/ftrace_text/ftrace_text_parser.h"
#include "parsers/parser.h"
#include "parsers/perf_data/perf_data_parser.h"
#include "parsers/perf_script/perf_script_parser.h"
#include "parsers/trace_dat/trace_dat_parser.h"

namespace tk {
namespace {

bool IsBlankOrComment(std::string_view line) {
  size_t i = line.find_first_not_of(" \t\r");
  return i == std::string_view::npos || line[i] == '#';
}

// Binary data: a NUL or control byte in the first 512 bytes.
bool LooksBinary(std::string_view head) {
  size_t probe = std::min<size_t>(head.size(), 512);
  for (size_t i = 0; i < probe; ++i) {
    unsigned char c = head[i];
    if (c == 0 || (c < 0x20 && c != '\n' && c != '\r' && c != '\t')) return true;
  }
  return false;
}

// The text formats decide line by line; the last line may be cut by the peek size (a cut
// line still shows its "comm-PID [CPU]" or "comm PID" prefix).
Format DetectText(std::string_view head) {
  namespace ftrace = parsers::ftrace_text;
  namespace perf_script = parsers::perf_script;
  while (!head.empty()) {
    size_t nl = head.find('\n');
    std::string_view line = head.substr(0, nl);
    head = nl == std::string_view::npos ? std::string_view() : head.substr(nl + 1);
    if (ftrace::SniffHeaderLine(line)) return Format::kFtraceText;
    if (IsBlankOrComment(line)) continue;
    // The perf script header first: ":-1    -1 [000] ..." (an exited thread in perf script)
    // ends in "-1" like ftrace's "comm-PID".
    if (perf_script::SniffHeaderLine(line)) return Format::kPerfScriptText;
    if (ftrace::SniffEventLine(line)) return Format::kFtraceText;
    // Frames of a perf script stack start with whitespace: look further.
    if (line[0] == ' ' || line[0] == '\t') continue;
    return Format::kPerfScriptText;
  }
  // Only comments and blank lines: perf script text (its parser decides whether any line is an
  // event).
  return Format::kPerfScriptText;
}

}  // namespace

Format DetectFormat(std::string_view head) {
  if (head.empty()) return Format::kEmpty;
  if (std::optional<Format> f = parsers::perf_data::SniffPerfData(head)) return *f;
  if (parsers::trace_dat::SniffTraceDat(head)) return Format::kTraceDat;
  if (LooksBinary(head)) return Format::kUnknown;  // binary garbage is not text
  return DetectText(head);
}

absl::StatusOr<std::unique_ptr<Parser>> NewParser(Format f, const ParseOptions& opts) {
  switch (f) {
    case Format::kPerfData:
    case Format::kPerfDataPipe:
      return parsers::perf_data::NewPerfDataParser(opts);
    case Format::kPerfDataV1:
      return absl::InvalidArgumentError(
          "obsolete perf.data version 1 (PERFFILE); re-record with a perf from 2010 or later");
    case Format::kTraceDat:
      return parsers::trace_dat::NewTraceDatParser(opts);
    case Format::kPerfScriptText:
      return parsers::perf_script::NewPerfScriptParser(opts);
    case Format::kFtraceText:
      return parsers::ftrace_text::NewFtraceTextParser(opts);
    case Format::kEmpty:
    case Format::kUnknown:
      break;
  }
  return absl::InvalidArgumentError(RefusalMessage(f, ""));
}

namespace {
uint64_t g_detections = 0;
}  // namespace

uint64_t FormatDetections() { return g_detections; }

absl::StatusOr<std::unique_ptr<Parser>> ParserFor(Input& in, Format f, const ParseOptions& opts) {
  if (f == Format::kEmpty || f == Format::kUnknown) {
    absl::StatusOr<std::string_view> head = in.Peek(8192);
    if (!head.ok()) return head.status();
    if (f == Format::kEmpty) {
      return absl::InvalidArgumentError(absl::StrCat(in.name(), ": ", RefusalMessage(f, *head)));
    }
    return absl::InvalidArgumentError(
        absl::StrCat(in.name(), ": offset 0: ", RefusalMessage(f, *head)));
  }
  absl::StatusOr<std::unique_ptr<Parser>> p = NewParser(f, opts);
  if (!p.ok()) {
    return absl::Status(p.status().code(),
                        absl::StrCat(in.name(), ": offset 0: ", p.status().message()));
  }
  return p;
}

absl::StatusOr<std::unique_ptr<Parser>> DetectParser(Input& in, const ParseOptions& opts,
                                                    Format* detected) {
  absl::StatusOr<std::string_view> head = in.Peek(8192);
  if (!head.ok()) return head.status();
  ++g_detections;
  Format f = DetectFormat(*head);
  if (detected) *detected = f;
  return ParserFor(in, f, opts);
}

absl::StatusOr<std::string> DescribeFacts(Input& in, Parser& parser) {
  if (!parser.Describes()) return std::string("{}");
  if (absl::Status st = in.EnsureMapped(); !st.ok()) return st;
  return parser.Describe(in);
}

absl::StatusOr<InputFacts> DescribeInput(Input& in, const ParseOptions& opts) {
  InputFacts f;
  absl::StatusOr<std::unique_ptr<Parser>> p = DetectParser(in, opts, &f.format);
  if (!p.ok()) return p.status();
  absl::StatusOr<std::string> facts = DescribeFacts(in, **p);
  if (!facts.ok()) return facts.status();
  f.facts = *std::move(facts);
  f.parser = *std::move(p);
  return f;
}

absl::Status ParseInput(Input& in, const ParseOptions& opts, EventSink& sink, Diagnostics& diag,
                        Format* detected) {
  absl::StatusOr<std::unique_ptr<Parser>> p = DetectParser(in, opts, detected);
  if (!p.ok()) return p.status();
  return (*p)->Parse(in, sink, diag);
}

}  // namespace tk
