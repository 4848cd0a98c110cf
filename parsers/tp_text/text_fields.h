// Small pure helpers for reading tracepoint text: a cursor over "key=value" texts whose
// string values may hold spaces.
//
// Kernel print formats are "k1=v1 k2=v2 ..." where a %s value is a comm that may contain
// spaces, brackets, '=' and ':' ("prev_comm=kworker/u4:2 H prev_pid=7", "comm=Web Content
// pid=3100"). A string value is therefore delimited by the *next expected key*
// (" prev_pid="), never by a space; numeric values end at the next space.
#ifndef TK_PARSERS_TP_TEXT_TEXT_FIELDS_H_
#define TK_PARSERS_TP_TEXT_TEXT_FIELDS_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/strings.h"  // the integers (ParseInt, ParseUint, ParseInt32), IsDigit

namespace tk::parsers::tp_text {

// Walks "key=value" pairs left to right.
class KvCursor {
 public:
  explicit KvCursor(std::string_view text) : text_(text) {}

  // The value of `key` when the text continues with "key=" (after spaces): up to the start of
  // " next_key=" (the value may hold spaces), or to the end when next_key is empty. nullopt
  // (cursor unchanged) when `key=` is not next or next_key is not found.
  std::optional<std::string_view> String(std::string_view key, std::string_view next_key);
  // The value of `key` up to the next space (or end). nullopt when `key=` is not next.
  std::optional<std::string_view> Token(std::string_view key);
  // Token() parsed as an integer.
  std::optional<int64_t> Int(std::string_view key);
  std::optional<uint64_t> Uint(std::string_view key);
  // Consumes `word` (e.g. "==>", "[ns]") when it is the next space-separated token.
  bool Skip(std::string_view word);
  // True when only spaces remain.
  bool AtEnd() const;
  std::string_view rest() const { return text_.substr(pos_); }

 private:
  // Moves past spaces; returns true when text continues with "key=" and moves past it.
  bool Expect(std::string_view key);

  std::string_view text_;
  size_t pos_ = 0;
};

// Finds " key=" (or "key=" at the start) in `text` from `from`; npos when absent. Returns the
// position of the value.
size_t FindKey(std::string_view text, std::string_view key, size_t from = 0);

}  // namespace tk::parsers::tp_text

#endif  // TK_PARSERS_TP_TEXT_TEXT_FIELDS_H_
