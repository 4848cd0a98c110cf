#include "parsers/perf_data/reorder_queue.h"

#include <algorithm>
#include <cstring>

namespace tk::parsers::perf_data {
namespace {

// Copy blocks: 4 MiB (records are at most 64 KiB).
constexpr size_t kBlockSize = 4 << 20;

// A lambda type (not a function pointer) so std::sort inlines the comparison.
constexpr auto kEarlier = [](const ReorderQueue::Entry& a, const ReorderQueue::Entry& b) {
  return a.time < b.time;
};

// Sorts [begin, end) by kEarlier when it is a concatenation of already sorted runs, as
// records are: perf writes each CPU's buffer in turn and every buffer is in time order.
// Adjacent runs are merged pairwise (O(n log runs)); many runs (a scrambled input) fall
// back to std::stable_sort. Both keep the arrival order of equal times.
void SortRuns(std::vector<ReorderQueue::Entry>::iterator begin,
              std::vector<ReorderQueue::Entry>::iterator end) {
  constexpr size_t kMaxRuns = 64;
  std::vector<std::vector<ReorderQueue::Entry>::iterator> runs = {begin};
  for (auto it = begin; it != end && it + 1 != end; ++it) {
    if (!kEarlier(*(it + 1), *it)) continue;
    runs.push_back(it + 1);
    if (runs.size() > kMaxRuns) {
      std::stable_sort(begin, end, kEarlier);
      return;
    }
  }
  runs.push_back(end);
  while (runs.size() > 2) {  // runs[i]..runs[i+1] is one sorted run
    std::vector<std::vector<ReorderQueue::Entry>::iterator> merged = {runs.front()};
    for (size_t i = 0; i + 2 < runs.size(); i += 2) {
      std::inplace_merge(runs[i], runs[i + 1], runs[i + 2], kEarlier);
      merged.push_back(runs[i + 2]);
    }
    if (runs.size() % 2 == 0) merged.push_back(runs.back());  // an odd run left over
    runs = std::move(merged);
  }
}

}  // namespace

const char* ReorderQueue::Copy(std::string_view bytes) {
  if (current_ < 0 || blocks_[current_].cap - blocks_[current_].used < bytes.size()) {
    if (current_ >= 0 && blocks_[current_].live == 0) free_blocks_.push_back(current_);
    if (!free_blocks_.empty()) {
      current_ = free_blocks_.back();
      free_blocks_.pop_back();
    } else {
      current_ = static_cast<int32_t>(blocks_.size());
      blocks_.emplace_back();
      blocks_.back().mem.reset(new char[kBlockSize]);
      blocks_.back().cap = kBlockSize;
    }
    blocks_[current_].used = 0;
  }
  Block& b = blocks_[current_];
  char* dst = b.mem.get() + b.used;
  std::memcpy(dst, bytes.data(), bytes.size());
  b.used += (bytes.size() + 7) & ~size_t{7};
  if (b.used > b.cap) b.used = b.cap;
  ++b.live;
  return dst;
}

// The entry is stored field by field from registers: built on the stack (its block written
// through a pointer) and copied in, its 16-byte reload stalled on store forwarding (72% of
// Push, 7% of the reading thread).
void ReorderQueue::Push(uint64_t time, std::string_view bytes, bool stable, uint64_t offset) {
  const char* data = bytes.data();
  int32_t block = -1;
  if (!stable) {
    data = Copy(bytes);
    block = current_;
  }
  if (time < last_flush_) ++out_of_order_;
  max_time_ = std::max(max_time_, time);
  Entry& e = heap_.emplace_back();
  e.time = time;
  e.data = data;
  e.offset = offset;
  e.size = static_cast<uint32_t>(bytes.size());
  e.block = block;
}

// Why not a heap (perf's ordered_events uses a sorted list, Perfetto a heap): records only
// leave at round boundaries, so one pass + merge per round does the same job. A heap paid
// O(log n) scattered moves per record on push and pop: 34% of `tk sched latency` on a 56 MB
// perf sched recording; a partition + sort of the batch was ~3x cheaper there, and merging
// the per-CPU runs instead of sorting halved what was left (an 18 MB `perf record -a -g`).
// Order is identical: time, then arrival.
void ReorderQueue::PopUntil(uint64_t limit, bool all, std::vector<Entry>* out) {
  size_t first = out->size();
  size_t keep = 0;
  for (const Entry& e : heap_) {  // a stable partition: runs stay runs
    if (all || e.time <= limit) {
      out->push_back(e);
    } else {
      heap_[keep++] = e;
    }
  }
  heap_.resize(keep);
  SortRuns(out->begin() + static_cast<long>(first), out->end());
}

void ReorderQueue::Round(std::vector<Entry>* out) {
  PopUntil(next_flush_, false, out);
  last_flush_ = std::max(last_flush_, next_flush_);
  next_flush_ = max_time_;
}

void ReorderQueue::FlushAll(std::vector<Entry>* out) { PopUntil(0, true, out); }

void ReorderQueue::Release(const std::vector<Entry>& delivered) {
  if (blocks_.empty()) return;  // every record a view (a mapped file)
  for (const Entry& e : delivered) {
    if (e.block < 0) continue;
    Block& b = blocks_[e.block];
    if (--b.live == 0 && e.block != current_) free_blocks_.push_back(e.block);
  }
}

}  // namespace tk::parsers::perf_data
