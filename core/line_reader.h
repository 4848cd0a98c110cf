// Lines of a text input, zero-copy over mapped inputs and chunked over streams.
// Each line is returned without its "\n" and without a trailing "\r" (CRLF files); a last
// line without a newline is returned too. Views are valid until the next call to Next().
#ifndef TK_CORE_LINE_READER_H_
#define TK_CORE_LINE_READER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "core/input.h"

namespace tk {

class LineReader {
 public:
  // `chunk` is the stream read size (1 MiB; BM_FoldText tuned it).
  explicit LineReader(Input& in, size_t chunk = 1 << 20);

  // Returns false at end of input or on a read error (then status() says which).
  bool Next(std::string_view* line);
  // 1-based number of the line last returned.
  uint64_t line_number() const { return line_no_; }
  // The bytes not returned yet: all the rest of a mapped input; of a stream, what the buffer
  // holds (possibly ending mid-line).
  std::string_view unread() const { return data_; }
  // Consumes the first `bytes` of unread(), which hold `lines` whole lines ("\n"-ended), as
  // if Next() had returned them.
  void Skip(size_t bytes, uint64_t lines) {
    data_.remove_prefix(bytes);
    line_no_ += lines;
  }
  const absl::Status& status() const { return status_; }

 private:
  bool Refill();

  Input& in_;
  std::string_view data_;  // unread bytes (mapped, or within buf_)
  bool mapped_ = false;
  bool eof_ = false;
  std::string buf_;
  size_t chunk_;
  uint64_t line_no_ = 0;
  absl::Status status_;
};

}  // namespace tk

#endif  // TK_CORE_LINE_READER_H_
