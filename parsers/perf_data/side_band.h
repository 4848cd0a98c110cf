// The side-band records that change a process's maps and threads (MMAP, MMAP2, COMM, FORK,
// EXIT), parsed once here for the two readers that track them in delivery order: the
// decoder (symbols, comms) and the unwinder that runs ahead of it (unwind_ahead.h).
#ifndef TK_PARSERS_PERF_DATA_SIDE_BAND_H_
#define TK_PARSERS_PERF_DATA_SIDE_BAND_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "parsers/parser.h"
#include "parsers/perf_data/sample.h"
#include "parsers/symbolize/machine.h"

namespace tk::parsers::perf_data {

// The symbolizer's options from the parse options.
symbolize::SymbolizeOptions SymbolizeOptionsOf(const ParseOptions& o);

// Inline: it runs a few times per sample (keys, stacks).
inline bool IsKernelMode(uint16_t misc) {
  const uint16_t m = misc & kMiscCpumodeMask;
  return m == kMiscKernel || m == kMiscGuestKernel;
}

// A NUL-terminated string in `s` (not past its end).
std::string_view CString(std::string_view s);

// MMAP:  {u32 pid, u32 tid, u64 start, u64 len, u64 pgoff, char filename[]} + trailer
//   PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1208d88) @ 0xffffffff81000000]: x [kernel.kallsyms]_text
// MMAP2: {u32 pid, tid, u64 start, len, pgoff, {u32 maj, min, u64 ino, ino_generation} or
// (misc bit 14) {u8 build_id_size, u8, u16, u8 build_id[20]}, u32 prot, u32 flags,
// char filename[]} + trailer
//   PERF_RECORD_MMAP2 5311/5311: [0x7f533dedb000(0x26000) @ 0x1000 fe:00 332383 0]: r-xp /usr/lib/.../ld-linux-x86-64.so.2
struct MmapRecord {
  int32_t pid = -1, tid = -1;
  uint64_t start = 0, len = 0, pgoff = 0;
  std::string_view filename;
  std::string build_id;  // hex; MMAP2 with misc bit 14 only
  bool kernel = false;   // a kernel (or guest kernel) map
  // Code: not an MMAP with PERF_RECORD_MISC_MMAP_DATA, not a user MMAP2 without PROT_EXEC.
  bool code = false;
};
// False when the record is too short.
bool ParseMmap(uint16_t misc, std::string_view body, bool swap, MmapRecord* m);
bool ParseMmap2(uint16_t misc, std::string_view body, bool swap, MmapRecord* m);

// COMM: {u32 pid, u32 tid, char comm[]} + trailer; misc bit 13 = exec.
struct CommRecord {
  int32_t pid = -1, tid = -1;
  std::string_view comm;
  bool exec = false;
};
std::optional<CommRecord> ParseComm(uint16_t misc, std::string_view body, bool swap);

// FORK and EXIT share their layout: {u32 pid, ppid, tid, ptid; u64 time} + trailer.
struct TaskRecord {
  int32_t pid, ppid, tid, ptid;
  uint64_t time;
};
std::optional<TaskRecord> ParseTaskRecord(std::string_view body, bool swap);

}  // namespace tk::parsers::perf_data

#endif  // TK_PARSERS_PERF_DATA_SIDE_BAND_H_
