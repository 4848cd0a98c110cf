#include "analyses/fold/stack_folder.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

#include "analyses/fold/frame_name.h"
#include "core/strings.h"

namespace tk::analyses::fold {

uint32_t StackFolder::NameIdMissed(const Frame& f, const FrameKey& k, FrameMemo& m) {
  auto [it, inserted] = frame_ids_.try_emplace(k, static_cast<uint32_t>(name_spans_.size()));
  if (inserted) {
    FrameNameOptions names = opt_.names;
    names.java = k.java;
    scratch_.clear();
    AppendFrame(f, names, &scratch_);
    AddName(scratch_);
  }
  m = FrameMemo{k, it->second, true};
  return it->second;
}

uint32_t StackFolder::RootId(std::string_view comm, int32_t pid, int32_t tid, bool* java) {
  // Only what the root shows tells roots apart.
  if (!opt_.include_pid && !opt_.include_tid) pid = 0;
  if (!opt_.include_tid) tid = 0;
  const uint64_t h = (reinterpret_cast<uintptr_t>(comm.data()) ^ static_cast<uint32_t>(pid) ^
                      (uint64_t{static_cast<uint32_t>(tid)} << 32)) * 0x9e3779b97f4a7c15ULL;
  RootMemo& m = root_memo_[(h >> 40) % kRootMemo];
  if (m.comm == comm.data() && m.comm_size == comm.size() && m.pid == pid && m.tid == tid &&
      m.comm) {
    *java = m.java;
    return m.id;
  }
  scratch_.clear();
  AppendRoot(opt_, comm, pid, tid, &scratch_);
  // As FoldSink::Count: Java names are tidied only under the root "java".
  *java = scratch_ == "java";
  auto [root, new_root] = root_ids_.try_emplace(scratch_, static_cast<uint32_t>(name_spans_.size()));
  if (new_root) AddName(scratch_);
  m = RootMemo{comm.data(), comm.size(), pid, tid, root->second, *java};
  return root->second;
}

namespace {

constexpr uint64_t kSeqMul = 0x9e3779b97f4a7c15ULL;
inline uint64_t SeqMix(uint64_t h, uint32_t id) { return (h + id) * kSeqMul; }
inline uint64_t SeqFinal(uint64_t h) { return h ^ (h >> 31); }

}  // namespace

uint64_t StackFolder::SeqHash(const char* ids, size_t bytes) {
  uint64_t h = 0;
  for (size_t at = 0; at < bytes; at += 4) {
    uint32_t id;
    std::memcpy(&id, ids + at, 4);
    h = SeqMix(h, id);
  }
  return SeqFinal(h);
}

void StackFolder::GrowSeqs() {
  seq_table_.assign(seq_table_.empty() ? 4096 : 2 * seq_table_.size(), SeqEntry{});
  seq_mask_ = seq_table_.size() - 1;
  for (SeqRec* rec : seqs_) {
    const uint64_t h = SeqHash(rec->ids(), rec->bytes);
    size_t i = (h >> 32) & seq_mask_;
    while (seq_table_[i].rec) i = (i + 1) & seq_mask_;
    seq_table_[i] = SeqEntry{static_cast<uint32_t>(h), rec->bytes, rec};
  }
}

StackFolder::SeqRec* StackFolder::SeqSlot(uint64_t h) {
  if (2 * (seqs_.size() + 1) > seq_table_.size()) GrowSeqs();
  const auto bytes = static_cast<uint32_t>(seq_.size() * 4);
  const char* key = reinterpret_cast<const char*>(seq_.data());
  const auto tag = static_cast<uint32_t>(h);
  size_t i = (h >> 32) & seq_mask_;
  for (;; i = (i + 1) & seq_mask_) {
    const SeqEntry& en = seq_table_[i];
    if (!en.rec) break;
    if (en.tag == tag && en.bytes == bytes && EqualBytes(en.rec->ids(), key, bytes)) return en.rec;
  }
  const size_t need = sizeof(SeqRec) + ((bytes + 7) & ~size_t{7});  // records 8-aligned
  if (block_used_ + need > block_size_) {
    block_size_ = std::max<size_t>(need, 1 << 16);
    blocks_.push_back(std::make_unique<char[]>(block_size_));
    block_used_ = 0;
  }
  auto* rec = reinterpret_cast<SeqRec*>(blocks_.back().get() + block_used_);
  block_used_ += need;
  rec->count = 0;
  rec->slot = static_cast<uint32_t>(seqs_.size());
  rec->bytes = bytes;
  std::memcpy(rec + 1, key, bytes);
  seq_table_[i] = SeqEntry{tag, bytes, rec};
  seqs_.push_back(rec);
  return rec;
}

uint64_t StackFolder::BuildSeq(std::string_view comm, int32_t pid, int32_t tid,
                               absl::Span<const Frame> stack) {
  bool java;
  const uint32_t root = RootId(comm, pid, tid, &java);
  seq_.clear();
  seq_.push_back(root);
  uint64_t h = SeqMix(0, root);
  // The frames' memo entries asked for first, a run at a time, so their cache misses
  // overlap (most stacks of a system-wide profile are a few frames: one at a time, each
  // frame waited for its entry).
  constexpr size_t kRun = 16;
  FrameKey keys[kRun];
  FrameMemo* memos[kRun];
  for (size_t end = stack.size(); end > 0;) {
    const size_t k = std::min(end, kRun);
    for (size_t j = 0; j < k; ++j) {
      keys[j] = KeyOf(stack[end - 1 - j], java);
      memos[j] = &MemoOf(keys[j]);
      __builtin_prefetch(memos[j]);
    }
    for (size_t j = 0; j < k; ++j) {
      const uint32_t id = NameId(stack[end - 1 - j], keys[j], *memos[j]);
      seq_.push_back(id);
      h = SeqMix(h, id);
    }
    end -= k;
  }
  return SeqFinal(h);
}

uint32_t StackFolder::Add(std::string_view comm, int32_t pid, int32_t tid,
                          absl::Span<const Frame> stack, uint64_t weight) {
  Drain();
  SeqRec* rec = SeqSlot(BuildSeq(comm, pid, tid, stack));
  rec->count += weight;
  return rec->slot;
}

void StackFolder::AddLater(std::string_view comm, int32_t pid, int32_t tid,
                           absl::Span<const Frame> stack, uint64_t weight) {
  const uint64_t h = BuildSeq(comm, pid, tid, stack);
  if (!seq_table_.empty()) __builtin_prefetch(&seq_table_[(h >> 32) & seq_mask_]);
  Drain();  // the previous stack, whose entry was asked for one call ago
  seq_.swap(later_);
  later_hash_ = h;
  later_weight_ = weight;
  later_pending_ = true;
}

size_t StackFolder::NameNew(size_t max) {
  Drain();
  const size_t from = seq_lines_.size();
  const size_t to = from + std::min(max, seqs_.size() - from);
  // Room for all at once (a rehash hashes every line again), and for some more sequences.
  if (lines_.empty()) lines_.reserve(seqs_.size() + seqs_.size() / 8);
  for (size_t s = from; s < to; ++s) {
    // Made at its size and moved into the map (appending name by name reallocated, and a
    // copy as the map's key was a malloc and memmove more).
    std::string folded;
    if (s < pre_lines_.size()) {
      folded = std::string(pre_lines_[s]);
    } else {
      folded.resize(LineSize(s));
      CopyLine(s, folded.data());
    }
    auto [it, added] = lines_.try_emplace(std::move(folded), line_counts_.size());
    if (added) line_counts_.push_back(0);
    seq_lines_.push_back(static_cast<uint32_t>(it->second));
  }
  return to - from;
}

size_t StackFolder::LineSize(size_t s) const {
  const SeqRec* rec = seqs_[s];
  size_t size = 0;
  for (size_t at = 0; at < rec->bytes; at += 4) {
    uint32_t id;
    std::memcpy(&id, rec->ids() + at, 4);
    size += name_spans_[id].size;
  }
  return size;
}

void StackFolder::CopyLine(size_t s, char* to) const {
  const SeqRec* rec = seqs_[s];
  for (size_t at = 0; at < rec->bytes; at += 4) {
    uint32_t id;
    std::memcpy(&id, rec->ids() + at, 4);
    const NameSpan span = name_spans_[id];
    std::memcpy(to, name_text_.data() + span.at, span.size);
    to += span.size;
  }
}

std::string_view StackFolder::MakeLine(size_t s, ByteArena* text) const {
  const size_t size = LineSize(s);
  char* const line = text->Allocate(size, 1);
  CopyLine(s, line);
  return std::string_view(line, size);
}

size_t StackFolder::PreName(size_t max) {
  Drain();
  const size_t from = pre_lines_.size();
  const size_t to = from + std::min(max, seqs_.size() - from);
  for (size_t s = from; s < to; ++s) pre_lines_.push_back(MakeLine(s, &pre_text_));
  return to - from;
}

void StackFolder::BuildRun(size_t from, size_t to, FoldedRun* run) const {
  run->lines.reserve(run->lines.size() + (to - from));
  for (size_t s = from; s < to; ++s) {
    const uint64_t count = seqs_[s]->count;
    if (count == 0) continue;
    const std::string_view line = s < pre_lines_.size() ? pre_lines_[s] : MakeLine(s, &run->text);
    run->lines.push_back(FoldedLine{line.data(), static_cast<uint32_t>(line.size()), count});
  }
  SortLines(&run->lines);
}

void StackFolder::FlushTo(StackCounts* out) {
  NameNew();
  for (size_t s = 0; s < seqs_.size(); ++s) {
    line_counts_[seq_lines_[s]] += seqs_[s]->count;
    seqs_[s]->count = 0;
  }
  if (out->empty()) {
    for (auto it = lines_.begin(); it != lines_.end();) {
      const uint64_t count = line_counts_[it->second];
      if (count == 0) {
        lines_.erase(it++);  // counted before an earlier call only
        continue;
      }
      it->second = count;
      ++it;
    }
    *out = std::move(lines_);
    // Named afresh if more comes (the lines went with `out`).
    lines_ = StackCounts();
    line_counts_.clear();
    seq_lines_.clear();
    return;
  }
  out->reserve(out->size() + lines_.size());
  for (const auto& [line, index] : lines_) {
    const uint64_t count = std::exchange(line_counts_[index], 0);
    if (count) (*out)[line] += count;
  }
}

}  // namespace tk::analyses::fold
