#include "parsers/perf_script/split_parse.h"

#include <algorithm>
#include <sstream>
#include <thread>

#include "core/input.h"
#include "parsers/perf_script/perf_script_parser.h"

namespace tk::parsers::perf_script {
namespace {

// Forwards to a part's sink and remembers the first and last timestamps (to check the order
// across the cut). The span is of every event the parser emits (what a sequential parse
// checks the order of), whatever the part's sink keeps.
class SpanSink final : public EventSink {
 public:
  explicit SpanSink(EventSink* next) : next_(next) {}
  EventMask wants() const override { return next_->wants(); }
  absl::Status OnEvent(const Event& e) override {
    if (e.ts_ns >= 0) {
      if (first < 0) first = e.ts_ns;
      last = std::max(last, e.ts_ns);
    }
    return next_->OnEvent(e);
  }
  absl::Status Finish() override { return next_->Finish(); }
  int64_t first = -1, last = -1;

 private:
  EventSink* next_;
};

absl::Status ParseInto(std::string_view text, const std::string& name,
                       const PerfScriptOptions& ps, EventSink& sink, Diagnostics& diag) {
  std::unique_ptr<Input> in = Input::FromString(text, name);
  return NewPerfScriptParser(ParseOptions{}, ps)->Parse(*in, sink, diag);
}

struct Part {
  std::string_view text;
  PerfScriptOptions ps;
  std::unique_ptr<EventSink> sink;
  std::ostringstream err;
  absl::Status status;
  int64_t first = -1, last = -1;
  bool clean = false;
};

void RunPart(Part* p, const std::string& name) {
  Diagnostics diag(name, &p->err);
  SpanSink span(p->sink.get());
  p->status = ParseInto(p->text, name, p->ps, span, diag);
  p->first = span.first;
  p->last = span.last;
  p->clean = p->status.ok() && diag.total_malformed() == 0 && diag.notes().empty();
}

}  // namespace

size_t FindSplit(std::string_view text, size_t from) {
  for (size_t p = text.find('\n', from); p != std::string_view::npos;
       p = text.find('\n', p + 1)) {
    size_t q = p + 1;
    if (q < text.size() && text[q] == '\r') ++q;
    if (q < text.size() && text[q] == '\n') return q + 1;
  }
  return std::string_view::npos;
}

absl::Status ParseSplit(std::string_view text, const std::string& name, const SplitOptions& opt,
                        PartitionedSink& sinks, Diagnostics& diag, SplitStats* stats) {
  SplitStats ignored;
  if (!stats) stats = &ignored;
  *stats = SplitStats{};
  PerfScriptOptions seq;
  seq.release_parsed_pages = opt.release_parsed_pages;
  size_t cut = std::string_view::npos;
  if (opt.threads >= 2 && text.size() >= opt.parallel_min_bytes && text.size() >= 2) {
    cut = FindSplit(text, text.size() / 2);
  }
  if (cut == std::string_view::npos) return ParseInto(text, name, seq, sinks.Whole(), diag);

  if (EventSink* pre = sinks.Prescan()) {
    std::ostringstream ignored;
    Diagnostics quiet(name, &ignored);
    (void)ParseInto(text, name, PerfScriptOptions{}, *pre, quiet);
  }
  Part pa, pb;
  pa.text = text.substr(0, cut);
  pa.ps = seq;
  pa.sink = sinks.NewPart();
  pb.text = text.substr(cut);
  pb.ps = seq;
  pb.sink = sinks.NewPart();
  // The second half's line numbers are not known without counting the first half's lines
  // (a pass over it): they only matter when the half reports something, and then the whole
  // text is parsed again below; a clean half's events carry none.
  std::thread t([&] { RunPart(&pb, name); });
  RunPart(&pa, name);
  t.join();
  bool ordered = pa.last < 0 || pb.first < 0 || pa.last <= pb.first;
  stats->parts = 2;
  if (!pa.clean || !pb.clean || !ordered) {
    stats->reparsed = true;
    // Something to report: parse again sequentially so messages are exactly a sequential
    // run's. (Pages already released are read back from the page cache.)
    return ParseInto(text, name, seq, sinks.Whole(), diag);
  }
  sinks.MergePart(*pa.sink);
  sinks.MergePart(*pb.sink);
  return absl::OkStatus();
}

}  // namespace tk::parsers::perf_script
