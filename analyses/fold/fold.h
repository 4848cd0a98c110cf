// `tk fold`: stacks folded into "root;caller;...;leaf COUNT" lines for flame graphs, as
// FlameGraph's stackcollapse-perf.pl prints them for `perf script` output.
//
//   swapper;start_kernel;rest_init;cpu_idle;default_idle;native_safe_halt 1
//   java-24636/25607;start_thread;JavaMain;...;Ljava/io/PrintStream:::print 2
//
// FoldSink works on tk::Event (comm, pid, tid, name, period, stack), so perf.data and
// `perf script` text fold the same way. Memory grows with the number of distinct stacks.
#ifndef TK_ANALYSES_FOLD_FOLD_H_
#define TK_ANALYSES_FOLD_FOLD_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/types/span.h"
#include "analyses/fold/frame_name.h"
#include "core/byte_arena.h"
#include "core/filter.h"
#include "core/large_alloc.h"
#include "core/part_sink.h"
#include "core/sink.h"
#include "core/strings.h"
#include "nlohmann/json.hpp"

namespace tk::analyses::fold {

struct FoldOptions {
  bool include_pid = false;  // --pid: root "comm-PID"
  bool include_tid = false;  // --tid: root "comm-PID/TID" (wins over include_pid)
  FrameNameOptions names;    // --kernel, --jit, --addrs (names.java is set per event)
  // --event-filter: keep only this event type. Empty: the type of the first event seen, and
  // FoldSink::first_filtered() names the first other type dropped.
  std::string event_filter;
  // Fold events with stable views (Event::stable_views: perf.data, perf script text) on a
  // second thread: the caller's thread then only counts repeated stacks (Event::stack_id)
  // and copies the others' frames. Results are complete after Finish.
  bool worker_thread = false;
};

// "cycles" and "cycles:u" are one event type for filtering ("cycles:u" is cycles counted in
// user mode); "cycles:u" and "cycles:k" are not, nor are "cycles" and "instructions".
bool SameEventType(std::string_view a, std::string_view b);

// Folded stacks ("root;...;leaf") and their counts, as FoldSink and the off-CPU folds keep them.
using StackCounts = absl::flat_hash_map<std::string, uint64_t>;

// The PID a root shows: -1 ("?") when the source does not show it. perf script's default
// header prints only the TID and stackcollapse then shows the PID as "?" ("dd-?/29776"):
// text input shows "?" exactly when the header had one number (pid -1), perf.data always
// (Event::pid_hidden), as its default `perf script` output would.
inline int32_t ShownPid(const Event& e) { return e.pid_hidden ? -1 : e.pid; }

// Appends the root frame: "comm", "comm-PID" or "comm-PID/TID" (FoldOptions' include_pid,
// include_tid; "?" for a pid below 0), spaces in the comm as '_'.
void AppendRoot(const FoldOptions& opt, std::string_view comm, int32_t pid, int32_t tid,
                std::string* key);
// Folded lines kept as text in blocks that never move, with their counts: what a FoldSink
// with a worker thread ends with instead of StackCounts (the flush and sort of the last
// thousands of lines in two halves on two threads, no line hashed; StackFolder::BuildRun).
struct FoldedLine {
  const char* data;
  uint32_t size;
  uint64_t count;
  std::string_view line() const { return std::string_view(data, size); }
};
// Lines in bytewise order (equal lines next to each other), their text in `text` or in
// another arena that outlives the run.
struct FoldedRun {
  std::vector<FoldedLine> lines;
  ByteArena text;
};
// Sorts lines bytewise (SortedStacks' order; equal lines end up next to each other).
void SortLines(std::vector<FoldedLine>* lines);
// Calls f(line, count) for the lines of `runs` merged in bytewise order, equal lines once with
// their counts summed: what WriteFolded gives for a map of them.
void ForEachMerged(absl::Span<const FoldedRun> runs,
                   const std::function<void(std::string_view, uint64_t)>& f);
// Writes ForEachMerged's lines as WriteFolded does.
void WriteRuns(absl::Span<const FoldedRun> runs, std::ostream& out);

// The entries of `stacks` in the bytewise order of their keys (WriteFolded's order).
std::vector<const StackCounts::value_type*> SortedStacks(const StackCounts& stacks);
// Writes "STACK COUNT" lines sorted bytewise.
void WriteFolded(const StackCounts& stacks, std::ostream& out);
// Writes entries already in that order (SortedStacks) as WriteFolded does.
void WriteSorted(const std::vector<const StackCounts::value_type*>& sorted, std::ostream& out);
// {"event": EVENT, "total": N, "stacks": [{"frames": [root, ..., leaf], "count": N}, ...]},
// sorted as WriteFolded sorts.
nlohmann::json FoldedJson(const StackCounts& stacks, std::string_view event);
// The same for FoldedRuns (their lines merged as ForEachMerged gives them).
nlohmann::json FoldedJson(absl::Span<const FoldedRun> runs, std::string_view event);

class StackFolder;

class FoldSink final : public EventSink {
 public:
  explicit FoldSink(FoldOptions opt);
  ~FoldSink() override;

  EventMask wants() const override { return EventMask::All(); }
  absl::Status OnEvent(const Event& e) override;
  // Waits for the worker thread (FoldOptions::worker_thread) to fold what it was handed.
  absl::Status Finish() override;
  // With FoldOptions::worker_thread: the worker's folding of the stacks, for the parser's
  // reading thread to do instead of a thread of this sink's (null without a worker, or once
  // it started).
  SideWork* TakeSideWork() override;
  void PrefetchStack(uint64_t stack_id) override {
    if (stack_id >= memo_by_id_.size()) return;
    const char* p = reinterpret_cast<const char*>(&memo_by_id_[stack_id]);
    __builtin_prefetch(p);
    __builtin_prefetch(p + sizeof(IdMemo) - 1);  // (48 bytes: a quarter straddle two lines)
  }

  // Fixes the default event type before any event arrives (a part of a split input: the
  // first event of the whole input decides). Ignored when options set event_filter.
  void SetDefaultType(std::string_view name);
  // The event type kept: the filter, or the first type seen; empty before any event.
  const std::string& event_type() const { return filter_; }
  // The first event name dropped because the default type differs, or empty. stackcollapse
  // prints "Filtering for events of type: NAME" with it.
  const std::string& first_filtered() const { return first_filtered_; }

  // Adds the stacks counted by `other` (folded with the same options; both finished).
  void Merge(const FoldSink& other);
  // The same, taking `other`'s stacks (it is left without them).
  void Merge(FoldSink&& other);
  // Writes the folded lines sorted bytewise (after Finish).
  void Write(std::ostream& out) const;
  // The same stacks as one JSON object, sorted as Write sorts them:
  //   {"event": "cpu-clock", "total": 123,
  //    "samples": 120, "stacks": [{"frames": ["root", "caller", ..., "leaf"], "count": 7}, ...]}
  // (`total` sums the weights, `samples` counts the events).
  // Frames are the folded names (root first); ';' never occurs inside one (tidied to ':').
  void WriteJson(std::ostream& out) const;
  size_t distinct_stacks() const;
  // Events folded (each once, whatever its weight): tk info's count of the kept event type.
  uint64_t samples() const { return samples_; }
  // Events of the kept type dropped because no stack was recorded for them.
  uint64_t unstacked() const { return unstacked_; }
  // Why nothing was folded, as one line naming what is missing and what to record; empty when
  // something was folded. Call after Finish.
  std::string NothingFoldedReason() const;
  const FoldOptions& options() const { return opt_; }

 private:
  class Worker;
  static constexpr uint32_t kNoMemo = ~uint32_t{0};
  // A stack (Event::stack_id) under a root: the comm's view and the pid/tid the root shows.
  struct MemoKey {
    uint64_t stack_id;
    const char* comm;
    size_t comm_size;
    int32_t pid, tid;
    bool operator==(const MemoKey& o) const {
      return stack_id == o.stack_id && comm == o.comm && comm_size == o.comm_size &&
             pid == o.pid && tid == o.tid;
    }
    template <typename H>
    friend H AbslHashValue(H h, const MemoKey& k) {
      return H::combine(std::move(h), k.stack_id, k.comm, k.comm_size, k.pid, k.tid);
    }
  };

  // Whether to fold events named `name`: the event type filter. The common case, the exact
  // name of the filter, inline: the call and SameEventType were ~63 instructions a sample
  // (5% of the decoding thread's, callgrind, cc20k.data).
  bool Keep(std::string_view name) {
    if (name.size() == filter_.size() && !name.empty() &&
        EqualBytes(name.data(), filter_.data(), name.size())) {
      return true;
    }
    return KeepSlow(name);
  }
  bool KeepSlow(std::string_view name);
  // Waits for the worker's last flush and sort (finishing_); every use of stacks_ after
  // Finish calls it first.
  void Join() const;
  // Join, then the lines of runs_ into stacks_ (for what adds to them).
  void Settle();
  // Join's part of the end: folder_->BuildRun of the second half, unless already taken.
  void BuildSecondHalf() const;
  // The memoized repeats' weights into the folder; the memo freed.
  void AddMemoWeights();
  // Merge's part besides the stacks: the event type, the counts.
  void MergeCounts(const FoldSink& other);
  // Folds an event with stable views (StackFolder); `memo` is its index in memo_ (kNoMemo:
  // none). The worker's thread while there is one.
  void FoldStable(std::string_view comm, int32_t pid, int32_t tid, absl::Span<const Frame> stack,
                  uint64_t weight, uint32_t memo);
  // Counts one stack (leaf first) under the root named by comm/pid/tid; `key` is scratch.
  void Count(std::string_view comm, int32_t pid, int32_t tid, absl::Span<const Frame> stack,
             uint64_t weight, std::string* key);

  FoldOptions opt_;
  std::string filter_;
  bool defaulted_ = false;
  std::string first_filtered_;
  uint64_t samples_ = 0, unstacked_ = 0;
  // Event types dropped by the filter (at most kMaxTypes, for NothingFoldedReason).
  absl::flat_hash_set<std::string> dropped_types_;
  std::string key_;  // the stack being built, reused
  StackCounts stacks_;  // complete after Finish
  // Events with stable views: folded by ids (the worker's while it runs), then into stacks_.
  std::unique_ptr<StackFolder> folder_;
  // (stack, root) seen → its index m: memo_weight_[m] sums the weights of its repeats (the
  // caller's thread), memo_slot_[m] is the folder's slot of its first event (the folder's).
  absl::flat_hash_map<MemoKey, uint32_t> memo_;
  // The same for the first root seen with each stack id, by id (the parser's ids are 1, 2, ...:
  // one array load per repeat instead of a probe of memo_); other roots of an id, and ids
  // too far apart for an array, go to memo_.
  struct IdMemo {
    MemoKey key;
    uint32_t memo = kNoMemo;
    // The repeats' weights, here rather than in memo_weight_: a repeat then touches one
    // line, which PrefetchStack asked for. Added to the folder at the end (AddMemoWeights).
    uint64_t weight = 0;
  };
  // Past 256 KiB in huge pages (core/large_alloc.h), from 2 MiB on: grown by doubling in
  // 4 KiB pages it was 320 page faults of the decoding thread on cc20k.data.
  std::vector<IdMemo, LargeAllocator<IdMemo>> memo_by_id_;
  // The memo index of `k` (a new one, *inserted, when it was not seen).
  uint32_t MemoIndex(const MemoKey& k, bool* inserted);
  std::vector<uint64_t> memo_weight_;
  std::vector<uint32_t> memo_slot_;
  mutable std::unique_ptr<Worker> worker_;
  // With a worker thread (2 threads), Finish hands the last flush of the folder into stacks_
  // and the sort of its lines to the worker's thread and returns (finishing_): the caller's
  // thread tears the parse down (the input's unmapping, the symbol tables: ~1/3 of the serial
  // end of a perf.data fold) while they run. sorted_ is stacks_ in Write's order while
  // sorted_valid_ (nothing changed stacks_ since). Mutable: the const readers (Write) wait.
  mutable bool finishing_ = false;
  std::vector<const StackCounts::value_type*> sorted_;
  bool sorted_valid_ = false;
  // Or, when only the folder counted (no Count): the folded lines in two sorted halves
  // (FoldedRun, their text in the runs and the folder's), valid after Join while
  // runs_valid_. The finishing thread sets end_split_ and end_to_, then end_ready_, builds
  // runs_[0] and, unless Join claimed it (end_claimed_), runs_[1].
  mutable std::array<FoldedRun, 2> runs_;
  bool runs_valid_ = false;
  mutable std::atomic<bool> end_ready_{false}, end_claimed_{false};
  size_t end_split_ = 0, end_to_ = 0;
};

// tk fold's sinks for a parser that splits its input (core/part_sink.h): each part folds
// into a FoldSink of its own with `out`'s options, its default event type fixed to the first
// type of the whole input (the prescan), and the parts merge into `out` in order. `filter`
// (optional, must outlive this) is applied to the prescan, every part and a one-pass parse.
class FoldParts final : public PartitionedSink {
 public:
  FoldParts(FoldSink& out, const Filter* filter);
  ~FoldParts() override;
  EventSink& Whole() override;
  EventSink* Prescan() override;
  std::unique_ptr<EventSink> NewPart() override;
  void MergePart(EventSink& part) override;

 private:
  class Part;
  class FirstType;
  FoldSink& out_;
  const Filter* filter_;
  std::unique_ptr<EventSink> whole_;  // the filter in front of `out`, when there is one
  std::unique_ptr<FirstType> first_;
  std::unique_ptr<EventSink> first_filtered_;
};

}  // namespace tk::analyses::fold

#endif  // TK_ANALYSES_FOLD_FOLD_H_
