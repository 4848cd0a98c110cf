#include "analyses/fold/text_fold.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <sstream>
#include <thread>

#include "core/input.h"
#include "parsers/perf_script/perf_script_parser.h"

namespace tk::analyses::fold {
namespace {

using parsers::perf_script::NewPerfScriptParser;
using parsers::perf_script::PerfScriptOptions;

// Stops the parse at the first event that has an event type: the one FoldSink would keep.
class FirstTypeSink final : public EventSink {
 public:
  EventMask wants() const override { return EventMask::All().WithStacks(false); }
  absl::Status OnEvent(const Event& e) override {
    if (!IsStackEvent(e.kind()) || e.name.empty()) return absl::OkStatus();
    name = std::string(e.name);
    return absl::CancelledError("found");
  }
  std::string name;
};

// Forwards to a FoldSink and remembers the first and last timestamps (to check the order
// across the cut).
class SpanSink final : public EventSink {
 public:
  explicit SpanSink(EventSink* fold) : fold_(fold) {}
  EventMask wants() const override { return fold_->wants(); }
  absl::Status OnEvent(const Event& e) override {
    if (e.ts_ns >= 0) {
      if (first < 0) first = e.ts_ns;
      last = std::max(last, e.ts_ns);
    }
    return fold_->OnEvent(e);
  }
  int64_t first = -1, last = -1;

 private:
  EventSink* fold_;
};

absl::Status ParseInto(std::string_view text, const std::string& name,
                       const PerfScriptOptions& ps, const Filter* filter, EventSink& sink,
                       Diagnostics& diag) {
  std::unique_ptr<Input> in = Input::FromString(text, name);
  if (!filter) return NewPerfScriptParser(ParseOptions{}, ps)->Parse(*in, sink, diag);
  FilterSink filtered(*filter, sink);
  return NewPerfScriptParser(ParseOptions{}, ps)->Parse(*in, filtered, diag);
}

struct Part {
  std::string_view text;
  PerfScriptOptions ps;
  const Filter* filter = nullptr;
  std::ostringstream err;
  absl::Status status;
  int64_t first = -1, last = -1;
  bool clean = false;
};

void RunPart(Part* p, const std::string& name, FoldSink* fold) {
  Diagnostics diag(name, &p->err);
  // The span is of every event (what a sequential parse checks the order of), filtered or not.
  std::optional<FilterSink> filtered;
  if (p->filter) filtered.emplace(*p->filter, *fold);
  SpanSink span(filtered ? static_cast<EventSink*>(&*filtered) : fold);
  p->status = ParseInto(p->text, name, p->ps, nullptr, span, diag);
  p->first = span.first;
  p->last = span.last;
  p->clean = p->status.ok() && diag.total_malformed() == 0 && diag.notes().empty();
}

// Newlines in `text`. Counting maps every page of the first half into this process while
// the other thread is still parsing it; with `release` the counted pages are dropped again
// (harmless for the parser: they are read back from the page cache).
uint64_t CountLines(std::string_view text, bool release) {
  constexpr size_t kStep = 8 << 20;
  uint64_t n = 0;
  for (size_t at = 0; at < text.size(); at += kStep) {
    std::string_view part = text.substr(at, kStep);
    n += static_cast<uint64_t>(std::count(part.begin(), part.end(), '\n'));
    if (release) ReleasePages(part.data(), part.data() + part.size());
  }
  return n;
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

absl::Status FoldText(std::string_view text, const std::string& name, const TextFoldOptions& opt,
                      FoldSink& out, Diagnostics& diag, TextFoldStats* stats) {
  TextFoldStats ignored;
  if (!stats) stats = &ignored;
  *stats = TextFoldStats{};
  PerfScriptOptions seq;
  seq.release_parsed_pages = opt.release_parsed_pages;
  size_t cut = std::string_view::npos;
  if (opt.threads >= 2 && text.size() >= opt.parallel_min_bytes && text.size() >= 2) {
    cut = FindSplit(text, text.size() / 2);
  }
  if (cut == std::string_view::npos) return ParseInto(text, name, seq, opt.filter, out, diag);

  // The default event type comes from the first event of the whole text.
  std::string first_type;
  if (out.event_type().empty()) {
    std::ostringstream ignored;
    Diagnostics quiet(name, &ignored);
    FirstTypeSink first;
    (void)ParseInto(text, name, PerfScriptOptions{}, opt.filter, first, quiet);
    first_type = first.name;
  }
  FoldSink a(out.options()), b(out.options());
  if (!first_type.empty()) {
    a.SetDefaultType(first_type);
    b.SetDefaultType(first_type);
  }
  Part pa, pb;
  pa.text = text.substr(0, cut);
  pa.ps = seq;
  pa.filter = opt.filter;
  pb.text = text.substr(cut);
  pb.ps = seq;
  pb.filter = opt.filter;
  std::thread t([&] {
    pb.ps.first_line = CountLines(pa.text, opt.release_parsed_pages) + 1;
    RunPart(&pb, name, &b);
  });
  RunPart(&pa, name, &a);
  t.join();
  bool ordered = pa.last < 0 || pb.first < 0 || pa.last <= pb.first;
  stats->parts = 2;
  if (!pa.clean || !pb.clean || !ordered) {
    stats->refolded = true;
    // Something to report: fold again sequentially so messages are exactly a sequential run's.
    // (Pages already released are read back from the page cache.)
    return ParseInto(text, name, seq, opt.filter, out, diag);
  }
  out.Merge(a);
  out.Merge(b);
  return absl::OkStatus();
}

}  // namespace tk::analyses::fold
