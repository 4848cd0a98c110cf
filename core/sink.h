// Parser → analysis interface (push model, as ripgrep's Sink): a parser calls OnEvent for each
// event in time order, then Finish once. The Event's views are borrowed for the call only.
#ifndef TK_CORE_SINK_H_
#define TK_CORE_SINK_H_

#include <vector>

#include "absl/status/status.h"
#include "core/event.h"

namespace tk {

// What a recording says about the machine it was made on, given to the sink once before the
// first event. Fields are empty when the format does not record them (text, pipe-mode perf).
struct TraceInfo {
  std::string_view arch;  // uname's machine: "x86_64", "aarch64" (perf.data HEADER_ARCH,
                          // the last word of trace.dat's uname)
};

// Work a sink would otherwise give a thread of its own (tk fold's naming and counting of the
// stacks it was handed), done instead by a thread the parser already runs: with --threads 2 a
// perf.data parse reads on one thread and decodes on the other, and the reading thread waits
// for the decoder most of the time. A third busy thread on two cores was measured to cost the
// wall clock nearly all of its CPU time: it ran while the other two waited for it (docs/
// performance.md, session 12).
class SideWork {
 public:
  virtual ~SideWork() = default;
  // Does one piece of the work waiting, if any (false when none waits, or while another
  // thread does a piece: the caller then waits as it would without side work). Never waits
  // itself; safe beside the sink's calls.
  virtual bool RunPending() = 0;
  // Does a piece of the work the sink's Finish would do, done early (false when none is
  // left for now): the parser calls it once nothing else is left for that thread (after it
  // has read everything, while the decoder finishes). Pieces are short: the sink's own
  // thread may wait for one.
  virtual bool RunIdle() { return false; }
};

class EventSink {
 public:
  virtual ~EventSink() = default;
  // Which kinds this sink consumes; parsers may skip decoding the rest.
  virtual EventMask wants() const = 0;
  // A non-OK status stops the parse and is reported as the command's error.
  virtual absl::Status OnEvent(const Event& e) = 0;
  // The recording's machine, before the first event (formats that know it).
  virtual void OnTraceInfo(const TraceInfo& info) { (void)info; }
  // Called once after the last event (not after an error).
  virtual absl::Status Finish() { return absl::OkStatus(); }
  // A parser with a thread to spare asks once, before the first event: the sink's SideWork
  // (or null), whose RunPending and RunIdle the parser then calls on that thread until it
  // joins it (before Finish). A sink asked does the work it hands over on no thread of its
  // own: what that thread leaves undone, the sink does itself on the caller's thread
  // (bounded: it never waits for the parser). Wrappers forward the question to the sink they
  // feed.
  virtual SideWork* TakeSideWork() { return nullptr; }
  // A hint: an event with this Event::stack_id (> 0) comes a few events later. A sink that
  // looks stacks up by their id asks for the entry now, so the cache miss overlaps the
  // events before it. Wrappers forward it.
  virtual void PrefetchStack(uint64_t stack_id) { (void)stack_id; }
};

// One pass feeding several analyses: each event goes to every sink that wants its kind, in
// the order given; the first error stops the pass. Each sink's wants() is read once, here (a
// sink's mask does not change during a parse).
class Fanout final : public EventSink {
 public:
  explicit Fanout(std::vector<EventSink*> sinks) : sinks_(std::move(sinks)) {
    for (EventSink* s : sinks_) {
      masks_.push_back(s->wants());
      mask_ = mask_ | masks_.back();
    }
  }
  EventMask wants() const override { return mask_; }
  void OnTraceInfo(const TraceInfo& info) override {
    for (EventSink* s : sinks_) s->OnTraceInfo(info);
  }
  absl::Status OnEvent(const Event& e) override {
    const EventKind k = e.kind();
    for (size_t i = 0; i < sinks_.size(); ++i) {
      if (!masks_[i].Has(k)) continue;
      absl::Status st = sinks_[i]->OnEvent(e);
      if (!st.ok()) return st;
    }
    return absl::OkStatus();
  }
  absl::Status Finish() override {
    for (EventSink* s : sinks_) {
      absl::Status st = s->Finish();
      if (!st.ok()) return st;
    }
    return absl::OkStatus();
  }

 private:
  std::vector<EventSink*> sinks_;
  std::vector<EventMask> masks_;
  EventMask mask_;
};

}  // namespace tk

#endif  // TK_CORE_SINK_H_
