// Bytes in fixed blocks that never move, reused after Reset(): copies of lines that must
// outlive the LineReader's buffer (perf script text, streamed: no allocation per event in
// steady state), interned names, the text of tk fold's folded lines.
#ifndef TK_CORE_BYTE_ARENA_H_
#define TK_CORE_BYTE_ARENA_H_

#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace tk {

class ByteArena {
 public:
  std::string_view Copy(std::string_view s) {
    char* p = Allocate(s.size(), 1);
    if (!s.empty()) std::memcpy(p, s.data(), s.size());
    return {p, s.size()};
  }
  // `n` bytes at a multiple of `align` (at most 16), valid until Reset.
  char* Allocate(size_t n, size_t align) {
    if (n > kBlock) {  // a huge line: its own block, freed at Reset
      big_.emplace_back(new char[n]);
      return big_.back().get();
    }
    pos_ = (pos_ + align - 1) & ~(align - 1);
    if (blocks_.empty() || pos_ + n > kBlock) {
      if (!blocks_.empty()) ++block_;
      if (block_ == blocks_.size()) blocks_.emplace_back(new char[kBlock]);
      pos_ = 0;
    }
    char* p = blocks_[block_].get() + pos_;
    pos_ += n;
    return p;
  }
  void Reset() {
    block_ = 0;
    pos_ = 0;
    big_.clear();
  }

 private:
  static constexpr size_t kBlock = 64 << 10;
  std::vector<std::unique_ptr<char[]>> blocks_;
  std::vector<std::unique_ptr<char[]>> big_;
  size_t block_ = 0;
  size_t pos_ = 0;
};

}  // namespace tk

#endif  // TK_CORE_BYTE_ARENA_H_
