#include "parsers/perf_script/perf_script_parser.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/byte_arena.h"
#include "core/timestamp.h"
#include "parsers/perf_script/frame.h"
#include "parsers/perf_script/frame_table.h"
#include "parsers/perf_script/header.h"
#include "parsers/perf_script/split_parse.h"
#include "parsers/perf_script/tokenizer.h"
#include "parsers/tp_text/tp_text.h"

namespace tk::parsers::perf_script {
namespace {

// Pages of a mapped input are released in steps of this many bytes (release_parsed_pages).
constexpr size_t kReleaseStep = 8 << 20;

// At most 80 bytes of a line, quoted, for messages.
std::string Quote(std::string_view line) {
  if (line.size() > 80) return absl::StrCat("\"", AV(line.substr(0, 80)), "...\"");
  return absl::StrCat("\"", AV(line), "\"");
}

class PerfScriptParser final : public Parser {
 public:
  PerfScriptParser(const ParseOptions& opts, const PerfScriptOptions& ps)
      : threads_(opts.threads), ps_(ps) {}

  // Text in memory is parsed in two halves on two threads (split_parse.h); a stream in one
  // pass.
  absl::Status ParseParts(Input& in, PartitionedSink& sinks, Diagnostics& diag) override {
    std::optional<std::string_view> text = in.mapped();
    if (!text) return Parse(in, sinks.Whole(), diag);
    SplitOptions so;
    so.threads = threads_ > 0 ? threads_ : std::thread::hardware_concurrency() >= 2 ? 2 : 1;
    so.release_parsed_pages = in.file_mapped();
    return ParseSplit(*text, in.name(), so, sinks, diag);
  }

  absl::Status Parse(Input& in, EventSink& sink, Diagnostics& diag) override {
    sink_ = &sink;
    diag_ = &diag;
    mask_ = sink.wants();
    tp_.SetWanted(mask_);
    // A sink that wants stacks gets interned names (frame_table.h): Event::stable_views.
    intern_ = mask_.stacks();
    std::optional<std::string_view> map = in.mapped();
    stable_ = map.has_value();
    if (map && intern_) table_.SetStableText(map->data() + map->size());
    if (map && ps_.release_parsed_pages) {
      map_begin_ = map->data();
      released_ = map->data();
    }
    Tokenizer tok(in, ps_.first_line);
    tok_ = &tok;
    Token t;
    while (tok.Next(&t)) {
      absl::Status st = OnLine(t);
      if (!st.ok()) return st;
      if (pending_ && want_stack_ && t.kind != LineKind::kComment) {
        st = ReadFrames();
        if (!st.ok()) return st;
      }
    }
    if (!tok.status().ok()) return tok.status();
    if (pending_ && (frame_lines_ > 0 || blank_ended_)) {
      // (A header alone at the end of text whose stacks end with blank lines is cut too: its
      // stack would have followed.)
      // perf script ends every stack with a blank line; without it the file was cut short
      // and the stack may be incomplete. It is passed on as it is (inferno's rule;
      // stackcollapse-perf.pl drops it), so no sample is lost.
      diag.Note(Stat::kTruncatedLastEvent,
                absl::StrCat("line ", line_no_, ": the last event's stack is not followed by a "
                             "blank line (input cut short?); kept as it is"));
      ev_.stack_recorded = true;
    }
    if (events_ == 0 && stray_ > 0) {
      // Not one line is an event: this is no perf script text (or it is folded stacks).
      return absl::InvalidArgumentError(diag.ErrorAt(
          Diagnostics::Unit::kLine, first_stray_line_, NoEventMessage("a perf script", first_stray_)));
    }
    absl::Status st = Flush();
    if (!st.ok()) return st;
    return sink.Finish();
  }

 private:
  absl::Status OnLine(const Token& t) {
    switch (t.kind) {
      case LineKind::kFrame:
        ++frame_lines_;
        if (pending_ && want_stack_) AddFrame(t);
        return absl::OkStatus();
      case LineKind::kHeader: {
        absl::Status st = Flush();
        if (!st.ok()) return st;
        if (map_begin_) Release(t.line.data());
        if (events_++ == 0 && stray_ > 0) {
          diag_->Malformed(Stat::kMalformedLines, Diagnostics::Unit::kLine, first_stray_line_,
                           absl::StrCat("line outside an event: ", Quote(first_stray_)), stray_);
        }
        StartEvent(t);
        return absl::OkStatus();
      }
      case LineKind::kBlank:
        ev_.stack_recorded = true;  // the blank line ends a stack, even an empty one
        blank_ended_ = blank_ended_ || pending_;
        return Flush();
      case LineKind::kComment:
        return absl::OkStatus();
      case LineKind::kStray:
        if (events_ == 0) {
          // Held back until an event shows this is perf script text at all: text with no
          // event is refused in one line, not reported line by line.
          if (stray_++ == 0) {
            first_stray_ = std::string(t.line.substr(0, 200));
            first_stray_line_ = t.line_no;
          }
          return absl::OkStatus();
        }
        diag_->Malformed(Stat::kMalformedLines, Diagnostics::Unit::kLine, t.line_no,
                         absl::StrCat("line outside an event: ", Quote(t.line)));
        return absl::OkStatus();
    }
    return absl::OkStatus();
  }

  // Keeps `s` alive until the event is emitted: mapped input lives anyway; streamed lines
  // are copied.
  std::string_view Keep(std::string_view s) { return stable_ ? s : arena_.Copy(s); }

  void StartEvent(const Token& t) {
    arena_.Reset();
    frames_.clear();
    // The tokenizer parsed the line; its views move to the kept copy.
    std::string_view line = Keep(t.line);
    const Header* h = &t.header;  // views into the line, which a mapped input keeps
    if (line.data() != t.line.data()) {
      header_ = t.header;
      RebaseHeader(t.line.data(), line.data(), &header_);
      h = &header_;
    }
    line_no_ = t.line_no;
    frame_lines_ = 0;
    ev_ = Event{};  // stack_recorded false until a blank line ends the event
    ev_.ts_ns = h->ts_ns;
    ev_.cpu = h->cpu;
    ev_.pid = h->pid;
    ev_.tid = h->tid;
    ev_.comm = intern_ ? table_.InternComm(h->comm) : h->comm;
    ev_.stable_views = intern_;
    ev_.name = h->event;
    ev_.period = h->period;
    ev_.has_period = h->has_period;
    pending_ = true;
    want_stack_ = false;
    switch (h->side) {
      case SideBand::kNone:
        break;
      case SideBand::kLost:
      case SideBand::kLostSamples: {
        bool samples = h->side == SideBand::kLostSamples;
        ev_.body = Lost{samples ? Lost::Kind::kLostSamples : Lost::Kind::kLost, h->lost};
        diag_->Note(Stat::kLostEvents,
                    absl::StrCat("line ", t.line_no, ": perf lost ", h->lost,
                                 samples ? " samples" : " events", " (more may follow)"),
                    h->lost);
        return;
      }
      case SideBand::kComm:
        ev_.body = Comm{h->other_pid, h->other_tid, h->side_comm, h->exec};
        return;
      case SideBand::kFork:
        ev_.body = Fork{h->pid, h->other_pid, h->tid, h->other_tid};
        return;
      case SideBand::kExit:
        ev_.body = Exit{h->pid, h->other_pid, h->tid, h->other_tid};
        return;
      case SideBand::kOther:
        pending_ = false;
        return;
    }
    // A sample, a sample whose one-frame stack is on the header line, or a tracepoint.
    std::optional<Frame> inline_frame;
    if (!h->rest.empty()) inline_frame = ParseFrameLine(h->rest);
    if (h->rest.empty() || inline_frame) {
      ev_.body = Sample{};
    } else if (!tp_.Decode(h->event, h->rest, ev_)) {
      diag_->Malformed(Stat::kUnparsableTracepointFields, Diagnostics::Unit::kLine, t.line_no,
                       absl::StrCat("cannot decode the fields of ", AV(h->event), ": ",
                                    Quote(h->rest)));
    }
    want_stack_ = mask_.stacks() && mask_.Has(ev_.kind());
    if (inline_frame && want_stack_) frames_.push_back(table_.InternNames(*inline_frame));
    if (inline_frame) ev_.stack_recorded = true;  // -F ip,sym: the one-frame stack
  }

  // Inside a sample whose stack is wanted: the frame lines that follow, as far as they have
  // perf's usual shape (FrameTable::ParseLines), without the tokenizer's line by line calls,
  // and the empty line that ends the stack. The first other line (a header, a blank line
  // that is not empty, anything to report) is left to the tokenizer.
  absl::Status ReadFrames() {
    const std::string_view rest = tok_->unread();
    const char* p = rest.data();
    const char* e = p + rest.size();
    uint64_t n;
    p = table_.ParseLines(p, e, &frames_, &n);
    if (n > 0) {
      frame_lines_ += n;
      ev_.callchain = true;
    }
    const size_t bytes = static_cast<size_t>(p - rest.data());
    if (p == e || *p != '\n') {
      if (n > 0) tok_->SkipFrames(bytes, n);
      return absl::OkStatus();
    }
    // The empty line: the event ends (as OnLine's kBlank).
    tok_->SkipEventEnd(bytes + 1, n + 1);
    ev_.stack_recorded = true;
    blank_ended_ = true;
    return Flush();
  }

  void AddFrame(const Token& t) {
    ev_.callchain = true;  // perf script prints frame lines only for a callchain
    std::optional<Frame> f = table_.Parse(t.line);  // want_stack_: names interned
    if (!f) {
      diag_->Malformed(Stat::kMalformedLines, Diagnostics::Unit::kLine, t.line_no,
                       absl::StrCat("unrecognized stack line: ", Quote(t.line)));
      return;
    }
    frames_.push_back(*f);
  }

  absl::Status Flush() {
    if (!pending_) return absl::OkStatus();
    pending_ = false;
    if (ev_.ts_ns >= 0) {
      if (ev_.ts_ns < last_ts_) {
        // Only the first occurrence is printed: build its text once.
        diag_->Note(Stat::kOutOfOrder,
                    unordered_++ ? std::string()
                                 : absl::StrCat("line ", line_no_, ": event at ",
                                                FormatTimestamp(ev_.ts_ns, 9),
                                                " is earlier than one before it (",
                                                FormatTimestamp(last_ts_, 9),
                                                "); events are not in time order"));
      } else {
        last_ts_ = ev_.ts_ns;
      }
    }
    if (!mask_.Has(ev_.kind())) return absl::OkStatus();
    ev_.stack = absl::MakeConstSpan(frames_);
    return sink_->OnEvent(ev_);
  }

  // Drops the pages before `upto` (page-aligned inward) from the process: see
  // PerfScriptOptions::release_parsed_pages.
  void Release(const char* upto) {
    if (upto - released_ < static_cast<ptrdiff_t>(kReleaseStep)) return;
    released_ = ReleasePages(released_, upto);
  }

  int threads_ = 1;
  PerfScriptOptions ps_;
  EventSink* sink_ = nullptr;
  Diagnostics* diag_ = nullptr;
  EventMask mask_;
  bool stable_ = false;
  bool intern_ = false;  // the sink wants stacks: names from table_
  FrameTable table_;
  // The event being assembled (header seen, frames being added).
  Event ev_;
  bool pending_ = false;
  bool want_stack_ = false;
  uint64_t line_no_ = 0;
  uint64_t frame_lines_ = 0;  // lines after the header
  std::vector<Frame> frames_;
  Header header_;  // a streamed event's header line, parsed (its views into the kept copy)
  Tokenizer* tok_ = nullptr;
  ByteArena arena_;
  tp_text::TracepointTextDecoder tp_;
  int64_t last_ts_ = -1;
  uint64_t unordered_ = 0;
  uint64_t events_ = 0;  // header lines seen
  bool blank_ended_ = false;  // a blank line ended an event: this text has stacks
  // Lines outside an event before the first header (held back, see kStray).
  uint64_t stray_ = 0, first_stray_line_ = 0;
  std::string first_stray_;
  const char* map_begin_ = nullptr;
  const char* released_ = nullptr;
};

}  // namespace

std::unique_ptr<Parser> NewPerfScriptParser(const ParseOptions& opts) {
  return NewPerfScriptParser(opts, PerfScriptOptions{});
}

std::unique_ptr<Parser> NewPerfScriptParser(const ParseOptions& opts,
                                            const PerfScriptOptions& ps) {
  return std::make_unique<PerfScriptParser>(opts, ps);
}

}  // namespace tk::parsers::perf_script
