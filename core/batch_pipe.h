// A bounded hand-off of batches from one producer thread to one consumer thread: the
// decode-vs-analysis stage. A parser's reading side (framing, time ordering) fills batches on
// a worker thread while the calling thread decodes and analyses the previous ones, so every
// sink still runs on the thread that called it and sees the same items in the same order as
// with one thread (outputs are identical by construction).
//
// At most `max_queued` filled batches wait; a producer that gets ahead blocks in Put, so
// memory stays bounded by max_queued + 2 batches whatever the input's size. Batches are
// recycled (Get returns a used one when there is one): their buffers keep their capacity, so
// the steady state allocates nothing.
//
//   producer:  b = pipe.Get(); fill *b; if (!pipe.Put(std::move(b))) stop;  ...  pipe.Close();
//   consumer:  while (auto b = pipe.Take()) { use *b; pipe.Done(std::move(b)); }
//
// Barrier(): the producer waits until the consumer has finished every batch it was given
// (then the producer may touch state the consumer reads, e.g. a header record that changes
// the event table; the mutex hand-off orders those writes before the consumer's next Take).
// Cancel(): the consumer gives up (its sink failed); Put and Barrier then return false.
#ifndef TK_CORE_BATCH_PIPE_H_
#define TK_CORE_BATCH_PIPE_H_

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

namespace tk {

template <typename Batch>
class BatchPipe {
 public:
  explicit BatchPipe(size_t max_queued = 4) : max_queued_(max_queued) {}

  // Producer: an empty batch (a recycled one when available; the caller clears it).
  std::unique_ptr<Batch> Get() {
    std::lock_guard<std::mutex> lock(mu_);
    if (free_.empty()) return std::make_unique<Batch>();
    std::unique_ptr<Batch> b = std::move(free_.back());
    free_.pop_back();
    return b;
  }

  // Batches waiting for the consumer (as of the call: the consumer may take one meanwhile).
  size_t queued() {
    std::lock_guard<std::mutex> lock(mu_);
    return full_.size();
  }

  // Producer: hands `b` over; blocks while max_queued batches wait. False when cancelled.
  bool Put(std::unique_ptr<Batch> b) {
    std::unique_lock<std::mutex> lock(mu_);
    space_cv_.wait(lock, [&] { return cancelled_ || full_.size() < max_queued_; });
    if (cancelled_) return false;
    full_.push_back(std::move(b));
    ++put_;
    work_cv_.notify_one();
    return true;
  }

  // Producer: Put, doing `idle()` while no room is free instead of sleeping: idle returns
  // false when it had nothing to do, and the producer then sleeps until room frees up or a
  // short while has passed (the work idle does may arrive meanwhile, unannounced).
  template <typename Idle>
  bool Put(std::unique_ptr<Batch> b, Idle&& idle) {
    if (!WaitDoing(space_cv_, [&] { return full_.size() < max_queued_; }, idle)) return false;
    return Put(std::move(b));  // room is left: only this producer adds
  }

  // Producer (or any thread): Put without waiting; false (and `b` kept) when no room is free
  // or the pipe was cancelled.
  bool TryPut(std::unique_ptr<Batch>& b) {
    std::lock_guard<std::mutex> lock(mu_);
    if (cancelled_ || full_.size() >= max_queued_) return false;
    full_.push_back(std::move(b));
    ++put_;
    work_cv_.notify_one();
    return true;
  }

  // Consumer (or any thread): the next batch if one waits, else nullptr; never waits.
  std::unique_ptr<Batch> TryTake() {
    std::lock_guard<std::mutex> lock(mu_);
    if (cancelled_ || full_.empty()) return nullptr;
    std::unique_ptr<Batch> b = std::move(full_.front());
    full_.pop_front();
    space_cv_.notify_one();
    return b;
  }

  // Producer: Barrier, doing `idle()` meanwhile (as Put's). False when cancelled.
  template <typename Idle>
  bool Barrier(Idle&& idle) {
    return WaitDoing(idle_cv_, [&] { return done_ == put_; }, idle);
  }

  // Producer: waits until the consumer has Done() every batch Put so far. False when cancelled.
  bool Barrier() {
    std::unique_lock<std::mutex> lock(mu_);
    idle_cv_.wait(lock, [&] { return cancelled_ || done_ == put_; });
    return !cancelled_;
  }

  // Producer: no more batches.
  void Close() {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    work_cv_.notify_one();
  }

  // Consumer: the next batch, or nullptr once the producer closed and all were taken (or the
  // pipe was cancelled).
  std::unique_ptr<Batch> Take() {
    std::unique_lock<std::mutex> lock(mu_);
    work_cv_.wait(lock, [&] { return cancelled_ || closed_ || !full_.empty(); });
    if (cancelled_ || full_.empty()) return nullptr;
    std::unique_ptr<Batch> b = std::move(full_.front());
    full_.pop_front();
    space_cv_.notify_one();
    return b;
  }

  // Consumer: finished with `b` (it goes back to the free list).
  void Done(std::unique_ptr<Batch> b) {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(std::move(b));
    ++done_;
    idle_cv_.notify_one();
  }

  // Consumer: stop the producer (Put and Barrier return false from now on).
  void Cancel() {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
    space_cv_.notify_all();
    idle_cv_.notify_all();
    work_cv_.notify_all();
  }

 private:
  // How long an idle-doing producer sleeps before it looks for work again.
  static constexpr std::chrono::microseconds kIdlePoll{50};

  // Waits until `ready()` (read under the lock) or a cancel, running `idle()` instead of
  // sleeping while it finds work, else sleeping on `cv` for kIdlePoll at most. False when
  // cancelled.
  template <typename Ready, typename Idle>
  bool WaitDoing(std::condition_variable& cv, Ready ready, Idle& idle) {
    while (true) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (cancelled_) return false;
        if (ready()) return true;
      }
      if (idle()) continue;
      std::unique_lock<std::mutex> lock(mu_);
      cv.wait_for(lock, kIdlePoll, [&] { return cancelled_ || ready(); });
    }
  }

  const size_t max_queued_;
  std::mutex mu_;
  std::condition_variable work_cv_, space_cv_, idle_cv_;
  std::deque<std::unique_ptr<Batch>> full_;
  std::vector<std::unique_ptr<Batch>> free_;
  uint64_t put_ = 0, done_ = 0;
  bool closed_ = false, cancelled_ = false;
};

}  // namespace tk

#endif  // TK_CORE_BATCH_PIPE_H_
