#include "analyses/script/script.h"

#include <charconv>
#include <ostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "analyses/common/json.h"
#include "analyses/script/event_text.h"
#include "core/absl_compat.h"
#include "core/timestamp.h"

namespace tk::analyses::script {
namespace {

using common::AppendJsonNumberText;
using common::AppendJsonString;

constexpr size_t kFlushBytes = 1 << 16;

// "SECONDS.FRACTION" with `digits` decimals (truncated, as perf script), seconds right-aligned
// in 5 columns for text; an unknown time prints as -1.
void AppendTime(int64_t ns, int digits, bool pad, std::string* out) {
  if (ns < 0) {
    out->append(pad ? "   -1" : "-1");
    return;
  }
  AppendTimestamp(ns, digits, out, pad ? 5 : 0);
}

void PadLeft(std::string_view s, size_t width, std::string* out) {
  if (s.size() < width) out->append(width - s.size(), ' ');
  out->append(s);
}

void AppendHexIp(uint64_t ip, std::string* out) {
  char buf[20];
  auto r = std::to_chars(buf, buf + sizeof buf, ip, 16);
  out->append(buf, r.ptr);
}

std::string_view LostKindName(Lost::Kind k) {
  switch (k) {
    case Lost::Kind::kLost: return "lost";
    case Lost::Kind::kLostSamples: return "lost_samples";
    case Lost::Kind::kOverrun: return "overrun";
    case Lost::Kind::kThrottle: return "throttle";
    case Lost::Kind::kUnthrottle: return "unthrottle";
  }
  return "lost";
}

bool IsSideBand(EventKind k) {
  return k == EventKind::kComm || k == EventKind::kFork || k == EventKind::kExit;
}

}  // namespace

// Every family typed (JSON has their fields by name whatever the source); text wants the
// source's own rendering of each tracepoint.
EventMask ScriptSink::wants() const { return EventMask::AllTyped().WithInfoText(!opts_.json); }

absl::Status ScriptSink::OnEvent(const Event& e) {
  if (IsSideBand(e.kind()) && !opts_.show_task_events) return absl::OkStatus();
  ++events_;
  if (opts_.json) {
    Json(e);
  } else {
    Text(e);
  }
  if (buf_.size() >= kFlushBytes) return Flush();
  return absl::OkStatus();
}

absl::Status ScriptSink::Flush() {
  out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
  buf_.clear();
  if (!out_) return absl::CancelledError("error writing output");
  return absl::OkStatus();
}

absl::Status ScriptSink::Finish() { return Flush(); }

// Side-band records, as perf script --show-task-events prints them:
//   PERF_RECORD_COMM: dd:9615/9615      PERF_RECORD_FORK(9616:9616):(9615:9615)
static void SideBandText(const Event& e, std::string* out) {
  auto ids = [&](int32_t pid, int32_t tid, int32_t ppid, int32_t ptid) {
    out->push_back('(');
    AppendInt(pid, out);
    out->push_back(':');
    AppendInt(tid, out);
    out->append("):(");
    AppendInt(ppid, out);
    out->push_back(':');
    AppendInt(ptid, out);
    out->push_back(')');
  };
  if (const auto* c = std::get_if<Comm>(&e.body)) {
    out->append(c->exec ? "PERF_RECORD_COMM exec: " : "PERF_RECORD_COMM: ");
    out->append(c->comm);
    out->push_back(':');
    AppendInt(c->pid, out);
    out->push_back('/');
    AppendInt(c->tid, out);
  } else if (const auto* f = std::get_if<Fork>(&e.body)) {
    out->append("PERF_RECORD_FORK");
    ids(f->pid, f->tid, f->ppid, f->ptid);
  } else if (const auto* x = std::get_if<Exit>(&e.body)) {
    out->append("PERF_RECORD_EXIT");
    ids(x->pid, x->tid, x->ppid, x->ptid);
  }
}

absl::StatusOr<uint32_t> ParseFields(std::string_view list) {
  static constexpr struct {
    const char* name;
    uint32_t bit;
  } kNames[] = {{"comm", kFieldComm}, {"tid", kFieldTid},     {"pid", kFieldPid},
                {"cpu", kFieldCpu},   {"time", kFieldTime},   {"period", kFieldPeriod},
                {"event", kFieldEvent}, {"trace", kFieldTrace}, {"ip", kFieldIp},
                {"sym", kFieldSym},   {"symoff", kFieldSymOff}, {"dso", kFieldDso}};
  uint32_t bits = 0;
  for (absl::string_view piece : absl::StrSplit(AV(list), ',', absl::SkipEmpty())) {
    const std::string_view tok = SV(piece);
    uint32_t bit = 0;
    for (const auto& n : kNames)
      if (tok == n.name) bit = n.bit;
    if (!bit)
      return absl::InvalidArgumentError(absl::StrCat(
          "-F: unknown field '", AV(tok),
          "' (comm, tid, pid, cpu, time, period, event, trace, ip, sym, symoff, dso)"));
    bits |= bit;
  }
  if (!bits) return absl::InvalidArgumentError("-F: empty field list");
  return bits;
}

namespace {

// perf script 6.1's default fields: samples get the period and their IP/stack, tracepoints
// their trace text and, only when recorded with a callchain, the stack.
uint32_t DefaultFields(const Event& e) {
  uint32_t f = kFieldComm | kFieldTid | kFieldCpu | kFieldTime | kFieldEvent;
  if (e.kind() == EventKind::kSample) {
    f |= kFieldPeriod | kFieldIp | kFieldSym | kFieldSymOff | kFieldDso;
  } else {
    f |= kFieldTrace;
    if (e.callchain) f |= kFieldIp | kFieldSym | kFieldSymOff | kFieldDso;
  }
  return f;
}

}  // namespace

// "\t    ffffffff8100 sym+0x1a (dso)" (callchain) or " ffff... sym+0x1a (dso)" (the IP only).
void ScriptSink::FrameText(const Frame& fr, uint32_t f, bool chain) {
  buf_.push_back(chain ? '\t' : ' ');
  char num[20];
  auto r = std::to_chars(num, num + sizeof num, fr.ip, 16);
  PadLeft(std::string_view(num, r.ptr - num), 16, &buf_);
  if (f & kFieldSym) {
    buf_.push_back(' ');
    buf_.append(fr.symbol);
    if ((f & kFieldSymOff) && fr.sym_offset >= 0 && fr.symbol != "[unknown]") {
      buf_.append("+0x");
      r = std::to_chars(num, num + sizeof num, static_cast<uint64_t>(fr.sym_offset), 16);
      buf_.append(num, r.ptr);
    }
  }
  if (f & kFieldDso) {
    buf_.append(" (");
    buf_.append(fr.dso);
    buf_.push_back(')');
  }
  if (chain) buf_.push_back('\n');
}

// Side-band and lost records: perf script --show-task-events' header, then the record.
void ScriptSink::RecordText(const Event& e) {
  PadLeft(e.comm, 16, &buf_);
  buf_.push_back(' ');
  AppendPadded(e.tid, 5);
  if (e.cpu >= 0) {
    buf_.push_back(' ');
    AppendCpu(e.cpu);
  }
  if (e.ts_ns >= 0) {  // lost-event records have no time
    buf_.push_back(' ');
    AppendTime(e.ts_ns, opts_.time_digits, true, &buf_);
    buf_.push_back(':');
  }
  buf_.push_back(' ');
  if (const auto* l = std::get_if<Lost>(&e.body)) {
    buf_.append("lost: kind=");
    buf_.append(LostKindName(l->kind));
    buf_.append(" count=");
    AppendUint(l->count, &buf_);
  } else {
    SideBandText(e, &buf_);
  }
  buf_.push_back('\n');
}

void ScriptSink::AppendPadded(int64_t v, size_t width) {
  char num[24];
  auto r = std::to_chars(num, num + sizeof num, v);
  PadLeft(std::string_view(num, r.ptr - num), width, &buf_);
}

void ScriptSink::AppendCpu(int32_t cpu) {
  buf_.push_back('[');
  if (cpu < 100) buf_.push_back('0');
  if (cpu < 10) buf_.push_back('0');
  AppendInt(cpu, &buf_);
  buf_.push_back(']');
}

// perf script 6.1's process_event / perf_sample__fprintf_start, field by field:
//   comm "%16s " ("%s " when the IP is printed with a callchain), pid/tid "%5d/%-5d " or
//   "%5d ", cpu "[%03d] ", time "%5lu.%06lu: ", period "%10lu ", event "%*s: " (padded to
//   the longest event name of the file), the trace text, then the IP: " ip sym+0xoff (dso)"
//   on the line, or with a callchain one "\tip sym+0xoff (dso)" line per frame and a blank
//   line.
void ScriptSink::Text(const Event& e) {
  const EventKind k = e.kind();
  if (k == EventKind::kLost || IsSideBand(k)) {
    RecordText(e);
    return;
  }
  const uint32_t f = opts_.fields ? opts_.fields : DefaultFields(e);
  const bool chain = e.callchain && (f & kFieldIp);  // an empty callchain too, as perf
  if (f & kFieldComm) {
    if (chain) buf_.append(e.comm);
    else PadLeft(e.comm, 16, &buf_);
    buf_.push_back(' ');
  }
  if ((f & kFieldPid) && (f & kFieldTid)) {
    AppendPadded(e.pid, 5);
    buf_.push_back('/');
    size_t at = buf_.size();
    AppendInt(e.tid, &buf_);
    if (buf_.size() - at < 5) buf_.append(5 - (buf_.size() - at), ' ');
    buf_.push_back(' ');
  } else if (f & (kFieldPid | kFieldTid)) {
    AppendPadded((f & kFieldPid) ? e.pid : e.tid, 5);
    buf_.push_back(' ');
  }
  if ((f & kFieldCpu) && e.cpu >= 0) {
    AppendCpu(e.cpu);
    buf_.push_back(' ');
  }
  if ((f & kFieldTime) && e.ts_ns >= 0) {
    AppendTime(e.ts_ns, opts_.time_digits, true, &buf_);
    buf_.append(": ");
  }
  if ((f & kFieldPeriod) && k == EventKind::kSample && e.has_period) {
    AppendPadded(static_cast<int64_t>(e.period), 10);
    buf_.push_back(' ');
  }
  if (f & kFieldEvent) {
    PadLeft(e.name, opts_.name_width, &buf_);
    buf_.append(": ");
  }
  if ((f & kFieldTrace) && k != EventKind::kSample) AppendEventText(e, &buf_);
  if (chain) {
    buf_.push_back('\n');
    for (const Frame& fr : e.stack) FrameText(fr, f, true);
  } else if ((f & kFieldIp) && !e.stack.empty()) {
    FrameText(e.stack.front(), f, false);
  }
  buf_.push_back('\n');
}

namespace {

// Appends the members of one JSON object: each `"key":` after a comma but the first's.
class JsonMembers {
 public:
  explicit JsonMembers(std::string* out) : out_(out) {}
  void Key(std::string_view key) {
    if (!first_) out_->push_back(',');
    first_ = false;
    AppendJsonString(key, out_);
    out_->push_back(':');
  }
  void Int(std::string_view key, int64_t v) {
    Key(key);
    AppendInt(v, out_);
  }
  void Uint(std::string_view key, uint64_t v) {
    Key(key);
    AppendUint(v, out_);
  }
  void Str(std::string_view key, std::string_view v) {
    Key(key);
    AppendJsonString(v, out_);
  }
  void Hex(std::string_view key, uint64_t v) {  // "0x"-less hex in a string, as perf's ip
    Key(key);
    out_->push_back('"');
    AppendHexIp(v, out_);
    out_->push_back('"');
  }
  void Bool(std::string_view key, bool v) {
    Key(key);
    out_->append(v ? "true" : "false");
  }

 private:
  std::string* out_;
  bool first_ = true;
};

// The event's name in "event": side-band records by perf's record names.
std::string_view JsonEventName(const Event& e) {
  switch (e.kind()) {
    case EventKind::kLost: return "lost";
    case EventKind::kComm: return "PERF_RECORD_COMM";
    case EventKind::kFork: return "PERF_RECORD_FORK";
    case EventKind::kExit: return "PERF_RECORD_EXIT";
    default: return e.name;
  }
}

}  // namespace

// The members of "fields": the tracepoint's (EventFields), or those of a record.
void ScriptSink::JsonFields(const Event& e) {
  JsonMembers o(&buf_);
  if (const auto* lost = std::get_if<Lost>(&e.body)) {
    o.Str("kind", LostKindName(lost->kind));
    o.Uint("count", lost->count);
  } else if (const auto* c = std::get_if<Comm>(&e.body)) {
    o.Int("pid", c->pid);
    o.Int("tid", c->tid);
    o.Str("comm", c->comm);
    o.Bool("exec", c->exec);
  } else if (e.kind() == EventKind::kFork || e.kind() == EventKind::kExit) {
    const Fork f = e.kind() == EventKind::kFork
                       ? std::get<Fork>(e.body)
                       : Fork{std::get<Exit>(e.body).pid, std::get<Exit>(e.body).ppid,
                              std::get<Exit>(e.body).tid, std::get<Exit>(e.body).ptid};
    o.Int("pid", f.pid);
    o.Int("ppid", f.ppid);
    o.Int("tid", f.tid);
    o.Int("ptid", f.ptid);
  } else {
    fields_.Fill(e);
    for (const FieldValue& f : fields_.fields()) {
      o.Key(f.name);
      switch (f.type) {
        case FieldValue::Type::kInt: AppendInt(f.i, &buf_); break;
        case FieldValue::Type::kUint: AppendUint(f.u, &buf_); break;
        case FieldValue::Type::kString: AppendJsonString(f.s, &buf_); break;
        case FieldValue::Type::kNumberText: AppendJsonNumberText(f.s, &buf_); break;
        case FieldValue::Type::kUintList:
          buf_.push_back('[');
          for (size_t i = 0; i < f.list.size(); ++i) {
            if (i) buf_.push_back(',');
            AppendUint(f.list[i], &buf_);
          }
          buf_.push_back(']');
          break;
      }
    }
  }
}

void ScriptSink::Json(const Event& e) {
  buf_.push_back('{');
  JsonMembers o(&buf_);
  o.Int("ts_ns", e.ts_ns);
  o.Int("cpu", e.cpu);
  o.Int("pid", e.pid);
  o.Int("tid", e.tid);
  o.Str("comm", e.comm);
  o.Str("event", JsonEventName(e));
  if (e.kind() == EventKind::kSample) o.Uint("period", e.period);  // tracepoints: always 1
  o.Key("fields");
  buf_.push_back('{');
  JsonFields(e);
  buf_.push_back('}');
  if (const auto* g = std::get_if<Generic>(&e.body); g && g->fields.empty() && !g->text.empty())
    o.Str("text", g->text);  // free text without key=value fields
  if (!e.stack.empty()) {
    o.Key("stack");
    buf_.push_back('[');
    bool first = true;
    for (const Frame& f : e.stack) {
      if (!first) buf_.push_back(',');
      first = false;
      buf_.push_back('{');
      JsonMembers frame(&buf_);
      frame.Hex("ip", f.ip);
      frame.Str("symbol", f.symbol);
      frame.Str("dso", f.dso);
      buf_.push_back('}');
    }
    buf_.push_back(']');
  }
  buf_.append("}\n");
}

}  // namespace tk::analyses::script
