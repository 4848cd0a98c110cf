#include "analyses/iolat/request_tracker.h"

#include <algorithm>
#include <vector>

namespace tk::iolat {

namespace {
// Stage ranks used for matching: a record "has reached" stage s when any stage >= s is set.
constexpr int kQ = 0, kG = 1, kI = 2, kD = 3;

bool Reached(const IoRecord& r, int stage) {
  switch (stage) {
    case kQ: return r.q >= 0 || r.g >= 0 || r.i >= 0 || r.d >= 0;
    case kG: return r.g >= 0 || r.i >= 0 || r.d >= 0;
    case kI: return r.i >= 0 || r.d >= 0;
    default: return r.d >= 0;
  }
}
bool QueueOnly(const IoRecord& r) { return r.q >= 0 && r.g < 0 && r.i < 0 && r.d < 0; }
}  // namespace

int64_t IoRecord::first() const {
  int64_t t = -1;
  for (int64_t s : {q, g, i, d})
    if (s >= 0 && (t < 0 || s < t)) t = s;
  return t;
}

RequestTracker::RequestTracker(IoListener* listener, Interner* interner, Options opts)
    : listener_(listener), interner_(interner), opts_(opts) {}

// An empty preflush bio ("FWS 0 + 0") is issued as a flush request ("FF 0 + 0") and its own
// request completes as "WS () 0 + 0": a write without data is a flush; key them all so.
RequestTracker::Key RequestTracker::MakeKey(DevId dev, uint64_t sector, const Rwbs& r,
                                            uint32_t nr) {
  Rwbs::Op op = r.op;
  if (nr == 0 && r.is_write()) op = Rwbs::Op::kFlush;
  // Flushes carry no data: 6.x issues "FF 0 () 0 + 0" but completes "FF () 18446744073709551615
  // + 0" (sector -1). Key them all at sector 0.
  if (op == Rwbs::Op::kFlush) sector = 0;
  return Key{dev, sector, static_cast<uint8_t>(op)};
}

IoRecord* RequestTracker::Find(const Key& k, int stage) {
  auto it = live_.find(k);
  if (it == live_.end()) return nullptr;
  for (IoRecord& r : it->second)
    if (!Reached(r, stage)) return &r;
  return nullptr;
}

void RequestTracker::LoopIssued(const IoRecord& r, int delta) {
  if (r.d < 0 || DevMajor(r.dev) != kLoopMajor) return;
  LoopState& l = loops_[r.dev];
  if (delta > 0) l.last_issue = r.d;
  if (delta > 0 || l.inflight > 0) l.inflight += delta;
}

IoRecord& RequestTracker::Insert(const Key& k, IoRecord r) {
  if (inflight_ >= opts_.max_inflight) EvictOldest();
  DropStaleIssued(k);
  ++inflight_;
  LoopIssued(r, +1);
  Slot& s = live_[k];
  s.push_back(std::move(r));
  return s.back();
}

// A new request at a data sector where an issued one has not completed: file systems do not
// overlap writes to one block, so the old one's completion was lost (ring-buffer overrun at the
// start of a CPU's data, a window that cut it). Pairing with it would report the time between
// two unrelated requests (seconds, for a journal's reused blocks). Flushes legitimately
// overlap (all "FF 0 + 0") and are kept.
void RequestTracker::DropStaleIssued(const Key& k) {
  if (k.op == static_cast<uint8_t>(Rwbs::Op::kFlush)) return;
  auto it = live_.find(k);
  if (it == live_.end()) return;
  Slot& s = it->second;
  for (size_t i = 0; i < s.size();) {
    if (s[i].d >= 0) {
      ++counts_[s[i].stat_dev].stale_issued;
      LoopIssued(s[i], -1);
      s.erase(s.begin() + i);
      --inflight_;
    } else {
      ++i;
    }
  }
  if (s.empty()) live_.erase(it);
}

void RequestTracker::Remove(const Key& k, IoRecord* r) {
  auto it = live_.find(k);
  if (it == live_.end()) return;
  Slot& s = it->second;
  LoopIssued(*r, -1);
  s.erase(s.begin() + (r - s.data()));
  --inflight_;
  if (s.empty()) live_.erase(it);
}

IoRecord RequestTracker::NewRecord(const Event& e, const BlockRq& b, DevId dev) {
  IoRecord r;
  r.dev = dev;
  r.stat_dev = dev;
  r.sector = b.sector;
  r.nr_sector = b.nr_sector;
  r.rwbs = b.rwbs;
  r.comm = interner_->Intern(b.comm.empty() ? e.comm : b.comm);
  r.pid = e.pid;
  r.tid = e.tid >= 0 ? e.tid : e.pid;
  r.cpu = e.cpu;
  // A remap just before (dm → loop, partition → disk) says where this I/O came from.
  auto pr = pending_remaps_.find(MakeKey(dev, b.sector, b.rwbs, b.nr_sector));
  if (pr != pending_remaps_.end()) {
    r.stat_dev = pr->second.stat_dev;
    r.from_dev = pr->second.from_dev;
    pending_remaps_.erase(pr);
  } else if (DevMajor(dev) != kLoopMajor && ClassifyComm(r.comm) == Issuer::kFlusher) {
    r.from_dev = BusyLoop();
  }
  return r;
}

// 6.x loop devices hand each request to a kworker that reads/writes the backing file (and
// fsyncs it for flushes), so their I/O reaches the backing device as plain kworker I/O with no
// remap event. A kworker queueing I/O while a loop request is issued and not yet completed is
// taken for that loop worker: the loop device most recently issued to.
DevId RequestTracker::BusyLoop() const {
  DevId best = 0;
  int64_t best_ts = -1;
  for (const auto& [dev, l] : loops_) {
    if (l.inflight > 0 && l.last_issue > best_ts) {
      best = dev;
      best_ts = l.last_issue;
    }
  }
  return best;
}

void RequestTracker::OnBlock(const Event& e, const BlockRq& b) {
  switch (b.stage) {
    case BlockStage::kBioQueue: return Queue(e, b);
    case BlockStage::kGetRq: return Stage(e, b, kG);
    case BlockStage::kInsert: return Stage(e, b, kI);
    case BlockStage::kIssue: return Stage(e, b, kD);
    case BlockStage::kComplete: return Complete(e, b);
    case BlockStage::kBioComplete: return BioComplete(e, b);
    case BlockStage::kBioRemap:
    case BlockStage::kRqRemap: return Remap(e, b);
    case BlockStage::kBackMerge:
    case BlockStage::kFrontMerge:
    case BlockStage::kRqMerge: return Merge(e, b);
    case BlockStage::kRequeue: return Requeue(e, b);
    case BlockStage::kSplit: return Split(e, b);
    default: return;  // plug/unplug/split/bounce/sleeprq/io_start: no stage of their own
  }
}

void RequestTracker::Queue(const Event& e, const BlockRq& b) {
  DevId dev = MakeDev(b.major, b.minor);
  Key k = MakeKey(dev, b.sector, b.rwbs, b.nr_sector);
  IoRecord r = NewRecord(e, b, dev);
  r.q = e.ts_ns;
  r.q_flush_flags = b.rwbs.has(Rwbs::kPreflush) || b.rwbs.has(Rwbs::kFua);
  // A second Q at a sector whose earlier bio never progressed (bio-based devices without
  // completions, merges the kernel did not trace): the earlier one is stale.
  auto it = live_.find(k);
  if (it != live_.end()) {
    for (IoRecord& old : it->second) {
      if (QueueOnly(old)) {
        ++counts_[old.stat_dev].stale_queued;
        old = r;
        listener_->OnQueued(old);
        return;
      }
    }
  }
  listener_->OnQueued(Insert(k, std::move(r)));
}

void RequestTracker::Stage(const Event& e, const BlockRq& b, int stage) {
  DevId dev = MakeDev(b.major, b.minor);
  Key k = MakeKey(dev, b.sector, b.rwbs, b.nr_sector);
  IoRecord* r = Find(k, stage);
  if (!r) r = &Insert(k, NewRecord(e, b, dev));
  int64_t& slot = stage == kG ? r->g : stage == kI ? r->i : r->d;
  const bool first_issue = stage == kD && r->d < 0;
  slot = e.ts_ns;
  if (first_issue) LoopIssued(*r, +1);
  if (stage >= kI) {
    // Insert/issue carry the whole request (merged bios included) and its final flags.
    r->nr_sector = b.nr_sector;
    r->rwbs = b.rwbs;
  }
  if (stage == kD) {
    std::string_view who = b.comm.empty() ? e.comm : b.comm;
    listener_->OnIssued(*r, who, e.tid >= 0 ? e.tid : e.pid);
  }
}

void RequestTracker::Complete(const Event& e, const BlockRq& b) {
  DevId dev = MakeDev(b.major, b.minor);
  Key k = MakeKey(dev, b.sector, b.rwbs, b.nr_sector);
  auto it = live_.find(k);
  IoRecord* r = nullptr;
  if (it != live_.end()) {
    for (IoRecord& c : it->second)
      if (c.d >= 0) { r = &c; break; }
    if (!r) r = &it->second.front();
  }
  if (!r) {
    // A request with preflush/FUA on a queue without FUA goes through the flush state machine
    // and is completed twice: once by the driver, once more after its post-flush.
    if (auto rd = recent_flush_seq_.find(k); rd != recent_flush_seq_.end()) {
      recent_flush_seq_.erase(rd);
      ++counts_[dev].flush_seq_completions;
      return;
    }
    ++counts_[dev].unmatched_completions;
    return;
  }
  r->error = b.error;
  if (b.nr_sector > 0 && b.nr_sector < r->nr_sector) {
    // Partial completion: the head is done, the rest stays in flight further on.
    ++counts_[r->stat_dev].partial_completions;
    IoRecord rest = *r;
    rest.sector += b.nr_sector;
    rest.nr_sector -= b.nr_sector;
    Remove(k, r);
    Insert(MakeKey(dev, rest.sector, rest.rwbs, rest.nr_sector), std::move(rest));
    return;
  }
  r->c = e.ts_ns;
  listener_->OnDone(*r);
  if (r->rwbs.has(Rwbs::kPreflush) || r->rwbs.has(Rwbs::kFua) || r->q_flush_flags) {
    if (recent_flush_seq_.size() >= 4096) recent_flush_seq_.clear();
    recent_flush_seq_.insert(k);
  }
  Remove(k, r);
}

void RequestTracker::BioComplete(const Event& e, const BlockRq& b) {
  DevId dev = MakeDev(b.major, b.minor);
  Key k = MakeKey(dev, b.sector, b.rwbs, b.nr_sector);
  auto it = live_.find(k);
  if (it == live_.end()) return;
  for (IoRecord& r : it->second) {
    if (r.d < 0) {  // bio_complete ends queue-only bios (dm); requests end with rq_complete
      r.c = e.ts_ns;
      r.error = b.error;
      listener_->OnDone(r);
      Remove(k, &r);
      return;
    }
  }
}

void RequestTracker::Remap(const Event& e, const BlockRq& b) {
  DevId dev = MakeDev(b.major, b.minor);
  DevId old = MakeDev(b.old_major, b.old_minor);
  Origin o;
  o.stat_dev = dev;
  o.from_dev = old;
  // The upper record's own origin carries through (dm → loop → partition → disk).
  Key upper = MakeKey(old, b.old_sector, b.rwbs, b.nr_sector);
  Origin inherited{old, 0};
  if (auto pr = pending_remaps_.find(upper); pr != pending_remaps_.end()) {
    inherited = pr->second;
    pending_remaps_.erase(pr);
  } else if (IoRecord* r = Find(upper, kD)) {
    inherited = Origin{r->stat_dev, r->from_dev};
    r->remapped_out = true;
  }
  if (b.major == b.old_major) {
    // Partition → whole disk: same device for the user, statistics stay on the partition.
    o.stat_dev = inherited.stat_dev;
    o.from_dev = inherited.from_dev;
  }
  if (pending_remaps_.size() >= opts_.max_inflight) pending_remaps_.clear();
  pending_remaps_[MakeKey(dev, b.sector, b.rwbs, b.nr_sector)] = o;
}

void RequestTracker::Merge(const Event& e, const BlockRq& b) {
  DevId dev = MakeDev(b.major, b.minor);
  Key k = MakeKey(dev, b.sector, b.rwbs, b.nr_sector);
  if (b.stage == BlockStage::kRqMerge) {
    // block_rq_merge: the request at this sector joined another request.
    if (IoRecord* r = Find(k, kD)) {
      ++counts_[r->stat_dev].merges;
      Remove(k, r);
    }
    return;
  }
  IoRecord* bio = Find(k, kG);
  int64_t q = -1;
  if (bio) {
    q = bio->q;
    ++counts_[bio->stat_dev].merges;
    Remove(k, bio);
  } else {
    ++counts_[dev].merges;
  }
  if (b.stage != BlockStage::kFrontMerge) return;
  // Front merge: the request that started right after this bio now starts at the bio.
  Key next{dev, b.sector + b.nr_sector, k.op};
  IoRecord* rq = Find(next, kD);
  if (!rq) return;
  IoRecord moved = *rq;
  Remove(next, rq);
  moved.sector = b.sector;
  moved.nr_sector += b.nr_sector;
  if (q >= 0 && (moved.q < 0 || q < moved.q)) moved.q = q;
  Insert(k, std::move(moved));
}

// block_split: 7,1 W 16520 / 19080 [kworker/u8:1] — the bio queued at 16520 was cut at 19080;
// the tail continues as its own bio (and request) with the head's queue time and submitter.
void RequestTracker::Split(const Event& e, const BlockRq& b) {
  DevId dev = MakeDev(b.major, b.minor);
  // The split event has no size: key by the operation as it is (not as an empty flush).
  Key k{dev, b.sector, static_cast<uint8_t>(b.rwbs.op)};
  IoRecord* head = Find(k, kG);
  if (!head || b.old_sector <= head->sector) return;
  uint64_t end = head->sector + head->nr_sector;
  IoRecord tail = *head;
  tail.sector = b.old_sector;
  tail.nr_sector = end > b.old_sector ? static_cast<uint32_t>(end - b.old_sector) : 0;
  if (tail.nr_sector == 0) return;
  head->nr_sector -= tail.nr_sector;
  Insert(Key{dev, tail.sector, k.op}, std::move(tail));
}

void RequestTracker::Requeue(const Event& e, const BlockRq& b) {
  DevId dev = MakeDev(b.major, b.minor);
  Key k = MakeKey(dev, b.sector, b.rwbs, b.nr_sector);
  auto it = live_.find(k);
  if (it == live_.end()) return;
  for (IoRecord& r : it->second) {
    if (r.d >= 0) {
      LoopIssued(r, -1);
      r.d = -1;
      ++counts_[r.stat_dev].requeues;
      return;
    }
  }
}

void RequestTracker::EvictOldest() {
  std::vector<int64_t> firsts;
  firsts.reserve(inflight_);
  for (auto& [k, s] : live_)
    for (IoRecord& r : s) firsts.push_back(r.first());
  if (firsts.empty()) return;
  auto mid = firsts.begin() + firsts.size() / 2;
  std::nth_element(firsts.begin(), mid, firsts.end());
  int64_t cut = *mid;
  for (auto it = live_.begin(); it != live_.end();) {
    Slot& s = it->second;
    for (size_t i = 0; i < s.size();) {
      if (s[i].first() <= cut) {
        ++counts_[s[i].stat_dev].never_completed;
        LoopIssued(s[i], -1);
        s.erase(s.begin() + i);
        --inflight_;
      } else {
        ++i;
      }
    }
    if (s.empty()) {
      live_.erase(it++);
    } else {
      ++it;
    }
  }
}

void RequestTracker::OnLost() {
  for (auto& [k, s] : live_)
    for (IoRecord& r : s) ++counts_[r.stat_dev].lost_inflight;
  live_.clear();
  loops_.clear();
  pending_remaps_.clear();
  recent_flush_seq_.clear();
  inflight_ = 0;
}

void RequestTracker::Finish() {
  for (auto& [k, s] : live_)
    for (IoRecord& r : s)
      if (!r.remapped_out) ++counts_[r.stat_dev].never_completed;
  live_.clear();
  loops_.clear();
  inflight_ = 0;
}

}  // namespace tk::iolat
