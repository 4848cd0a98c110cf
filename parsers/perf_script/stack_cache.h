// A cache of whole stack blocks of `perf script` text, by their bytes.
//
// A sample's stack is the block of lines between its header line and the blank line that
// ends it. System-wide profiles repeat the same stacks over and over (the idle loop, a hot
// loop of one process): finding the block's end (one vectorized scan for "\n\n") and hashing
// its bytes costs a fraction of splitting and parsing its lines, so a parser keeps the frames
// it parsed from each distinct block and reuses them when the same bytes come again, giving
// the event the block's Event::stack_id (equal ids: equal bytes, so equal frames).
//
// Only blocks whose every line parsed cleanly, ended by an exact blank line ("\n", not a
// blank "\r\n" or "  \n"), are kept: a block that made the parser report something is parsed
// (and reported) again each time it occurs. The frames' views and the keys are copies in the
// cache's own memory (a released page of the input is never read again). Memory grows with
// the distinct stacks, up to kMaxBytes; after that new blocks are parsed every time.
#ifndef TK_PARSERS_PERF_SCRIPT_STACK_CACHE_H_
#define TK_PARSERS_PERF_SCRIPT_STACK_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/event.h"
#include "parsers/perf_script/arena.h"

namespace tk::parsers::perf_script {

// The first "\n\n" at or after `p` (before `e`): a pointer to its first '\n', or nullptr.
const char* FindDoubleNewline(const char* p, const char* e);

// Finds the block that follows each header line, scanning each byte of the text at most
// once however the events end (text without blank lines costs one scan, not one per event).
class BlockFinder {
 public:
  // `rest` is what follows a header line (after its "\n"), in the same text for every call,
  // at increasing positions. Returns the length of the stack block (its lines with their
  // "\n"; 0 when the header is followed by the blank line), so that rest[length] is the '\n'
  // of the blank line; npos when no "\n\n" follows.
  size_t BlockLength(std::string_view rest);

 private:
  const char* blank_ = nullptr;  // the blank line ('\n') last found, or the text's end
  bool none_ = false;            // no "\n\n" after blank_'s search start
};

class StackCache {
 public:
  // Blocks longer than this are not cached (a pathological input, not a stack).
  static constexpr size_t kMaxBlock = 64 << 10;
  // Bytes kept for blocks and their frames' names before the cache stops growing.
  static constexpr size_t kMaxBytes = 64 << 20;

  struct Entry {
    uint64_t id;           // Event::stack_id, from 1
    uint32_t first_frame;  // in frames_
    uint32_t frames;
    uint32_t lines;  // lines of the block (without the blank line)
    bool callchain;
  };

  // A block's bytes and their hash, computed once for Prefetch and Find.
  struct Key {
    Key() = default;
    explicit Key(std::string_view b)
        : bytes(b), hash(absl::Hash<absl::string_view>{}(absl::string_view(b.data(), b.size()))) {}
    std::string_view bytes;
    size_t hash = 0;
  };

  // Starts loading what Find(key) will read (the cache is larger than the CPU caches: each
  // lookup misses them); the parser asks for the next event's block while it still has this
  // one's header to parse.
  void Prefetch(const Key& key) const { index_.prefetch(key); }
  // The entry of a block with these bytes, or nullptr.
  const Entry* Find(const Key& key) const {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &it->second;
  }
  // Remembers `frames` parsed from `block` (their views point into it) and returns the entry,
  // or nullptr when the cache is full or the block too long.
  const Entry* Add(const Key& block, absl::Span<const Frame> frames, bool callchain);
  absl::Span<const Frame> Frames(const Entry& e) const {
    return absl::MakeConstSpan(frames_).subspan(e.first_frame, e.frames);
  }
  size_t size() const { return index_.size(); }

 private:
  // Abseil's hash of the bytes (absl::Hash of a std::string_view falls back to std::hash in
  // Debian's Abseil: libstdc++'s slower _Hash_bytes).
  struct KeyHash {
    size_t operator()(const Key& k) const { return k.hash; }
  };
  struct KeyEq {
    bool operator()(const Key& a, const Key& b) const {
      return a.hash == b.hash && a.bytes == b.bytes;
    }
  };
  // Keys in bytes_; the entry in the slot, so that a hit reads the slot and the key only.
  absl::flat_hash_map<Key, Entry, KeyHash, KeyEq> index_;
  std::vector<Frame> frames_;
  Arena bytes_;  // never Reset
  size_t held_ = 0;
};

}  // namespace tk::parsers::perf_script

#endif  // TK_PARSERS_PERF_SCRIPT_STACK_CACHE_H_
