// The one bounds-checked reader every perf.data byte goes through (ARCHITECTURE.md rule 3).
//
// perf.data is written in the recording machine's byte order. The header magic tells which:
// "PERFILE2" read as a little-endian u64 is 0x32454c4946524550; the byte-swapped value
// 0x50455246494c4532 means every u16/u32/u64 in the file must be swapped. Reads copy with
// memcpy (records are only 8-aligned in the file, RAW payloads not even that), never
// reinterpret_cast, and fail (sticky) instead of reading past the end.
#ifndef TK_PARSERS_PERF_DATA_BYTE_READER_H_
#define TK_PARSERS_PERF_DATA_BYTE_READER_H_

#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

namespace tk::parsers::perf_data {

class ByteReader {
 public:
  ByteReader() = default;
  ByteReader(std::string_view data, bool swap) : data_(data), swap_(swap) {}

  // Reads an unsigned or signed integer of 1, 2, 4 or 8 bytes, swapping when the file's
  // byte order differs. Returns false (and stays failed) when fewer bytes remain.
  template <typename T>
  bool Read(T* out) {
    static_assert(std::is_integral_v<T>);
    if (!ok_ || data_.size() - pos_ < sizeof(T)) return Fail();
    T v;
    std::memcpy(&v, data_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    *out = swap_ ? Swap(v) : v;
    return true;
  }
  // The next `n` bytes as a view into the data (no copy, no swapping).
  bool Bytes(size_t n, std::string_view* out) {
    if (!ok_ || data_.size() - pos_ < n) return Fail();
    *out = data_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  bool Skip(size_t n) {
    if (!ok_ || data_.size() - pos_ < n) return Fail();
    pos_ += n;
    return true;
  }
  bool Seek(size_t pos) {
    if (!ok_ || pos > data_.size()) return Fail();
    pos_ = pos;
    return true;
  }

  size_t pos() const { return pos_; }
  size_t remaining() const { return data_.size() - pos_; }
  size_t size() const { return data_.size(); }
  bool ok() const { return ok_; }
  bool swap() const { return swap_; }
  std::string_view data() const { return data_; }

  template <typename T>
  static T Swap(T v) {
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

 private:
  bool Fail() {
    ok_ = false;
    return false;
  }

  std::string_view data_;
  size_t pos_ = 0;
  bool swap_ = false;
  bool ok_ = true;
};

// Reads a u64 at byte `off` of `data` without a reader (hot paths: record time, sample id).
// The caller has checked the bounds.
inline uint64_t LoadU64(const char* p, bool swap) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return swap ? __builtin_bswap64(v) : v;
}

}  // namespace tk::parsers::perf_data

#endif  // TK_PARSERS_PERF_DATA_BYTE_READER_H_
