// Placeholder until this reader lands: reports the format as not supported yet.
#include "parsers/trace_dat/trace_dat_parser.h"

namespace tk::parsers::trace_dat {
namespace {

class Unsupported final : public Parser {
 public:
  absl::Status Parse(Input& in, EventSink&, Diagnostics&) override {
    return absl::UnimplementedError(in.name() + ": offset 0: TraceDat input is not supported yet");
  }
};

}  // namespace

absl::StatusOr<nlohmann::json> DescribeTraceDat(Input&) { return nlohmann::json::object(); }

std::unique_ptr<Parser> NewTraceDatParser(const ParseOptions&) { return std::make_unique<Unsupported>(); }

}  // namespace tk::parsers::trace_dat
