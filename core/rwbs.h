// The rwbs string of block tracepoints (the kernel's blk_fill_rwbs), as a typed value.
//
//   6.x : "WS" "WSM" "FWFS" (jbd2 commit: preflush, write, FUA, sync) "RA" "N" "FF" "DE"
//   3.x : "WS" "R" "WBS"? no: 3.x has the same letters plus "E" (secure) as a suffix
//
// Layout: optional leading F (preflush); the operation (W R D DE F N, zone ops ZA ZR ZF ZO ZC,
// WZ write-zeroes); then suffixes F (FUA) A (readahead) S (sync) M (meta) U (atomic) E (3.x
// secure). Unknown letters are kept in `unknown` so nothing is silently lost.
#ifndef TK_CORE_RWBS_H_
#define TK_CORE_RWBS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tk {

struct Rwbs {
  enum class Op : uint8_t {
    kNone,          // empty rwbs
    kRead,          // R
    kWrite,         // W
    kDiscard,       // D
    kSecureErase,   // DE
    kFlush,         // F (op position)
    kOther,         // N
    kWriteZeroes,   // WZ
    kZoneAppend,    // ZA
    kZoneReset,     // ZR
    kZoneFinish,    // ZF
    kZoneOpen,      // ZO
    kZoneClose,     // ZC
  };
  enum Flag : uint8_t {
    kPreflush = 1 << 0,   // leading F
    kFua = 1 << 1,        // F suffix
    kReadahead = 1 << 2,  // A
    kSync = 1 << 3,       // S
    kMeta = 1 << 4,       // M
    kAtomic = 1 << 5,     // U
    kSecure = 1 << 6,     // E suffix (3.x)
    kUnknown = 1 << 7,    // a letter tk does not know was present
  };

  Op op = Op::kNone;
  uint8_t flags = 0;

  bool has(Flag f) const { return flags & f; }
  bool is_write() const { return op == Op::kWrite || op == Op::kWriteZeroes; }
  bool is_read() const { return op == Op::kRead; }
  // Synchronous from the submitter's point of view: S, FUA or preflush.
  bool is_sync_write() const {
    return is_write() && (flags & (kSync | kFua | kPreflush));
  }

  // Parses the kernel's rwbs text. Never fails: unknown letters set kUnknown.
  static Rwbs Parse(std::string_view s);
  // Formats back to the kernel's letters, as blk_fill_rwbs writes them (6.x order).
  std::string ToString() const;

  bool operator==(const Rwbs&) const = default;
};

}  // namespace tk

#endif  // TK_CORE_RWBS_H_
