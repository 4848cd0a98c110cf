#include "tests/perf_data/builder.h"

namespace tk::testing {

std::string Record(bool swap, uint32_t type, uint16_t misc, const std::string& body) {
  std::string b = body;
  while (b.size() % 8) b.push_back('\0');
  Bytes r(swap);
  r.U32(type).U16(misc).U16(static_cast<uint16_t>(8 + b.size())).Str(b);
  return r.str();
}

std::string Attr(bool swap, uint32_t size, uint32_t type, uint64_t config, uint64_t sample_type,
                 uint64_t flags, uint64_t read_format, uint64_t period) {
  Bytes a(swap);
  uint64_t f = flags;
  if (swap) {
    uint64_t r = 0;
    for (int i = 0; i < 64; ++i) r |= ((f >> i) & 1) << (63 - i);
    f = r;
  }
  a.U32(type).U32(size).U64(config).U64(period).U64(sample_type).U64(read_format).U64(f);
  std::string s = a.str();
  s.resize(size, '\0');
  return s;
}

std::string File(const FileSpec& spec) {
  bool sw = spec.swap;
  uint64_t entry = spec.attr_size + 16;
  uint64_t attrs_off = 104;
  uint64_t ids_off = attrs_off + entry * spec.events.size();
  std::string ids;
  std::string attrs;
  for (const auto& ev : spec.events) {
    attrs += Attr(sw, spec.attr_size, ev.type, ev.config, ev.sample_type, ev.flags, ev.read_format);
    Bytes sec(sw);
    sec.U64(ev.ids.empty() ? 0 : ids_off + ids.size()).U64(ev.ids.size() * 8);
    attrs += sec.str();
    Bytes idb(sw);
    for (uint64_t id : ev.ids) idb.U64(id);
    ids += idb.str();
  }
  uint64_t data_off = ids_off + ids.size();
  Bytes h(sw);
  h.Str("PERFILE2");
  if (sw) {
    std::string m = "2ELIFREP";
    h = Bytes(sw);
    h.Str(m);
  }
  h.U64(104).U64(entry).U64(attrs_off).U64(attrs.size()).U64(data_off)
      .U64(spec.zero_data_size ? 0 : spec.data.size()).U64(0).U64(0);
  for (int i = 0; i < 4; ++i) h.U64(0);
  return h.str() + attrs + ids + spec.data;
}

}  // namespace tk::testing
