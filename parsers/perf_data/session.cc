#include "parsers/perf_data/session.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/batch_pipe.h"
#include "core/byte_reader.h"
#include "core/run_settings.h"
#include "parsers/perf_data/abi.h"
#include "parsers/perf_data/decoder.h"
#include "parsers/perf_data/file_header.h"
#include "parsers/perf_data/header_records.h"
#include "parsers/perf_data/reorder_queue.h"
#include "parsers/perf_data/session_loop.h"
#include "parsers/perf_data/sample.h"
#include "parsers/perf_data/stack_keys.h"
#include "parsers/perf_data/tokenizer.h"
#include "parsers/perf_data/unwind_ahead.h"
#include "parsers/symbolize/shared_loads.h"

namespace tk::parsers::perf_data {
namespace {

// Pipe mode's header is just {magic, u64 size = 16}.
constexpr uint64_t kPipeHeaderSize = 16;

absl::Status Named(const Input& in, const absl::Status& st) {
  return absl::Status(st.code(), absl::StrCat(in.name(), ": ", st.message()));
}

// Opens the input: the file header (file mode) or the 16-byte pipe header, and a tokenizer
// over what follows.
absl::Status Open(Input& in, Metadata* meta, std::unique_ptr<Tokenizer>* tok) {
  absl::StatusOr<std::string_view> head = in.Peek(16);
  if (!head.ok()) return head.status();
  bool swap = false;
  if (!DetectByteOrder(*head, &swap)) {
    return absl::InvalidArgumentError("offset 0: not a perf.data file (bad magic)");
  }
  if (head->size() < 16) return absl::InvalidArgumentError("offset 8: perf.data header truncated");
  if (Load<uint64_t>(head->data() + 8, swap) == kPipeHeaderSize) {
    meta->swap = swap;
    meta->pipe = true;
    meta->header_size = kPipeHeaderSize;
    if (std::optional<std::string_view> file = in.mapped()) {
      // Already in memory (a file given by name, `tk info`): no need to stream it.
      *tok = std::make_unique<Tokenizer>(file->substr(kPipeHeaderSize), kPipeHeaderSize, swap,
                                         /*truncated=*/true);
      return absl::OkStatus();
    }
    char skip[kPipeHeaderSize];
    size_t got = 0;
    while (got < kPipeHeaderSize) {
      absl::StatusOr<size_t> n = in.Read(skip + got, kPipeHeaderSize - got);
      if (!n.ok()) return n.status();
      if (*n == 0) return absl::InvalidArgumentError("offset 0: pipe header truncated");
      got += *n;
    }
    *tok = std::make_unique<Tokenizer>(in, swap);
    return absl::OkStatus();
  }
  if (absl::Status st = in.EnsureMapped(); !st.ok()) return st;
  std::string_view file = *in.mapped();
  absl::StatusOr<Metadata> m = ReadFileHeader(file);
  if (!m.ok()) return m.status();
  *meta = std::move(*m);
  *tok = std::make_unique<Tokenizer>(file.substr(meta->data_offset, meta->data_size),
                                     meta->data_offset, swap, meta->truncated);
  return absl::OkStatus();
}

bool HasTracepoints(const Metadata& meta) {
  for (const EventInfo& ev : meta.events)
    if (ev.attr.type == kTypeTracepoint) return true;
  return false;
}

}  // namespace

namespace session_internal {

// Moves the header's warnings (unreadable feature sections) into `diag`, each once.
void NoteWarnings(Metadata& meta, Diagnostics& diag) {
  for (const std::string& w : meta.warnings) diag.NoteEach(Stat::kHeaderWarnings, w, w);
  meta.warnings.clear();
}

}  // namespace session_internal

using session_internal::GateSink;
using session_internal::Loop;
using session_internal::PartPlan;
using session_internal::NoteWarnings;

absl::Status RunSession(Input& in, const ParseOptions& opts, EventSink& sink, Diagnostics& diag) {
  Metadata meta;
  std::unique_ptr<Tokenizer> tok;
  if (absl::Status st = Open(in, &meta, &tok); !st.ok()) return Named(in, st);
  NoteWarnings(meta, diag);
  if (meta.truncated) {
    diag.Note(Stat::kUnfinishedHeader, HasTracepoints(meta)
                            ? "data size 0 in the header (perf killed before it finished?): "
                              "reading to the last whole record; tracepoint formats were not "
                              "written, so tracepoint fields cannot be decoded"
                            : "data size 0 in the header (perf killed before it finished?): "
                              "reading to the last whole record");
  }
  std::optional<std::string_view> whole = in.mapped();
  ProgressScope progress(whole ? whole->size() : 0);
  Loop loop(in, meta, opts, sink, diag);
  absl::Status st = ResolveThreads(opts.threads) >= 2 ? loop.RunThreaded(*tok) : loop.Run(*tok);
  if (!st.ok()) return Named(in, st);
  return sink.Finish();
}

namespace {

// --call-graph dwarf: user stacks are unwound by a stage of their own (unwind_ahead.h), with
// its own caches and counters; such inputs are parsed in one pass.
bool HasDwarfStacks(const Metadata& meta) {
  for (const EventInfo& ev : meta.events)
    if (ev.attr.sample_type & (kSampleStackUser | kSampleRegsUser)) return true;
  return false;
}

// A part of a split parse, run on its own thread.
struct Part {
  PartPlan plan;
  Metadata meta;  // its own: header records may change it
  std::unique_ptr<EventSink> sink;
  std::ostringstream err;
  std::unique_ptr<Diagnostics> diag;
  absl::Status status;
  bool exact = false;

  void Run(Input& in, const ParseOptions& opts) {
    diag->KeepNoteLog();
    GateSink gate(*sink);
    Loop loop(in, meta, opts, gate, *diag, plan);
    if (plan.role == PartPlan::kSecond) loop.SetGate(&gate);
    const std::string_view data = in.mapped()->substr(meta.data_offset, meta.data_size);
    Tokenizer tok(data, meta.data_offset, meta.swap, /*truncated=*/false);
    status = loop.Run(tok);
    if (status.ok()) status = sink->Finish();
    exact = loop.exact();
  }

  // Nothing to report but symbol notes (which merge: MergeNotes).
  bool Clean() const {
    if (!status.ok() || !exact) return false;
    for (const StatInfo& s : kStats) {
      if (s.id != Stat::kSymbolNotes && diag->count(s.id) != 0) return false;
    }
    return true;
  }
};

// The symbol notes of both parts as one pass makes them: a Machine notes what it loads, once;
// the second part's Machine loads again what the first part's loaded (the same notes), then
// what one pass loads after the cut, in the same order.
void MergeNotes(const Part& a, const Part& b, Diagnostics& diag) {
  absl::flat_hash_set<std::string> first;
  for (const Diagnostics::NoteEachCall& c : a.diag->note_log()) {
    diag.NoteEach(c.id, c.key, c.text, c.n);
    first.insert(c.key);
  }
  for (const Diagnostics::NoteEachCall& c : b.diag->note_log()) {
    if (!first.contains(c.key)) diag.NoteEach(c.id, c.key, c.text, c.n);
  }
}

}  // namespace

absl::Status RunSessionParts(Input& in, const ParseOptions& opts, PartitionedSink& sinks,
                             Diagnostics& diag, SplitStats* stats) {
  SplitStats ignored;
  if (!stats) stats = &ignored;
  *stats = SplitStats{};
  auto whole = [&] { return RunSession(in, opts, sinks.Whole(), diag); };
  if (ResolveThreads(opts.threads) < 2) return whole();
  // File mode only (a pipe's header records come inline; a file-mode stream is spooled).
  absl::StatusOr<std::string_view> head = in.Peek(16);
  bool swap = false;
  if (!head.ok() || head->size() < 16 || !DetectByteOrder(*head, &swap) ||
      Load<uint64_t>(head->data() + 8, swap) == kPipeHeaderSize) {
    return whole();
  }
  if (!in.EnsureMapped().ok()) return whole();
  const std::string_view file = *in.mapped();
  absl::StatusOr<Metadata> meta = ReadFileHeader(file);
  // `perf record -z`: records are decompressed into buffers (not views that a round can hold).
  if (!meta.ok() || meta->truncated || !meta->warnings.empty() || HasDwarfStacks(*meta) ||
      meta->has_compression ||
      meta->data_size < std::max<uint64_t>(opts.perf_data_split_min_bytes, 16)) {
    return whole();
  }
  // The cut: the first FINISHED_ROUND at or after the middle, found by both parts as they read.
  const uint64_t at = opts.perf_data_split_at ? opts.perf_data_split_at
                                              : meta->data_offset + meta->data_size / 2;

  if (EventSink* pre = sinks.Prescan()) {
    std::ostringstream ignored_err;
    Diagnostics quiet(diag.input(), &ignored_err);
    ParseOptions one = opts;
    one.threads = 1;
    (void)RunSession(in, one, *pre, quiet);
  }
  std::atomic<uint64_t> progress[2] = {0, 0};
  Part a, b;
  a.plan = PartPlan{PartPlan::kFirst, at, progress};
  b.plan = PartPlan{PartPlan::kSecond, at, progress};
  a.meta = *meta;
  b.meta = *std::move(meta);
  for (Part* p : {&a, &b}) {
    p->sink = sinks.NewPart();
    p->diag = std::make_unique<Diagnostics>(diag.input(), &p->err);
  }
  stats->parts = 2;
  {
    ProgressScope progress_scope(file.size());
    // Each part decodes on its own thread: no reading thread, no DSO prefetch thread.
    ParseOptions part_opts = opts;
    part_opts.threads = 1;
    part_opts.shared_symbols = std::make_shared<symbolize::SharedLoads>();
    std::thread t([&] { b.Run(in, part_opts); });
    a.Run(in, part_opts);
    t.join();
  }
  if (!a.Clean() || !b.Clean()) {
    // Something to report, or no guarantee: one pass, so messages are exactly its own.
    stats->reparsed = true;
    return whole();
  }
  MergeNotes(a, b, diag);
  sinks.MergePart(*a.sink);
  sinks.MergePart(*b.sink);
  return absl::OkStatus();
}

absl::StatusOr<Metadata> ReadMetadata(Input& in, uint64_t* records, uint64_t* compressed) {
  Metadata meta;
  std::unique_ptr<Tokenizer> tok;
  if (absl::Status st = Open(in, &meta, &tok); !st.ok()) return Named(in, st);
  *records = 0;
  RawRecord rec;
  // The scan touches every page of a mapped file: they are let go behind it, 8 MiB at a time
  // (a whole-file count before `tk script` parsed a 0.8 GB file left all of it resident).
  // ReleaseRange, not ReleaseBelow, so the parse that usually follows still releases its own.
  constexpr uint64_t kReleaseBatch = 8 << 20;
  uint64_t released = 0;
  while (true) {
    absl::StatusOr<bool> got = tok->Next(&rec);
    if (!got.ok()) return Named(in, got.status());
    if (!*got) break;
    ++*records;
    if (rec.stable && rec.offset >= released + kReleaseBatch) {
      in.ReleaseRange(released, rec.offset);
      released = rec.offset;
    }
    if (rec.type < kUserTypeStart || !meta.pipe) continue;
    HeaderChange change;
    if (absl::Status st = ApplyHeaderRecord(rec, &meta, &change); !st.ok()) return Named(in, st);
  }
  *compressed = tok->compressed_records();
  meta.ResolveNames();
  return meta;
}

}  // namespace tk::parsers::perf_data
