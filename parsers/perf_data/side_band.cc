#include "parsers/perf_data/side_band.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/byte_reader.h"
#include "parsers/perf_data/abi.h"

namespace tk::parsers::perf_data {
std::string_view CString(std::string_view s) { return s.substr(0, s.find('\0')); }

symbolize::SymbolizeOptions SymbolizeOptionsOf(const ParseOptions& o) {
  symbolize::SymbolizeOptions s;
  s.symfs = o.symfs;
  s.kallsyms = o.kallsyms;
  s.use_buildid_cache = o.use_buildid_cache;
  s.use_host_kallsyms = o.use_host_kallsyms;
  s.shared = o.shared_symbols;
  return s;
}

bool ParseMmap(uint16_t misc, std::string_view body, bool swap, MmapRecord* m) {
  ByteReader r(body, swap);
  uint32_t pid, tid;
  if (!r.Read(&pid) || !r.Read(&tid) || !r.Read(&m->start) || !r.Read(&m->len) ||
      !r.Read(&m->pgoff)) {
    return false;
  }
  m->pid = static_cast<int32_t>(pid);
  m->tid = static_cast<int32_t>(tid);
  m->filename = CString(body.substr(r.pos()));
  m->build_id.clear();
  m->kernel = IsKernelMode(misc);
  m->code = !(misc & kMiscCommExec);  // PERF_RECORD_MISC_MMAP_DATA: not code
  return true;
}

bool ParseMmap2(uint16_t misc, std::string_view body, bool swap, MmapRecord* m) {
  ByteReader r(body, swap);
  uint32_t pid, tid, prot, flags;
  std::string_view ids;
  if (!r.Read(&pid) || !r.Read(&tid) || !r.Read(&m->start) || !r.Read(&m->len) ||
      !r.Read(&m->pgoff) || !r.Bytes(24, &ids) || !r.Read(&prot) || !r.Read(&flags)) {
    return false;
  }
  constexpr uint32_t kProtExec = 4;
  m->pid = static_cast<int32_t>(pid);
  m->tid = static_cast<int32_t>(tid);
  m->filename = CString(body.substr(r.pos()));
  m->kernel = IsKernelMode(misc);
  m->code = (prot & kProtExec) || m->kernel;
  m->build_id.clear();
  if (m->code && (misc & kMiscMmapBuildId)) {
    size_t n = std::min<size_t>(static_cast<uint8_t>(ids[0]), 20);
    for (size_t i = 0; i < n; ++i) {
      absl::StrAppend(&m->build_id, absl::Hex(static_cast<uint8_t>(ids[4 + i]), absl::kZeroPad2));
    }
  }
  return true;
}

std::optional<CommRecord> ParseComm(uint16_t misc, std::string_view body, bool swap) {
  ByteReader r(body, swap);
  uint32_t pid, tid;
  if (!r.Read(&pid) || !r.Read(&tid)) return std::nullopt;
  return CommRecord{static_cast<int32_t>(pid), static_cast<int32_t>(tid),
                    CString(body.substr(8)), (misc & kMiscCommExec) != 0};
}

std::optional<TaskRecord> ParseTaskRecord(std::string_view body, bool swap) {
  ByteReader r(body, swap);
  uint32_t pid, ppid, tid, ptid;
  uint64_t time;
  if (!r.Read(&pid) || !r.Read(&ppid) || !r.Read(&tid) || !r.Read(&ptid) || !r.Read(&time)) {
    return std::nullopt;
  }
  return TaskRecord{static_cast<int32_t>(pid), static_cast<int32_t>(ppid),
                    static_cast<int32_t>(tid), static_cast<int32_t>(ptid), time};
}

}  // namespace tk::parsers::perf_data
