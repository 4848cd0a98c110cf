// The file-mode header (104 bytes) and what it points to: attrs with their id arrays, and
// the feature sections after the data.
//
//   0 char magic[8] "PERFILE2"   8 u64 size (104)   16 u64 attr_size
//  24 {u64 offset, u64 size} attrs   40 data   56 event_types (obsolete)
//  72 u64 adds_features[4]  (bit N set: feature N has a section)
//
// attrs: attr_size-byte entries {perf_event_attr (attr_size - 16 bytes), {u64 off, u64 size}
// of the entry's u64 id array}. Features: one {u64 offset, u64 size} per set bit, ascending,
// at data.offset + data.size.
#ifndef TK_PARSERS_PERF_DATA_FILE_HEADER_H_
#define TK_PARSERS_PERF_DATA_FILE_HEADER_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "parsers/perf_data/metadata.h"

namespace tk::parsers::perf_data {

// Reads the header of a mapped file. A truncated file (data.size 0, from a perf killed with
// -9) gets truncated=true, data running to EOF, and no features. Errors carry "offset N: ".
absl::StatusOr<Metadata> ReadFileHeader(std::string_view file);

// The magic decides the byte order: returns false when `head` is not "PERFILE2" either way.
bool DetectByteOrder(std::string_view head, bool* swap);

}  // namespace tk::parsers::perf_data

#endif  // TK_PARSERS_PERF_DATA_FILE_HEADER_H_
