// A memo of symbolized stacks in two halves, so that the costly half runs on the reading
// thread (parsers/perf_data/stack_keys.h) while the decoding thread symbolizes:
//   - StackKeys: the bytes that determine a stack apart from the maps (its raw addresses) →
//     a key id, 1, 2, ... in order of first repeat. Repeated stacks dominate many profiles,
//     but in a `perf record -a -g` of -O2 code most keys are seen once (short stacks, varying
//     leaf IPs): the probes of these tables, cache misses each, were a quarter of the
//     decoding thread of `tk fold` when they ran there.
//   - StackMemo: a key id and the generations of the maps its addresses were resolved in →
//     the frames once built and a stack id (Event::stack_id: 1, 2, ... in order of
//     memoization). The decoder resolves each stack once more and hands the memo's frames
//     out again; a key id is a direct index, so a repeat costs one load, not a probe.
//
// Memory grows with the distinct stacks, never with the samples: keys and frames live in
// arenas (blocks of a fixed size, never moved), so a stack's frames stay where they are until
// the memo is destroyed; a key seen once costs 8 bytes.
#ifndef TK_PARSERS_SYMBOLIZE_STACK_MEMO_H_
#define TK_PARSERS_SYMBOLIZE_STACK_MEMO_H_

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/types/span.h"
#include "core/event.h"
#include "core/large_alloc.h"
#include "core/strings.h"

namespace tk::parsers::symbolize {

// Bump allocation in blocks of raw memory (T trivially copyable: what Alloc hands out is
// written before it is read); what is handed out never moves. After a first block of 64 KiB,
// blocks of 4 MiB, which AllocLarge maps in huge pages (core/large_alloc.h), faulted in as
// they are written: the memo's frames of a `perf record -a -g` file are a few MB, and 4 KiB
// pages, zeroed a block at a time, were 503 page faults of the decoding thread (cc20k.data).
template <typename T>
class Arena {
 public:
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
  T* Alloc(size_t n);

 private:
  static constexpr size_t kFirstBlock = size_t{64} << 10, kBlock = size_t{4} << 20;  // bytes
  struct Block {
    explicit Block(size_t n) : p(static_cast<T*>(AllocLarge(n * sizeof(T)))), n(n) {}
    Block(Block&& o) noexcept : p(std::exchange(o.p, nullptr)), n(o.n) {}
    Block& operator=(Block&&) = delete;
    ~Block() { FreeLarge(p, n * sizeof(T)); }
    T* p;
    size_t n;
  };
  std::vector<Block> blocks_;
  size_t used_ = 0, size_ = 0;
};

class StackKeys {
 public:
  // A key's hash, 8 bytes at a time (keys are raw addresses): Debian's Abseil hashes a
  // string_view with libstdc++'s byte loop, 100 instructions for a 3-frame key.
  static size_t Hash(std::string_view key) { return Hash({}, key); }
  // The Hash of the key `head` + `tail` (head a multiple of 8 bytes), without joining them:
  // the perf.data reader keys a sample by a few words of its own and the callchain as it lies
  // in the record (copied out, a memcpy call and a vector resize a sample: ~4% of keying's
  // instructions).
  static size_t Hash(std::string_view head, std::string_view tail);

  // The id of `key` (1, 2, ...), or 0 at its first sight: a key gets an id when it is seen
  // again soon enough, so the many stacks of a profile seen once cost nothing here, not
  // their bytes. "Seen" is a fixed table of hash fingerprints (kSeen slots, one per hash's
  // low bits, the last key's there): a key whose slot another key took since gets its id at
  // a later sight, and a key whose fingerprint another left there (1 in 2^15) at its first.
  // Either way the key is exact (the table compares its bytes); only when it gets an id
  // moves.
  // An exact set of every hash seen was 4+ MB on a 350k-sample `perf record -a -g` file,
  // two thirds of its keys seen once: a cache miss per sample, the most of this class's time.
  // The table is small for the same reason: 2^16 32-bit fingerprints (256 KiB) still missed
  // the cache at most loads (cachegrind, 1 MiB LL: 291k LL misses in 350k calls); 2^15 16-bit
  // ones (64 KiB) miss 162k times, for 1.7% fewer memo hits (105.7k of 350k samples, from
  // 107.5k).
  uint32_t Intern(std::string_view key) { return Intern(key, Hash(key)); }
  // The same with the key's Hash, computed ahead (Prefetch's).
  uint32_t Intern(std::string_view key, size_t hash) { return Intern({}, key, hash); }
  // The key `head` + `tail` (its two-part Hash): the same id as the joined key's.
  uint32_t Intern(std::string_view head, std::string_view tail, size_t hash);
  // Asks for the seen slot and the id table's slot of a key Intern gets later: at most calls
  // one or the other missed the cache otherwise.
  void Prefetch(size_t hash) const {
    __builtin_prefetch(&seen_[hash & (kSeen - 1)]);
    if (!slots_.empty()) __builtin_prefetch(&slots_[(hash >> 32) & mask_]);
  }

  size_t size() const { return count_; }

 private:
  static constexpr size_t kSeen = size_t{1} << 15;  // 64 KiB of fingerprints
  // The ids: open addressing, linear probing from the slot of the tag's low bits, at most
  // half full. A slot's key is in keys_ (its 4-byte size, then its bytes); `tag`, the hash's
  // high 32 bits, is compared before the bytes and places the key again when the table
  // grows. Abseil's map, which this replaced, kept its control bytes and its slots apart: a
  // probe was two loads in a row, neither of which could be asked for ahead (half of
  // Intern's time was the slot's load).
  struct Slot {
    const char* key = nullptr;  // null: empty
    uint32_t tag = 0, id = 0;
  };
  static bool SameKey(const char* stored, std::string_view head, std::string_view tail) {
    uint32_t size;
    std::memcpy(&size, stored, 4);
    return size == head.size() + tail.size() &&
           (head.empty() || EqualBytes(stored + 4, head.data(), head.size())) &&
           (tail.empty() || EqualBytes(stored + 4 + head.size(), tail.data(), tail.size()));
  }
  void Grow();
  // Past 2 MiB in huge pages (core/large_alloc.h): grown by doubling to a few MB on a
  // `perf record -a -g` file, each new table was faulted in 4 KiB at a time (~700 page
  // faults of the reading thread on a 40 MB file).
  std::vector<Slot, LargeAllocator<Slot>> slots_;
  size_t mask_ = 0;
  uint32_t count_ = 0;
  std::vector<uint16_t> seen_ = std::vector<uint16_t>(kSeen);  // fingerprints; 0: none
  Arena<char> keys_;
};

class StackMemo {
 public:
  struct Stack {
    uint64_t id = 0;  // > 0
    absl::Span<const Frame> frames;
    // The stack was dropped (Event::dropped_stack_ip): the sample's IP; else null.
    const Frame* dropped_ip = nullptr;
  };

  // The stack memoized for key id `key` (> 0) under these two generations, or null. The
  // pointer is valid until the next Add.
  const Stack* Find(uint32_t key, uint64_t maps_generation, uint64_t kernel_generation) const {
    if (key >= slots_.size()) return nullptr;
    const Slot& s = slots_[key];
    return s.stack.id && s.maps_generation == maps_generation &&
                   s.kernel_generation == kernel_generation
               ? &s.stack
               : nullptr;
  }
  // Asks for key id `key`'s entry ahead of its Find (ids are in order of first repeat, so
  // consecutive samples' entries are far apart: Find's load missed the cache at most repeats).
  void Prefetch(uint32_t key) const {
    if (key < slots_.size()) __builtin_prefetch(&slots_[key]);
  }
  // The stack id key id `key` has under any generations (0: none), for a hint ahead of Find.
  uint64_t IdOf(uint32_t key) const { return key < slots_.size() ? slots_[key].stack.id : 0; }
  // Whether to memoize a stack that Find did not have: yes for a key id without a stack (ids
  // come at a key's second sight); for one whose stack has other generations, at its second
  // sight under the new ones (maps that keep changing, a JIT's, would otherwise memoize a
  // copy of the frames per sample).
  bool ShouldAdd(uint32_t key, uint64_t maps_generation, uint64_t kernel_generation);
  // Memoizes `frames` and `dropped_ip` (copied; may be null) for key id `key` under these
  // generations, replacing what the key had (the frames handed out before stay valid, under
  // their own stack id); returns the entry as Find does.
  const Stack* Add(uint32_t key, uint64_t maps_generation, uint64_t kernel_generation,
                   absl::Span<const Frame> frames, const Frame* dropped_ip);

  // Stacks memoized (stack ids handed out).
  size_t size() const { return stacks_; }

 private:
  struct Slot {
    uint64_t maps_generation = 0, kernel_generation = 0;
    Stack stack;  // id 0: none
    uint64_t pending_maps = 0, pending_kernel = 0;  // ShouldAdd's first sight of others
  };
  // By key id. Past 256 KiB in huge pages (core/large_alloc.h), from 2 MiB on: grown by
  // doubling in 4 KiB pages, each copy faulted in again, it was 892 page faults of the
  // decoding thread on cc20k.data.
  std::vector<Slot, LargeAllocator<Slot>> slots_;
  size_t stacks_ = 0;
  Arena<Frame> frames_;
};

}  // namespace tk::parsers::symbolize

#endif  // TK_PARSERS_SYMBOLIZE_STACK_MEMO_H_
