// Placeholder until this reader lands: reports the format as not supported yet.
#include "parsers/ftrace_text/ftrace_text_parser.h"

namespace tk::parsers::ftrace_text {
namespace {

class Unsupported final : public Parser {
 public:
  absl::Status Parse(Input& in, EventSink&, Diagnostics&) override {
    return absl::UnimplementedError(in.name() + ": offset 0: FtraceText input is not supported yet");
  }
};

}  // namespace

std::unique_ptr<Parser> NewFtraceTextParser(const ParseOptions&) { return std::make_unique<Unsupported>(); }

}  // namespace tk::parsers::ftrace_text
