#include "parsers/perf_data/file_header.h"

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/diag.h"
#include "parsers/perf_data/abi.h"

namespace tk::parsers::perf_data {
namespace {

constexpr size_t kFileHeaderSize = 104;

struct Section {
  uint64_t offset = 0, size = 0;
};

bool ReadSection(ByteReader& r, Section* s) { return r.Read(&s->offset) && r.Read(&s->size); }

bool Within(std::string_view file, const Section& s) {
  return s.offset <= file.size() && s.size <= file.size() - s.offset;
}

absl::Status ReadAttrs(std::string_view file, const Section& attrs, Metadata* m) {
  if (m->attr_size < 64 + 16) return ErrorAt(16, absl::StrCat("attr_size ", m->attr_size, " too small"));
  if (!Within(file, attrs) || attrs.size % m->attr_size != 0) {
    return ErrorAt(24, absl::StrCat("attrs section {", attrs.offset, ", ", attrs.size,
                                    "} outside the file or not a multiple of attr_size ",
                                    m->attr_size));
  }
  for (uint64_t off = attrs.offset; off < attrs.offset + attrs.size; off += m->attr_size) {
    std::string_view entry = file.substr(off, m->attr_size);
    absl::StatusOr<EventAttr> a = ParseAttr(entry.substr(0, m->attr_size - 16), m->swap);
    if (!a.ok()) return ErrorAt(off, SV(a.status().message()));
    ByteReader r(entry.substr(m->attr_size - 16), m->swap);
    Section ids;
    ReadSection(r, &ids);
    EventInfo ev;
    ev.attr = *a;
    if (ids.size > 0) {
      if (!Within(file, ids) || ids.size % 8) {
        return ErrorAt(off + m->attr_size - 16, "attr id array outside the file");
      }
      ByteReader ir(file.substr(ids.offset, ids.size), m->swap);
      ev.ids.resize(ids.size / 8);
      for (uint64_t& id : ev.ids) ir.Read(&id);
    }
    m->events.push_back(std::move(ev));
  }
  if (m->events.empty()) return ErrorAt(24, "no event attrs in the header");
  return absl::OkStatus();
}

absl::Status ReadFeatures(std::string_view file, const uint64_t bits[4], Metadata* m) {
  uint64_t table = m->data_offset + m->data_size;
  ByteReader r(file, m->swap);
  if (!r.Seek(table)) return ErrorAt(table, "feature table outside the file");
  for (int bit = 1; bit < 256; ++bit) {
    if (!((bits[bit / 64] >> (bit % 64)) & 1)) continue;
    Section s;
    size_t at = r.pos();
    if (!ReadSection(r, &s)) return ErrorAt(at, "feature table truncated");
    if (!Within(file, s)) {
      if (bit == kFeatCompressed) {
        return ErrorAt(at, absl::StrCat(AV(FeatureName(bit)), " feature section outside the file"));
      }
      m->warnings.push_back(absl::StrCat("offset ", at, ": ", AV(FeatureName(bit)),
                                         " feature section outside the file; ignored"));
      continue;
    }
    absl::Status st = m->AddFeature(bit, file.substr(s.offset, s.size));
    if (!st.ok()) return ErrorAt(s.offset, SV(st.message()));
  }
  return absl::OkStatus();
}

}  // namespace

bool DetectByteOrder(std::string_view head, bool* swap) {
  if (head.size() < 8) return false;
  uint64_t magic = Load<uint64_t>(head.data(), false);
  if (magic == kMagic2) {
    *swap = false;
    return true;
  }
  if (magic == kMagic2Swapped) {
    *swap = true;
    return true;
  }
  return false;
}

absl::StatusOr<Metadata> ReadFileHeader(std::string_view file) {
  Metadata m;
  if (!DetectByteOrder(file, &m.swap)) return ErrorAt(0, "not a perf.data file (bad magic)");
  if (file.size() < kFileHeaderSize) {
    return ErrorAt(0, absl::StrCat("file of ", file.size(), " bytes is shorter than the 104-byte perf.data header"));
  }
  ByteReader r(file.substr(0, kFileHeaderSize), m.swap);
  r.Skip(8);
  r.Read(&m.header_size);
  r.Read(&m.attr_size);
  Section attrs, data, event_types;
  ReadSection(r, &attrs);
  ReadSection(r, &data);
  ReadSection(r, &event_types);
  uint64_t bits[4];
  for (uint64_t& b : bits) r.Read(&b);
  if (m.header_size != kFileHeaderSize) {
    return ErrorAt(8, absl::StrCat("header size ", m.header_size, " (104 expected)"));
  }
  m.data_offset = data.offset;
  m.data_size = data.size;
  if (data.offset > file.size()) return ErrorAt(40, "data section starts past the end of the file");
  if (absl::Status st = ReadAttrs(file, attrs, &m); !st.ok()) return st;
  if (data.size == 0) {
    // perf was killed before it rewrote the header: data runs to EOF, the feature table was
    // never written (what follows is garbage or nothing).
    m.truncated = true;
    m.data_size = file.size() - data.offset;
  } else {
    if (!Within(file, data)) {
      return ErrorAt(40, absl::StrCat("data section {", data.offset, ", ", data.size,
                                      "} extends past the end of the file (", file.size(),
                                      " bytes): truncated copy?"));
    }
    if (absl::Status st = ReadFeatures(file, bits, &m); !st.ok()) return st;
  }
  m.ResolveNames();
  return m;
}

}  // namespace tk::parsers::perf_data
