#include "parsers/tp_text/text_fields.h"


namespace tk::parsers::tp_text {

size_t FindKey(std::string_view text, std::string_view key, size_t from) {
  while (from <= text.size()) {
    size_t p = text.find(key, from);
    if (p == std::string_view::npos) return p;
    size_t end = p + key.size();
    if ((p == 0 || text[p - 1] == ' ') && end < text.size() && text[end] == '=') return end + 1;
    from = p + 1;
  }
  return std::string_view::npos;
}

bool KvCursor::Expect(std::string_view key) {
  size_t p = pos_;
  while (p < text_.size() && text_[p] == ' ') ++p;
  if (text_.size() - p <= key.size() || text_.compare(p, key.size(), key) != 0 ||
      text_[p + key.size()] != '=') {
    return false;
  }
  pos_ = p + key.size() + 1;
  return true;
}

std::optional<std::string_view> KvCursor::String(std::string_view key, std::string_view next_key) {
  size_t save = pos_;
  if (!Expect(key)) return std::nullopt;
  size_t start = pos_;
  if (next_key.empty()) {
    pos_ = text_.size();
    return text_.substr(start);
  }
  // The value ends at the first " next_key=" after it; an empty value ("comm= pid=1") is
  // allowed: then the space before next_key is the first character of the value's place.
  for (size_t from = start;;) {
    size_t p = text_.find(next_key, from);
    if (p == std::string_view::npos) {
      pos_ = save;
      return std::nullopt;
    }
    size_t after = p + next_key.size();
    if (p > start && text_[p - 1] == ' ' && after < text_.size() && text_[after] == '=') {
      pos_ = p - 1;
      return text_.substr(start, p - 1 - start);
    }
    from = p + 1;
  }
}

std::optional<std::string_view> KvCursor::Token(std::string_view key) {
  if (!Expect(key)) return std::nullopt;
  size_t start = pos_;
  size_t end = text_.find(' ', start);
  if (end == std::string_view::npos) end = text_.size();
  pos_ = end;
  return text_.substr(start, end - start);
}

std::optional<int64_t> KvCursor::Int(std::string_view key) {
  size_t save = pos_;
  std::optional<std::string_view> t = Token(key);
  std::optional<int64_t> v = t ? ParseInt(*t) : std::nullopt;
  if (!v) pos_ = save;
  return v;
}

std::optional<uint64_t> KvCursor::Uint(std::string_view key) {
  size_t save = pos_;
  std::optional<std::string_view> t = Token(key);
  std::optional<uint64_t> v = t ? ParseUint(*t) : std::nullopt;
  if (!v) pos_ = save;
  return v;
}

bool KvCursor::Skip(std::string_view word) {
  size_t p = pos_;
  while (p < text_.size() && text_[p] == ' ') ++p;
  if (text_.compare(p, word.size(), word) != 0) return false;
  size_t end = p + word.size();
  if (end < text_.size() && text_[end] != ' ') return false;
  pos_ = end;
  return true;
}

bool KvCursor::AtEnd() const {
  for (size_t p = pos_; p < text_.size(); ++p) {
    if (text_[p] != ' ') return false;
  }
  return true;
}

}  // namespace tk::parsers::tp_text
