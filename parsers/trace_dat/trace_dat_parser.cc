// The trace.dat reader: metadata (trace_dat_file.h), per-CPU page streams (cpu_stream.h), a
// min-heap merging them by timestamp, and TepDecoder for the records.
#include "parsers/trace_dat/trace_dat_parser.h"

#include <queue>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/diag.h"
#include "core/byte_reader.h"
#include "core/run_settings.h"
#include "nlohmann/json.hpp"
#include "parsers/tep/tep_decoder.h"
#include "parsers/trace_dat/cpu_stream.h"
#include "parsers/trace_dat/kernel_stack.h"
#include "parsers/trace_dat/trace_dat_file.h"

namespace tk::parsers::trace_dat {
namespace {

absl::Status Prefixed(const Input& in, const absl::Status& st) {
  return absl::Status(st.code(), absl::StrCat(in.name(), ": ", st.message()));
}

// The trace.dat task table: the saved cmdlines, then the comms the records carry for pids
// they lack (learned from every record, whatever the sink asked for).
class CommTable {
 public:
  explicit CommTable(const absl::flat_hash_map<int32_t, std::string>* saved) : saved_(saved) {}

  std::string_view Lookup(int32_t pid) const {
    if (auto it = saved_->find(pid); it != saved_->end()) return it->second;
    if (pid == 0) return "swapper";  // per-CPU idle tasks, named as perf names them
    if (auto it = learned_.find(pid); it != learned_.end()) return it->second;
    return {};
  }
  void Learn(int32_t pid, std::string_view comm) {
    if (pid <= 0 || comm.empty() || saved_->contains(pid)) return;
    std::string& s = learned_[pid];
    if (s != comm) s.assign(comm);
  }
  // The kinds that carry comms (LearnFrom).
  static bool Teaches(EventKind k) {
    return k == EventKind::kSchedSwitch || k == EventKind::kSchedWakeup ||
           k == EventKind::kSchedFork;
  }
  // Comms the event itself carries.
  void LearnFrom(const Event& e) {
    if (const auto* sw = std::get_if<SchedSwitch>(&e.body)) {
      Learn(sw->prev_pid, sw->prev_comm);
      Learn(sw->next_pid, sw->next_comm);
    } else if (const auto* w = std::get_if<SchedWakeup>(&e.body)) {
      Learn(w->pid, w->comm);
    } else if (const auto* f = std::get_if<SchedFork>(&e.body)) {
      Learn(f->child_pid, f->child_comm);
    }
  }

 private:
  const absl::flat_hash_map<int32_t, std::string>* saved_;
  absl::flat_hash_map<int32_t, std::string> learned_;
};

// One pass over the top buffer: per-CPU page streams merged by timestamp into the sink.
class Merger {
 public:
  Merger(Input& in, const TraceDatFile& f, std::string_view data, const Buffer& top,
         EventSink& sink, Diagnostics& diag)
      : in_(in), f_(f), sink_(sink), diag_(diag), decoder_(f.events.get()),
        stacks_(f, sink.wants().stacks()), comms_(&f.comms), mask_(sink.wants()) {
    decoder_.SetWanted(mask_);
    for (const CpuData& c : top.cpus) {
      cpus_.push_back(std::make_unique<CpuStream>(data, c, top.page_size, top.compressed,
                                                  f.big_endian, f.events->kernel_long_size()));
    }
    lost_.assign(cpus_.size(), 0);
    lost_unknown_.assign(cpus_.size(), false);
    for (const CpuData& c : top.cpus) released_.push_back(c.offset);
  }

  absl::Status Run() {
    // Min-heap of (timestamp, stream index): lowest time first, ties to the lower CPU, as
    // tracecmd_iterate_events picks.
    using Item = std::pair<uint64_t, size_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
    for (size_t i = 0; i < cpus_.size(); ++i) {
      if (cpus_[i]->Next()) heap.emplace(cpus_[i]->ts(), i);
    }
    while (!heap.empty()) {
      const size_t i = heap.top().second;
      heap.pop();
      CpuStream& s = *cpus_[i];
      const int64_t ts = f_.ToNs(s.ts());
      if (s.missed() != 0) {
        if (absl::Status st = EmitLost(i, ts); !st.ok()) return st;
      }
      bool more;
      if (absl::Status st = EmitRecord(s, ts, &more); !st.ok()) return st;
      if (more) heap.emplace(s.ts(), i);
      if (++records_ % kReleaseEvery == 0) ReleaseRead();
    }
    return Report();
  }

 private:
  // Missed events before the current record of stream i: a Lost{kOverrun} event.
  absl::Status EmitLost(size_t i, int64_t ts) {
    const CpuStream& s = *cpus_[i];
    if (s.missed() > 0) lost_[i] += s.missed();
    else lost_unknown_[i] = true;
    if (!mask_.Has(EventKind::kLost)) return absl::OkStatus();
    Event e;
    e.ts_ns = ts;
    e.cpu = s.cpu();
    e.name = "lost";
    e.body = Lost{Lost::Kind::kOverrun, static_cast<uint64_t>(std::max<int64_t>(0, s.missed()))};
    return sink_.OnEvent(e);
  }

  // Emits the stream's current record and advances it (`more`: it has another). A record
  // that tracefs' stacktrace option (or a stacktrace trigger) followed with a kernel_stack
  // record on its CPU gets those frames as its stack; the kernel_stack record is consumed.
  absl::Status EmitRecord(CpuStream& s, int64_t ts, bool* more) {
    EventKind kind;
    if (!decoder_.Classify(s.raw(), &kind)) {
      uint64_t id =
          s.raw().size() >= 2 ? LoadUnsigned(s.raw().data(), 2, NeedsSwap(f_.big_endian)) : 0;
      if (stacks_.Is(s.raw())) {  // not after a record the sink wants
        *more = s.Next();
        return absl::OkStatus();
      }
      diag_.Malformed(Stat::kUnknownOrShortRecords, Diagnostics::Unit::kOffset,
                      s.page_offset(),
                      absl::StrCat("CPU ", s.cpu(), ": record of ", s.raw().size(),
                                   " bytes, event id ", id, ", has no usable format"));
      *more = s.Next();
      return absl::OkStatus();
    }
    if (kind == EventKind::kGeneric && stacks_.Is(s.raw())) {
      *more = s.Next();
      return absl::OkStatus();
    }
    // Tasks are learned from every record that names one, wanted or not, so an event gets
    // the same comm under every analysis (tk iolat's mask holds no sched_switch).
    const bool wanted = mask_.Has(kind);
    if (!wanted && !CommTable::Teaches(kind)) {
      *more = s.Next();
      return absl::OkStatus();
    }
    Event e;
    e.ts_ns = ts;
    e.cpu = s.cpu();
    // The views Decode sets borrow the record, whose page the stream may replace when it
    // moves on: with stacks, the kernel_stack record after it is read first, so a copy of
    // the record is decoded.
    const bool stacks = wanted && mask_.stacks() && stacks_.available();
    std::string_view raw = s.raw();
    if (stacks) raw = held_.assign(raw);
    if (!decoder_.Decode(raw, e)) {  // Classify checked it
      *more = s.Next();
      return absl::OkStatus();
    }
    if (stacks) {
      *more = s.Next();
      if (*more && stacks_.Is(s.raw())) {
        stacks_.Decode(s.raw(), &frames_);
        e.stack = absl::MakeConstSpan(frames_);
        e.stack_recorded = e.callchain = true;
        *more = s.Next();
      }
    }
    comms_.LearnFrom(e);
    if (!wanted) {  // learned from only: no stacks were read ahead
      *more = s.Next();
      return absl::OkStatus();
    }
    e.comm = comms_.Lookup(e.tid);
    absl::Status st = sink_.OnEvent(e);
    if (!stacks) *more = s.Next();
    return st;
  }

  // Per-CPU notes (lost events, corrupt pages) and the first stream error (truncation).
  absl::Status Report() {
    absl::Status first_error;
    for (size_t i = 0; i < cpus_.size(); ++i) {
      const CpuStream& s = *cpus_[i];
      if (s.trailing_missed() > 0) lost_[i] += s.trailing_missed();
      if (s.trailing_missed() < 0) lost_unknown_[i] = true;
      if (lost_[i] || lost_unknown_[i]) {
        diag_.NoteEach(Stat::kLostEvents, absl::StrCat(s.cpu()),
                   lost_[i] ? absl::StrCat("CPU ", s.cpu(), ": ", lost_[i],
                                           " events lost (ring buffer overrun)",
                                           lost_unknown_[i] ? " and more uncounted" : "")
                            : absl::StrCat("CPU ", s.cpu(), ": events lost (count not recorded)"),
                   lost_[i]);
      }
      for (uint64_t n = 0; n < s.bad_pages(); ++n) {
        diag_.Malformed(Stat::kCorruptPages, Diagnostics::Unit::kOffset,
                        s.first_bad_page_offset(), s.first_bad_page_problem());
      }
      if (!s.status().ok() && first_error.ok()) first_error = s.status();
    }
    return first_error;
  }

  // Each CPU's pages are copied out before they are decoded, so the mapped file behind every
  // stream's current page is done with: let go per 8 MiB (resident memory independent of the
  // file's size), and the bytes read so far are the progress line's position.
  static constexpr uint64_t kReleaseEvery = 1 << 14;  // records between checks
  static constexpr uint64_t kReleaseBatch = 8 << 20;
  void ReleaseRead() {
    uint64_t done = 0;
    for (size_t i = 0; i < cpus_.size(); ++i) {
      uint64_t at = cpus_[i]->page_offset();
      if (at >= released_[i] + kReleaseBatch) {
        in_.ReleaseRange(released_[i], at);
        released_[i] = at;
      }
      done += released_[i] - top_offset(i);
    }
    SetProgress(done);
  }
  uint64_t top_offset(size_t i) const { return f_.TopBuffer()->cpus[i].offset; }

  Input& in_;
  std::vector<uint64_t> released_;  // per stream: file offset released up to
  uint64_t records_ = 0;
  const TraceDatFile& f_;
  EventSink& sink_;
  Diagnostics& diag_;
  tep::TepDecoder decoder_;
  KernelStacks stacks_;
  std::string held_;
  std::vector<Frame> frames_;
  CommTable comms_;
  const EventMask mask_;
  std::vector<std::unique_ptr<CpuStream>> cpus_;
  std::vector<int64_t> lost_;
  std::vector<bool> lost_unknown_;
};

class TraceDatParser final : public Parser {
 public:
  absl::Status Parse(Input& in, EventSink& sink, Diagnostics& diag) override {
    if (absl::Status st = in.EnsureMapped(); !st.ok()) return st;
    std::string_view data = *in.mapped();
    absl::StatusOr<std::unique_ptr<TraceDatFile>> f = ReadTraceDat(data);
    if (!f.ok()) return Prefixed(in, f.status());
    const Buffer* top = (*f)->TopBuffer();
    if (!top) return Prefixed(in, ErrorAt(0, "no ring-buffer data in the file"));
    if (top->latency) {
      return Prefixed(in, ErrorAt(0, "latency-tracer (text) trace.dat is not supported"));
    }
    for (const Buffer& b : (*f)->buffers) {
      if (&b != top) {
        diag.Note(Stat::kInstancesSkipped,
                  absl::StrCat("instance \"", b.name, "\" not read (tk reads the top buffer)"));
      }
    }
    if ((*f)->time_shift) {
      diag.Note(Stat::kTimeShiftIgnored, "TIME_SHIFT (guest/host) timestamp correction not applied");
    }
    // uname: "Linux vm 6.18.44 x86_64": the machine is its last word.
    std::string_view uname = (*f)->uname;
    sink.OnTraceInfo(TraceInfo{uname.substr(uname.rfind(' ') + 1)});
    ProgressScope progress(data.size());
    absl::Status st = Merger(in, **f, data, *top, sink, diag).Run();
    if (!st.ok()) return st.message().rfind("offset ", 0) == 0 ? Prefixed(in, st) : st;
    return sink.Finish();
  }
  bool Describes() const override { return true; }
  absl::StatusOr<std::string> Describe(Input& in) override { return DescribeTraceDat(in); }
};

absl::StatusOr<nlohmann::json> Describe(Input& in) {
  if (absl::Status st = in.EnsureMapped(); !st.ok()) return st;
  std::string_view data = *in.mapped();
  absl::StatusOr<std::unique_ptr<TraceDatFile>> fr = ReadTraceDat(data);
  if (!fr.ok()) return Prefixed(in, fr.status());
  const TraceDatFile& f = **fr;
  nlohmann::json j = nlohmann::json::object();
  j["trace_dat_version"] = f.version;
  j["byte_order"] = f.big_endian ? "big-endian" : "little-endian";
  j["long_size"] = f.long_size;
  j["kernel_long_size"] = f.events->kernel_long_size();
  j["page_size"] = f.page_size;
  j["compression"] = f.compression == "none" ? std::string("none")
                                             : f.compression + " " + f.compression_version;
  j["clock"] = f.trace_clock;
  if (f.cpu_count) j["cpus"] = f.cpu_count;
  if (!f.uname.empty()) j["uname"] = f.uname;
  if (!f.tracecmd_version.empty()) j["trace_cmd_version"] = f.tracecmd_version;
  nlohmann::json buffers = nlohmann::json::array();
  for (const Buffer& b : f.buffers) {
    uint64_t bytes = 0;
    for (const CpuData& c : b.cpus) bytes += c.size;
    buffers.push_back({{"name", b.name.empty() ? "(top)" : b.name},
                       {"clock", b.clock},
                       {"kind", b.latency ? "latency" : "flyrecord"},
                       {"cpus", b.cpus.size()},
                       {"page_size", b.page_size},
                       {"data_bytes", bytes},
                       {"compressed", b.compressed}});
  }
  j["buffers"] = buffers;
  nlohmann::json opts = nlohmann::json::array();
  for (uint16_t id : f.options) opts.push_back(OptionName(id));
  j["options"] = opts;
  j["event_formats"] = f.event_formats;
  j["ftrace_formats"] = f.ftrace_formats;
  j["saved_cmdlines"] = f.comms.size();
  j["kallsyms_bytes"] = f.kallsyms_bytes;
  if (f.ts_offset) j["timestamp_offset_ns"] = f.ts_offset;
  if (f.tsc_mult) j["tsc2nsec"] = {{"mult", f.tsc_mult}, {"shift", f.tsc_shift}};
  return j;
}

}  // namespace

bool SniffTraceDat(std::string_view head) {
  return head.size() >= 10 && head.substr(0, 10) == std::string_view("\x17\x08\x44tracing", 10);
}

absl::StatusOr<std::string> DescribeTraceDat(Input& in) {
  absl::StatusOr<nlohmann::json> j = Describe(in);
  if (!j.ok()) return j.status();
  return j->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::unique_ptr<Parser> NewTraceDatParser(const ParseOptions&) {
  return std::make_unique<TraceDatParser>();
}

}  // namespace tk::parsers::trace_dat
