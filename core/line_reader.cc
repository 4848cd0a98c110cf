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
  // Move the partial line to the front, then append a chunk.
  std::string rest(data_);
  buf_.assign(rest);
  size_t old = buf_.size();
  buf_.resize(old + chunk_);
  absl::StatusOr<size_t> r = in_.Read(buf_.data() + old, chunk_);
  if (!r.ok()) {
    status_ = r.status();
    buf_.resize(old);
    eof_ = true;
  } else {
    buf_.resize(old + *r);
    if (*r == 0) eof_ = true;
  }
  data_ = buf_;
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
