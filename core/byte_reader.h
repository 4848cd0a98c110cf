// The one bounds-checked reader every binary trace byte goes through (ARCHITECTURE.md rule 3):
// perf.data records, the tracing data of trace.dat files and perf.data HEADER_TRACING_DATA,
// trace.dat options and ring-buffer pages, tracepoint payload fields.
//
// Byte order. Both formats are written in the recording machine's byte order and say which:
//   perf.data: the magic "PERFILE2" read as a host u64 is 0x32454c4946524550 on a little-endian
//              host; 0x50455246494c4532 means every u16/u32/u64 in the file must be swapped.
//   trace.dat / tracing data: "\x17\x08\x44tracing", a version string ("6\0"), then one
//              byte: 0 little-endian, 1 big-endian.
// Every function here takes `swap` (the data's order differs from the host's): perf.data knows
// it from the magic directly, trace.dat computes it with NeedsSwap(big_endian).
//
// Reads copy with memcpy (records are only 8-aligned in perf.data, RAW payloads and trace.dat
// pages not even that), never reinterpret_cast. A ByteReader never reads past its data: a read
// that does not fit fails, leaves the cursor where it was and makes the reader fail every later
// read too (sticky), so a run of reads can be checked once with ok(). The free Load helpers are
// for hot paths whose caller has already checked the bounds (sample ids, times, field reads).
#ifndef TK_CORE_BYTE_READER_H_
#define TK_CORE_BYTE_READER_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

namespace tk {

// True when values stored big-endian (or little-endian, `big_endian` false) must be
// byte-swapped to be read on this host.
constexpr bool NeedsSwap(bool big_endian) {
  return big_endian != (std::endian::native == std::endian::big);
}

// `v` with its bytes reversed; 1-byte values unchanged. Integers of 1, 2, 4 or 8 bytes.
template <typename T>
constexpr T ByteSwap(T v) {
  static_assert(std::is_integral_v<T> && (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 ||
                                          sizeof(T) == 8));
  if constexpr (sizeof(T) == 1) {
    return v;
  } else if constexpr (sizeof(T) == 2) {
    return static_cast<T>(__builtin_bswap16(static_cast<uint16_t>(v)));
  } else if constexpr (sizeof(T) == 4) {
    return static_cast<T>(__builtin_bswap32(static_cast<uint32_t>(v)));
  } else {
    return static_cast<T>(__builtin_bswap64(static_cast<uint64_t>(v)));
  }
}

// The integer T stored at `p`, swapped when `swap`. No bounds check: the caller has checked
// that sizeof(T) bytes are readable at `p`.
template <typename T>
inline T Load(const char* p, bool swap) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return swap ? ByteSwap(v) : v;
}

// The unsigned integer of `size` bytes (1, 2, 4 or 8; anything else reads as 0) at `p`, for
// sizes known only at run time (tracepoint fields, trace.dat's long_size). No bounds check.
// Each case is spelled out rather than calling Load<T>: with Load<uint32_t> GCC 12 adds a
// zero-extension to every 4-byte tracepoint field read (FieldReader::Int, seen with callgrind).
inline uint64_t LoadUnsigned(const char* p, int size, bool swap) {
  switch (size) {
    case 1:
      return static_cast<uint8_t>(p[0]);
    case 2: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return swap ? __builtin_bswap16(v) : v;
    }
    case 4: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return swap ? __builtin_bswap32(v) : v;
    }
    case 8: {
      uint64_t v;
      std::memcpy(&v, p, 8);
      return swap ? __builtin_bswap64(v) : v;
    }
  }
  return 0;
}

// A cursor over `data`. Every read checks the bounds; see the top of the file.
class ByteReader {
 public:
  ByteReader() = default;
  // `swap`: the data's byte order differs from the host's. `base`: the file offset of data[0],
  // so offset() can name the file position in error messages.
  ByteReader(std::string_view data, bool swap, uint64_t base = 0)
      : data_(data), base_(base), swap_(swap) {}

  // An integer of 1, 2, 4 or 8 bytes (its type is *out's), swapped when the order differs.
  template <typename T>
  bool Read(T* out) {
    static_assert(std::is_integral_v<T>);
    if (!ok_ || data_.size() - pos_ < sizeof(T)) return Fail();
    *out = Load<T>(data_.data() + pos_, swap_);
    pos_ += sizeof(T);
    return true;
  }
  // The next `n` bytes as a view into the data (no copy, no swapping).
  bool Bytes(size_t n, std::string_view* out) {
    if (!ok_ || data_.size() - pos_ < n) return Fail();
    *out = data_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  // A NUL-terminated string: the view excludes the NUL, the cursor moves past it. Fails when
  // no NUL is left.
  bool CString(std::string_view* out) {
    if (!ok_) return false;
    size_t nul = data_.find('\0', pos_);
    if (nul == std::string_view::npos) return Fail();
    *out = data_.substr(pos_, nul - pos_);
    pos_ = nul + 1;
    return true;
  }
  // Exactly the bytes of `lit` (e.g. std::string_view("header_page\0", 12)), stepped over.
  bool Expect(std::string_view lit) {
    if (!ok_ || data_.substr(pos_, lit.size()) != lit) return Fail();
    pos_ += lit.size();
    return true;
  }
  bool Skip(size_t n) {
    if (!ok_ || data_.size() - pos_ < n) return Fail();
    pos_ += n;
    return true;
  }
  // Moves the cursor to `pos` (at most size()).
  bool Seek(size_t pos) {
    if (!ok_ || pos > data_.size()) return Fail();
    pos_ = pos;
    return true;
  }

  // Changes the byte order of later reads (trace.dat says its order after the magic).
  void set_swap(bool swap) { swap_ = swap; }

  size_t pos() const { return pos_; }
  uint64_t offset() const { return base_ + pos_; }  // the file offset of the cursor
  uint64_t base() const { return base_; }
  size_t remaining() const { return data_.size() - pos_; }
  size_t size() const { return data_.size(); }
  bool ok() const { return ok_; }
  bool swap() const { return swap_; }
  std::string_view data() const { return data_; }

 private:
  bool Fail() {
    ok_ = false;
    return false;
  }

  std::string_view data_;
  size_t pos_ = 0;
  uint64_t base_ = 0;
  bool swap_ = false;
  bool ok_ = true;
};

}  // namespace tk

#endif  // TK_CORE_BYTE_READER_H_
