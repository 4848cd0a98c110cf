#include "parsers/symbolize/stack_memo.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>

namespace tk::parsers::symbolize {

template <typename T>
T* Arena<T>::Alloc(size_t n) {
  if (n == 0) return nullptr;
  if (blocks_.empty() || used_ + n > size_) {
    size_ = std::max(n, (blocks_.empty() ? kFirstBlock : kBlock) / sizeof(T));
    blocks_.emplace_back(size_);
    used_ = 0;
  }
  T* p = blocks_.back().p + used_;
  used_ += n;
  return p;
}

size_t StackKeys::Hash(std::string_view key) {
  constexpr uint64_t kMul = 0x9e3779b97f4a7c15ULL;
  uint64_t h = key.size() * kMul;
  size_t i = 0;
  for (; i + 8 <= key.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, key.data() + i, 8);
    h = (h ^ w) * kMul;
    h ^= h >> 29;
  }
  if (i < key.size()) {
    uint64_t w = 0;
    std::memcpy(&w, key.data() + i, key.size() - i);
    h = (h ^ w) * kMul;
  }
  // murmur3's finalizer: every bit of h reaches the low bits (the table's H2) and the high.
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  return h ^ (h >> 33);
}

uint32_t StackKeys::Intern(std::string_view key, size_t hash) {
  // Most keys of a profile are seen once: for them one load of seen_ is the whole cost,
  // where looking in ids_ first cost a probe more.
  uint16_t& seen = seen_[hash & (kSeen - 1)];
  const uint16_t fingerprint = static_cast<uint16_t>(hash >> 48) | 1;
  auto it = ids_.end();
  if (seen != fingerprint) {
    seen = fingerprint;
    // A key with an id whose slot another key took: still its id.
    if (ids_.empty() || (it = ids_.find(key, hash)) == ids_.end()) return 0;
    return it->second;
  }
  it = ids_.find(key, hash);
  if (it != ids_.end()) return it->second;
  char* k = keys_.Alloc(key.size());
  if (!key.empty()) std::memcpy(k, key.data(), key.size());
  const uint32_t id = static_cast<uint32_t>(ids_.size() + 1);
  ids_.emplace(std::string_view(k, key.size()), id);
  return id;
}

bool StackMemo::ShouldAdd(uint32_t key, uint64_t maps_generation, uint64_t kernel_generation) {
  if (key >= slots_.size() || !slots_[key].stack.id) return true;
  Slot& s = slots_[key];
  if (s.pending_maps == maps_generation && s.pending_kernel == kernel_generation) return true;
  s.pending_maps = maps_generation;
  s.pending_kernel = kernel_generation;
  return false;
}

const StackMemo::Stack* StackMemo::Add(uint32_t key, uint64_t maps_generation,
                                       uint64_t kernel_generation, absl::Span<const Frame> frames,
                                       const Frame* dropped_ip) {
  if (key >= slots_.size()) {
    const size_t n = std::max<size_t>(key + 1, 2 * slots_.size());
    // Past 256 KiB straight to 2 MiB, one huge page (slots_' comment); small inputs stay in
    // operator new's memory.
    constexpr size_t kSmall = (size_t{256} << 10) / sizeof(Slot);
    if (n > slots_.capacity() && n > kSmall) {
      slots_.reserve(std::max(n, (size_t{2} << 20) / sizeof(Slot)));
    }
    slots_.resize(n);
  }
  const size_t n = frames.size() + (dropped_ip ? 1 : 0);
  Frame* f = frames_.Alloc(n);
  std::uninitialized_copy(frames.begin(), frames.end(), f);
  Slot& s = slots_[key];
  s.maps_generation = maps_generation;
  s.kernel_generation = kernel_generation;
  s.stack.id = ++stacks_;
  s.stack.frames = absl::MakeConstSpan(f, frames.size());
  s.stack.dropped_ip = nullptr;
  if (dropped_ip) {
    new (f + frames.size()) Frame(*dropped_ip);
    s.stack.dropped_ip = f + frames.size();
  }
  return &s.stack;
}

}  // namespace tk::parsers::symbolize
