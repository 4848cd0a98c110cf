// Write-sync detection: per device, are the written bytes synchronous, and who made them so?
//
// The pattern (docs/iolat.md): on a `mount -o sync` filesystem every write() ends in
// vfs_fsync_range → writeback with WB_SYNC_ALL, so the data bios carry REQ_SYNC ("WS") and are
// queued by the writer itself while it sleeps in D:
//   dd    block_bio_queue: 7,0 WS 1056 + 128 [dd]
//   dd    sched_switch: prev_comm=dd prev_pid=4242 prev_state=D ==> next_comm=swapper/1
//   jbd2/loop0-8 block_bio_queue: 7,0 WSM 8344 + 8 [jbd2/loop0-8]   (then FWFS: the commit)
// An async mount shows plain "W" queued later by flushers ("kworker/u8:2", 3.x "flush-8:0").
// O_SYNC/O_DSYNC/fsync() produce the same requests for one file; only the mount table tells
// the two causes apart.
//
// Accounting stage: bio_queue (Q: the submitting task, one event per bio) when the device has
// any; else rq_issue (D). Issuers are classified by comm (device.h). I/O that arrived from an
// upper device (a remap from dm, a 3.x "loopN" thread) is "stacked": shown, never blamed.
//
// Verdict, over the device's own (not stacked) data writes minus journal (jbd2) writes:
//   writer_sync = bytes that are synchronous (S, FUA or preflush) AND queued by a writer
//   no-writes   nothing written
//   write-sync  writer_sync >= Options::write_sync_min (75%) of the bytes
//   async       writer_sync <  Options::async_max (25%)
//   mixed       in between
//   stacked     the bytes passed down from devices above (stacked) are at least the device's
//               own non-journal data writes: the verdict belongs to the upper devices (cause
//               "stacked"), so one stray own write cannot flip a backing disk to "async"
//               (checked before the three above). Cause of write-sync/mixed: "mount" when the mount has `sync`, "application" when
// the mount is known and has not, "unknown" without a mount table entry.
#ifndef TK_ANALYSES_IOLAT_WRITESYNC_H_
#define TK_ANALYSES_IOLAT_WRITESYNC_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analyses/iolat/device.h"
#include "analyses/iolat/mountinfo.h"
#include "analyses/iolat/request_tracker.h"
#include "core/event.h"

namespace tk::iolat {

// Request mix at one accounting stage of one device.
struct Mix {
  uint64_t requests = 0, reads = 0, read_bytes = 0, writes = 0, write_bytes = 0;
  uint64_t sync_writes = 0, sync_write_bytes = 0, fua = 0, preflush = 0;
  uint64_t flushes = 0, discards = 0, other = 0;
  uint64_t sequential = 0;  // reads/writes starting where the previous one of that kind ended
  int64_t first_ts = -1, last_ts = -1;
  uint64_t next_read = UINT64_MAX, next_write = UINT64_MAX;
};

struct WriterSummary {
  std::string_view comm;
  int32_t pid = -1, tid = -1;
  Issuer issuer = Issuer::kWriter;
  DevId from_dev = 0;  // stacked: the upper device
  uint64_t writes = 0, bytes = 0, sync_writes = 0, sync_bytes = 0;
  uint64_t d_sleeps = 0, d_sleep_ns = 0;  // sched_switch prev_state=D of this tid
};

struct StackedSummary {
  DevId from_dev = 0, root_dev = 0;
  uint64_t bytes = 0, sync_bytes = 0;
};

struct DeviceSummary {
  DevId dev = 0;
  char stage = 'Q';  // accounting stage: 'Q' or 'D'
  Mix mix;
  const Mount* mount = nullptr;
  std::array<uint64_t, 5> bytes_by_issuer{}, sync_by_issuer{};  // own writes, by Issuer
  uint64_t own_base = 0;     // own non-journal written bytes (the verdict's denominator)
  uint64_t writer_sync = 0;  // own, synchronous, queued by writers
  std::vector<StackedSummary> stacked;
  std::string verdict, cause;
  std::vector<WriterSummary> writers;  // by bytes, descending (all of them)
  double sync_ratio() const {
    return mix.write_bytes ? static_cast<double>(mix.sync_write_bytes) / mix.write_bytes : 0;
  }
};

class WriteSyncDetector : public IoListener {
 public:
  struct Options {
    double write_sync_min = 0.75;  // writer-issued sync share for "write-sync"
    double async_max = 0.25;       // below it: "async"
  };
  explicit WriteSyncDetector(Options opts) : opts_(opts) {}
  WriteSyncDetector() : WriteSyncDetector(Options{}) {}

  void OnQueued(const IoRecord& r) override;
  void OnIssued(const IoRecord& r, std::string_view issuer, int32_t issuer_tid) override;
  void OnSwitch(const Event& e, const SchedSwitch& s);
  void OnWakeup(const Event& e, const SchedWakeup& w);

  // Verdicts for every device, sorted by device number. `mounts` may be null.
  std::vector<DeviceSummary> Summarize(const MountTable* mounts) const;

 private:
  struct WriterKey {
    std::string_view comm;
    int32_t tid;
    DevId from;
    bool operator==(const WriterKey&) const = default;
    template <typename H>
    friend H AbslHashValue(H h, const WriterKey& k) {
      return H::combine(std::move(h), k.comm, k.tid, k.from);
    }
  };
  struct StageAcc {
    Mix mix;
    std::array<uint64_t, 5> bytes_by_issuer{}, sync_by_issuer{};
    absl::flat_hash_map<DevId, std::pair<uint64_t, uint64_t>> stacked;  // from → bytes, sync
    absl::flat_hash_map<WriterKey, WriterSummary> writers;
  };
  struct DevAcc {
    StageAcc q, d;
  };
  struct Sleep {
    int64_t since = -1;
    uint64_t count = 0, total_ns = 0;
  };

  void Account(StageAcc& a, DevId dev, const IoRecord& r, int64_t ts);
  void Verdict(DeviceSummary& d, const MountTable* mounts) const;
  DevId Root(DevId dev, int depth = 0) const;

  Options opts_;
  absl::flat_hash_map<DevId, DevAcc> devs_;
  absl::flat_hash_map<int32_t, Sleep> sleeps_;
  // Upper → lower device edges seen in stacked traffic (bytes), to name the root of a stack.
  absl::flat_hash_map<DevId, absl::flat_hash_map<DevId, uint64_t>> uppers_;
};

}  // namespace tk::iolat

#endif  // TK_ANALYSES_IOLAT_WRITESYNC_H_
