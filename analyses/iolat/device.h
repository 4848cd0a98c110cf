// Device numbers, and who a block request's comm says issued it.
#ifndef TK_ANALYSES_IOLAT_DEVICE_H_
#define TK_ANALYSES_IOLAT_DEVICE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "core/rwbs.h"

namespace tk::iolat {

// MAJ,MIN packed in one integer (major in the high half) so it sorts as blkparse sorts.
using DevId = uint64_t;
inline DevId MakeDev(uint32_t major, uint32_t minor) {
  return (static_cast<uint64_t>(major) << 32) | minor;
}
inline uint32_t DevMajor(DevId d) { return static_cast<uint32_t>(d >> 32); }
inline uint32_t DevMinor(DevId d) { return static_cast<uint32_t>(d); }
// "8,0", as blkparse and the block tracepoints print devices.
std::string DevName(DevId d);

// The loop driver's fixed major (Documentation/admin-guide/devices.txt).
inline constexpr uint32_t kLoopMajor = 7;

// Who issued a request, judged by the comm of the task that queued (or issued) it:
//   jbd2/loop0-8, jbd2/sda2-8          kJournal  (ext4/ext3 journal commits)
//   kworker/u8:2, flush-8:0 (3.x bdi)  kFlusher  (writeback on behalf of earlier writers)
//   loop1 (3.x loop thread)            kStacked  (a loop device's own I/O to its backing file)
//   dd, postgres, git                  kWriter   (the application, in its own context)
enum class Issuer : uint8_t { kWriter, kJournal, kFlusher, kStacked, kKernel };
Issuer ClassifyComm(std::string_view comm);
std::string_view IssuerName(Issuer i);
// For "loop1"-style comms (3.x loop kthreads): the loop device's minor, else -1.
int LoopThreadMinor(std::string_view comm);

// bcc biolatency -F names (flags_print): the operation, then prefixes added in bcc's order
// Sync-, Metadata-, ForcedUnitAccess-, ReadAhead- (so "ForcedUnitAccess-Metadata-Sync-Write").
// bcc has no name for REQ_PREFLUSH; tk prefixes "PreFlush-" so jbd2's FWFS stays distinct
// (not on flush requests, "FF", which always carry it: those are "Flush").
std::string BccFlagsName(const Rwbs& r);

}  // namespace tk::iolat

#endif  // TK_ANALYSES_IOLAT_DEVICE_H_
