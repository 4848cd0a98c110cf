// perf's own records that describe the session rather than the recording (types >= 64).
// In pipe mode they replace the file header:
//   HEADER_ATTR (64)          {hdr, perf_event_attr (attr.size bytes), u64 ids[]}
//   HEADER_FEATURE (80)       {hdr, u64 feat_id, feature payload as in a file section}
//   HEADER_TRACING_DATA (66)  {hdr, u32 size, u32 pad} + size uncounted bytes
//   HEADER_BUILD_ID (67)      {hdr, s32 pid, u8 build_id[24], char filename[]}
//   EVENT_UPDATE (78)         {hdr, u64 type, u64 id, data} (type 2: the event's name)
#ifndef TK_PARSERS_PERF_DATA_HEADER_RECORDS_H_
#define TK_PARSERS_PERF_DATA_HEADER_RECORDS_H_

#include "absl/status/status.h"
#include "parsers/perf_data/metadata.h"
#include "parsers/perf_data/tokenizer.h"

namespace tk::parsers::perf_data {

enum class HeaderChange { kNone, kEvents, kFeature, kTracingData };

// Applies `rec` to `meta` when it is one of the records above; says what changed.
// Malformed ones return an error with "offset N: ".
absl::Status ApplyHeaderRecord(const RawRecord& rec, Metadata* meta, HeaderChange* change);

}  // namespace tk::parsers::perf_data

#endif  // TK_PARSERS_PERF_DATA_HEADER_RECORDS_H_
