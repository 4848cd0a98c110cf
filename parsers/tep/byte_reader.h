// A bounds-checked cursor over little- or big-endian bytes (ARCHITECTURE.md rule 3). Every
// read is a memcpy (records are misaligned in the files) followed by a byte swap when the
// file's order differs from the host's. A failed read leaves the cursor where it was.
#ifndef TK_PARSERS_TEP_BYTE_READER_H_
#define TK_PARSERS_TEP_BYTE_READER_H_

#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace tk::parsers::tep {

// Loads an unsigned integer of `size` (1, 2, 4, 8) bytes at `p`, in the given byte order.
inline uint64_t LoadUnsigned(const char* p, int size, bool big_endian) {
  constexpr bool kHostBig = std::endian::native == std::endian::big;
  switch (size) {
    case 1:
      return static_cast<uint8_t>(p[0]);
    case 2: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return big_endian != kHostBig ? __builtin_bswap16(v) : v;
    }
    case 4: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return big_endian != kHostBig ? __builtin_bswap32(v) : v;
    }
    case 8: {
      uint64_t v;
      std::memcpy(&v, p, 8);
      return big_endian != kHostBig ? __builtin_bswap64(v) : v;
    }
  }
  return 0;
}

class ByteReader {
 public:
  // `base` is the file offset of data[0], used in error messages.
  ByteReader(std::string_view data, bool big_endian, uint64_t base = 0)
      : data_(data), big_endian_(big_endian), base_(base) {}

  void set_big_endian(bool b) { big_endian_ = b; }
  bool big_endian() const { return big_endian_; }
  size_t pos() const { return pos_; }
  uint64_t offset() const { return base_ + pos_; }  // file offset of the cursor
  uint64_t base() const { return base_; }
  size_t remaining() const { return data_.size() - pos_; }
  std::string_view data() const { return data_; }

  bool Seek(size_t pos) {
    if (pos > data_.size()) return false;
    pos_ = pos;
    return true;
  }
  bool Skip(size_t n) {
    if (n > remaining()) return false;
    pos_ += n;
    return true;
  }
  bool U8(uint8_t* v) { return Num(v, 1); }
  bool U16(uint16_t* v) { return Num(v, 2); }
  bool U32(uint32_t* v) { return Num(v, 4); }
  bool U64(uint64_t* v) { return Num(v, 8); }
  // `n` raw bytes.
  bool Bytes(size_t n, std::string_view* out) {
    if (n > remaining()) return false;
    *out = data_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  // A NUL-terminated string; the view excludes the NUL, the cursor moves past it.
  bool CString(std::string_view* out) {
    size_t nul = data_.find('\0', pos_);
    if (nul == std::string_view::npos) return false;
    *out = data_.substr(pos_, nul - pos_);
    pos_ = nul + 1;
    return true;
  }
  // Exactly the bytes of `lit` (e.g. "header_page\0").
  bool Expect(std::string_view lit) {
    if (data_.substr(pos_, lit.size()) != lit) return false;
    pos_ += lit.size();
    return true;
  }

 private:
  template <typename T>
  bool Num(T* v, int size) {
    if (remaining() < static_cast<size_t>(size)) return false;
    *v = static_cast<T>(LoadUnsigned(data_.data() + pos_, size, big_endian_));
    pos_ += size;
    return true;
  }

  std::string_view data_;
  bool big_endian_;
  uint64_t base_;
  size_t pos_ = 0;
};

}  // namespace tk::parsers::tep

#endif  // TK_PARSERS_TEP_BYTE_READER_H_
