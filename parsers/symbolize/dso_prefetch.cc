#include "parsers/symbolize/dso_prefetch.h"

#include <algorithm>

namespace tk::parsers::symbolize {

DsoPrefetch::DsoPrefetch(std::vector<std::pair<std::string, std::string>> dsos, LoadFn load)
    : load_(std::move(load)) {
  for (auto& [name, id] : dsos) {
    if (!by_name_.try_emplace(name, slots_.size()).second) continue;
    slots_.push_back(Slot{std::move(name), std::move(id), State::kPending, std::nullopt});
  }
  // Two threads: the largest file (cc1plus: ~3 ms) on one while the other loads the rest
  // (a dozen small ones, ~2.5 ms in all); one thread took them in turn, and the decoder waited
  // for the last ones it needed until ~8 ms into a run.
  const size_t threads = std::min<size_t>(kThreads, slots_.size());
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { Run(); });
}

DsoPrefetch::~DsoPrefetch() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  for (std::thread& t : threads_) t.join();
}

void DsoPrefetch::Run() {
  ElfFiles files;  // this thread's: ElfFiles is not shared between threads
  std::unique_lock<std::mutex> lock(mu_);
  for (Slot& s : slots_) {
    if (stop_) return;
    if (s.state != State::kPending) continue;  // claimed by Take
    s.state = State::kLoading;
    lock.unlock();
    std::optional<ElfImage> image = load_(s.name, s.build_id, &files);
    lock.lock();
    s.image = std::move(image);
    s.state = State::kDone;
    done_cv_.notify_all();
  }
}

bool DsoPrefetch::Take(const std::string& name, const std::string& build_id,
                       std::optional<ElfImage>* out) {
  std::unique_lock<std::mutex> lock(mu_);
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return false;
  Slot& s = slots_[it->second];
  if (s.state == State::kPending || s.state == State::kTaken) {
    s.state = State::kTaken;
    return false;
  }
  done_cv_.wait(lock, [&] { return s.state == State::kDone; });
  s.state = State::kTaken;
  if (s.build_id != build_id) return false;  // a later record changed it: load afresh
  *out = std::move(s.image);
  s.image.reset();
  return true;
}

}  // namespace tk::parsers::symbolize
