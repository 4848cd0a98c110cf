#include "parsers/tep/fields.h"

#include <charconv>

#include "core/byte_reader.h"

extern "C" {
#include <traceevent/event-parse.h>
}

namespace tk::parsers::tep {
namespace {

bool ScalarSize(int size) { return size == 1 || size == 2 || size == 4 || size == 8; }

void AppendInt(int64_t v, bool as_signed, std::string* out) {
  char buf[24];
  auto res = as_signed ? std::to_chars(buf, buf + sizeof buf, v)
                       : std::to_chars(buf, buf + sizeof buf, static_cast<uint64_t>(v));
  out->append(buf, res.ptr);
}

void AppendHex(std::string_view bytes, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (unsigned char c : bytes) {
    out->push_back(kHex[c >> 4]);
    out->push_back(kHex[c & 15]);
  }
}

}  // namespace

bool FieldRef::is_signed() const { return flags & TEP_FIELD_IS_SIGNED; }
bool FieldRef::is_dynamic() const { return flags & TEP_FIELD_IS_DYNAMIC; }
bool FieldRef::is_string() const { return flags & TEP_FIELD_IS_STRING; }
bool FieldRef::is_array() const { return flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC); }

FieldRef MakeFieldRef(const struct tep_format_field* f) {
  FieldRef r;
  if (!f || f->offset < 0 || f->size < 0) return r;
  r.offset = f->offset;
  r.size = f->size;
  r.flags = static_cast<uint32_t>(f->flags);
  r.elem = static_cast<int>(f->elementsize);
  r.sign = r.is_signed();
  r.dynamic = r.is_dynamic();
  r.relative = (r.flags & TEP_FIELD_IS_RELATIVE) != 0;
  r.scalar = ScalarSize(r.size);
  return r;
}

FieldRef ResolveField(struct tep_event* ev, const char* name) {
  return MakeFieldRef(tep_find_field(ev, name));
}

int FixedSize(struct tep_event* ev) {
  int end = 0;
  for (int pass = 0; pass < 2; ++pass) {
    struct tep_format_field* f = pass == 0 ? ev->format.common_fields : ev->format.fields;
    for (; f; f = f->next) {
      if (f->offset >= 0 && f->size >= 0 && f->offset + f->size > end) end = f->offset + f->size;
    }
  }
  return end;
}

std::optional<std::string_view> FieldReader::Bytes(const FieldRef& f) const {
  if (!f.present()) return std::nullopt;
  if (!f.is_dynamic()) {
    if (static_cast<size_t>(f.offset) + f.size > raw_.size()) return std::nullopt;
    return raw_.substr(f.offset, f.size);
  }
  // __data_loc: u32 = (length << 16) | offset; __rel_loc: offset from the field's end.
  if (f.size != 4 || static_cast<size_t>(f.offset) + 4 > raw_.size()) return std::nullopt;
  uint32_t loc =
      static_cast<uint32_t>(LoadUnsigned(raw_.data() + f.offset, 4, NeedsSwap(big_endian_)));
  size_t off = loc & 0xffff;
  size_t len = loc >> 16;
  if (f.flags & TEP_FIELD_IS_RELATIVE) off += f.offset + f.size;
  if (off > raw_.size() || len > raw_.size() - off) return std::nullopt;
  return raw_.substr(off, len);
}

bool AppendFieldText(const FieldReader& r, const FieldRef& f, bool big_endian, std::string* out) {
  if (f.is_string()) {
    out->append(r.Str(f));
    return false;
  }
  if (!f.is_array() && ScalarSize(f.size)) {
    std::optional<int64_t> v = r.Int(f);
    if (!v) return false;
    AppendInt(*v, f.is_signed(), out);
    return true;
  }
  std::optional<std::string_view> b = r.Bytes(f);
  if (!b) return false;
  // Arrays of numbers: "[1,2,3]" when the element size divides the bytes.
  int elem = f.elem;
  if (ScalarSize(elem) && b->size() % elem == 0) {
    out->push_back('[');
    for (size_t i = 0; i < b->size(); i += elem) {
      if (i) out->push_back(',');
      uint64_t v = LoadUnsigned(b->data() + i, elem, NeedsSwap(big_endian));
      AppendInt(SignExtend(v, elem, f.is_signed()), f.is_signed(), out);
    }
    out->push_back(']');
    return false;
  }
  AppendHex(*b, out);
  return false;
}

}  // namespace tk::parsers::tep
