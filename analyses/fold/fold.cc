#include "analyses/fold/fold.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <mutex>
#include <ostream>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "analyses/fold/stack_folder.h"
#include "core/absl_compat.h"
#include "core/batch_pipe.h"
#include "core/strings.h"

namespace tk::analyses::fold {
namespace {

// perf's event modifiers: "cycles:u", "cpu-clock:pppH", "instructions:uk".
bool IsModifierSuffix(std::string_view s) {
  if (s.size() < 2 || s[0] != ':') return false;
  return s.substr(1).find_first_not_of("ukhIGHpPSDWeb") == std::string_view::npos;
}

template <typename T>
void AppendInt(T v, std::string* out) {
  char buf[24];
  char* end = absl::numbers_internal::FastIntToBuffer(v, buf);
  out->append(buf, end - buf);
}

}  // namespace

bool SameEventType(std::string_view a, std::string_view b) {
  if (a.size() == b.size() && EqualBytes(a.data(), b.data(), a.size())) return true;  // (no call)
  if (a.size() > b.size()) std::swap(a, b);
  return b.starts_with(a) && IsModifierSuffix(b.substr(a.size()));
}

// The second thread of FoldOptions::worker_thread. The caller's thread filters by event type,
// counts the stacks it has seen before (FoldSink::memo_) and copies the frames of the others
// (views stay valid: Event::stable_views) into a batch; the worker names and counts them
// (StackFolder). Batches go through a BatchPipe (core/batch_pipe.h): at most 4 wait, so memory
// stays bounded however fast the parser is. Measured on an 18 MB `perf record -a -g` file (166k
// samples, ~25 frames each): the strings and the hash map were a quarter of `tk fold`'s time
// on one core.
//
// Without a thread of its own (FoldSink::TakeSideWork: a parser's reading thread folds the
// batches through RunPending), a batch is folded by whichever thread takes it, one at a time
// and in order (fold_mu_), and the caller's thread folds the oldest itself when 4 wait, so it
// never waits for the other thread.
class FoldSink::Worker final : public SideWork {
 public:
  Worker(FoldSink* sink, bool own_thread) : sink_(sink), own_thread_(own_thread) {
    if (own_thread) thread_ = std::thread([this] { Run(); });
  }
  ~Worker() override { Stop(); }

  bool own_thread() const { return own_thread_; }

  // SideWork: folds the oldest waiting batch (any thread; without a thread of its own only).
  // False also while another thread folds one (never waits for it: see FoldOldest).
  bool RunPending() override { return FoldOldest(/*wait=*/false); }
  // SideWork: the folded lines of the stacks folded so far, a few hundred at a time (the lock
  // is held meanwhile), for the end to find them made (StackFolder::NameNew). False also
  // while another thread folds.
  bool RunIdle() override {
    constexpr size_t kLines = 512;
    std::unique_lock<std::mutex> lock(fold_mu_, std::try_to_lock);
    return lock.owns_lock() && sink_->folder_ && sink_->folder_->PreName(kLines) > 0;
  }

  void Add(const Event& e, uint64_t weight, uint32_t memo) {
    current_->items.push_back(Item{e.comm, ShownPid(e), e.tid, weight, e.stack.size(), memo});
    current_->frames.insert(current_->frames.end(), e.stack.begin(), e.stack.end());
    if (current_->items.size() >= kBatch) Submit();
  }

  // Hands over the open batch and waits until every batch is folded (without a thread of
  // its own: folds what waits).
  void Drain() {
    Submit();
    if (own_thread()) {
      pipe_.Barrier();
      return;
    }
    while (FoldOldest(/*wait=*/true)) {
    }
  }

  void Stop() {
    if (!thread_.joinable()) return;
    if (own_thread_) pipe_.Close();
    thread_.join();
  }
  // Stop without waiting: the thread runs `last` after the batches (Drain first) and ends;
  // Join waits for it. Without a thread of its own, a thread starts for `last`.
  void StopThen(std::function<void()> last) {
    if (!own_thread_) {
      thread_ = std::thread(std::move(last));
      return;
    }
    last_ = std::move(last);
    pipe_.Close();
  }
  void Join() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  static constexpr size_t kBatch = 1024;
  struct Item {
    std::string_view comm;
    int32_t pid, tid;
    uint64_t weight;
    size_t frames;
    uint32_t memo;
  };
  struct Batch {
    std::vector<Item> items;
    std::vector<Frame> frames;
  };

  void Submit() {
    if (current_->items.empty()) return;
    if (own_thread()) {
      pipe_.Put(std::move(current_));  // never cancelled: the worker folds everything
    } else {
      // 4 wait: the oldest is folded here, unless another thread is folding one, which it
      // took out of the pipe: there is room then. Still without room (the other thread names
      // lines, RunIdle), this thread waits for the lock.
      bool wait = false;
      while (!pipe_.TryPut(current_)) {
        if (!FoldOldest(wait)) wait = true;
      }
    }
    current_ = pipe_.Get();
    current_->items.clear();
    current_->frames.clear();
  }

  // Folds the oldest waiting batch under fold_mu_ (batches are folded one at a time, in
  // order); false when none waits or, unless `wait`, when another thread holds the lock.
  // Waiting for the lock was a convoy: the decoding thread slept while the reading thread
  // folded a batch (~0.1 ms), was woken onto the reading thread's CPU as the lock came free,
  // found it taken again, and the two took turns on one core while the other stood idle
  // (`perf sched timehist` of one `tk fold`: 13 ms of one CPU idle while the other ran both).
  bool FoldOldest(bool wait) {
    std::unique_lock<std::mutex> lock(fold_mu_, std::defer_lock);
    if (wait) {
      lock.lock();
    } else if (!lock.try_lock()) {
      return false;
    }
    std::unique_ptr<Batch> b = pipe_.TryTake();
    if (!b) return false;
    Fold(*b);
    pipe_.Done(std::move(b));
    return true;
  }

  void Fold(const Batch& b) {
    size_t at = 0;
    for (const Item& it : b.items) {
      sink_->FoldStable(it.comm, it.pid, it.tid,
                        absl::MakeConstSpan(b.frames).subspan(at, it.frames), it.weight, it.memo);
      at += it.frames;
    }
  }

  void Run() {
    while (std::unique_ptr<Batch> b = pipe_.Take()) {
      Fold(*b);
      pipe_.Done(std::move(b));
    }
    if (last_) last_();
  }

  FoldSink* sink_;
  BatchPipe<Batch> pipe_;
  std::unique_ptr<Batch> current_ = pipe_.Get();  // the caller's thread only
  std::function<void()> last_;  // set before the pipe closes
  std::mutex fold_mu_;  // without a thread of its own: held while a batch is taken and folded
  const bool own_thread_;
  std::thread thread_;  // last: starts after the members above exist
};

SideWork* FoldSink::TakeSideWork() {
  // A worker thread of its own (FoldOptions::worker_thread) not started yet: the parser's
  // thread does its work instead.
  if (!opt_.worker_thread || worker_ || finishing_) return nullptr;
  worker_ = std::make_unique<Worker>(this, /*own_thread=*/false);
  return worker_.get();
}

FoldSink::FoldSink(FoldOptions opt)
    : opt_(std::move(opt)), filter_(opt_.event_filter),
      folder_(std::make_unique<StackFolder>(opt_)) {}

FoldSink::~FoldSink() { Join(); }

void FoldSink::Join() const {
  if (!finishing_) return;
  // The second half of the lines, unless the finishing thread took it: this thread is idle
  // until that thread is done.
  if (end_ready_.load(std::memory_order_acquire)) BuildSecondHalf();
  worker_->Join();
  worker_.reset();
  finishing_ = false;
}

void FoldSink::BuildSecondHalf() const {
  if (end_claimed_.exchange(true, std::memory_order_acq_rel)) return;
  folder_->BuildRun(end_split_, end_to_, &runs_[1]);
}

void FoldSink::Settle() {
  Join();
  if (!runs_valid_) return;
  ForEachMerged(runs_, [this](std::string_view line, uint64_t count) {
    stacks_.emplace(std::string(line), count);  // (merged lines are distinct)
  });
  runs_ = {};
  runs_valid_ = false;
  folder_.reset();
}

void FoldSink::AddMemoWeights() {
  if (!folder_) return;
  // The repeats' weights go to the slots their first events were folded into: those of an
  // id's first root from its IdMemo (OnEvent counts them there, never in memo_weight_), the
  // others' from memo_weight_.
  for (const IdMemo& d : memo_by_id_) {
    if (d.memo != kNoMemo && d.weight) folder_->AddWeight(memo_slot_[d.memo], d.weight);
  }
  for (size_t m = 0; m < memo_weight_.size(); ++m) {
    if (memo_weight_[m]) folder_->AddWeight(memo_slot_[m], memo_weight_[m]);
  }
  memo_ = {};
  memo_by_id_ = {};
  memo_weight_ = {};
  memo_slot_ = {};
}

absl::Status FoldSink::Finish() {
  Settle();
  sorted_valid_ = false;
  if (worker_) {
    worker_->Drain();
    // The worker's thread, whose caches and malloc arena hold the folder (a fresh thread
    // took twice as long for the flush); without one, a thread of its own, so that the
    // parse's teardown runs beside it. It builds the first half of the folded lines and
    // sorts them; Join builds the second half on the caller's thread (the two halves merge
    // as they are written), unless this thread got to it first.
    end_ready_.store(false, std::memory_order_relaxed);
    end_claimed_.store(false, std::memory_order_relaxed);
    worker_->StopThen([this] {
      AddMemoWeights();
      if (folder_ && stacks_.empty()) {
        end_to_ = folder_->sequences();
        end_split_ = end_to_ / 2;
        runs_valid_ = true;
        end_ready_.store(true, std::memory_order_release);
        folder_->BuildRun(0, end_split_, &runs_[0]);
        BuildSecondHalf();
        return;
      }
      // Events folded by name too (Count): one map.
      if (folder_) folder_->FlushTo(&stacks_);
      folder_.reset();
      sorted_ = SortedStacks(stacks_);
      sorted_valid_ = true;
    });
    finishing_ = true;
    return absl::OkStatus();
  }
  AddMemoWeights();
  if (folder_) folder_->FlushTo(&stacks_);
  // Everything counted is in stacks_ now: the id tables are freed here, on the thread that
  // finishes (each part of a split text on its own, not the merging thread after the join;
  // 1.5 ms of that serial tail). A later event starts them again.
  folder_.reset();
  return absl::OkStatus();
}

void FoldSink::FoldStable(std::string_view comm, int32_t pid, int32_t tid,
                          absl::Span<const Frame> stack, uint64_t weight, uint32_t memo) {
  if (memo == kNoMemo) return folder_->AddLater(comm, pid, tid, stack, weight);  // no slot wanted
  const uint32_t slot = folder_->Add(comm, pid, tid, stack, weight);
  if (memo != kNoMemo) memo_slot_.push_back(slot);  // memo indexes come in order: memo_slot_[memo]
}

void FoldSink::SetDefaultType(std::string_view name) {
  if (!opt_.event_filter.empty() || !filter_.empty()) return;
  filter_ = std::string(name);
  defaulted_ = true;
}

bool FoldSink::KeepSlow(std::string_view name) {
  constexpr size_t kMaxTypes = 8;
  if (name.empty()) return true;  // perf script -F without "event": nothing to filter on
  if (filter_.empty()) {
    // Merging different event types (cycles and instructions) would mislead: by default
    // only the first type seen is folded.
    filter_ = std::string(name);
    defaulted_ = true;
    return true;
  }
  if (SameEventType(name, filter_)) return true;
  if (defaulted_ && first_filtered_.empty()) first_filtered_ = std::string(name);
  if (dropped_types_.size() < kMaxTypes && !dropped_types_.contains(AV(name))) {
    dropped_types_.emplace(std::string(name));
  }
  return false;
}

void AppendRoot(const FoldOptions& opt, std::string_view comm, int32_t pid, int32_t tid,
                std::string* key) {
  size_t from = key->size();
  key->append(comm);
  std::replace(key->begin() + from, key->end(), ' ', '_');
  if (!opt.include_pid && !opt.include_tid) return;
  key->push_back('-');
  if (pid >= 0) {
    AppendInt(pid, key);
  } else {
    key->push_back('?');
  }
  if (opt.include_tid) {
    key->push_back('/');
    AppendInt(tid, key);
  }
}

void FoldSink::Count(std::string_view comm, int32_t pid, int32_t tid,
                     absl::Span<const Frame> stack, uint64_t weight, std::string* key) {
  key->clear();
  AppendRoot(opt_, comm, pid, tid, key);
  FrameNameOptions names = opt_.names;
  // stackcollapse (as its test results have it) tidies Java names only when the root is
  // exactly "java": not "java-PID" with --pid.
  names.java = *key == "java";
  // A stack with no frame (an empty callchain, or only frames stackcollapse skips) folds as
  // the bare root, "comm COUNT", as stackcollapse-perf.pl folds it: every sample is counted.
  for (size_t i = stack.size(); i-- > 0;) AppendFrame(stack[i], names, key);
  auto it = stacks_.find(AV(*key));
  if (it == stacks_.end()) {
    stacks_.emplace(*key, weight);
  } else {
    it->second += weight;
  }
}

uint32_t FoldSink::MemoIndex(const MemoKey& k, bool* inserted) {
  const uint32_t next = static_cast<uint32_t>(memo_weight_.size());
  constexpr uint64_t kMaxDirect = 1 << 24;
  if (k.stack_id < kMaxDirect && k.stack_id < 2 * memo_by_id_.size() + 4096) {
    if (k.stack_id >= memo_by_id_.size()) {
      const size_t n = std::max<size_t>(k.stack_id + 1, 2 * memo_by_id_.size());
      constexpr size_t kSmall = (size_t{256} << 10) / sizeof(IdMemo);  // then 2 MiB at once
      if (n > memo_by_id_.capacity() && n > kSmall) {
        memo_by_id_.reserve(std::max(n, (size_t{2} << 20) / sizeof(IdMemo)));
      }
      memo_by_id_.resize(n);
    }
    IdMemo& d = memo_by_id_[k.stack_id];
    if (d.memo == kNoMemo) {
      d = IdMemo{k, next};
      *inserted = true;
      return next;
    }
    if (d.key == k) {
      *inserted = false;
      return d.memo;
    }
  }
  auto [it, added] = memo_.try_emplace(k, next);
  *inserted = added;
  return it->second;
}

absl::Status FoldSink::OnEvent(const Event& e) {
  if (finishing_ || sorted_valid_ || runs_valid_) [[unlikely]] {  // an event after Finish
    Settle();
    sorted_valid_ = false;
  }
  if (!IsStackEvent(e.kind()) || !Keep(e.name)) return absl::OkStatus();
  if (e.stack.empty() && !e.stack_recorded) {
    ++unstacked_;
    return absl::OkStatus();
  }
  ++samples_;
  uint64_t weight = e.has_period && e.period ? e.period : 1;
  if (!e.stable_views) {  // names in a reused buffer (a source that does not intern them)
    Count(e.comm, ShownPid(e), e.tid, e.stack, weight, &key_);
    return absl::OkStatus();
  }
  // Event::stack_id: a stack seen before under the same root is counted where its first
  // event went. The root's comm by its view (stable: the same view, the same name).
  uint32_t memo = kNoMemo;
  if (e.stack_id != 0) {
    const MemoKey k{e.stack_id, e.comm.data(), e.comm.size(),
                    opt_.include_pid || opt_.include_tid ? ShownPid(e) : 0,
                    opt_.include_tid ? e.tid : 0};
    if (k.stack_id < memo_by_id_.size()) {  // a repeat under the id's first root: one line
      IdMemo& d = memo_by_id_[k.stack_id];
      if (d.memo != kNoMemo && d.key == k) {
        d.weight += weight;
        return absl::OkStatus();
      }
    }
    bool inserted = false;
    memo = MemoIndex(k, &inserted);
    if (!inserted) {
      memo_weight_[memo] += weight;
      return absl::OkStatus();
    }
    memo_weight_.push_back(0);
  }
  if (!folder_) folder_ = std::make_unique<StackFolder>(opt_);  // (freed by Finish)
  if (!opt_.worker_thread) {
    FoldStable(e.comm, ShownPid(e), e.tid, e.stack, weight, memo);
    return absl::OkStatus();
  }
  if (!worker_) worker_ = std::make_unique<Worker>(this, /*own_thread=*/true);
  worker_->Add(e, weight, memo);
  return absl::OkStatus();
}

// Stops the parse at the first event that has an event type: the one FoldSink would keep.
class FoldParts::FirstType final : public EventSink {
 public:
  EventMask wants() const override { return EventMask::All().WithStacks(false); }
  absl::Status OnEvent(const Event& e) override {
    if (!IsStackEvent(e.kind()) || e.name.empty()) return absl::OkStatus();
    name = std::string(e.name);
    return absl::CancelledError("found");
  }
  std::string name;
};

// One part: a FoldSink, behind the filter when there is one.
class FoldParts::Part final : public EventSink {
 public:
  // No worker thread: each part already runs on a thread of its own.
  Part(const FoldOptions& opt, const Filter* filter) : fold(WithoutWorker(opt)) {
    if (filter) filtered_ = std::make_unique<FilterSink>(*filter, fold);
    next_ = filtered_ ? static_cast<EventSink*>(filtered_.get()) : &fold;
  }
  EventMask wants() const override { return next_->wants(); }
  absl::Status OnEvent(const Event& e) override { return next_->OnEvent(e); }
  absl::Status Finish() override { return next_->Finish(); }
  FoldSink fold;

 private:
  static FoldOptions WithoutWorker(FoldOptions opt) {
    opt.worker_thread = false;
    return opt;
  }
  std::unique_ptr<FilterSink> filtered_;
  EventSink* next_;
};

FoldParts::FoldParts(FoldSink& out, const Filter* filter) : out_(out), filter_(filter) {
  if (filter_) whole_ = std::make_unique<FilterSink>(*filter_, out_);
}

FoldParts::~FoldParts() = default;

EventSink& FoldParts::Whole() { return whole_ ? *whole_ : out_; }

EventSink* FoldParts::Prescan() {
  if (!out_.event_type().empty()) return nullptr;  // --event-filter: nothing to learn
  first_ = std::make_unique<FirstType>();
  if (!filter_) return first_.get();
  first_filtered_ = std::make_unique<FilterSink>(*filter_, *first_);
  return first_filtered_.get();
}

std::unique_ptr<EventSink> FoldParts::NewPart() {
  auto p = std::make_unique<Part>(out_.options(), filter_);
  if (first_ && !first_->name.empty()) p->fold.SetDefaultType(first_->name);
  return p;
}

void FoldParts::MergePart(EventSink& part) {
  out_.Merge(std::move(static_cast<Part&>(part).fold));
}

void FoldSink::Merge(FoldSink&& other) {
  Settle();
  other.Settle();
  sorted_valid_ = false;
  // The smaller map into the larger (the first part's moves in whole): copying both into the
  // empty map hashed and copied every stack of both parts.
  if (other.stacks_.size() > stacks_.size()) stacks_.swap(other.stacks_);
  // The smaller's strings are moved in, not copied.
  for (auto it = other.stacks_.begin(); it != other.stacks_.end();) {
    auto moved = stacks_.insert(other.stacks_.extract(it++));
    if (!moved.inserted) moved.position->second += moved.node.mapped();
  }
  other.stacks_.clear();
  MergeCounts(other);
}

void FoldSink::Merge(const FoldSink& other) {
  Settle();
  other.Join();
  sorted_valid_ = false;
  for (const auto& [k, v] : other.stacks_) stacks_[k] += v;
  if (other.runs_valid_) {
    ForEachMerged(other.runs_, [this](std::string_view line, uint64_t count) {
      stacks_[std::string(line)] += count;
    });
  }
  MergeCounts(other);
}

void FoldSink::MergeCounts(const FoldSink& other) {
  if (filter_.empty()) {
    filter_ = other.filter_;
    defaulted_ = other.defaulted_;
  }
  if (first_filtered_.empty()) first_filtered_ = other.first_filtered_;
  samples_ += other.samples_;
  unstacked_ += other.unstacked_;
  dropped_types_.insert(other.dropped_types_.begin(), other.dropped_types_.end());
}

std::string FoldSink::NothingFoldedReason() const {
  if (samples_ > 0) return "";
  if (unstacked_ > 0) {
    return "no stacks: " +
           (opt_.event_filter.empty() ? std::string("the input's events have")
                                      : "the " + opt_.event_filter + " events have") +
           " no callchain (record with perf record -g)";
  }
  if (!opt_.event_filter.empty()) {
    std::vector<std::string> types(dropped_types_.begin(), dropped_types_.end());
    std::sort(types.begin(), types.end());
    std::string have;
    for (const std::string& t : types) have += (have.empty() ? "" : ", ") + t;
    return "no " + opt_.event_filter + " events (--event-filter); the input has " +
           (have.empty() ? std::string("no samples") : have);
  }
  return "no samples to fold (record with perf record -g)";
}

void FoldSink::Write(std::ostream& out) const {
  Join();
  if (runs_valid_) return WriteRuns(runs_, out);
  if (sorted_valid_) return WriteSorted(sorted_, out);
  WriteFolded(stacks_, out);
}

size_t FoldSink::distinct_stacks() const {
  Join();
  if (!runs_valid_) return stacks_.size();
  size_t n = 0;
  ForEachMerged(runs_, [&n](std::string_view, uint64_t) { ++n; });
  return n;
}

void FoldSink::WriteJson(std::ostream& out) const {
  Join();
  nlohmann::json j = runs_valid_ ? FoldedJson(runs_, filter_) : FoldedJson(stacks_, filter_);
  j["samples"] = samples_;  // events folded; `total` sums their weights
  // Replace, not throw, on invalid UTF-8 in symbol names.
  out << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace tk::analyses::fold
