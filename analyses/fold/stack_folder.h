// Folding by ids, for events whose names stay valid for the whole parse (Event::stable_views:
// perf.data, and perf script text, whose parser interns them). A folded stack is kept as a
// sequence of small ids, [root, frame, frame, ...]:
//   - the root ("comm", "comm-PID", "comm-PID/TID") by its string;
//   - a frame by the views it is named from (symbol and DSO as pointer and size, the address
//     when --addrs names unknown symbols by it, whether the root is "java"): the same views
//     always name a frame the same way (AppendFrame), and stable views never change, so
//     AppendFrame runs once per distinct frame instead of once per frame of every sample;
//   - the sequence by its ids, so a stack's key is 4 bytes a frame, not its folded text.
// The folded strings are built once per distinct sequence, when the counts are taken
// (FlushTo). Output is what FoldSink's string path gives: the same names, summed the same.
#ifndef TK_ANALYSES_FOLD_STACK_FOLDER_H_
#define TK_ANALYSES_FOLD_STACK_FOLDER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "analyses/fold/fold.h"
#include "core/event.h"

namespace tk::analyses::fold {

class StackFolder {
 public:
  explicit StackFolder(const FoldOptions& opt) : opt_(opt) {}

  // Counts one stack (leaf first; views stable) with `weight` under the root named by
  // comm/pid/tid; returns its slot (for AddWeight).
  uint32_t Add(std::string_view comm, int32_t pid, int32_t tid, absl::Span<const Frame> stack,
               uint64_t weight);
  void AddWeight(uint32_t slot, uint64_t weight) {
    Drain();
    seqs_[slot]->count += weight;
  }
  // Add for a caller that needs no slot: the stack's sequence is looked up at the next call
  // (of any of these), its table entry asked for now, so the cache miss (a system-wide
  // profile has ~10^4 distinct stacks) overlaps the next event's parse instead of stalling.
  void AddLater(std::string_view comm, int32_t pid, int32_t tid, absl::Span<const Frame> stack,
                uint64_t weight);

  // Builds the folded lines of up to `max` of the sequences added since the last call (each
  // once: FlushTo then only sums their counts); returns how many. tk fold's perf.data reading
  // thread runs it once it has read everything, while the decoder finishes: the serial end
  // then no longer builds and hashes every line (3.5 ms of a 40 MB `perf record -a -g` file's
  // ~85 ms). Run between batches all along instead, it cost more than it saved.
  size_t NameNew(size_t max = SIZE_MAX);
  // Adds the stacks counted since the last call to `out`, as folded strings. Into an empty
  // `out` the lines move (their counts replace their indexes; no line is hashed again).
  void FlushTo(StackCounts* out);

  // The other way to the end, for a FoldSink with a worker thread (fold.h FoldedRun): the
  // folded lines of up to `max` more sequences, built ahead of BuildRun (their text only:
  // the counts are read at the end; never hashed); returns how many. The perf.data reading
  // thread runs it while it would wait (SideWork::RunIdle).
  size_t PreName(size_t max);
  // Distinct sequences so far.
  size_t sequences() {
    Drain();
    return seqs_.size();
  }
  // The lines of sequences [from, to) whose count is not 0, sorted (SortLines), into `run`:
  // built there where PreName did not build them. Reads the folder only, so two threads may
  // build disjoint ranges at once; nothing may add to it meanwhile (call sequences() first).
  void BuildRun(size_t from, size_t to, FoldedRun* run) const;

 private:
  struct FrameKey {
    const char* sym;
    const char* dso;
    uint32_t sym_size, dso_size;
    uint64_t ip;  // only with --addrs
    bool java;
    bool operator==(const FrameKey& o) const {
      return sym == o.sym && dso == o.dso && sym_size == o.sym_size && dso_size == o.dso_size &&
             ip == o.ip && java == o.java;
    }
    template <typename H>
    friend H AbslHashValue(H h, const FrameKey& k) {
      return H::combine(std::move(h), k.sym, k.dso, k.sym_size, k.dso_size, k.ip, k.java);
    }
  };

  // Hashes of the keys above (Abseil's hash of a std::string_view goes to libstdc++'s in
  // Debian's Abseil; a FrameKey's fields are mixed in two multiplications).
  struct FrameKeyHash {
    size_t operator()(const FrameKey& k) const {
      uint64_t h = (reinterpret_cast<uintptr_t>(k.sym) ^ (uint64_t{k.sym_size} << 48)) * 0x9e3779b97f4a7c15ULL;
      h ^= (reinterpret_cast<uintptr_t>(k.dso) ^ (uint64_t{k.dso_size} << 48) ^ k.ip ^ k.java) * 0xc2b2ae3d27d4eb4fULL;
      return h ^ (h >> 29);
    }
  };
  // The roots last seen, by their comm's view (stable: the same view, the same name) and
  // the pid/tid the root shows: the root's id without building its name.
  struct RootMemo {
    const char* comm = nullptr;
    size_t comm_size = 0;
    int32_t pid = 0, tid = 0;
    uint32_t id = 0;
    bool java = false;
  };
  static constexpr size_t kRootMemo = 256;
  // The frames last named, direct-mapped by their key's hash: most lookups end here.
  struct FrameMemo {
    FrameKey key{};
    uint32_t id = 0;
    bool set = false;
  };
  static constexpr size_t kFrameMemo = 4096;

  FrameKey KeyOf(const Frame& f, bool java) const {
    return FrameKey{f.symbol.data(), f.dso.data(), static_cast<uint32_t>(f.symbol.size()),
                    static_cast<uint32_t>(f.dso.size()), opt_.names.include_addrs ? f.ip : 0,
                    java};
  }
  FrameMemo& MemoOf(const FrameKey& k) {
    return frame_memo_[(FrameKeyHash{}(k) >> 20) % kFrameMemo];
  }
  // The memo's hit inline (most frames), the map and the naming out of line.
  uint32_t NameId(const Frame& f, const FrameKey& k, FrameMemo& m) {
    if (m.set && m.key == k) return m.id;
    return NameIdMissed(f, k, m);
  }
  uint32_t NameIdMissed(const Frame& f, const FrameKey& k, FrameMemo& m);
  struct SeqRec;
  // The record of the sequence in seq_ (hash `h`, SeqHash's), a new one when it was not seen.
  SeqRec* SeqSlot(uint64_t h);
  static uint64_t SeqHash(const char* ids, size_t bytes);
  // seq_ for the stack (root and frames' ids); returns its hash.
  uint64_t BuildSeq(std::string_view comm, int32_t pid, int32_t tid,
                    absl::Span<const Frame> stack);
  // Counts the stack AddLater left in later_ (if any).
  void Drain() {
    if (!later_pending_) return;
    later_pending_ = false;
    seq_.swap(later_);
    SeqSlot(later_hash_)->count += later_weight_;
    seq_.swap(later_);
  }
  void GrowSeqs();
  uint32_t RootId(std::string_view comm, int32_t pid, int32_t tid, bool* java);

  const FoldOptions& opt_;
  std::string scratch_;
  std::vector<uint32_t> seq_;
  // AddLater's stack, not yet looked up.
  std::vector<uint32_t> later_;
  uint64_t later_hash_ = 0, later_weight_ = 0;
  bool later_pending_ = false;
  absl::flat_hash_map<std::string, uint32_t> root_ids_;
  absl::flat_hash_map<FrameKey, uint32_t, FrameKeyHash> frame_ids_;
  std::vector<RootMemo> root_memo_ = std::vector<RootMemo>(kRootMemo);
  std::vector<FrameMemo> frame_memo_ = std::vector<FrameMemo>(kFrameMemo);
  // The names by id (roots as they are, frames as ";name..."), their bytes one after the
  // other in name_text_: the lines are made from them at the end, a few thousand names for
  // ~10^4 lines, where a string each (a heap block apiece) was a cache miss a name.
  struct NameSpan {
    size_t at, size;
  };
  void AddName(std::string_view name) {
    name_spans_.push_back(NameSpan{name_text_.size(), name.size()});
    name_text_.append(name);
  }
  std::string name_text_;
  std::vector<NameSpan> name_spans_;
  // A sequence as kept, in blocks that never move: its count since the last FlushTo, its
  // slot, then its ids. Found through seq_table_ (open addressing, linear probing, at most
  // half full), whose entries point at it: a repeat costs the entry and the record, two
  // cache lines (absl's map of string_views, with the slots' views and counts in vectors of
  // their own, was four loads in a row and a memcmp call: 12% of a text fold of short
  // stacks).
  struct SeqRec {
    uint64_t count;
    uint32_t slot, bytes;
    const char* ids() const { return reinterpret_cast<const char*>(this + 1); }
  };
  struct SeqEntry {
    uint32_t tag = 0;  // 32 bits of the hash
    uint32_t bytes = 0;
    SeqRec* rec = nullptr;  // null: empty
  };
  std::vector<SeqEntry> seq_table_;
  size_t seq_mask_ = 0;
  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t block_used_ = 0, block_size_ = 0;
  std::vector<SeqRec*> seqs_;  // by slot
  // The folded lines: line → its index in line_counts_, whose counts FlushTo sums from the
  // sequences (several sequences may fold to one line: frames named alike).
  StackCounts lines_;
  std::vector<uint64_t> line_counts_;
  std::vector<uint32_t> seq_lines_;  // by slot: the line's index, for seqs_[0, size())
  // PreName's lines, by slot, for seqs_[0, pre_lines_.size()); their text in pre_text_.
  std::vector<std::string_view> pre_lines_;
  ByteArena pre_text_;
  // The folded line of seqs_[s]: its size; its bytes, copied to `to`; both (MakeLine), its
  // text in `text`.
  size_t LineSize(size_t s) const;
  void CopyLine(size_t s, char* to) const;
  std::string_view MakeLine(size_t s, ByteArena* text) const;
};

}  // namespace tk::analyses::fold

#endif  // TK_ANALYSES_FOLD_STACK_FOLDER_H_
