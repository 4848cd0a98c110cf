// Placeholder until this reader lands: reports the format as not supported yet.
#include "parsers/perf_data/perf_data_parser.h"

namespace tk::parsers::perf_data {
namespace {

class Unsupported final : public Parser {
 public:
  absl::Status Parse(Input& in, EventSink&, Diagnostics&) override {
    return absl::UnimplementedError(in.name() + ": offset 0: PerfData input is not supported yet");
  }
};

}  // namespace

absl::StatusOr<nlohmann::json> DescribePerfData(Input&) { return nlohmann::json::object(); }

std::unique_ptr<Parser> NewPerfDataParser(const ParseOptions&) { return std::make_unique<Unsupported>(); }

}  // namespace tk::parsers::perf_data
