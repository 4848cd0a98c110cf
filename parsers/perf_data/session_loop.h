// The perf.data session's loop (session.cc's RunSession and RunSessionParts run it): records
// framed and put in time order (the reorder queue, perf's FINISHED_ROUND rounds), stack keys
// and DWARF user stacks made a stage ahead, then decoded into the sink; on one thread, or on
// two with a batch pipe between the reading and the decoding side (and the sink's side work
// on the reading one), or as one part of a file parsed in two. Internal to the session.
#ifndef TK_PARSERS_PERF_DATA_SESSION_LOOP_H_
#define TK_PARSERS_PERF_DATA_SESSION_LOOP_H_

#include <algorithm>
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/batch_pipe.h"
#include "core/byte_reader.h"
#include "core/diag.h"
#include "core/input.h"
#include "core/sink.h"
#include "parsers/parser.h"
#include "parsers/perf_data/abi.h"
#include "parsers/perf_data/decoder.h"
#include "parsers/perf_data/header_records.h"
#include "parsers/perf_data/metadata.h"
#include "parsers/perf_data/reorder_queue.h"
#include "parsers/perf_data/sample.h"
#include "parsers/perf_data/stack_keys.h"
#include "parsers/perf_data/tokenizer.h"
#include "parsers/perf_data/unwind_ahead.h"

namespace tk::parsers::perf_data::session_internal {

// Moves the header's warnings (unreadable feature sections) into `diag`, each once
// (session.cc).
void NoteWarnings(Metadata& meta, Diagnostics& diag);

// Records handed from the reading thread (framing, time order) to the decoding one, in
// delivery order. Records of a mapped, uncompressed file are views; others (decompressed,
// piped) are copied into `arena`, as the reorder queue reuses its blocks once they are out.
// --call-graph dwarf samples come with their user stacks, unwound on the reading thread
// (unwind_ahead.h). The decoding thread parses the samples itself (Decoder::Handle's fast
// path): it reads the record's lines for the payload anyway, so handing a parsed sample
// over (48 bytes a record, written on one core and read on the other) cost more than the
// parse; the reading thread was the slower one too.
class RecordBatch {
 public:
  struct Item {
    const char* data;  // nullptr: at arena_pos in `arena`
    size_t arena_pos;
    uint32_t size;
    int32_t unwound;   // index in `unwound`, -1: none
    uint64_t offset;
    uint32_t stack_key;  // StackKeys::Feed's
  };
  std::vector<Item> items;
  std::string arena;
  UnwoundStacks unwound;
  uint64_t release_below = 0;  // once decoded: the input below this offset can go (0: none)

  void Clear() {
    items.clear();
    arena.clear();
    unwound.Clear();
    release_below = 0;
  }
  void Add(std::string_view rec, bool stable, uint64_t offset, int unwound_index,
           uint32_t stack_key) {
    const uint32_t size = static_cast<uint32_t>(rec.size());
    if (stable) {
      items.push_back({rec.data(), 0, size, unwound_index, offset, stack_key});
    } else {
      items.push_back({nullptr, arena.size(), size, unwound_index, offset, stack_key});
      arena.append(rec);
    }
  }
  std::string_view Record(const Item& i) const {
    return std::string_view(i.data ? i.data : arena.data() + i.arena_pos, i.size);
  }
};

// A batch goes to the decoding thread once it holds this many records (~10 ms of decoding:
// the hand-off's locking is noise, and 4 queued batches stay a few MB), or records of this
// many bytes: --call-graph dwarf samples are ~8 KiB each (8192 of them: 64 MiB a batch).
inline constexpr size_t kBatchRecords = 8192;
inline constexpr size_t kBatchBytes = 2 << 20;
// How often (in records) the reading thread looks for the sink's side work while it fills a
// batch, and how many batches must wait for the decoder then.
inline constexpr size_t kSideEvery = 256;
inline constexpr size_t kSideQueued = 2;
static_assert((kSideEvery & (kSideEvery - 1)) == 0, "a power of two (Send masks by it)");

// One part of a split parse (RunSessionParts): which records it delivers.
struct PartPlan {
  enum Role {
    kWhole,   // every record (one pass)
    kFirst,   // what one pass delivers up to the cut (the first FINISHED_ROUND at `at` or after)
    kSecond,  // what one pass delivers after it (the records before are replayed, muted)
  };
  Role role = kWhole;
  uint64_t at = 0;  // the cut is the first FINISHED_ROUND at this offset or after
  // Both parts' progress (bytes of records done), reported as their sum.
  std::atomic<uint64_t>* progress = nullptr;
};

// The second part's sink: muted while its decoder replays the first part's side-band records
// (the Machine learns them, the events are the first part's).
class GateSink final : public EventSink {
 public:
  explicit GateSink(EventSink& next) : next_(next) {}
  EventMask wants() const override { return next_.wants(); }
  void OnTraceInfo(const TraceInfo& info) override { next_.OnTraceInfo(info); }
  absl::Status OnEvent(const Event& e) override {
    return muted ? absl::OkStatus() : next_.OnEvent(e);
  }
  absl::Status Finish() override { return next_.Finish(); }
  bool muted = false;

 private:
  EventSink& next_;
};

class Loop {
 public:
  Loop(Input& in, Metadata& meta, const ParseOptions& opts, EventSink& sink, Diagnostics& diag,
       const PartPlan& plan = PartPlan{})
      : in_(in),
        meta_(meta),
        diag_(diag),
        sink_(sink),
        decoder_((table_.Build(meta), meta), table_, opts, sink, diag),
        ahead_(meta, table_, opts, sink.wants()),
        keys_(meta, table_, sink.wants()),
        mapped_(in.mapped().has_value()),
        plan_(plan),
        replaying_(plan.role == PartPlan::kSecond) {
    sink.OnTraceInfo(TraceInfo{meta.arch});
  }

  // A part of a split parse: false when its result may differ from a one-pass parse's for a
  // reason no message names (a build id in an MMAP2, kernel maps changed after the first
  // sample, header records that change the events): the input is then parsed in one pass.
  bool exact() const { return exact_; }

  // One thread: read, order, decode and analyse in turn.
  absl::Status Run(Tokenizer& tok) {
    if (!meta_.tracing_data.empty()) decoder_.LoadTracingData(0);
    if (absl::Status st = ReadAll(tok); !st.ok()) return st;
    return Finish(tok);
  }

  // Two threads: a reader thread frames and orders records into batches (core/batch_pipe.h);
  // this thread decodes them and runs the sink, so the sink sees exactly what Run gives it.
  absl::Status RunThreaded(Tokenizer& tok) {
    if (!meta_.tracing_data.empty()) decoder_.LoadTracingData(0);
    BatchPipe<RecordBatch> pipe;
    pipe_ = &pipe;
    batch_ = pipe.Get();
    // The sink's side work (core/sink.h: tk fold's folding of stacks) goes to the reading
    // thread, which waits for the decoder most of the time: two busy threads on two cores,
    // not three. A part of a split parse keeps its sink's own arrangement.
    side_ = plan_.role == PartPlan::kWhole ? sink_.TakeSideWork() : nullptr;
    absl::Status read;
    std::thread reader([&] {
      read = ReadAll(tok);
      Flush();  // what was read before an error is decoded, as with one thread
      pipe.Close();
      ahead_.Finish();  // its files and maps go while the decoder finishes
      if (side_) {
        // The side work the decoder hands out until it has decoded every batch, and what
        // of its Finish's work can be done early; what it hands out after, it does itself.
        pipe.Barrier([this] { return side_->RunPending() || side_->RunIdle(); });
        while (side_->RunPending()) {
        }
      }
    });
    absl::Status decoded = Consume(pipe);
    if (!decoded.ok()) pipe.Cancel();
    reader.join();
    pipe_ = nullptr;
    batch_.reset();
    if (!decoded.ok()) return decoded;
    if (!read.ok()) return read;
    return Finish(tok);
  }

 private:
  absl::Status ReadAll(Tokenizer& tok) {
    RawRecord rec;
    while (true) {
      absl::StatusOr<bool> got = tok.Next(&rec);
      if (!got.ok()) return got.status();
      if (!*got) break;
      if (replaying_) {
        if (absl::Status st = Replay(rec); !st.ok()) return st;
        continue;
      }
      absl::Status st = rec.type >= kUserTypeStart ? OnUserRecord(rec) : OnKernelRecord(rec);
      if (!st.ok()) return st;
      if (cut_ && plan_.role == PartPlan::kFirst) break;  // the first part ends with the cut
    }
    // The first part's queue keeps what one pass delivers after the cut: the second part's.
    // Without a cut (no round after `at`) the first part is the whole input, and the second,
    // replaying to the end, delivers nothing.
    if (plan_.role == PartPlan::kWhole || (plan_.role == PartPlan::kFirst && !cut_) ||
        (plan_.role == PartPlan::kSecond && !replaying_)) {
      queue_.FlushAll(&out_);
    }
    return Deliver();
  }

  // The second part, before the cut: what one pass delivers before it is the first part's, but
  // its side-band records must reach this part's Machine in the same order. They go through
  // the queue as in one pass; samples only move its limits (Observe), except those of the cut's
  // round, which are queued: what of them one pass delivers after the cut is this part's.
  // Samples delivered before the cut are dropped, the side-band records decoded into the
  // muted sink. A round's timed records wait for its FINISHED_ROUND, which says whether it
  // is the cut's: until then nothing leaves the queue, and Push and Observe of one round
  // commute (Observe only moves the newest time; the out-of-order limit moves at Round), so
  // the queue is what one pass's is.
  absl::Status Replay(const RawRecord& rec) {
    gate_muted(true);
    if (rec.type >= kUserTypeStart) {
      if (rec.type != kFinishedRound) return OnUserRecord(rec);
      const bool cut = rec.offset >= plan_.at;
      for (const Held& h : held_) {
        if (h.sample && !cut) {
          queue_.Observe(h.time);
        } else {
          queue_.Push(h.time, h.rec, /*stable=*/true, h.offset);
        }
      }
      held_.clear();
      queue_.Round(&out_);
      absl::Status st = DeliverReplayed();
      if (cut) {
        replaying_ = false;
        gate_muted(false);
        cut_ = rec.offset;
        released_ = rec.offset;
      }
      return st;
    }
    if (rec.type == kAux || rec.type == kItraceStart) {
      if (absl::Status st = NoteAux(); !st.ok()) return st;
    }
    const bool sample = rec.type == kSample;
    uint64_t t = table_.TimeOf(rec.type, rec.bytes.substr(8));
    if (t == 0) return sample ? absl::OkStatus() : Decode(rec.bytes, rec.offset);
    if (!rec.stable) {
      exact_ = false;  // not a mapped, uncompressed file's view: cannot be held (never split)
      return absl::OkStatus();
    }
    held_.push_back(Held{t, rec.bytes, rec.offset, sample});
    return absl::OkStatus();
  }

  absl::Status DeliverReplayed() {
    for (const ReorderQueue::Entry& e : out_) {
      std::string_view rec(e.data, e.size);
      if (Load<uint32_t>(rec.data(), meta_.swap) == kSample) continue;
      if (absl::Status st = Decode(rec, e.offset); !st.ok()) return st;
    }
    queue_.Release(out_);
    out_.clear();
    return absl::OkStatus();
  }

  // A side-band record decoded at once (the replay's).
  absl::Status Decode(std::string_view rec, uint64_t offset) {
    decoder_.SetAhead(nullptr, -1, 0);
    return decoder_.Handle(rec, offset);
  }

  void gate_muted(bool on) {
    if (gate_) gate_->muted = on;
  }

  // What a part's Machine loads lazily (symbols) must not depend on when it is loaded: no
  // build id may change after the header's, nor the kernel maps once a sample may have
  // resolved a kernel address (the first sample of the first part; anywhere in the second,
  // which loads the kernel's symbols later than one pass did).
  void CheckExact(std::string_view rec) {
    const uint32_t type = Load<uint32_t>(rec.data(), meta_.swap);
    if (type == kSample) {
      seen_sample_ = true;
      return;
    }
    const bool late = seen_sample_ || plan_.role == PartPlan::kSecond;
    if (type == kMmap || type == kMmap2) {
      const uint16_t misc = Load<uint16_t>(rec.data() + 4, meta_.swap);
      if (type == kMmap2 && (misc & kMiscMmapBuildId)) exact_ = false;
      if (late && IsKernelMode(misc)) exact_ = false;
    } else if (type == kKsymbol && late) {
      exact_ = false;
    }
  }

  absl::Status Finish(Tokenizer& tok) {
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

  // The decoding thread's loop.
  absl::Status Consume(BatchPipe<RecordBatch>& pipe) {
    // The records were last touched on the reading thread's core, thousands of records ago:
    // ask for them well ahead, so the cache misses overlap the decoding (a sched sample is two
    // lines, a `-a -g` sample ~100-250 bytes). 8 records ahead left the first read of a
    // `-a -g` sample waiting for memory: OnSample's self time was 11% of the decoding thread,
    // 6-8% with 32 ahead and three lines.
    constexpr size_t kAhead = 32;
    while (std::unique_ptr<RecordBatch> b = pipe.Take()) {
      const std::vector<RecordBatch::Item>& items = b->items;
      for (size_t n = 0; n < items.size(); ++n) {
        if (n + kAhead < items.size()) {
          const RecordBatch::Item& ahead = items[n + kAhead];
          const char* p = b->Record(ahead).data();
          const uint32_t lines = std::min<uint32_t>(ahead.size, 192);
          for (uint32_t at = 0; at < lines; at += 64) __builtin_prefetch(p + at);
          __builtin_prefetch(p + lines - 1);
        }
        // The stack memo's entry of a repeated stack: a cache miss each, a few records ahead.
        if (n + 8 < items.size()) decoder_.PrefetchStack(items[n + 8].stack_key);
        if (n + 4 < items.size()) decoder_.PrefetchSinkStack(items[n + 4].stack_key);
        const RecordBatch::Item& i = items[n];
        decoder_.SetAhead(&b->unwound, i.unwound, i.stack_key);
        if (absl::Status st = decoder_.Handle(b->Record(i), i.offset); !st.ok()) return st;
      }
      pipe.Done(std::move(b));
    }
    return absl::OkStatus();
  }

  // A record to decode, in delivery order: at once, or into the batch. Its user stack is
  // unwound and its stack keyed here either way (with two threads: on the reading thread).
  absl::Status Send(std::string_view rec, bool stable, uint64_t offset) {
    if (plan_.role != PartPlan::kWhole) CheckExact(rec);
    if (!batch_) {
      unwound_.Clear();
      const int unwound = ahead_.Feed(rec, &unwound_);
      decoder_.SetAhead(&unwound_, unwound, keys_.Feed(rec, &unwound_, unwound));
      return decoder_.Handle(rec, offset);
    }
    const int unwound = ahead_.Feed(rec, &batch_->unwound);
    batch_->Add(rec, stable, offset, unwound, keys_.Feed(rec, &batch_->unwound, unwound));
    batch_bytes_ += rec.size();
    // The sink's side work between records too, not only while the pipe is full: while this
    // thread fills a batch (~1 ms) the decoder hands out several pieces, and with 4 waiting
    // it does them itself (tk fold of a 40 MB `perf record -a -g` file: the decoder folded
    // ~50 of 244 batches, ~25 with this). Only while the decoder has two batches (~2 ms of
    // work) queued, so that it never waits for this thread's folding.
    if (side_ && (batch_->items.size() & (kSideEvery - 1)) == 0 && pipe_->queued() >= kSideQueued) {
      side_->RunPending();
    }
    if (batch_->items.size() >= kBatchRecords || batch_bytes_ >= kBatchBytes) Flush();
    return cancelled_ ? absl::CancelledError("decoding stopped") : absl::OkStatus();
  }

  void Flush() {
    if (!batch_ || (batch_->items.empty() && !batch_->release_below)) return;
    batch_bytes_ = 0;
    const bool put = side_ ? pipe_->Put(std::move(batch_), [this] { return side_->RunPending(); })
                           : pipe_->Put(std::move(batch_));
    if (!put) {  // the decoding side stopped: read no further
      cancelled_ = true;
      batch_ = std::make_unique<RecordBatch>();
      return;
    }
    batch_ = pipe_->Get();
    // A recycled batch was decoded: the input below its mark can go. Here, not on the
    // decoding thread, which is the slower one (madvise's unmapping was 2% of its time).
    if (batch_->release_below) in_.ReleaseBelow(batch_->release_below);
    batch_->Clear();
  }

  // Before the reader touches what the decoder reads (the event table, the metadata, notes):
  // waits for the decoding thread to finish what it was given. With one thread, nothing to do.
  absl::Status Quiesce() {
    if (!pipe_) return absl::OkStatus();
    Flush();
    if (cancelled_ || !pipe_->Barrier()) return absl::CancelledError("decoding stopped");
    return absl::OkStatus();
  }

  absl::Status Deliver() {
    // Stack keys a few records ahead (StackKeys::Ahead: their seen slots asked for early).
    constexpr size_t kKeysAhead = 8;
    for (size_t n = 0; n < out_.size() && n < kKeysAhead; ++n) {
      keys_.Ahead(std::string_view(out_[n].data, out_[n].size));
    }
    for (size_t n = 0; n < out_.size(); ++n) {
      if (n + kKeysAhead < out_.size()) {
        const ReorderQueue::Entry& a = out_[n + kKeysAhead];
        keys_.Ahead(std::string_view(a.data, a.size));
      }
      const ReorderQueue::Entry& e = out_[n];
      absl::Status st = Send(std::string_view(e.data, e.size), e.block < 0, e.offset);
      if (!st.ok()) return st;
    }
    queue_.Release(out_);
    out_.clear();
    return absl::OkStatus();
  }

  absl::Status NoteAux() {
    if (aux_noted_) return absl::OkStatus();
    aux_noted_ = true;
    if (absl::Status st = Quiesce(); !st.ok()) return st;
    diag_.Note(Stat::kAuxSkipped, "AUX area trace data (Intel PT, CoreSight, ...) is not decoded; skipped");
    return absl::OkStatus();
  }

  absl::Status OnKernelRecord(const RawRecord& rec) {
    if (rec.type == kAux || rec.type == kItraceStart) {
      if (absl::Status st = NoteAux(); !st.ok()) return st;
    }
    uint64_t t = table_.TimeOf(rec.type, rec.bytes.substr(8));
    if (t == 0) return Send(rec.bytes, rec.stable, rec.offset);  // untimed: as perf, at once
    queue_.Push(t, rec.bytes, rec.stable, rec.offset);
    return absl::OkStatus();
  }

  absl::Status OnUserRecord(const RawRecord& rec) {
    if (rec.type == kFinishedRound) {
      Progress(rec.offset);
      queue_.Round(&out_);
      absl::Status st = Deliver();
      if (plan_.role == PartPlan::kFirst && rec.offset >= plan_.at) cut_ = rec.offset;
      // Nothing before the oldest record still queued is read again: a mapped file's pages
      // up to there are let go (resident memory independent of the file's size).
      uint64_t below = std::min(queue_.oldest_offset(), rec.offset);
      if (!batch_) {
        Release(below);
      } else if (mapped_) {
        batch_->release_below = below;  // once the decoder is past them
      }
      return st;
    }
    if (rec.type == kAuxtrace || rec.type == kAuxtraceInfo) {
      if (absl::Status st = NoteAux(); !st.ok()) return st;
    }
    if (absl::Status st = Quiesce(); !st.ok()) return st;
    HeaderChange change;
    if (absl::Status st = ApplyHeaderRecord(rec, &meta_, &change); !st.ok()) return st;
    // Header records change what the Machine loads lazily (build ids) and the events: at the
    // start (file mode: EVENT_UPDATE, before any sample) both parts apply them where one pass
    // does; after a sample, not guaranteed.
    if (change != HeaderChange::kNone && plan_.role != PartPlan::kWhole &&
        (seen_sample_ || (plan_.role == PartPlan::kSecond && !replaying_))) {
      exact_ = false;
    }
    NoteWarnings(meta_, diag_);
    if (change == HeaderChange::kEvents) table_.Build(meta_);
    if (change != HeaderChange::kNone) decoder_.Refresh();
    if (change != HeaderChange::kNone) ahead_.Refresh();
    if (change == HeaderChange::kEvents) keys_.Refresh();
    if (change == HeaderChange::kTracingData) decoder_.LoadTracingData(rec.offset + rec.size);
    return absl::OkStatus();
  }

  // SetProgress; the parts of a split parse report the sum of what each has done.
  void Progress(uint64_t offset) {
    if (!plan_.progress) {
      SetProgress(offset);
      return;
    }
    std::atomic<uint64_t>* p = plan_.progress;
    const int me = plan_.role == PartPlan::kFirst ? 0 : 1;
    p[me].store(offset - (me == 0 ? meta_.data_offset : cut_), std::memory_order_relaxed);
    SetProgress(meta_.data_offset + p[0].load(std::memory_order_relaxed) +
                p[1].load(std::memory_order_relaxed));
  }

  // Input::ReleaseBelow; the second part of a split parse lets go of its own pages only (the
  // first part still reads those before the cut), per 8 MiB as ReleaseBelow does.
  void Release(uint64_t below) {
    if (plan_.role != PartPlan::kSecond) {
      in_.ReleaseBelow(below);
      return;
    }
    constexpr uint64_t kBatch = 8 << 20;
    if (below == UINT64_MAX || below < released_ + kBatch) return;
    in_.ReleaseRange(released_, below);
    released_ = below;
  }

 public:
  // The second part's muted sink (RunSessionParts), set before Run.
  void SetGate(GateSink* gate) { gate_ = gate; }

 private:
  Input& in_;
  Metadata& meta_;
  Diagnostics& diag_;
  EventSink& sink_;
  EventTable table_;
  Decoder decoder_;
  AheadUnwinder ahead_;  // on the reading thread (Send's)
  StackKeys keys_;        // the same
  UnwoundStacks unwound_;  // one thread: the record being decoded
  ReorderQueue queue_;
  std::vector<ReorderQueue::Entry> out_;
  bool aux_noted_ = false;
  const bool mapped_;
  // Two threads: the pipe and the batch being filled (the reader thread's).
  BatchPipe<RecordBatch>* pipe_ = nullptr;
  std::unique_ptr<RecordBatch> batch_;
  SideWork* side_ = nullptr;  // the sink's, done on the reading thread (RunThreaded)
  size_t batch_bytes_ = 0;  // of the records in batch_
  bool cancelled_ = false;
  // A part of a split parse.
  const PartPlan plan_;
  bool replaying_;  // the second part, before the cut (Replay)
  GateSink* gate_ = nullptr;
  bool exact_ = true;
  bool seen_sample_ = false;  // CheckExact's
  uint64_t cut_ = 0;  // the cut's offset, once read (0: not yet)
  // The second part's replay: the timed records of the round being read.
  struct Held {
    uint64_t time;
    std::string_view rec;
    uint64_t offset;
    bool sample;
  };
  std::vector<Held> held_;
  uint64_t released_ = 0;  // the second part's Release: from the cut on
};

}  // namespace tk::parsers::perf_data::session_internal

#endif  // TK_PARSERS_PERF_DATA_SESSION_LOOP_H_
