// The metadata of a trace.dat file (trace-cmd's format, versions 6 and 7): everything but the
// ring-buffer pages themselves, which CpuStream (cpu_stream.h) reads.
//
// Both versions start with
//   "\x17\x08\x44tracing"  "6\0" or "7\0"  u8 endian (0 little)  u8 user long size  u32 page size
//
// Version 6 then continues with perf's tracing-data layout (parsers/tep/tracing_data.h):
//   header_page, header_event, ftrace formats, event formats, u32 kallsyms, u32 printk,
//   u64 cmdlines; u32 cpus; ["options  \0" {u16 id, u32 size, data}... u16 0];
//   "flyrecord\0" {u64 offset, u64 size} × cpus           (or "latency  \0" + text)
//
// Version 7 is sectioned:
//   "zstd\0" "1.5.4\0" (or "none\0" "\0")  u64 offset of the first options section
//   section = {u16 id, u16 flags (1 = compressed), u32 string id, u64 size} data
//   compressed section data = {u32 csize, u32 usize} zstd bytes
//   options section (id 0): {u16 id, u32 size, data}... up to DONE {0, 8, u64 next options}
//   options point to sections: HEADER_INFO 16, FTRACE_EVENTS 17, EVENT_FORMATS 18,
//   KALLSYMS 19, PRINTK 20, CMDLINES 21; BUFFER 3 describes one ring buffer (instance):
//   {u64 section offset, name\0, clock\0, u32 page size, u32 n, n × {u32 cpu, u64 off, u64 size}}
//   and its CPU data, when the flyrecord section is compressed, is
//   {u32 chunks, chunks × {u32 csize, u32 usize, zstd frame}}.
//
// Real example (trace-cmd 3.1.6 extract, `trace-cmd dump --options`):
//   [Section 0 @ 127855: "options", flags 0x0, 558 bytes]
//     [Option HEADERS, 8 bytes] @ 37         [Option BUFFER, 63 bytes] 128429 "" "local" 4096 2
//     [Option TRACECLOCK, 67 bytes] "[local] global counter uptime perf mono ..."
#ifndef TK_PARSERS_TRACE_DAT_TRACE_DAT_FILE_H_
#define TK_PARSERS_TRACE_DAT_TRACE_DAT_FILE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "parsers/tep/tracing_data.h"

namespace tk::parsers::trace_dat {

// Option ids (trace-cmd's enum TRACECMD_OPTION_*).
enum OptionId : uint16_t {
  kOptDone = 0, kOptDate = 1, kOptCpuStat = 2, kOptBuffer = 3, kOptTraceClock = 4,
  kOptUname = 5, kOptHook = 6, kOptOffset = 7, kOptCpuCount = 8, kOptVersion = 9,
  kOptProcMaps = 10, kOptTraceId = 11, kOptTimeShift = 12, kOptGuest = 13, kOptTsc2Nsec = 14,
  kOptStrings = 15, kOptHeaderInfo = 16, kOptFtraceEvents = 17, kOptEventFormats = 18,
  kOptKallsyms = 19, kOptPrintk = 20, kOptCmdlines = 21, kOptBufferText = 22, kOptBtfFile = 23,
  kOptLastBootInfo = 24, kOptModulesFile = 25,
};
// "BUFFER", "TSC2NSEC" ...; "OPTION_<n>" for ids tk does not know.
std::string OptionName(uint16_t id);

struct CpuData {
  int cpu = 0;
  uint64_t offset = 0;  // file offset of the pages (or of the chunk list when compressed)
  uint64_t size = 0;    // bytes in the file
};

// One ring buffer: the top instance (name "") or a named one.
struct Buffer {
  std::string name;
  std::string clock;
  uint32_t page_size = 0;
  bool compressed = false;  // CPU data is a list of zstd chunks
  bool latency = false;     // text "latency" data, not pages
  std::vector<CpuData> cpus;
};

struct TraceDatFile {
  int version = 0;
  bool big_endian = false;
  int long_size = 8;
  uint32_t page_size = 0;
  std::string compression = "none";  // "zstd"
  std::string compression_version;
  std::vector<Buffer> buffers;  // as listed; the top instance is found by name ""
  std::unique_ptr<tep::TraceEvents> events;
  uint32_t ftrace_formats = 0;
  uint32_t event_formats = 0;
  uint64_t kallsyms_bytes = 0;
  std::string kallsyms;  // the saved /proc/kallsyms text (names kernel_stack frames)
  uint64_t printk_bytes = 0;
  // pid → comm from the saved cmdlines ("1234 bash\n" lines).
  absl::flat_hash_map<int32_t, std::string> comms;
  // Timestamp conversion: ns = (raw * tsc_mult) >> tsc_shift (when tsc_mult != 0), + ts_offset.
  int64_t ts_offset = 0;     // OFFSET + DATE (µs → ns)
  uint32_t tsc_mult = 0, tsc_shift = 0;
  bool time_shift = false;   // a guest file with host sync data (not applied)
  std::string trace_clock;   // the selected clock of TRACECLOCK ("local"), else buffer clock
  std::string uname, tracecmd_version;
  uint32_t cpu_count = 0;    // CPUCOUNT, or v6's cpus
  std::vector<uint16_t> options;  // ids seen, in order, duplicates removed

  // Applies the timestamp options to a raw ring-buffer timestamp.
  int64_t ToNs(uint64_t raw) const;
  // The buffer to decode: the top instance, else the first one; nullptr when none.
  const Buffer* TopBuffer() const;
};

// Reads all metadata of a mapped trace.dat. Errors are "offset N: what".
absl::StatusOr<std::unique_ptr<TraceDatFile>> ReadTraceDat(std::string_view data);

// Parses trace_clock text "[local] global counter" → "local" (the bracketed one).
std::string SelectedClock(std::string_view text);

}  // namespace tk::parsers::trace_dat

#endif  // TK_PARSERS_TRACE_DAT_TRACE_DAT_FILE_H_
