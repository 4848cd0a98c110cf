#include "core/line_reader.h"

#include <cstring>

namespace tk {

LineReader::LineReader(Input& in, size_t chunk) : in_(in), chunk_(chunk) {
  if (auto m = in_.mapped()) {
    data_ = *m;
    mapped_ = true;
    eof_ = true;
  }
}

bool LineReader::Refill() {
  // Move the partial line to the front of the buffer, then read a chunk after it. The buffer
  // keeps its size between refills (no per-refill reallocation or zero-filling; it only grows
  // for a line longer than a chunk).
  size_t rest = data_.size();
  size_t at = rest ? static_cast<size_t>(data_.data() - buf_.data()) : 0;  // data_ is in buf_
  if (buf_.size() < rest + chunk_) buf_.resize(rest + chunk_);               // may move buf_
  if (rest) std::memmove(buf_.data(), buf_.data() + at, rest);
  absl::StatusOr<size_t> r = in_.Read(buf_.data() + rest, chunk_);
  size_t got = 0;
  if (!r.ok()) {
    status_ = r.status();
    eof_ = true;
  } else {
    got = *r;
    if (got == 0) eof_ = true;
  }
  data_ = std::string_view(buf_.data(), rest + got);
  return !eof_;
}

bool LineReader::Next(std::string_view* line) {
  for (;;) {
    const void* nl = data_.empty() ? nullptr : std::memchr(data_.data(), '\n', data_.size());
    if (nl) {
      size_t len = static_cast<const char*>(nl) - data_.data();
      std::string_view l = data_.substr(0, len);
      data_.remove_prefix(len + 1);
      if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
      *line = l;
      ++line_no_;
      return true;
    }
    if (eof_) {
      if (data_.empty()) return false;
      std::string_view l = data_;
      data_ = {};
      if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
      *line = l;
      ++line_no_;
      return true;
    }
    Refill();
  }
}

}  // namespace tk
