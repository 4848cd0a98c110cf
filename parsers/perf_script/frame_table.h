// Frame lines of `perf script` text parsed once per distinct text, with interned names.
//
// A system-wide profile has millions of frame lines but a few thousand distinct frames. What
// follows a frame line's address,
//   \t    ffffffff815fc5b4 unmap_page_range+0x564 ([kernel.kallsyms])
//                         ^ the tail: decides symbol, offset and DSO (ParseFrameLine)
// is parsed the first time it occurs and kept under its bytes; a repeat costs the address's
// hex digits, a hash of the tail (computed while looking for the line's end, eight bytes at
// a time: one pass over the bytes) and a compare. Every symbol, DSO and comm handed out is
// interned: equal names have equal views, valid as long as the table. That is what
// Event::stable_views promises, so a sink may key frames by their views instead of their
// text (tk fold's StackFolder names each distinct frame once).
#ifndef TK_PARSERS_PERF_SCRIPT_FRAME_TABLE_H_
#define TK_PARSERS_PERF_SCRIPT_FRAME_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "core/byte_arena.h"
#include "core/event.h"
#include "core/strings.h"

namespace tk::parsers::perf_script {

class FrameTable {
 public:
  // Bytes of tails kept before the table stops growing (new tails are then parsed each
  // time; their names are still interned).
  static constexpr size_t kMaxTailBytes = 64 << 20;

  // ParseFrameLine(line), names interned.
  std::optional<Frame> Parse(std::string_view line);
  // A frame line with perf's usual shape, scanned (ScanLine) but not yet looked up.
  struct Line {
    const char* p;     // its '\t'
    const char* tail;  // after the address
    const char* nl;    // its "\n"
    uint64_t hash;     // of the tail
    uint64_t ip;
    const void* candidate;  // Prefetch's guess at its record (null: none)
  };
  // The frame line at `p` (p[0] is '\t'; its "\n" before `e`) when it has perf's usual
  // shape: blanks, hex address, ' ', a tail that does not end in a blank, "\n". False
  // (nothing read) when the line has another shape or no "\n" before `e`: the caller then
  // reads it as a line of its own (Parse, or whatever the tokenizer says it is). Asks the
  // CPU for the line's slot.
  bool ScanLine(const char* p, const char* e, Line* l) const;
  // Reads the slot ScanLine asked for and asks for the record it points to: called for a
  // run of lines before Resolve is called for them, the lookups' cache misses overlap.
  void Prefetch(Line* l) const;
  // The line's frame: ParseFrameLine's of the line, names interned.
  Frame Resolve(const Line& l);
  // The frame lines from `p` on (before `e`) as far as ScanLine takes them, their frames
  // appended to `out`, in runs of up to 32: scan them all (each asks for its slot), read the
  // slots (each asks for its record), then look them up, so the cache misses overlap.
  // Returns the byte after the last line taken (`p` when none) and their count in *lines.
  const char* ParseLines(const char* p, const char* e, std::vector<Frame>* out,
                         uint64_t* lines);
  // The text ending at `end` keeps its bytes in place until the parse ends (a mapped input):
  // ParseLines(p, end, ...) then reads ahead of `p`, across events, scanning up to kAhead
  // frame lines before they are asked for (each asks for its slot) and reading each slot
  // kStage lines before its line is looked up (asking for its record). A system-wide
  // profile's stacks are often two or three frames long: one event's run is too short to
  // hide the misses (the slot and record loads were a quarter of the text fold's time).
  // Results are the same: a line ahead is scanned exactly as ParseLines would scan it.
  void SetStableText(const char* end) {
    stable_end_ = end;
    ahead_ = asked_ = nullptr;
    read_ = write_ = staged_ = 0;
  }
  // `f` with its symbol and DSO interned.
  Frame InternNames(Frame f) {
    f.symbol = Intern(f.symbol);
    f.dso = Intern(f.dso);
    return f;
  }
  // A view of a copy of `s` that lives as long as the table; equal strings, equal views.
  std::string_view Intern(std::string_view s);
  // Intern for comms, with a small direct-mapped memo in front (a few comms take turns).
  std::string_view InternComm(std::string_view s) {
    const uint64_t h = Hash(s.data(), s.size());
    Memo& m = comm_memo_[h % kCommMemo];
    if (m.hash == h && m.view.size() == s.size() && !s.empty() &&
        EqualBytes(m.view.data(), s.data(), s.size())) {
      return m.view;
    }
    m = Memo{h, Intern(s)};
    return m.view;
  }
  size_t tails() const { return size_; }

  // The tail hash (ScanLine computes it while it scans; tests check the two agree).
  static uint64_t Hash(const char* s, size_t n);

 private:
  // A tail as kept: its frame (ip unused), then (right after the Record) its bytes.
  struct Record {
    Frame frame;
    uint32_t len;
    const char* bytes() const { return reinterpret_cast<const char*>(this + 1); }
  };
  struct Slot {
    uint64_t hash = 0;
    const Record* rec = nullptr;  // null: empty
  };
  const Record* Find(const char* tail, size_t n, uint64_t hash) const;
  // ParseLines over the stable text (SetStableText).
  const char* ParseLinesAhead(const char* p, const char* e, std::vector<Frame>* out,
                              uint64_t* lines);
  // The scanned line at `p` (a line start), its slot read; false when ScanLine does not
  // take the line.
  bool TakeAhead(const char* p, const char* e, Line* l);
  // Looks at the line at ahead_: a frame line ScanLine takes joins the ring.
  void ScanAhead(const char* e);
  // Parses the line [line, tail + n) the general way and keeps its tail.
  Frame Add(std::string_view line, const char* tail, size_t n, uint64_t hash, uint64_t ip);
  void Grow();

  struct Memo {
    uint64_t hash = 0;
    std::string_view view;
  };
  static constexpr size_t kCommMemo = 64;
  // The lookahead (SetStableText): lines [read_, write_) of the ring are scanned frame lines
  // at increasing positions before ahead_, the next line start the scan looks at; lines
  // before staged_ have had their slot read (Prefetch).
  static constexpr size_t kAhead = 32;  // a power of two
  static constexpr size_t kStage = 8;
  static constexpr ptrdiff_t kTextAhead = 1024;
  const char* stable_end_ = nullptr;
  const char* ahead_ = nullptr;
  const char* asked_ = nullptr;  // the line TakeAhead was last asked for
  uint64_t read_ = 0, write_ = 0, staged_ = 0;
  Line ring_[kAhead];
  Memo comm_memo_[kCommMemo];
  ByteArena store_;  // never Reset: tails and names
  size_t tail_bytes_ = 0;
  std::vector<Slot> slots_;  // open addressing, linear probing, at most half full
  size_t mask_ = 0, size_ = 0;
  struct NameHash {
    size_t operator()(absl::string_view s) const { return Hash(s.data(), s.size()); }
  };
  absl::flat_hash_set<absl::string_view, NameHash> names_;
};

}  // namespace tk::parsers::perf_script

#endif  // TK_PARSERS_PERF_SCRIPT_FRAME_TABLE_H_
