#include "parsers/perf_data/session.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/byte_reader.h"
#include "parsers/perf_data/abi.h"
#include "parsers/perf_data/decoder.h"
#include "parsers/perf_data/file_header.h"
#include "parsers/perf_data/header_records.h"
#include "parsers/perf_data/reorder_queue.h"
#include "parsers/perf_data/sample.h"
#include "parsers/perf_data/tokenizer.h"

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

// Moves the header's warnings (unreadable feature sections) into `diag`, each once.
void NoteWarnings(Metadata& meta, Diagnostics& diag) {
  for (const std::string& w : meta.warnings) diag.NoteEach(Stat::kHeaderWarnings, w, w);
  meta.warnings.clear();
}

bool HasTracepoints(const Metadata& meta) {
  for (const EventInfo& ev : meta.events)
    if (ev.attr.type == kTypeTracepoint) return true;
  return false;
}

class Loop {
 public:
  Loop(Input& in, Metadata& meta, const ParseOptions& opts, EventSink& sink, Diagnostics& diag)
      : in_(in),
        meta_(meta),
        diag_(diag),
        decoder_((table_.Build(meta), meta), table_, opts, sink, diag) {
    sink.OnTraceInfo(TraceInfo{meta.arch});
  }

  absl::Status Run(Tokenizer& tok) {
    if (!meta_.tracing_data.empty()) decoder_.LoadTracingData(0);
    RawRecord rec;
    while (true) {
      absl::StatusOr<bool> got = tok.Next(&rec);
      if (!got.ok()) return got.status();
      if (!*got) break;
      absl::Status st = rec.type >= kUserTypeStart ? OnUserRecord(rec) : OnKernelRecord(rec);
      if (!st.ok()) return st;
    }
    queue_.FlushAll(&out_);
    if (absl::Status st = Deliver(); !st.ok()) return st;
    if (tok.ended_early()) {
      diag_.Note(Stat::kCutRecords, absl::StrCat("data ends inside a record at offset ", tok.end_offset(),
                                              ": read up to the last whole record"));
    }
    if (queue_.out_of_order()) {
      diag_.Note(Stat::kOutOfOrder, absl::StrCat(queue_.out_of_order(),
                                           " records older than an already delivered round (kept, out of order, as perf does)"),
                 queue_.out_of_order());
    }
    decoder_.Finish();
    return absl::OkStatus();
  }

 private:
  absl::Status Deliver() {
    for (const ReorderQueue::Entry& e : out_) {
      absl::Status st = decoder_.Handle(std::string_view(e.data, e.size), e.offset);
      if (!st.ok()) return st;
    }
    queue_.Release(out_);
    out_.clear();
    return absl::OkStatus();
  }

  absl::Status OnKernelRecord(const RawRecord& rec) {
    if ((rec.type == kAux || rec.type == kItraceStart) && !aux_noted_) {
      aux_noted_ = true;
      diag_.Note(Stat::kAuxSkipped, "AUX area trace data (Intel PT, CoreSight, ...) is not decoded; skipped");
    }
    uint64_t t = table_.TimeOf(rec.type, rec.bytes.substr(8));
    if (t == 0) return decoder_.Handle(rec.bytes, rec.offset);  // untimed: as perf, at once
    queue_.Push(t, rec.bytes, rec.stable, rec.offset);
    return absl::OkStatus();
  }

  absl::Status OnUserRecord(const RawRecord& rec) {
    if (rec.type == kFinishedRound) {
      queue_.Round(&out_);
      absl::Status st = Deliver();
      // Nothing before the oldest record still queued is read again: a mapped file's pages
      // up to there are let go (resident memory independent of the file's size).
      in_.ReleaseBelow(std::min(queue_.oldest_offset(), rec.offset));
      return st;
    }
    if ((rec.type == kAuxtrace || rec.type == kAuxtraceInfo) && !aux_noted_) {
      aux_noted_ = true;
      diag_.Note(Stat::kAuxSkipped, "AUX area trace data (Intel PT, CoreSight, ...) is not decoded; skipped");
    }
    HeaderChange change;
    if (absl::Status st = ApplyHeaderRecord(rec, &meta_, &change); !st.ok()) return st;
    NoteWarnings(meta_, diag_);
    if (change == HeaderChange::kEvents) table_.Build(meta_);
    if (change != HeaderChange::kNone) decoder_.Refresh();
    if (change == HeaderChange::kTracingData) decoder_.LoadTracingData(rec.offset + rec.size);
    return absl::OkStatus();
  }

  Input& in_;
  Metadata& meta_;
  Diagnostics& diag_;
  EventTable table_;
  Decoder decoder_;
  ReorderQueue queue_;
  std::vector<ReorderQueue::Entry> out_;
  bool aux_noted_ = false;
};

}  // namespace

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
  Loop loop(in, meta, opts, sink, diag);
  if (absl::Status st = loop.Run(*tok); !st.ok()) return Named(in, st);
  return sink.Finish();
}

absl::StatusOr<Metadata> ReadMetadata(Input& in, uint64_t* records, uint64_t* compressed) {
  Metadata meta;
  std::unique_ptr<Tokenizer> tok;
  if (absl::Status st = Open(in, &meta, &tok); !st.ok()) return Named(in, st);
  *records = 0;
  RawRecord rec;
  while (true) {
    absl::StatusOr<bool> got = tok->Next(&rec);
    if (!got.ok()) return Named(in, got.status());
    if (!*got) break;
    ++*records;
    if (rec.type < kUserTypeStart || !meta.pipe) continue;
    HeaderChange change;
    if (absl::Status st = ApplyHeaderRecord(rec, &meta, &change); !st.ok()) return Named(in, st);
  }
  *compressed = tok->compressed_records();
  meta.ResolveNames();
  return meta;
}

}  // namespace tk::parsers::perf_data
