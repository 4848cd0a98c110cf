// Placeholder until the text decoders land: every tracepoint passes through as Generic text.
#include "parsers/tp_text/tp_text.h"

namespace tk::parsers::tp_text {

bool TracepointTextDecoder::Decode(std::string_view name, std::string_view text, Event& e) {
  e.name = name;
  e.body = Generic{{}, text};
  return true;
}

}  // namespace tk::parsers::tp_text
