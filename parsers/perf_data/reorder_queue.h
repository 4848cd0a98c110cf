// Time ordering, exactly as perf's ordered_events does it.
//
// perf record writes each CPU's ring buffer in turn, so records come in per-CPU batches, not
// in time order; after each pass over all buffers it writes FINISHED_ROUND. Everything up to
// the largest timestamp seen before the previous FINISHED_ROUND can no longer be preceded by
// a later record, so at each FINISHED_ROUND perf delivers all queued records with
// time <= that limit, then moves the limit to the largest timestamp seen so far. At the end
// everything left is delivered. Ties keep file order.
// Records without a time (time 0, or no TIME in sample_type) bypass the queue as in perf.
//
// Records from a mapped uncompressed file are queued as views; others (pipe, decompressed)
// are copied into blocks that are freed once every record in them has been delivered, so
// memory is bounded by what one or two rounds hold.
#ifndef TK_PARSERS_PERF_DATA_REORDER_QUEUE_H_
#define TK_PARSERS_PERF_DATA_REORDER_QUEUE_H_

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace tk::parsers::perf_data {

class ReorderQueue {
 public:
  // 32 bytes: each record is copied in and out a few times. No sequence number: records
  // of equal time keep arrival order because every step is stable (partition, merges of
  // runs, std::stable_sort).
  struct Entry {
    uint64_t time;
    const char* data;
    uint64_t offset;
    uint32_t size;
    int32_t block;  // -1: a view into stable memory
  };

  // Queues a record; `stable` says whether `bytes` outlives the queue entry.
  void Push(uint64_t time, std::string_view bytes, bool stable, uint64_t offset);
  // A record's time without queueing the record: a part of a split parse that replays what
  // comes before its own records queues only the side-band ones, but every record moves the
  // flush limits (and counts as out of order) as it would in one pass.
  void Observe(uint64_t time) {
    if (time < last_flush_) ++out_of_order_;
    if (time > max_time_) max_time_ = time;
  }
  // FINISHED_ROUND: moves the records that are now safe to deliver into `out` (time order).
  void Round(std::vector<Entry>* out);
  // End of input: everything, in time order.
  void FlushAll(std::vector<Entry>* out);
  // Releases the blocks of entries handed out by Round/FlushAll once the caller is done.
  void Release(const std::vector<Entry>& delivered);

  size_t size() const { return heap_.size(); }
  // The input offset of the oldest record still queued (records stay in arrival order, which
  // is input order), or UINT64_MAX when none is: the input before it can be let go.
  uint64_t oldest_offset() const { return heap_.empty() ? UINT64_MAX : heap_.front().offset; }
  // Records queued with a time below the last flush limit (perf warns about these).
  uint64_t out_of_order() const { return out_of_order_; }

 private:
  struct Block {
    std::unique_ptr<char[]> mem;
    size_t cap = 0, used = 0;
    uint32_t live = 0;
  };
  void PopUntil(uint64_t limit, bool all, std::vector<Entry>* out);
  // Copies `bytes` into the current block (current_ after the call).
  const char* Copy(std::string_view bytes);

  std::vector<Entry> heap_;  // queued records in arrival order (sorted when a round leaves)
  uint64_t max_time_ = 0;
  uint64_t next_flush_ = 0;
  uint64_t last_flush_ = 0;
  uint64_t out_of_order_ = 0;
  std::vector<Block> blocks_;
  std::vector<int32_t> free_blocks_;
  int32_t current_ = -1;
};

}  // namespace tk::parsers::perf_data

#endif  // TK_PARSERS_PERF_DATA_REORDER_QUEUE_H_
