// Placeholder until this reader lands: reports the format as not supported yet.
#include "parsers/perf_script/perf_script_parser.h"

namespace tk::parsers::perf_script {
namespace {

class Unsupported final : public Parser {
 public:
  absl::Status Parse(Input& in, EventSink&, Diagnostics&) override {
    return absl::UnimplementedError(in.name() + ": offset 0: PerfScript input is not supported yet");
  }
};

}  // namespace

std::unique_ptr<Parser> NewPerfScriptParser(const ParseOptions&) { return std::make_unique<Unsupported>(); }

}  // namespace tk::parsers::perf_script
