#ifndef TK_PARSERS_PERF_DATA_PERF_DATA_PARSER_H_
#define TK_PARSERS_PERF_DATA_PERF_DATA_PARSER_H_

#include <memory>

#include <optional>
#include <string>
#include <string_view>

#include "parsers/parser.h"

namespace tk::parsers::perf_data {

std::unique_ptr<Parser> NewPerfDataParser(const ParseOptions& opts);

// The sniffer the registry asks (DetectFormat): "PERFILE2" in either byte order, the header
// size telling file mode (104) from pipe mode (16); "PERFFILE" (version 1, refused).
std::optional<Format> SniffPerfData(std::string_view head);

// Header facts for `tk info` (version, host, features, CPUs, compression, ...), read without
// decoding the events: one JSON object, as text, whose keys `tk info` prints as they are.
absl::StatusOr<std::string> DescribePerfData(Input& in);

}  // namespace tk::parsers::perf_data

#endif  // TK_PARSERS_PERF_DATA_PERF_DATA_PARSER_H_
