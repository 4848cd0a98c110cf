#include "absl/strings/str_cat.h"
#include "parsers/ftrace_text/ftrace_text_parser.h"
#include "parsers/parser.h"
#include "parsers/perf_data/perf_data_parser.h"
#include "parsers/perf_script/perf_script_parser.h"
#include "parsers/trace_dat/trace_dat_parser.h"

namespace tk {

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

absl::Status ParseInput(Input& in, const ParseOptions& opts, EventSink& sink, Diagnostics& diag,
                        Format* detected) {
  absl::StatusOr<std::string_view> head = in.Peek(8192);
  if (!head.ok()) return head.status();
  Format f = DetectFormat(*head);
  if (detected) *detected = f;
  if (f == Format::kEmpty) {
    return absl::InvalidArgumentError(absl::StrCat(in.name(), ": ", RefusalMessage(f, *head)));
  }
  if (f == Format::kUnknown) {
    return absl::InvalidArgumentError(
        absl::StrCat(in.name(), ": offset 0: ", RefusalMessage(f, *head)));
  }
  absl::StatusOr<std::unique_ptr<Parser>> p = NewParser(f, opts);
  if (!p.ok()) {
    return absl::Status(p.status().code(), absl::StrCat(in.name(), ": offset 0: ", p.status().message()));
  }
  return (*p)->Parse(in, sink, diag);
}

}  // namespace tk
