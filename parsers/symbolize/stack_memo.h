// A memo of symbolized stacks: a key (bytes that determine a stack: its raw addresses and the
// generations of the maps they were resolved in) → the frames once built and a stack id
// (Event::stack_id: 1, 2, ... in order of memoization). Repeated stacks dominate a profile:
// the decoder resolves each one once more and hands the memo's frames out again.
//
// Memory grows with the distinct stacks, never with the samples: keys and frames live in
// arenas (blocks of a fixed size, never moved), so a stack's frames stay where they are until
// the memo is destroyed.
#ifndef TK_PARSERS_SYMBOLIZE_STACK_MEMO_H_
#define TK_PARSERS_SYMBOLIZE_STACK_MEMO_H_

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/types/span.h"
#include "core/event.h"

namespace tk::parsers::symbolize {

class StackMemo {
 public:
  struct Stack {
    uint64_t id = 0;  // > 0
    absl::Span<const Frame> frames;
    // The stack was dropped (Event::dropped_stack_ip): the sample's IP; else null.
    const Frame* dropped_ip = nullptr;
  };

  static size_t Hash(std::string_view key) { return absl::Hash<std::string_view>{}(key); }

  // The stack memoized under `key` (whose Hash is `hash`), or null. The pointer is valid
  // until the next Add.
  const Stack* Find(std::string_view key, size_t hash) const {
    auto it = stacks_.find(key, hash);
    return it == stacks_.end() ? nullptr : &it->second;
  }
  // Whether a key of this hash was offered before: a stack is memoized at its second sight,
  // so the many stacks of a profile seen once cost 8 bytes here, not their frames. (Two keys
  // of one hash only make the second memoized at once.)
  bool SeenBefore(size_t hash) { return !seen_.insert(hash).second; }
  // Memoizes `frames` and `dropped_ip` (copied; may be null) under `key` (not present yet);
  // returns the entry as Find does. The frames' addresses stay valid as long as the memo.
  const Stack* Add(std::string_view key, absl::Span<const Frame> frames, const Frame* dropped_ip);

  size_t size() const { return stacks_.size(); }

 private:
  // Bump allocation in blocks of at least kBlock elements; what is handed out never moves.
  template <typename T>
  class Arena {
   public:
    T* Alloc(size_t n);

   private:
    static constexpr size_t kBlock = 1 << 14;
    std::vector<std::unique_ptr<T[]>> blocks_;
    size_t used_ = 0, size_ = 0;
  };

  absl::flat_hash_map<std::string_view, Stack> stacks_;  // keys in keys_
  absl::flat_hash_set<uint64_t> seen_;                   // SeenBefore
  Arena<char> keys_;
  Arena<Frame> frames_;
};

}  // namespace tk::parsers::symbolize

#endif  // TK_PARSERS_SYMBOLIZE_STACK_MEMO_H_
