// NewPerfDataParser: the perf.data reader behind the Parser interface (session.h does the work).
#include "parsers/perf_data/perf_data_parser.h"

#include <cstring>

#include "parsers/perf_data/session.h"

namespace tk::parsers::perf_data {
namespace {

class PerfDataParser final : public Parser {
 public:
  explicit PerfDataParser(ParseOptions opts) : opts_(std::move(opts)) {}
  absl::Status Parse(Input& in, EventSink& sink, Diagnostics& diag) override {
    return RunSession(in, opts_, sink, diag);
  }
  // A mapped file-mode input in two parts on two threads (session.h).
  absl::Status ParseParts(Input& in, PartitionedSink& sinks, Diagnostics& diag) override {
    return RunSessionParts(in, opts_, sinks, diag);
  }
  bool Describes() const override { return true; }
  absl::StatusOr<std::string> Describe(Input& in) override { return DescribePerfData(in); }

 private:
  ParseOptions opts_;
};

}  // namespace

std::unique_ptr<Parser> NewPerfDataParser(const ParseOptions& opts) {
  return std::make_unique<PerfDataParser>(opts);
}

std::optional<Format> SniffPerfData(std::string_view head) {
  if (head.size() < 8) return std::nullopt;
  std::string_view magic = head.substr(0, 8);
  if (magic == "PERFFILE") return Format::kPerfDataV1;
  if (magic != "PERFILE2" && magic != "2ELIFREP") return std::nullopt;
  if (head.size() < 16) return Format::kPerfData;
  uint64_t size;
  std::memcpy(&size, head.data() + 8, 8);
  if (magic == "2ELIFREP") size = __builtin_bswap64(size);
  return size == 16 ? Format::kPerfDataPipe : Format::kPerfData;
}

}  // namespace tk::parsers::perf_data
