#include "parsers/perf_data/header_records.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/diag.h"
#include "core/byte_reader.h"
#include "parsers/perf_data/abi.h"

namespace tk::parsers::perf_data {
namespace {

absl::Status ApplyAttr(const RawRecord& rec, Metadata* meta) {
  std::string_view body = rec.bytes.substr(8);
  ByteReader r(body, meta->swap);
  uint32_t type = 0, size = 0;
  r.Read(&type);
  r.Read(&size);
  if (size == 0) size = 64;
  if (size > body.size()) return ErrorAt(rec.offset, "HEADER_ATTR shorter than its attr.size");
  absl::StatusOr<EventAttr> a = ParseAttr(body.substr(0, size), meta->swap);
  if (!a.ok()) return ErrorAt(rec.offset, SV(a.status().message()));
  EventInfo ev;
  ev.attr = *a;
  ByteReader ids(body.substr(size), meta->swap);
  uint64_t id;
  while (ids.remaining() >= 8 && ids.Read(&id)) ev.ids.push_back(id);
  meta->events.push_back(std::move(ev));
  return absl::OkStatus();
}

}  // namespace

absl::Status ApplyHeaderRecord(const RawRecord& rec, Metadata* meta, HeaderChange* change) {
  *change = HeaderChange::kNone;
  std::string_view body = rec.bytes.substr(8);
  switch (rec.type) {
    case kHeaderAttr:
      *change = HeaderChange::kEvents;
      return ApplyAttr(rec, meta);
    case kEventUpdate:
      *change = HeaderChange::kEvents;
      meta->ApplyEventUpdate(body);
      return absl::OkStatus();
    case kHeaderFeature: {
      ByteReader r(body, meta->swap);
      uint64_t feat = 0;
      if (!r.Read(&feat)) return ErrorAt(rec.offset, "HEADER_FEATURE too short");
      // perf ends the list with an empty HEADER_FEATURE carrying its HEADER_LAST_FEATURE.
      if (body.size() <= 8 || feat > 255) return absl::OkStatus();
      *change = HeaderChange::kFeature;
      absl::Status st = meta->AddFeature(static_cast<int>(feat), body.substr(8));
      return st.ok() ? st : ErrorAt(rec.offset, SV(st.message()));
    }
    case kHeaderTracingData:
      *change = HeaderChange::kTracingData;
      meta->tracing_data = std::string(rec.extra);
      if (std::find(meta->features.begin(), meta->features.end(), kFeatTracingData) == meta->features.end()) {
        meta->features.insert(meta->features.begin(), kFeatTracingData);
      }
      return absl::OkStatus();
    case kHeaderBuildId: {
      // The same entry layout as the BUILD_ID feature section: parse it as one.
      *change = HeaderChange::kFeature;
      absl::Status st = meta->AddFeature(kFeatBuildId, rec.bytes);
      return st.ok() ? st : ErrorAt(rec.offset, SV(st.message()));
    }
    default:
      return absl::OkStatus();
  }
}

}  // namespace tk::parsers::perf_data
