// Placeholder until the libtraceevent decoder lands: names the event, no fields.
#include "parsers/tep/tep_decoder.h"

extern "C" {
#include <traceevent/event-parse.h>
}

namespace tk::parsers::tep {

struct TepDecoder::Impl {
  struct tep_handle* tep;
};

TepDecoder::TepDecoder(struct tep_handle* tep) : impl_(new Impl{tep}) {}
TepDecoder::~TepDecoder() { delete impl_; }

bool TepDecoder::Decode(std::string_view raw, Event& e) {
  (void)raw;
  e.body = Generic{};
  return false;
}

}  // namespace tk::parsers::tep
