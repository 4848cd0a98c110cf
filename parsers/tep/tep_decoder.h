// libtraceevent-based decoding of binary tracepoint payloads into typed events, shared by the
// perf.data (PERF_SAMPLE_RAW) and trace.dat readers. Field offsets are resolved once per event
// id, on first sight; only events that occur are looked at.
#ifndef TK_PARSERS_TEP_TEP_DECODER_H_
#define TK_PARSERS_TEP_TEP_DECODER_H_

#include <string_view>

#include "core/event.h"

struct tep_handle;

namespace tk::parsers::tep {

class TepDecoder {
 public:
  // `tep` holds the parsed header_page and event formats; not owned, must outlive this.
  explicit TepDecoder(struct tep_handle* tep);
  ~TepDecoder();
  TepDecoder(const TepDecoder&) = delete;
  TepDecoder& operator=(const TepDecoder&) = delete;

  // Decodes one raw record (common_type first). Sets e.name to "system:name" and e.body to the
  // typed event, Generic with every field for events tk has no type for. Fills e.pid/e.tid
  // from common_pid only when they are -1. Returns false for an unknown event id or a payload
  // too short for its format (caller counts it as malformed).
  // Views set in `e` borrow `raw` and this decoder's storage, valid until the next call.
  bool Decode(std::string_view raw, Event& e);

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace tk::parsers::tep

#endif  // TK_PARSERS_TEP_TEP_DECODER_H_
