#include "parsers/perf_data/decoder.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/byte_reader.h"
#include "core/run_settings.h"
#include "parsers/perf_data/abi.h"
#include "parsers/perf_data/stack_keys.h"
#include "parsers/tep/tep_decoder.h"
#include "parsers/tep/tracing_data.h"

namespace tk::parsers::perf_data {
namespace {

}  // namespace

Decoder::Decoder(Metadata& meta, const EventTable& table, const ParseOptions& opts,
                 EventSink& sink, Diagnostics& diag)
    : meta_(meta),
      table_(table),
      sink_(sink),
      diag_(diag),
      wants_(sink.wants()),
      machine_(SymbolizeOptionsOf(opts)),
      inline_frames_(opts.inline_frames),
      inline_outermost_keeps_dso_(opts.inline_outermost_keeps_dso),
      handlers_(kTextPoke + 1, nullptr),
      fast_enabled_(opts.fast_decode),
      prefetch_dsos_(ResolveThreads(opts.threads) >= 2) {
  handlers_[kSample] = &Decoder::OnSample;
  handlers_[kMmap] = &Decoder::OnMmap;
  handlers_[kMmap2] = &Decoder::OnMmap2;
  handlers_[kComm] = &Decoder::OnComm;
  handlers_[kFork] = &Decoder::OnFork;
  handlers_[kExit] = &Decoder::OnExit;
  handlers_[kLost] = &Decoder::OnLost;
  handlers_[kLostSamples] = &Decoder::OnLostSamples;
  handlers_[kThrottle] = &Decoder::OnThrottle;
  handlers_[kUnthrottle] = &Decoder::OnUnthrottle;
  handlers_[kKsymbol] = &Decoder::OnKsymbol;
  Refresh();
}

Decoder::~Decoder() = default;

void Decoder::Refresh() {
  meta_.ResolveNames();
  names_.clear();
  for (const EventInfo& ev : meta_.events) names_.push_back(ev.name);
  for (const BuildIdEntry& b : meta_.build_ids) {
    machine_.AddBuildId(b.filename, b.build_id, b.cpumode == kMiscKernel);
  }
  // Files of fewer bytes of records than this load symbols on first use (below).
  constexpr uint64_t kPrefetchKernelMin = 1 << 20;
  // With a second thread (--threads 2): the user DSOs of a file's header (those its samples
  // hit) load on other threads too (symbolize/dso_prefetch.h), the largest first. Not in
  // pipe mode, where build ids come at the end, when every DSO has been loaded already.
  // Started before the kernel's load: the largest DSO is the longest load the decoder waits
  // for (cc1plus ~3 ms, kallsyms ~2 ms), and a thread started first runs first (on 2 CPUs
  // the thread that starts them may then wait a while).
  if (prefetch_dsos_ && wants_.stacks() && !meta_.pipe && meta_.data_size >= kPrefetchKernelMin) {
    std::vector<std::string> names;
    for (const BuildIdEntry& b : meta_.build_ids) {
      if (b.cpumode != kMiscKernel) names.push_back(b.filename);
    }
    machine_.PrefetchDsos(names);
  }
  // Kernel symbols load on another thread while the first records are read, once an event
  // that samples the kernel is known: a file's header has every build id; a pipe's attrs come
  // first and its build ids usually last (the Machine reloads if they change the choice).
  // PrefetchKernel starts at most one load. A file of less than kPrefetchKernelMin bytes of
  // records (issue 16's startup) loads them on its first kernel frame instead: no overlap
  // worth having, and a file none of whose samples names a kernel address reads no kallsyms.
  if (wants_.stacks() && (meta_.data_size == 0 || meta_.data_size >= kPrefetchKernelMin)) {
    for (const EventInfo& ev : meta_.events) {
      if (!ev.attr.exclude_kernel()) {
        machine_.PrefetchKernel();
        break;
      }
    }
  }
  BuildFast();
}

void Decoder::BuildFast() {
  fast_.Build(table_, fast_enabled_ ? tep_.get() : nullptr, wants_);
  layouts_.clear();
  for (size_t i = 0; i < table_.size(); ++i) {
    layouts_.push_back(SampleLayoutOf(table_.attr(static_cast<int>(i))));
  }
}

void Decoder::LoadTracingData(uint64_t offset) {
  if (tracing_loaded_ || meta_.tracing_data.empty()) return;
  tracing_loaded_ = true;
  absl::StatusOr<std::unique_ptr<tep::TraceEvents>> ev =
      tep::ParseTracingData(meta_.tracing_data, offset);
  if (!ev.ok()) {
    diag_.Note(Stat::kTracingDataUnreadable, absl::StrCat("tracepoint formats unreadable (", AV(SV(ev.status().message())),
                                            "): tracepoint samples keep only their name"));
    return;
  }
  trace_events_ = std::move(*ev);
  tep_ = std::make_unique<tep::TepDecoder>(trace_events_.get());
  tep_->SetWanted(wants_);
  BuildFast();
}

void Decoder::Malformed(std::string_view what, uint64_t off) {
  diag_.Malformed(Stat::kMalformedRecords, Diagnostics::Unit::kOffset, off, what);
}

absl::Status Decoder::HandleFull(std::string_view rec, uint64_t offset) {
  ByteReader r(rec, meta_.swap);
  uint32_t type = 0;
  uint16_t misc = 0, size = 0;
  r.Read(&type);
  r.Read(&misc);
  r.Read(&size);
  if (type >= handlers_.size() || handlers_[type] == nullptr) return absl::OkStatus();
  return (this->*handlers_[type])(misc, rec.substr(8), offset);
}

// What OnSample makes of a tracepoint sample without a stack, the fast way (fast_sample.h).
absl::Status Decoder::HandleSample(std::string_view rec, uint64_t offset) {
  FastSample s;
  const FastResult r = fast_.Decode(rec, &s);
  if (r == FastResult::kNo) return HandleFull(rec, offset);
  ++samples_;
  if (r == FastResult::kSkip) return absl::OkStatus();
  Event& e = StartSampleEvent(s.ts_ns, s.cpu, s.pid, s.tid, s.period, s.callchain);
  e.name = fast_.DecodeBody(s, &e.body);
  return sink_.OnEvent(e);
}

// One Event reused, every field set here: a fresh `Event e;` zeroed its 160 bytes with
// `rep stos` on every sample, 9% of `tk sched latency` on a 53 MB perf sched recording.
Event& Decoder::StartSampleEvent(int64_t ts_ns, int32_t cpu, int32_t pid, int32_t tid,
                                 uint64_t period, bool callchain) {
  Event& e = sample_event_;
  e.ts_ns = ts_ns;
  e.cpu = cpu;
  e.pid = pid;
  e.pid_hidden = true;
  e.tid = tid;
  e.comm = CachedComm(pid, tid);
  e.period = period;
  e.has_period = true;
  e.stack = {};
  e.stack_recorded = false;
  e.callchain = callchain;
  e.stack_id = 0;
  e.stable_views = false;
  e.info_text = {};
  e.dropped_stack_ip = {};
  return e;
}

std::string_view Decoder::CachedComm(int32_t pid, int32_t tid) {
  CachedThread& c = comm_cache_[static_cast<uint32_t>(tid) & (comm_cache_.size() - 1)];
  if (c.tid != tid || c.pid != pid || tid == -1) c = {pid, tid, machine_.Comm(pid, tid)};
  return c.comm;
}

void Decoder::ForgetComms() { comm_cache_.fill(CachedThread{}); }

absl::Status Decoder::Emit(Event& e) {
  if (!wants_.Has(e.kind())) return absl::OkStatus();
  return sink_.OnEvent(e);
}

ParsedSample Decoder::Trailer(std::string_view body, int* event_index) {
  ParsedSample s;
  int ev = table_.EventOf(kComm, body);
  if (event_index) *event_index = ev;
  if (ev >= 0) ParseTrailer(body, table_.attr(ev), meta_.swap, &s);
  return s;
}

// Callchain: {u64 nr, u64 ips[nr]}, leaf first, with context markers switching between kernel
// and user addresses:
//   ips = [PERF_CONTEXT_KERNEL, ffffffff815d2e4d, ..., PERF_CONTEXT_USER, 7f5e..., 0]
// The sample IP is ips[1] (not added again). As in perf, addresses are looked up as they are
// (no pc−1 for return addresses: `perf script` prints `_dl_start_user+0x0` for a return
// address at a function's first byte) and the mode starts as user.
void Decoder::BuildStack(const ParsedSample& s, uint16_t misc, const EventAttr& attr,
                         const UnwoundStacks::Stack* unwound) {
  frames_.clear();
  if (!s.has_callchain) {
    frames_.push_back(machine_.Resolve(s.pid, IsKernelMode(misc), s.ip));
    return;
  }
  enum Mode { kUser, kKernel, kOther } mode = kUser;
  int n = 0;
  for (uint64_t i = 0; i < s.callchain_nr && n < kMaxStack; ++i) {
    uint64_t ip = Load<uint64_t>(s.callchain.data() + i * 8, meta_.swap);
    if (ip >= kContextMax) {
      // perf 6.1 knows these markers; any other one ("invalid callchain context", e.g. a
      // stray 0xffffffffffffffff at the end of a user chain) makes it drop the whole stack.
      if (ip == kContextKernel) {
        mode = kKernel;
      } else if (ip == kContextUser) {
        mode = kUser;
      } else if (ip == kContextHv || ip == kContextGuestKernel || ip == kContextGuestUser) {
        mode = kOther;  // hypervisor, guest: perf does not resolve these by default
      } else {
        frames_.clear();
        dropped_ip_ = machine_.Resolve(s.pid, IsKernelMode(misc), s.ip);  // Event::dropped_stack_ip
        stack_dropped_ = true;
        return;
      }
      continue;
    }
    ++n;
    if (mode == kOther) {
      frames_.push_back(Frame{ip, "[unknown]", "[unknown]"});
    } else {
      frames_.push_back(machine_.Resolve(s.pid, mode == kKernel, ip));
    }
  }
  // --call-graph dwarf: the kernel returns only the kernel part; the user part is unwound
  // from the copied stack. Without registers or stack, the user IP (from REGS_USER, else the
  // sample IP when the sample hit user mode) stands for the user part.
  if (DwarfUser(attr)) {
    if (unwound && AppendUnwound(s, *unwound)) return;
    if (s.has_user_ip) {
      frames_.push_back(machine_.Resolve(s.pid, false, s.user_ip));
    } else if (!IsKernelMode(misc)) {
      frames_.push_back(machine_.Resolve(s.pid, false, s.ip));
    }
  }
}

// Event::stack_id. BuildStack's frames are a function of the stack's key (stack_keys.h: its
// raw addresses, the sample's pid, IP and mode, the DWARF unwinder's answer) and of the
// generations of the maps (Machine::MapsGeneration): Resolve of a user address depends only
// on the process' maps, of a kernel address only on the kernel maps (kallsyms, modules,
// KSYMBOL's BPF and trampolines), and each generation is new at every record that changes
// those maps (MMAP/MMAP2, a FORK of a new process; module MMAP, KSYMBOL). A JIT map
// (/tmp/perf-PID.map) and a DSO's symbols load once, at their first lookup, and never change
// after (the Machine's kernel frame cache rests on that too). So the frames of a key id are
// memoized under the two generations (memo_), and its later samples under the same ones skip
// Resolve and BuildStack. A stack whose building changed any maps (the first kernel frame
// loads kallsyms and extends the kernel map) is not memoized: its first frames saw other
// maps than its last. The key ids come from the StackKeys stage (0: the key's first sight).
void Decoder::SetStack(const ParsedSample& s, uint16_t misc, const EventAttr& attr, Event& e) {
  const UnwoundStacks::Stack* unwound = UnwoundStackOf(attr, s, unwound_, unwound_index_);
  const uint32_t key = stack_key_;
  uint64_t maps_generation = 0, kernel_generation = 0;
  const symbolize::StackMemo::Stack* m = nullptr;
  if (key) {
    maps_generation = machine_.MapsGeneration(s.pid);
    kernel_generation = machine_.kernel_generation();
    m = memo_.Find(key, maps_generation, kernel_generation);
  }
  if (m) {
    if (unwound && !m->dropped_ip) unwind_stats_.Add(unwound->why);  // as AppendUnwound
  } else {
    const uint64_t generations = machine_.generations();
    stack_dropped_ = false;
    BuildStack(s, misc, attr, unwound);
    if (!key || generations != machine_.generations() ||
        !memo_.ShouldAdd(key, maps_generation, kernel_generation)) {
      e.stack = absl::MakeConstSpan(frames_);  // stack_id stays 0
      if (stack_dropped_) e.dropped_stack_ip = absl::MakeConstSpan(&dropped_ip_, 1);
      return;
    }
    m = memo_.Add(key, maps_generation, kernel_generation, frames_,
                  stack_dropped_ ? &dropped_ip_ : nullptr);
  }
  e.stack = m->frames;
  e.stack_id = m->id;
  if (m->dropped_ip) e.dropped_stack_ip = absl::MakeConstSpan(m->dropped_ip, 1);
}

// As perf: callers are looked up (and printed) at return address − 1, the leaf and frames
// interrupted by a signal at their pc. With inline frames on, a frame whose symbol is known
// becomes the functions DWARF places at that address, innermost first (perf's
// append_inlines); a name other than the ELF symbol's prints with "(inlined)" as its DSO. A
// stack cut at the dump edge ends in perf 6.1's bogus ffffffffffffffff [unknown] frame.
bool Decoder::AppendUnwound(const ParsedSample& s, const UnwoundStacks::Stack& st) {
  const unwind::StopReason why = st.why;
  unwind_stats_.Add(why);
  // abi 0: a kernel thread, the stack is the kernel part. Registers cut short (no SP or IP):
  // the user IP, when sampled, stands for the user part.
  if (why == unwind::StopReason::kNoRegs) return s.user_regs_abi == unwind::kAbiNone;
  for (uint32_t i = st.frames_begin; i < st.frames_end; ++i) {
    const UnwoundStacks::Frame& uf = unwound_->frames[i];
    uint64_t at = uf.exact ? uf.pc : uf.pc - 1;
    Frame f = machine_.Resolve(s.pid, false, at);
    if (!inline_frames_ || f.symbol == "[unknown]" || uf.names_begin == uf.names_end) {
      frames_.push_back(f);
      continue;
    }
    // inline_outermost_keeps_dso: the outermost name keeps the DSO when no name is the ELF
    // symbol's (DWARF's __libc_start_main_impl for ELF's __libc_start_main).
    const auto names_begin = unwound_->names.begin() + uf.names_begin;
    const auto names_end = unwound_->names.begin() + uf.names_end;
    const bool outermost_own =
        inline_outermost_keeps_dso_ && std::find(names_begin, names_end, f.symbol) == names_end;
    for (uint32_t n = uf.names_begin; n < uf.names_end; ++n) {
      std::string_view name = unwound_->names[n];
      const bool own = name == f.symbol || (outermost_own && n + 1 == uf.names_end);
      frames_.push_back(Frame{f.ip, name, own ? f.dso : std::string_view("inlined")});
    }
  }
  if (why == unwind::StopReason::kDumpEdge) frames_.push_back(machine_.Resolve(s.pid, false, ~uint64_t{0}));
  return true;
}

absl::Status Decoder::OnSample(uint16_t misc, std::string_view body, uint64_t off) {
  int ev = table_.EventOf(kSample, body);
  if (ev < 0) {
    Malformed("SAMPLE with an id no event attr has", off);
    return absl::OkStatus();
  }
  const EventAttr& attr = table_.attr(ev);
  ParsedSample& s = parsed_;  // reused: a fresh one is zeroed by `rep stos` (sample.cc)
  const size_t evi = static_cast<size_t>(ev);
  if (evi >= layouts_.size() || !layouts_[evi].fixed ||
      !ParseFixedSample(body, layouts_[evi], meta_.swap, &s)) {
    if (absl::Status st = ParseSample(body, attr, meta_.swap, &s); !st.ok()) {
      Malformed(absl::StrCat("SAMPLE: ", AV(SV(st.message()))), off);
      return absl::OkStatus();
    }
  }
  ++samples_;
  const uint64_t period = s.has_period ? s.period : (attr.freq() ? 1 : attr.sample_period);
  Event& e = StartSampleEvent(s.has_time ? static_cast<int64_t>(s.time) : -1, s.cpu, s.pid,
                              s.tid, period, s.has_callchain);
  const std::string_view comm = e.comm;
  e.name = names_[static_cast<size_t>(ev)];
  e.body.emplace<Sample>();
  if (attr.type == kTypeTracepoint && s.has_raw) {
    if (tep_) {
      EventKind kind;
      if (!tep_->Classify(s.raw, &kind)) {
        Malformed("tracepoint SAMPLE whose RAW data does not match its format", off);
        return absl::OkStatus();
      }
      if (!wants_.Has(kind)) return absl::OkStatus();
      int32_t tid = e.tid;
      if (!tep_->Decode(s.raw, e)) {
        Malformed("tracepoint SAMPLE whose RAW data does not match its format", off);
        return absl::OkStatus();
      }
      e.tid = tid;
    } else {
      e.body = Generic{};
    }
  } else if (attr.type == kTypeTracepoint) {
    e.body = Generic{};
  }
  if (!wants_.Has(e.kind())) return absl::OkStatus();
  if (wants_.stacks()) {
    SetStack(s, misc, attr, e);
    e.stack_recorded = true;  // an empty callchain folds as the bare comm
    // The Machine's interned comms, DSO names and symbol tables (unless the tracepoint
    // decoder named the task from the payload).
    e.stable_views = e.comm.data() == comm.data();
  }
  return sink_.OnEvent(e);
}

// MMAP and MMAP2 (side_band.h): code maps go to the Machine.
absl::Status Decoder::OnMmap(uint16_t misc, std::string_view body, uint64_t off) {
  MmapRecord m;
  if (!ParseMmap(misc, body, meta_.swap, &m)) {
    Malformed("MMAP record too short", off);
    return absl::OkStatus();
  }
  if (m.code) machine_.OnMmap(m.pid, m.start, m.len, m.pgoff, m.filename, m.kernel, m.build_id);
  return absl::OkStatus();
}

absl::Status Decoder::OnMmap2(uint16_t misc, std::string_view body, uint64_t off) {
  MmapRecord m;
  if (!ParseMmap2(misc, body, meta_.swap, &m)) {
    Malformed("MMAP2 record too short", off);
    return absl::OkStatus();
  }
  if (m.code) machine_.OnMmap(m.pid, m.start, m.len, m.pgoff, m.filename, m.kernel, m.build_id);
  return absl::OkStatus();
}

// COMM: {u32 pid, u32 tid, char comm[]} + trailer; misc bit 13 = exec.
absl::Status Decoder::OnComm(uint16_t misc, std::string_view body, uint64_t off) {
  std::optional<CommRecord> c = ParseComm(misc, body, meta_.swap);
  if (!c) {
    Malformed("COMM record too short", off);
    return absl::OkStatus();
  }
  ParsedSample t = Trailer(body, nullptr);
  ForgetComms();
  machine_.OnComm(c->pid, c->tid, c->comm);
  Event e;
  e.ts_ns = t.has_time ? static_cast<int64_t>(t.time) : -1;
  e.cpu = t.cpu;
  e.pid = c->pid;
  e.tid = c->tid;
  e.comm = machine_.Comm(e.pid, e.tid);
  e.name = "comm";
  e.body = Comm{e.pid, e.tid, e.comm, c->exec};
  return Emit(e);
}

// FORK / EXIT: {u32 pid, ppid, tid, ptid, u64 time} + trailer
absl::Status Decoder::OnFork(uint16_t misc, std::string_view body, uint64_t off) {
  std::optional<TaskRecord> r = ParseTaskRecord(body, meta_.swap);
  if (!r) {
    Malformed("FORK record too short", off);
    return absl::OkStatus();
  }
  // perf marks the FORKs it synthesizes for running tasks with PERF_RECORD_MISC_FORK_EXEC
  // (bit 13): their maps arrive as MMAPs, not by copying the parent's.
  ForgetComms();
  machine_.OnFork(r->pid, r->tid, r->ppid, r->ptid, (misc & (1 << 13)) != 0);
  Event e = TaskEvent(*r, body, "fork");
  e.body = Fork{r->pid, r->ppid, r->tid, r->ptid};
  return Emit(e);
}

absl::Status Decoder::OnExit(uint16_t misc, std::string_view body, uint64_t off) {
  std::optional<TaskRecord> r = ParseTaskRecord(body, meta_.swap);
  if (!r) {
    Malformed("EXIT record too short", off);
    return absl::OkStatus();
  }
  Event e = TaskEvent(*r, body, "exit");
  e.body = Exit{r->pid, r->ppid, r->tid, r->ptid};
  return Emit(e);
}

Event Decoder::TaskEvent(const TaskRecord& r, std::string_view body, std::string_view name) {
  ParsedSample t = Trailer(body, nullptr);
  Event e;
  e.ts_ns = static_cast<int64_t>(r.time);
  e.cpu = t.cpu;
  e.pid = r.pid;
  e.tid = r.tid;
  e.comm = machine_.Comm(e.pid, e.tid);
  e.name = name;
  return e;
}

absl::Status Decoder::EmitLost(Lost::Kind kind, uint64_t count, std::string_view body) {
  ParsedSample t = Trailer(body, nullptr);
  Event e;
  e.ts_ns = t.has_time ? static_cast<int64_t>(t.time) : -1;
  e.cpu = t.cpu;
  e.pid = t.pid;
  e.tid = t.tid;
  e.name = kind == Lost::Kind::kThrottle     ? "throttle"
           : kind == Lost::Kind::kUnthrottle ? "unthrottle"
                                             : "lost";
  e.body = Lost{kind, count};
  return Emit(e);
}

// LOST: {u64 id, u64 lost} + trailer — the kernel dropped `lost` records (ring buffer full).
absl::Status Decoder::OnLost(uint16_t, std::string_view body, uint64_t off) {
  ByteReader r(body, meta_.swap);
  uint64_t id, lost;
  if (!r.Read(&id) || !r.Read(&lost)) {
    Malformed("LOST record too short", off);
    return absl::OkStatus();
  }
  lost_ += lost;
  return EmitLost(Lost::Kind::kLost, lost, body);
}

// LOST_SAMPLES: {u64 lost} + trailer — samples dropped (e.g. by a BPF filter or AUX overflow).
absl::Status Decoder::OnLostSamples(uint16_t, std::string_view body, uint64_t off) {
  ByteReader r(body, meta_.swap);
  uint64_t lost;
  if (!r.Read(&lost)) {
    Malformed("LOST_SAMPLES record too short", off);
    return absl::OkStatus();
  }
  lost_samples_ += lost;
  return EmitLost(Lost::Kind::kLostSamples, lost, body);
}

// THROTTLE / UNTHROTTLE: {u64 time, u64 id, u64 stream_id} + trailer
absl::Status Decoder::OnThrottle(uint16_t, std::string_view body, uint64_t) {
  ++throttles_;
  return EmitLost(Lost::Kind::kThrottle, 1, body);
}
absl::Status Decoder::OnUnthrottle(uint16_t, std::string_view body, uint64_t) {
  return EmitLost(Lost::Kind::kUnthrottle, 1, body);
}

// KSYMBOL: {u64 addr, u32 len, u16 ksym_type, u16 flags (1 = unregister), char name[]}
absl::Status Decoder::OnKsymbol(uint16_t, std::string_view body, uint64_t off) {
  ByteReader r(body, meta_.swap);
  uint64_t addr;
  uint32_t len;
  uint16_t type, flags;
  if (!r.Read(&addr) || !r.Read(&len) || !r.Read(&type) || !r.Read(&flags)) {
    Malformed("KSYMBOL record too short", off);
    return absl::OkStatus();
  }
  machine_.OnKsymbol(addr, len, CString(body.substr(r.pos())), flags & 1);
  return absl::OkStatus();
}

void Decoder::Finish() {
  // One loss, one line: when the ring buffer is full the kernel writes both a LOST record
  // (events) and a LOST_SAMPLES record (samples) for the same drop. LOST_SAMPLES is what perf
  // report calls "Total Lost Samples"; the LOST count is named beside it.
  if (lost_samples_) {
    diag_.Note(Stat::kLostSamples,
               lost_ ? absl::StrCat(lost_samples_, " samples lost (LOST_SAMPLES records; LOST "
                                    "records count ", lost_, " events: the ring buffer was full)")
                     : absl::StrCat(lost_samples_, " samples lost (LOST_SAMPLES records)"));
  } else if (lost_) {
    diag_.Note(Stat::kLostEvents, absl::StrCat(lost_, " events lost (LOST records: the ring buffer was full)"));
  }
  if (throttles_) {
    diag_.Note(Stat::kThrottled, absl::StrCat("sampling throttled ", throttles_, " times (THROTTLE records)"));
  }
  for (const std::string& n : machine_.TakeNotes()) diag_.NoteEach(Stat::kSymbolNotes, n, n);
  if (const unwind::UnwindStats& u = unwind_stats_; u.total()) {
    diag_.Note(Stat::kDwarfUserStacks, UnwindSummary(u), u.total());
    for (const auto& [key, n] : UnwindCounters(u)) diag_.Count(key, n);
  }
}

std::vector<std::pair<Stat, uint64_t>> UnwindCounters(const unwind::UnwindStats& u) {
  return {{Stat::kDwarfUnwoundToEnd, u.complete}, {Stat::kDwarfCutAtDumpEnd, u.dump_edge},
          {Stat::kDwarfStoppedNoCfiOrElf, u.no_info}, {Stat::kDwarfStoppedMaxStack, u.max_depth},
          {Stat::kDwarfNoUserRegs, u.no_regs}};
}

std::string UnwindSummary(const unwind::UnwindStats& u) {
  std::string s = absl::StrCat("--call-graph dwarf: ", u.total(), " user stacks: ", u.complete,
                               " unwound to the end, ", u.dump_edge,
                               " cut at the end of the stack dump, ", u.no_info,
                               " stopped for missing CFI or ELF");
  if (u.max_depth) absl::StrAppend(&s, ", ", u.max_depth, " at ", kMaxStack, " frames");
  if (u.no_regs) absl::StrAppend(&s, ", ", u.no_regs, " without user registers");
  return s;
}

}  // namespace tk::parsers::perf_data
