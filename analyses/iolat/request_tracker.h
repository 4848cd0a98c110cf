// Pairs the stages of block requests (btt's Q G I D C) into one record per request.
//
// What the kernel emits for one 4 KiB synchronous write from dd on a 6.x blk-mq disk:
//   dd    block_bio_queue: 7,0 WS 1056 + 8 [dd]                       Q  (bio enters the queue)
//   dd    block_getrq:     7,0 WS 1056 + 8 [dd]                       G  (request allocated)
//   dd    block_rq_insert: 7,0 WS 4096 () 1056 + 8 be,0,4 [dd]        I  (only with a scheduler)
//   dd    block_rq_issue:  7,0 WS 4096 () 1056 + 8 be,0,4 [dd]        D  (sent to the driver)
//   <irq> block_rq_complete: 7,0 WS () 1056 + 8 be,0,4 [0]            C  (nr_sector completed)
// and through device-mapper / partitions (3.8 kernel, bio-based dm and loop):
//   dd    block_bio_queue: 252,2 WS 488 + 8 [dd]
//   dd    block_bio_remap: 7,1 WS 2536 + 8 <- (252,2) 488             A  (dm → loop1)
//   loop1 block_bio_remap: 8,0 WS 7827752 + 8 <- (8,2) 6801704        A  (partition → disk)
//
// Pairing key: (device, sector, operation). Several requests may share a key (flushes are all
// "FF 0 + 0"): each key holds a short FIFO. Stage events match the oldest record that has not
// reached that stage; a completion matches the oldest issued record. Any stage may be missing
// (no scheduler: no I; only rq events recorded: no Q or G); the first one seen opens the record.
//   merges     M/F (bio into request) and rq_merge (request into request) close the merged
//              record; a front merge moves the request to the bio's start sector.
//   split      X cuts a queued bio: the tail becomes its own record with the head's Q.
//   requeue    R sends an issued request back: its next D counts.
//   partial    a C for fewer sectors than the request completes its head: the rest stays in
//              flight at sector + nr and the record completes with the last C.
//   remaps     the next Q (or D) at the remap's target inherits the origin: across majors
//              (dm, loop) it is "stacked" from the upper device; within one major (8,2 → 8,0)
//              it is a partition remap and its statistics go to the partition.
//   loop (6.x) no remap: a kworker queueing on another device while a loop request is in
//              flight is taken for the loop worker (BusyLoop), so its I/O is stacked too.
// Memory: in-flight records only. Records that never complete (bio-based devices without
// bio_complete, requests issued before the trace ends) are bounded by Options::max_inflight:
// beyond it the oldest half is dropped and counted as evicted.
#ifndef TK_ANALYSES_IOLAT_REQUEST_TRACKER_H_
#define TK_ANALYSES_IOLAT_REQUEST_TRACKER_H_

#include <cstdint>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "analyses/iolat/device.h"
#include "core/event.h"
#include "core/intern.h"

namespace tk::iolat {

struct IoRecord {
  DevId dev = 0;       // the queue the request lives on
  DevId stat_dev = 0;  // where its statistics go: the partition after a partition remap
  DevId from_dev = 0;  // the upper device (dm, loop) it was remapped from; 0 = none
  uint64_t sector = 0;
  uint32_t nr_sector = 0;  // from the issue when seen, else from the queue event
  Rwbs rwbs;
  int64_t q = -1, g = -1, i = -1, d = -1, c = -1;  // stage times, -1 = not seen
  std::string_view comm;   // interned: the submitter (Q comm), else the first stage's comm
  int32_t pid = -1;        // process (tgid) of the submitter when known
  int32_t tid = -1;
  int32_t cpu = -1;        // where its first event (Q, else G/I/D) was recorded
  int32_t error = 0;
  bool remapped_out = false;  // continued on a lower device
  bool q_flush_flags = false; // queued with preflush/FUA (issued without: flush machinery)

  int64_t first() const;
  uint64_t bytes() const { return uint64_t{nr_sector} * 512; }
};

// Receives request lifecycle points; the record is valid during the call only.
class IoListener {
 public:
  virtual ~IoListener() = default;
  // Every Q (bio_queue), after remap resolution.
  virtual void OnQueued(const IoRecord& r) {}
  // Every D (rq_issue); `issuer`/`issuer_tid` are the task that issued it.
  virtual void OnIssued(const IoRecord& r, std::string_view issuer, int32_t issuer_tid) {}
  // A request's final completion (C), or a queue-only bio's bio_complete.
  virtual void OnDone(const IoRecord& r) {}
};

struct TrackerCounts {
  uint64_t unmatched_completions = 0;  // C without an issued request (issued before the trace)
  uint64_t never_completed = 0;        // still in flight at the end, or evicted
  uint64_t merges = 0;
  uint64_t requeues = 0;
  uint64_t partial_completions = 0;
  uint64_t stale_queued = 0;  // a Q replaced an older Q-only record at the same sector
  uint64_t flush_seq_completions = 0;  // second C of a request that went through a post-flush
  uint64_t stale_issued = 0;   // issued, never completed, replaced by a new request there
  uint64_t lost_inflight = 0;  // in flight when the recorder lost events: dropped
};

class RequestTracker {
 public:
  struct Options {
    size_t max_inflight = 1 << 18;  // records kept at most (see the header comment)
  };
  RequestTracker(IoListener* listener, Interner* interner, Options opts);
  RequestTracker(IoListener* listener, Interner* interner)
      : RequestTracker(listener, interner, Options{}) {}

  void OnBlock(const Event& e, const BlockRq& b);
  // Counts what is still in flight as never completed.
  void Finish();
  // The recorder lost events here: any in-flight record may have lost its completion (and a
  // later request at the same sector would pair with it, giving seconds-long latencies), so
  // all are dropped and counted as lost_inflight.
  void OnLost();

  const absl::flat_hash_map<DevId, TrackerCounts>& counts() const { return counts_; }
  // Devices whose I/O was remapped onto another device: upper → lower, with bytes.
  size_t inflight() const { return inflight_; }

 private:
  struct Key {
    DevId dev;
    uint64_t sector;
    uint8_t op;
    bool operator==(const Key&) const = default;
    template <typename H>
    friend H AbslHashValue(H h, const Key& k) {
      return H::combine(std::move(h), k.dev, k.sector, k.op);
    }
  };
  struct Origin {
    DevId stat_dev = 0;
    DevId from_dev = 0;
  };
  using Slot = absl::InlinedVector<IoRecord, 1>;

  static Key MakeKey(DevId dev, uint64_t sector, const Rwbs& r, uint32_t nr);
  IoRecord* Find(const Key& k, int stage);
  IoRecord& Insert(const Key& k, IoRecord r);
  void Remove(const Key& k, IoRecord* r);
  IoRecord NewRecord(const Event& e, const BlockRq& b, DevId dev);
  void Queue(const Event& e, const BlockRq& b);
  void Stage(const Event& e, const BlockRq& b, int stage);
  void Complete(const Event& e, const BlockRq& b);
  void BioComplete(const Event& e, const BlockRq& b);
  void Remap(const Event& e, const BlockRq& b);
  void Merge(const Event& e, const BlockRq& b);
  void Requeue(const Event& e, const BlockRq& b);
  void Split(const Event& e, const BlockRq& b);
  void EvictOldest();
  void LoopIssued(const IoRecord& r, int delta);
  void DropStaleIssued(const Key& k);
  DevId BusyLoop() const;

  IoListener* listener_;
  Interner* interner_;
  Options opts_;
  absl::flat_hash_map<Key, Slot> live_;
  absl::flat_hash_map<Key, Origin> pending_remaps_;
  absl::flat_hash_set<Key> recent_flush_seq_;  // completed preflush/FUA requests (bounded)
  absl::flat_hash_map<DevId, TrackerCounts> counts_;
  struct LoopState {
    int64_t inflight = 0;  // issued, not completed
    int64_t last_issue = -1;
  };
  absl::flat_hash_map<DevId, LoopState> loops_;
  size_t inflight_ = 0;
};

}  // namespace tk::iolat

#endif  // TK_ANALYSES_IOLAT_REQUEST_TRACKER_H_
