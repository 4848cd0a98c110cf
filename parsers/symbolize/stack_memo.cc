#include "parsers/symbolize/stack_memo.h"

#include <algorithm>
#include <cstring>

namespace tk::parsers::symbolize {

template <typename T>
T* StackMemo::Arena<T>::Alloc(size_t n) {
  if (n == 0) return nullptr;
  if (blocks_.empty() || used_ + n > size_) {
    size_ = std::max(n, kBlock);
    blocks_.push_back(std::make_unique<T[]>(size_));
    used_ = 0;
  }
  T* p = blocks_.back().get() + used_;
  used_ += n;
  return p;
}

const StackMemo::Stack* StackMemo::Add(std::string_view key, absl::Span<const Frame> frames,
                                       const Frame* dropped_ip) {
  char* k = keys_.Alloc(key.size());
  if (!key.empty()) std::memcpy(k, key.data(), key.size());
  const size_t n = frames.size() + (dropped_ip ? 1 : 0);
  Frame* f = frames_.Alloc(n);
  std::copy(frames.begin(), frames.end(), f);
  Stack s;
  s.id = stacks_.size() + 1;
  s.frames = absl::MakeConstSpan(f, frames.size());
  if (dropped_ip) {
    f[frames.size()] = *dropped_ip;
    s.dropped_ip = f + frames.size();
  }
  return &stacks_.emplace(std::string_view(k, key.size()), s).first->second;
}

}  // namespace tk::parsers::symbolize
