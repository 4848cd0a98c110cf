// The trace.dat reader: metadata (trace_dat_file.h), per-CPU page streams (cpu_stream.h), a
// min-heap merging them by timestamp, and TepDecoder for the records.
#include "parsers/trace_dat/trace_dat_parser.h"

#include <algorithm>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/batch_pipe.h"
#include "core/diag.h"
#include "core/byte_reader.h"
#include "core/run_settings.h"
#include "core/task_table.h"
#include "nlohmann/json.hpp"
#include "parsers/tep/tep_decoder.h"
#include "parsers/trace_dat/cpu_stream.h"
#include "parsers/trace_dat/kernel_stack.h"
#include "parsers/trace_dat/record_merge.h"
#include "parsers/trace_dat/trace_dat_file.h"

namespace tk::parsers::trace_dat {
namespace {

absl::Status Prefixed(const Input& in, const absl::Status& st) {
  return absl::Status(st.code(), absl::StrCat(in.name(), ": ", st.message()));
}

// One pass over the top buffer: the merged records (record_merge.h) decoded into the sink.
// With two threads the merge runs on a reader thread and hands batches over a BatchPipe;
// this thread decodes them and runs the sink, so the sink sees what one thread gives it.
class Merger {
 public:
  Merger(Input& in, const TraceDatFile& f, std::string_view data, const Buffer& top,
         EventSink& sink, Diagnostics& diag)
      : f_(f), sink_(sink), diag_(diag), decoder_(f.events.get()),
        stacks_(f, sink.wants().stacks()), mask_(sink.wants()),
        merger_(in, f, data, top, stacks_) {
    decoder_.SetWanted(mask_);
    // The task table (core/task_table.h): the saved cmdlines name their pids for good.
    for (const auto& [pid, comm] : f.comms) tasks_.Name(pid, comm);
    lost_.assign(merger_.streams(), 0);
    lost_unknown_.assign(merger_.streams(), false);
  }

  absl::Status Run(int threads) {
    if (threads < 2) {
      RecordBatch b;
      while (merger_.Fill(&b)) {
        if (absl::Status st = Consume(b); !st.ok()) return st;
      }
      return Report();
    }
    BatchPipe<RecordBatch> pipe;
    std::thread reader([&] {
      while (true) {
        std::unique_ptr<RecordBatch> b = pipe.Get();
        if (!merger_.Fill(b.get()) || !pipe.Put(std::move(b))) break;
      }
      pipe.Close();
    });
    absl::Status st;
    while (std::unique_ptr<RecordBatch> b = pipe.Take()) {
      st = Consume(*b);
      pipe.Done(std::move(b));
      if (!st.ok()) {
        pipe.Cancel();
        break;
      }
    }
    reader.join();
    if (!st.ok()) return st;
    return Report();
  }

 private:
  absl::Status Consume(const RecordBatch& b) {
    for (const MergedRecord& r : b.records) {
      const int64_t ts = f_.ToNs(r.ts);
      if (r.missed != 0) {
        if (absl::Status st = EmitLost(r, ts); !st.ok()) return st;
      }
      if (absl::Status st = EmitRecord(b, r, ts); !st.ok()) return st;
    }
    return absl::OkStatus();
  }

  // Missed events before record r: a Lost{kOverrun} event.
  absl::Status EmitLost(const MergedRecord& r, int64_t ts) {
    const size_t i = r.stream;
    if (r.missed > 0) lost_[i] += r.missed;
    else lost_unknown_[i] = true;
    if (!mask_.Has(EventKind::kLost)) return absl::OkStatus();
    Event e;
    e.ts_ns = ts;
    e.cpu = r.cpu;
    e.name = "lost";
    e.body = Lost{Lost::Kind::kOverrun, static_cast<uint64_t>(std::max<int64_t>(0, r.missed))};
    return sink_.OnEvent(e);
  }

  // Emits record r. A record the sink wants with its stack gets the frames of the
  // kernel_stack record that followed it (MergedRecord::stack), if one did.
  absl::Status EmitRecord(const RecordBatch& b, const MergedRecord& r, int64_t ts) {
    const std::string_view raw = b.Raw(r);
    EventKind kind;
    if (!decoder_.Classify(raw, &kind)) {
      if (stacks_.Is(raw)) return absl::OkStatus();  // not after a record the sink wants
      uint64_t id = raw.size() >= 2 ? LoadUnsigned(raw.data(), 2, NeedsSwap(f_.big_endian)) : 0;
      diag_.Malformed(Stat::kUnknownOrShortRecords, Diagnostics::Unit::kOffset, r.page_offset,
                      absl::StrCat("CPU ", r.cpu, ": record of ", raw.size(), " bytes, event id ",
                                   id, ", has no usable format"));
      return absl::OkStatus();
    }
    if (kind == EventKind::kGeneric && stacks_.Is(raw)) return absl::OkStatus();
    // Tasks are learned from every record that names one, wanted or not, so an event gets
    // the same comm under every analysis (tk iolat's mask holds no sched_switch).
    const bool wanted = mask_.Has(kind);
    if (!wanted && !TaskTable::Teachers().Has(kind)) return absl::OkStatus();
    Event e;
    e.ts_ns = ts;
    e.cpu = r.cpu;
    if (!decoder_.Decode(raw, e)) return absl::OkStatus();  // Classify checked it
    if (wanted && mask_.stacks() && stacks_.available() && r.has_stack) {
      stacks_.Decode(b.Stack(r), &frames_);
      e.stack = absl::MakeConstSpan(frames_);
      e.stack_recorded = e.callchain = true;
    }
    tasks_.ObserveBody(e);
    if (!wanted) return absl::OkStatus();  // learned from only
    e.comm = tasks_.Known(e.tid);
    return sink_.OnEvent(e);
  }

  // Per-CPU notes (lost events, corrupt pages) and the first stream error (truncation).
  absl::Status Report() {
    absl::Status first_error;
    for (size_t i = 0; i < merger_.streams(); ++i) {
      const CpuStream& s = merger_.stream(i);
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

  const TraceDatFile& f_;
  EventSink& sink_;
  Diagnostics& diag_;
  tep::TepDecoder decoder_;
  KernelStacks stacks_;
  std::vector<Frame> frames_;
  TaskTable tasks_;
  const EventMask mask_;
  RecordMerger merger_;  // after stacks_, which it reads
  std::vector<int64_t> lost_;
  std::vector<bool> lost_unknown_;
};

class TraceDatParser final : public Parser {
 public:
  explicit TraceDatParser(int threads) : threads_(threads) {}
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
    absl::Status st = Merger(in, **f, data, *top, sink, diag).Run(ResolveThreads(threads_));
    if (!st.ok()) return st.message().rfind("offset ", 0) == 0 ? Prefixed(in, st) : st;
    return sink.Finish();
  }
  bool Describes() const override { return true; }
  absl::StatusOr<std::string> Describe(Input& in) override { return DescribeTraceDat(in); }

 private:
  int threads_;  // ParseOptions::threads (0: the run's default)
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

std::unique_ptr<Parser> NewTraceDatParser(const ParseOptions& opts) {
  return std::make_unique<TraceDatParser>(opts.threads);
}

}  // namespace tk::parsers::trace_dat
