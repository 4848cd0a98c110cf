// libtraceevent-based decoding of binary tracepoint payloads into typed events, shared by the
// perf.data (PERF_SAMPLE_RAW) and trace.dat readers. Field offsets are resolved once per event
// id, on first sight; only events that occur are looked at.
//
// A raw record is the tracepoint's entry as the kernel wrote it: the common fields
// (common_type u16 at offset 0, common_flags, common_preempt_count, common_pid) then the
// event's own fields, laid out as its format file says. Field sets differ by kernel, so every
// field is looked up by name in the recording's own formats.
#ifndef TK_PARSERS_TEP_TEP_DECODER_H_
#define TK_PARSERS_TEP_TEP_DECODER_H_

#include <string_view>

#include "core/event.h"

struct tep_handle;

namespace tk::parsers::tep {

class TraceEvents;
struct SchedLayout;

class TepDecoder {
 public:
  // `tep` holds the parsed header_page and event formats; not owned, must outlive this.
  explicit TepDecoder(struct tep_handle* tep);
  // Formats parsed lazily by `events` (tracing_data.h) on first sight of an id; not owned.
  explicit TepDecoder(TraceEvents* events);
  ~TepDecoder();
  TepDecoder(const TepDecoder&) = delete;
  TepDecoder& operator=(const TepDecoder&) = delete;

  // The sink's mask: an event of a family (core/kernel_events.h) whose kind it lacks is
  // decoded (and classified) as Generic, as before tk had a type for it. Default: all typed.
  void SetWanted(EventMask mask);

  // Decodes one raw record (common_type first). Sets e.name to "system:name" and e.body to the
  // typed event, Generic with every non-common field for events tk has no type for. Sets e.tid
  // from common_pid only when e.tid is -1 (e.pid is left to the caller: common_pid is a thread
  // id). Returns false for an unknown event id or a payload too short for its format (caller
  // counts it as malformed); `e` is then unchanged.
  // Views set in `e` borrow `raw` and this decoder's storage, valid until the next call.
  bool Decode(std::string_view raw, Event& e);

  // The kind Decode would produce for this record, without decoding it (so callers can skip
  // what the sink does not want). False when the id is unknown or the record too short.
  bool Classify(std::string_view raw, EventKind* kind);

  // The layout of event `id` when it is a sched event (sched_decode.h), for decoding its
  // payloads elsewhere (SchedFastDecoder); false otherwise. Resolves the id's format now.
  bool SchedLayoutOf(int id, SchedLayout* out);

  // The byte order of the payloads (the recording's tracing data), as Decode reads them.
  bool big_endian() const;

  // "system:name" of the record's event; empty when unknown.
  std::string_view Name(std::string_view raw);

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace tk::parsers::tep

#endif  // TK_PARSERS_TEP_TEP_DECODER_H_
