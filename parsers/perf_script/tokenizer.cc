#include "parsers/perf_script/tokenizer.h"

#include "core/strings.h"
#include "parsers/perf_script/header.h"

namespace tk::parsers::perf_script {

Tokenizer::Tokenizer(Input& in, uint64_t first_line)
    : lines_(in), line_offset_(first_line - 1) {}

bool Tokenizer::Next(Token* t) {
  if (!lines_.Next(&t->line)) return false;
  t->line_no = lines_.line_number() + line_offset_;
  std::string_view line = t->line;
  // Fast path: perf indents callchain frames with a tab; headers never start with one.
  if (in_event_ && line.size() > 1 && line[0] == '\t' && !IsBlank(line.back())) {
    t->kind = LineKind::kFrame;
    return true;
  }
  if (TrimLeft(line).empty()) {
    in_event_ = false;
    t->kind = LineKind::kBlank;
  } else if (line[0] == '#') {
    t->kind = LineKind::kComment;
  } else if (headers_.Parse(line, &t->header)) {
    in_event_ = true;
    t->kind = LineKind::kHeader;
  } else {
    t->kind = in_event_ ? LineKind::kFrame : LineKind::kStray;
  }
  return true;
}

}  // namespace tk::parsers::perf_script
