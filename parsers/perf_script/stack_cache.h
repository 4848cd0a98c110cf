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
// (and reported) again each time it occurs. The cache keeps its own copy of each block (a
// released page of the input is never read again) with its frames as offsets into it; a hit
// hands the frames out as views into the text just looked up. Memory grows with the distinct
// stacks, up to kMaxBytes; after that new blocks are parsed every time.
//
// Off by default (PerfScriptOptions::stack_cache): see docs/performance.md, "Text fold".
#ifndef TK_PARSERS_PERF_SCRIPT_STACK_CACHE_H_
#define TK_PARSERS_PERF_SCRIPT_STACK_CACHE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/event.h"
#include "parsers/perf_script/arena.h"

namespace tk::parsers::perf_script {

// The first "\n\n" at or after `p` (before `e`): a pointer to its first '\n', or nullptr.
const char* FindDoubleNewline(const char* p, const char* e);

// Finds the block that follows each header line, scanning each byte of the text once when
// the calls come at increasing positions, however the events end (text without blank lines
// costs one scan, not one per event).
class BlockFinder {
 public:
  // `rest` is what follows a header line (after its "\n"), in the same text for every call.
  // Returns the length of the stack block (its lines with their "\n"; 0 when the header is
  // followed by the blank line), so that rest[length] is the '\n' of the blank line; npos
  // when no "\n\n" follows.
  size_t BlockLength(std::string_view rest);

 private:
  // The last search: from `from_` the first blank line ('\n' of "\n\n", second byte) is at
  // `blank_`, or there is none (`none_`).
  const char* from_ = nullptr;
  const char* blank_ = nullptr;
  bool none_ = false;
};

class StackCache {
 public:
  // Blocks longer than this are not cached (a pathological input, not a stack).
  static constexpr size_t kMaxBlock = (64 << 10) - 1;
  // Bytes kept for blocks and their frames' names before the cache stops growing.
  static constexpr size_t kMaxBytes = 64 << 20;

  // A frame as kept: its views as offsets into the block.
  struct KeptFrame {
    uint64_t ip;
    int64_t sym_offset;
    uint16_t symbol_at, symbol_len, dso_at, dso_len;
  };
  struct Entry {
    // The record: `frames` KeptFrames, then the block's bytes (one run of memory, fetched
    // together). Null in an empty slot.
    const KeptFrame* record;
    const char* bytes;
    uint64_t id;  // Event::stack_id, from 1
    uint32_t frames;
    uint32_t lines;  // lines of the block (without the blank line)
    bool callchain;
  };

  // A block's bytes and their hash (Abseil's: absl::Hash of a std::string_view falls back
  // to libstdc++'s slower _Hash_bytes in Debian's Abseil), computed once for the prefetches
  // and Find.
  struct Key {
    Key() = default;
    explicit Key(std::string_view b)
        : bytes(b), hash(absl::Hash<absl::string_view>{}(absl::string_view(b.data(), b.size()))) {}
    std::string_view bytes;
    size_t hash = 0;
  };

  // Lookups miss the CPU caches (the cache outgrows them), so the parser asks for an event's
  // block ahead: PrefetchSlot two events before its Find, PrefetchBytes (which reads the slot
  // fetched by then and fetches the block's bytes it holds) one event before.
  void PrefetchSlot(const Key& key) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[key.hash & mask_]);
  }
  void PrefetchBytes(const Key& key) const {
    if (slots_.empty()) return;
    const Slot& s = slots_[key.hash & mask_];
    if (s.entry.bytes && s.hash == key.hash) {
      const char* p = reinterpret_cast<const char*>(s.entry.record);
      const char* e = std::min(s.entry.bytes + s.len, p + 1024);
      for (; p < e; p += 64) __builtin_prefetch(p);
    }
  }
  // The entry of a block with these bytes, or nullptr.
  const Entry* Find(const Key& key) const {
    if (slots_.empty()) return nullptr;
    for (size_t i = key.hash & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (!s.entry.bytes) return nullptr;
      if (s.hash == key.hash && s.len == key.bytes.size() &&
          std::memcmp(s.entry.bytes, key.bytes.data(), s.len) == 0) {
        return &s.entry;
      }
    }
  }
  // Remembers `frames` parsed from `block` (their views point into it) and returns the entry,
  // or nullptr when the cache is full or the block too long.
  const Entry* Add(const Key& block, absl::Span<const Frame> frames, bool callchain);
  // Appends the entry's frames with their views into `block`, bytes equal to the entry's
  // (the text just looked up: the sink then reads what is in the CPU caches).
  void CopyFrames(const Entry& e, const char* block, std::vector<Frame>* out) const;
  size_t size() const { return size_; }

 private:
  // An open-addressing table (linear probing, at most half full) of its own, not
  // absl::flat_hash_map: PrefetchBytes reads a slot without comparing keys. The entry is in
  // the slot, so a hit reads the slot and the bytes only.
  struct Slot {
    uint64_t hash = 0;
    uint32_t len = 0;
    Entry entry{};  // entry.bytes in bytes_
  };
  void Grow();

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
  Arena bytes_;  // never Reset
  size_t held_ = 0;
};

}  // namespace tk::parsers::perf_script

#endif  // TK_PARSERS_PERF_SCRIPT_STACK_CACHE_H_
