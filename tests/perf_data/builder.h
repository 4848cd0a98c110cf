// Builds synthetic perf.data bytes for tokenizer/decoder tests: a file header, attrs, records,
// in either byte order.
#ifndef TK_TESTS_PERF_DATA_BUILDER_H_
#define TK_TESTS_PERF_DATA_BUILDER_H_

#include <cstdint>
#include <string>
#include <vector>

namespace tk::testing {

class Bytes {
 public:
  explicit Bytes(bool swap = false) : swap_(swap) {}
  Bytes& U8(uint8_t v) { s_.push_back(static_cast<char>(v)); return *this; }
  Bytes& U16(uint16_t v) { return Put(v); }
  Bytes& U32(uint32_t v) { return Put(v); }
  Bytes& U64(uint64_t v) { return Put(v); }
  Bytes& Str(const std::string& v) { s_ += v; return *this; }
  Bytes& Pad8() { while (s_.size() % 8) s_.push_back('\0'); return *this; }
  const std::string& str() const { return s_; }
  size_t size() const { return s_.size(); }

 private:
  template <typename T>
  Bytes& Put(T v) {
    if (swap_) {
      char b[sizeof(T)];
      for (size_t i = 0; i < sizeof(T); ++i) b[i] = static_cast<char>(v >> (8 * (sizeof(T) - 1 - i)));
      s_.append(b, sizeof(T));
    } else {
      s_.append(reinterpret_cast<const char*>(&v), sizeof(T));
    }
    return *this;
  }
  bool swap_;
  std::string s_;
};

// A record: header {type, misc, size} + body (padded to 8).
std::string Record(bool swap, uint32_t type, uint16_t misc, const std::string& body);

// A perf_event_attr of `size` bytes (>= 64) with these fields; flags in little-endian bit
// numbering (the builder lays them out MSB-first for big-endian files).
std::string Attr(bool swap, uint32_t size, uint32_t type, uint64_t config, uint64_t sample_type,
                 uint64_t flags, uint64_t read_format = 0, uint64_t period = 1);

struct FileSpec {
  bool swap = false;
  uint32_t attr_size = 128;  // perf_event_attr bytes (the header's attr_size adds 16)
  struct Ev {
    uint32_t type = 1;
    uint64_t config = 0;
    uint64_t sample_type = 0;
    uint64_t flags = 0;
    uint64_t read_format = 0;
    std::vector<uint64_t> ids;
  };
  std::vector<Ev> events;
  std::string data;          // records
  bool zero_data_size = false;
};
// A complete file-mode perf.data (no feature sections).
std::string File(const FileSpec& spec);

}  // namespace tk::testing

#endif  // TK_TESTS_PERF_DATA_BUILDER_H_
