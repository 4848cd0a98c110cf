// NewPerfDataParser: the perf.data reader behind the Parser interface (session.h does the work).
#include "parsers/perf_data/perf_data_parser.h"

#include "parsers/perf_data/session.h"

namespace tk::parsers::perf_data {
namespace {

class PerfDataParser final : public Parser {
 public:
  explicit PerfDataParser(ParseOptions opts) : opts_(std::move(opts)) {}
  absl::Status Parse(Input& in, EventSink& sink, Diagnostics& diag) override {
    return RunSession(in, opts_, sink, diag);
  }

 private:
  ParseOptions opts_;
};

}  // namespace

std::unique_ptr<Parser> NewPerfDataParser(const ParseOptions& opts) {
  return std::make_unique<PerfDataParser>(opts);
}

}  // namespace tk::parsers::perf_data
