// The ftrace text reader: /sys/kernel/tracing/trace (any column options) and `trace-cmd report`
// (plugin and -R forms). Lines are streamed (core/line_reader.h); line_parser.cc splits them,
// tp_text decodes the event text. Both outputs are already merged across CPUs by time, so the
// reader only verifies the order: lines whose time goes back are counted and passed on as
// they are (reordering would need unbounded buffering).
#include "parsers/ftrace_text/ftrace_text_parser.h"

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/line_reader.h"
#include "parsers/ftrace_text/line_parser.h"
#include "parsers/tp_text/tp_text.h"

namespace tk::parsers::ftrace_text {
namespace {

// A line for a message: at most 100 bytes, quoted.
std::string Quote(std::string_view line) {
  if (line.size() > 100) return absl::StrCat("\"", AV(line.substr(0, 100)), "...\"");
  return absl::StrCat("\"", AV(line), "\"");
}

class FtraceTextParser final : public Parser {
 public:
  absl::Status Parse(Input& in, EventSink& sink, Diagnostics& diag) override;

 private:
  // Handles a line that is not an event; false when it is not a known header either.
  absl::Status NonEventLine(std::string_view line, uint64_t line_no, EventSink& sink,
                            Diagnostics& diag, bool* known);
  absl::Status EmitLost(tk::Lost::Kind kind, int32_t cpu, uint64_t count, EventSink& sink);

  // Stack traces: with stacks wanted, an event is held back until the next line, which may
  // open its "<stack trace>" block (a kernel_stack event line, then "=> name" lines).
  absl::Status FlushHeld(EventSink& sink);
  bool StackLine(std::string_view line);

  tp_text::TracepointTextDecoder decoder_;
  EventMask mask_;
  Event held_;
  bool holding_ = false, collecting_ = false;
  std::string held_line_[2];  // the held event's views point into one; the next line the other
  int held_buf_ = 0;
  std::vector<std::string> frame_names_;
  std::vector<Frame> frames_;
};

// One frame line of a "<stack trace>" block: " => __schedule+0x628/0xf80" (tracefs),
// "=> __schedule (ffffffff82265908)" (trace-cmd report), " => <ffffffff82265908>" (no symbol).
bool FtraceTextParser::StackLine(std::string_view line) {
  size_t at = line.find_first_not_of(' ');
  if (at == std::string_view::npos || line.substr(at, 3) != "=> ") return false;
  if (!collecting_) return true;  // a block after an event not held (not wanted): skipped
  std::string_view f = line.substr(at + 3);
  uint64_t ip = 0;
  size_t paren = f.rfind(" (");
  std::string_view hex;
  if (paren != std::string_view::npos && f.ends_with(")")) {
    hex = f.substr(paren + 2, f.size() - paren - 3);
    f = f.substr(0, paren);
  } else if (f.starts_with("<") && f.ends_with(">")) {
    hex = f.substr(1, f.size() - 2);
    f = "[unknown]";
  }
  for (char c : hex) {
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) break;
    ip = ip << 4 | static_cast<uint64_t>(d);
  }
  f = f.substr(0, f.find('+'));  // sym+0xoff/0xsize
  // The tracing machinery's own frames above __schedule, as the trace.dat reader drops them.
  if (frames_.empty() && (f.starts_with("trace_event_raw_event_") || f.starts_with("__traceiter_")))
    return true;
  frame_names_.emplace_back(f);
  frames_.push_back(Frame{ip, {}, f == "[unknown]" ? "[unknown]" : "[kernel.kallsyms]"});
  return true;
}

absl::Status FtraceTextParser::FlushHeld(EventSink& sink) {
  if (!holding_) return absl::OkStatus();
  holding_ = collecting_ = false;
  if (!frames_.empty()) {
    for (size_t i = 0; i < frames_.size(); ++i) frames_[i].symbol = frame_names_[i];
    held_.stack = absl::MakeConstSpan(frames_);
    held_.stack_recorded = held_.callchain = true;
  }
  absl::Status st = sink.OnEvent(held_);
  frames_.clear();
  frame_names_.clear();
  return st;
}

absl::Status FtraceTextParser::EmitLost(tk::Lost::Kind kind, int32_t cpu, uint64_t count,
                                    EventSink& sink) {
  if (!mask_.Has(EventKind::kLost)) return absl::OkStatus();
  Event e;
  e.cpu = cpu;
  e.name = "lost";
  e.body = tk::Lost{kind, count};
  return sink.OnEvent(e);
}

absl::Status FtraceTextParser::NonEventLine(std::string_view line, uint64_t line_no,
                                            EventSink& sink, Diagnostics& diag, bool* known) {
  *known = true;
  if (std::optional<LostLine> l = ParseLostLine(line)) {
    diag.Note(Stat::kLostEvents, l->count
                                 ? absl::StrCat("CPU ", l->cpu, ": ", l->count, " events lost (line ",
                                                line_no, ")")
                                 : absl::StrCat("CPU ", l->cpu, ": events lost (line ", line_no, ")"),
              l->count ? l->count : 1);
    return EmitLost(tk::Lost::Kind::kLost, l->cpu, l->count, sink);
  }
  std::optional<HeaderLine> h = ParseHeaderLine(line);
  if (!h) {
    *known = false;
    return absl::OkStatus();
  }
  if (h->kind == HeaderLine::Kind::kEntries && h->b > h->a) {
    // "# entries-in-buffer/entries-written: 1000/1500": the ring buffer overwrote 500 events.
    uint64_t lost = h->b - h->a;
    diag.Note(Stat::kOverwrittenEvents,
              absl::StrCat(lost, " events overwritten in the ring buffer (entries-written ", h->b,
                           ", in buffer ", h->a, ")"),
              lost);
    return EmitLost(tk::Lost::Kind::kOverrun, -1, lost, sink);
  }
  return absl::OkStatus();
}

absl::Status FtraceTextParser::Parse(Input& in, EventSink& sink, Diagnostics& diag) {
  mask_ = sink.wants();
  decoder_.SetWanted(mask_);
  LineReader reader(in);
  std::string_view line;
  int64_t last_ts = -1;
  uint64_t unordered = 0, first_unordered = 0;
  uint64_t event_lines = 0, bad_lines = 0, first_bad = 0;
  std::string first_bad_text;  // held back until the first event line (see below)
  const bool stacks = mask_.stacks();
  while (reader.Next(&line)) {
    if (line.empty()) continue;
    uint64_t line_no = reader.line_number();
    if (stacks && StackLine(line)) continue;
    if (stacks) {  // the held event's views live in the other buffer
      held_buf_ ^= 1;
      line = held_line_[held_buf_].assign(line);
    }
    std::optional<EventLine> ev;
    if (line[0] != '#') ev = ParseEventLine(line);
    if (ev && stacks && ev->name == "kernel_stack") {  // "<stack trace>": the held event's
      collecting_ = holding_;
      held_buf_ ^= 1;  // its buffer is free again: the held event's stays untouched
      ++event_lines;
      continue;
    }
    if (stacks) {
      if (absl::Status st = FlushHeld(sink); !st.ok()) return st;
    }
    if (!ev) {
      bool known = false;
      if (absl::Status st = NonEventLine(line, line_no, sink, diag, &known); !st.ok()) return st;
      if (!known) {
        if (bad_lines++ == 0) {
          first_bad = line_no;
          first_bad_text = std::string(line.substr(0, 200));
        }
        // Before the first event line, unreadable lines are held back: a text with no event
        // at all is refused in one line, not reported line by line.
        if (event_lines > 0) {
          diag.Malformed(Stat::kMalformedLines, Diagnostics::Unit::kLine, line_no,
                         absl::StrCat("not an ftrace event line: ", Quote(line)));
        }
      }
      continue;
    }
    if (event_lines++ == 0 && bad_lines > 0) {
      diag.Malformed(Stat::kMalformedLines, Diagnostics::Unit::kLine, first_bad,
                     absl::StrCat("not an ftrace event line: ", Quote(first_bad_text)), bad_lines);
    }
    if (ev->ts_ns < last_ts) {
      if (unordered++ == 0) first_unordered = line_no;
    } else {
      last_ts = ev->ts_ns;
    }
    Event e;
    e.ts_ns = ev->ts_ns;
    e.cpu = ev->cpu;
    e.tid = ev->tid;
    e.pid = ev->tgid;
    e.comm = ev->comm;
    if (ev->name.empty()) {
      // A function tracer line: "mutex_unlock <-unix_stream_recvmsg".
      if (!mask_.Has(EventKind::kGeneric)) continue;
      e.name = "ftrace:function";
      e.body = Generic{{}, ev->text};
    } else {
      if (!mask_.Has(decoder_.Kind(ev->name))) continue;
      if (!decoder_.Decode(ev->name, ev->text, e)) {
        diag.Malformed(Stat::kUndecodableEventTexts, Diagnostics::Unit::kLine, line_no,
                       absl::StrCat("cannot decode ", AV(e.name), ": ", Quote(ev->text)));
        continue;
      }
    }
    if (stacks) {
      held_ = std::move(e);
      holding_ = true;
      continue;
    }
    if (absl::Status st = sink.OnEvent(e); !st.ok()) return st;
  }
  if (absl::Status st = FlushHeld(sink); !st.ok()) return st;
  if (!reader.status().ok()) return reader.status();
  if (event_lines == 0 && bad_lines > 0) {
    // Nothing but unreadable lines: not a trace this reader understands.
    return absl::InvalidArgumentError(
        diag.ErrorAt(Diagnostics::Unit::kLine, first_bad, NoEventMessage("an ftrace", first_bad_text)));
  }
  if (unordered > 0) {
    diag.Note(Stat::kOutOfOrder,
              absl::StrCat(unordered, " lines with a timestamp earlier than the line before (first at line ",
                           first_unordered, "); passed on unsorted"),
              unordered);
  }
  return sink.Finish();
}

}  // namespace

std::unique_ptr<Parser> NewFtraceTextParser(const ParseOptions&) {
  return std::make_unique<FtraceTextParser>();
}

}  // namespace tk::parsers::ftrace_text
