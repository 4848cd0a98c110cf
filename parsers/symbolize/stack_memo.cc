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

size_t StackKeys::Hash(std::string_view head, std::string_view tail) {
  constexpr uint64_t kMul = 0x9e3779b97f4a7c15ULL;
  uint64_t h = (head.size() + tail.size()) * kMul;
  auto words = [&](std::string_view part) {
    size_t i = 0;
    for (; i + 8 <= part.size(); i += 8) {
      uint64_t w;
      std::memcpy(&w, part.data() + i, 8);
      h = (h ^ w) * kMul;
      h ^= h >> 29;
    }
    return i;
  };
  words(head);  // (a multiple of 8 bytes: the words go on across the parts)
  const size_t i = words(tail);
  if (i < tail.size()) {
    uint64_t w = 0;
    std::memcpy(&w, tail.data() + i, tail.size() - i);
    h = (h ^ w) * kMul;
  }
  // murmur3's finalizer: every bit of h reaches the low bits (the table's H2) and the high.
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  return h ^ (h >> 33);
}

void StackKeys::Grow() {
  std::vector<Slot, LargeAllocator<Slot>> old;
  old.swap(slots_);
  slots_.resize(old.empty() ? 4096 : 2 * old.size());
  mask_ = slots_.size() - 1;
  for (const Slot& o : old) {
    if (!o.key) continue;
    size_t i = o.tag & mask_;
    while (slots_[i].key) i = (i + 1) & mask_;
    slots_[i] = o;
  }
}

uint32_t StackKeys::Intern(std::string_view head, std::string_view tail, size_t hash) {
  // Most keys of a profile are seen once: for them the seen slot and one slot of the table
  // (empty, or another key's) are the whole cost.
  uint16_t& seen = seen_[hash & (kSeen - 1)];
  const uint16_t fingerprint = static_cast<uint16_t>(hash >> 48) | 1;
  const bool again = seen == fingerprint;
  seen = fingerprint;
  if (slots_.empty()) {
    if (!again) return 0;
    Grow();
  }
  const auto tag = static_cast<uint32_t>(hash >> 32);
  size_t i = tag & mask_;
  for (; slots_[i].key; i = (i + 1) & mask_) {
    // A key with an id whose seen slot another key took: still its id.
    if (slots_[i].tag == tag && SameKey(slots_[i].key, head, tail)) return slots_[i].id;
  }
  if (!again) return 0;
  if (2 * (size_t{count_} + 1) > slots_.size()) {
    Grow();
    i = tag & mask_;
    while (slots_[i].key) i = (i + 1) & mask_;
  }
  const auto size = static_cast<uint32_t>(head.size() + tail.size());
  char* k = keys_.Alloc(4 + size);
  std::memcpy(k, &size, 4);
  if (!head.empty()) std::memcpy(k + 4, head.data(), head.size());
  if (!tail.empty()) std::memcpy(k + 4 + head.size(), tail.data(), tail.size());
  slots_[i] = Slot{k, tag, ++count_};
  return count_;
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
