// Bounds-checked reads of tracepoint fields from a raw payload, with the field's offset, size
// and flags resolved once from its libtraceevent format line:
//
//   field:char prev_comm[16];	offset:8;	size:16;	signed:0;
//   field:long prev_state;	offset:32;	size:8;	signed:1;
//   field:__data_loc char[] name;	offset:12;	size:4;	signed:0;
//   field:__rel_loc char[] msg;	offset:8;	size:4;	signed:0;
//
// Numbers are read with memcpy (payloads are misaligned inside perf samples), byte-swapped when
// the file's order is not the host's, and sign-extended when the format says signed:1
// (tep_read_number_field does not). A __data_loc u32 holds {u16 offset, u16 length} of the
// data inside the record; __rel_loc's offset counts from the end of the field itself.
#ifndef TK_PARSERS_TEP_FIELDS_H_
#define TK_PARSERS_TEP_FIELDS_H_

#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "core/byte_reader.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

struct tep_event;
struct tep_format_field;

namespace tk::parsers::tep {

struct FieldRef {
  int offset = -1;  // -1: the format has no such field
  int size = 0;
  uint32_t flags = 0;  // TEP_FIELD_IS_*
  int elem = 0;        // element size of arrays (0 when unknown)
  bool sign = false;   // is_signed(), kept here so FieldReader::Int inlines
  bool dynamic = false;   // is_dynamic(), likewise for FieldReader::Str
  bool relative = false;  // __rel_loc
  bool scalar = false;    // present, of size 1, 2, 4 or 8 (FieldReader::Int reads it)

  bool present() const { return offset >= 0; }
  bool is_signed() const;
  bool is_dynamic() const;  // __data_loc / __rel_loc
  bool is_string() const;
  bool is_array() const;
};

FieldRef MakeFieldRef(const struct tep_format_field* f);
// The non-common field `name` of `ev`; an absent FieldRef when the format lacks it.
FieldRef ResolveField(struct tep_event* ev, const char* name);
// The largest offset+size over the event's fixed fields (common ones included): a payload
// shorter than this is malformed.
int FixedSize(struct tep_event* ev);

// `v`, `size` bytes wide, as int64_t: sign-extended when `is_signed`.
inline int64_t SignExtend(uint64_t v, int size, bool is_signed) {
  if (!is_signed || size >= 8) return static_cast<int64_t>(v);
  const int bits = size * 8;
  const uint64_t sign = uint64_t{1} << (bits - 1);
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  return static_cast<int64_t>(((v & mask) ^ sign) - sign);  // unsigned: no overflow
}

class FieldReader {
 public:
  FieldReader(std::string_view raw, bool big_endian) : raw_(raw), big_endian_(big_endian) {}

  // A scalar field of size 1/2/4/8 as a signed 64-bit value (sign-extended when signed;
  // unsigned 64-bit values wrap). nullopt when absent, of another size, or out of bounds.
  // Inline: out of line, GCC returned the optional through the stack and the reload stalled
  // on store forwarding (a quarter of `tk sched latency`'s tracepoint decoding).
  std::optional<int64_t> Int(const FieldRef& f) const {
    if (!f.scalar || static_cast<size_t>(f.offset) + static_cast<size_t>(f.size) > raw_.size()) {
      return std::nullopt;
    }
    return SignExtend(LoadUnsigned(raw_.data() + f.offset, f.size, NeedsSwap(big_endian_)),
                      f.size, f.sign);
  }
  std::optional<uint64_t> UInt(const FieldRef& f) const {
    std::optional<int64_t> v = Int(f);
    if (!v) return std::nullopt;
    return static_cast<uint64_t>(*v);
  }
  // Convenience: the value, or `def` when unavailable.
  int64_t IntOr(const FieldRef& f, int64_t def) const { return Int(f).value_or(def); }

  // The bytes of an array or __data_loc/__rel_loc field (nullopt when out of bounds).
  std::optional<std::string_view> Bytes(const FieldRef& f) const;
  // A string field (char array or dynamic string), cut at the first NUL; empty when absent or
  // out of bounds. Inline for fixed arrays (comm[16]: memchr's call was 6% of `tk sched
  // latency`).
  std::string_view Str(const FieldRef& f) const {
    if (!f.present() || static_cast<size_t>(f.offset) + static_cast<size_t>(f.size) > raw_.size()) {
      return {};
    }
    if (!f.dynamic) return CutAtNul(raw_.data() + f.offset, static_cast<size_t>(f.size));
    // __data_loc / __rel_loc (as Bytes).
    if (f.size != 4) return {};
    uint32_t loc = static_cast<uint32_t>(LoadUnsigned(raw_.data() + f.offset, 4, NeedsSwap(big_endian_)));
    size_t off = loc & 0xffff;
    size_t len = loc >> 16;
    if (f.relative) off += static_cast<size_t>(f.offset) + 4;
    if (off > raw_.size() || len > raw_.size() - off) return {};
    return CutAtNul(raw_.data() + off, len);
  }

  // The first n bytes at p up to the first NUL.
  static std::string_view CutAtNul(const char* p, size_t n) {
    if (n < 16) {  // a short dynamic string (sched_stat_runtime's comm): no call
      size_t i = 0;
      while (i < n && p[i]) ++i;
      return std::string_view(p, i);
    }
#ifdef __SSE2__
    if (n == 16) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      unsigned nul = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())));
      return std::string_view(p, nul ? static_cast<size_t>(__builtin_ctz(nul)) : 16);
    }
#endif
    const void* nul = std::memchr(p, 0, n);
    return std::string_view(p, nul ? static_cast<size_t>(static_cast<const char*>(nul) - p) : n);
  }

 private:
  std::string_view raw_;
  bool big_endian_;
};

// FieldReader's reads of a payload known to hold its format's FixedSize bytes (every fixed
// field, and the location word of every dynamic one, lies inside) in the host's byte order:
// the same values without the per-field bounds and byte-order checks (the sched fast path,
// whose payloads SchedFastDecoder::Matches checked; a fifth of its decode).
class InRangeFieldReader {
 public:
  explicit InRangeFieldReader(std::string_view raw) : raw_(raw) {}
  std::optional<int64_t> Int(const FieldRef& f) const {
    if (!f.scalar) return std::nullopt;
    return SignExtend(LoadUnsigned(raw_.data() + f.offset, f.size, false), f.size, f.sign);
  }
  std::optional<uint64_t> UInt(const FieldRef& f) const {
    std::optional<int64_t> v = Int(f);
    if (!v) return std::nullopt;
    return static_cast<uint64_t>(*v);
  }
  int64_t IntOr(const FieldRef& f, int64_t def) const { return Int(f).value_or(def); }
  std::string_view Str(const FieldRef& f) const {
    if (!f.present()) return {};
    if (!f.dynamic) return FieldReader::CutAtNul(raw_.data() + f.offset, static_cast<size_t>(f.size));
    return FieldReader(raw_, std::endian::native == std::endian::big).Str(f);
  }

 private:
  std::string_view raw_;
};

// Appends the field's value as text to `out`: decimal numbers (numeric=true), strings as they
// are, arrays of numbers as "[1,2,3]", other blobs as hex bytes. Returns whether the value is a
// plain number.
bool AppendFieldText(const FieldReader& r, const FieldRef& f, bool big_endian, std::string* out);

}  // namespace tk::parsers::tep

#endif  // TK_PARSERS_TEP_FIELDS_H_
