#include "parsers/trace_dat/trace_dat_file.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/diag.h"
#include "core/strings.h"
#include "parsers/trace_dat/zstd_block.h"

namespace tk::parsers::trace_dat {
namespace {


constexpr std::string_view kMagic("\x17\x08\x44tracing", 10);
constexpr int kMaxOptionSections = 1024;  // DONE chains longer than this are loops

// The text of an option up to its NUL ("3.1.6 not-a-git-repo\0").
std::string_view OptString(std::string_view data) {
  size_t nul = data.find('\0');
  return nul == std::string_view::npos ? data : data.substr(0, nul);
}

// strtoll(s, NULL, 0) without reading past the view: "0x1a2b", "-12345", "42".
int64_t ParseIntAuto(std::string_view s) {
  std::string copy(s.substr(0, 64));
  return std::strtoll(copy.c_str(), nullptr, 0);
}

// Saved cmdlines: one "PID COMM" per line; COMM may contain spaces.
//   1 systemd
//   20101 record.sh
//   3800 memfd:sealed-91
void ParseCmdlines(std::string_view text, absl::flat_hash_map<int32_t, std::string>* comms) {
  for (std::string_view rest = text; !rest.empty();) {
    std::string_view line = NextPiece(&rest, "\n");
    int32_t pid = 0;
    auto [ptr, ec] = std::from_chars(line.data(), line.data() + line.size(), pid);
    if (ec != std::errc() || ptr == line.data() + line.size() || *ptr != ' ') continue;
    (*comms)[pid] = std::string(line.substr(ptr - line.data() + 1));
  }
}

// A v7 section at `off`: {u16 id, u16 flags, u32 string id, u64 size} then data, compressed
// as {u32 csize, u32 usize, zstd} when flags & 1. Returns the (inflated) data; `storage`
// holds it when it had to be inflated. `*data_off` receives the file offset of the data.
absl::StatusOr<std::string_view> ReadSection(std::string_view file, uint64_t off,
                                             bool big_endian, uint16_t want_id,
                                             std::string* storage, uint16_t* flags_out = nullptr) {
  if (off >= file.size()) {
    return ErrorAt(off, absl::StrCat("section ", OptionName(want_id), " lies past the end of the ",
                                     file.size(), "-byte file (truncated?)"));
  }
  ByteReader r(file.substr(off), NeedsSwap(big_endian), off);
  uint16_t id = 0, flags = 0;
  uint32_t string_id = 0;
  uint64_t size = 0;
  if (!r.Read(&id) || !r.Read(&flags) || !r.Read(&string_id) || !r.Read(&size)) {
    return ErrorAt(off, "truncated section header");
  }
  if (id != want_id) {
    return ErrorAt(off, absl::StrCat("expected section ", want_id, " (", OptionName(want_id),
                                     "), found ", id));
  }
  if (flags_out) *flags_out = flags;
  if (!(flags & 1)) {
    std::string_view data;
    if (size > r.remaining() || !r.Bytes(size, &data)) {
      return ErrorAt(off, absl::StrCat("section ", OptionName(want_id), " of ", size,
                                       " bytes is truncated"));
    }
    return data;
  }
  uint64_t at = r.offset();
  uint32_t csize = 0, usize = 0;
  std::string_view comp;
  if (!r.Read(&csize) || !r.Read(&usize) || !r.Bytes(csize, &comp)) {
    return ErrorAt(at, absl::StrCat("compressed section ", OptionName(want_id), " is truncated"));
  }
  if (absl::Status st = ZstdDecompress(comp, usize, storage); !st.ok()) {
    return ErrorAt(at, SV(st.message()));
  }
  return std::string_view(*storage);
}

// The options both versions share. `sectioned` = v7 (BUFFER carries clock and CPUs).
absl::Status HandleOption(uint16_t id, std::string_view data, uint64_t at, TraceDatFile& f,
                          absl::flat_hash_map<uint16_t, uint64_t>* section_offsets) {
  if (std::find(f.options.begin(), f.options.end(), id) == f.options.end()) {
    f.options.push_back(id);
  }
  ByteReader r(data, NeedsSwap(f.big_endian), at);
  switch (id) {
    case kOptDate:  // µs between timestamps and gettimeofday, "0x..." text
      f.ts_offset += ParseIntAuto(OptString(data)) * 1000;
      break;
    case kOptOffset:
      f.ts_offset += ParseIntAuto(OptString(data));
      break;
    case kOptTsc2Nsec:  // {u32 mult, u32 shift, u64 offset}
      if (data.size() >= 16) {
        r.Read(&f.tsc_mult);
        r.Read(&f.tsc_shift);
        if (f.tsc_shift > 63) f.tsc_mult = 0;  // nonsense: leave timestamps raw
      }
      break;
    case kOptTimeShift:
      f.time_shift = true;
      break;
    case kOptTraceClock:
      f.trace_clock = SelectedClock(OptString(data));
      break;
    case kOptUname:
      f.uname = std::string(OptString(data));
      break;
    case kOptVersion:
      f.tracecmd_version = std::string(OptString(data));
      break;
    case kOptCpuCount:
      r.Read(&f.cpu_count);
      break;
    case kOptBuffer:
    case kOptBufferText: {
      Buffer b;
      uint64_t off = 0;
      std::string_view name, clock;
      if (!r.Read(&off) || !r.CString(&name)) return ErrorAt(at, "truncated BUFFER option");
      b.name = std::string(name);
      b.latency = id == kOptBufferText;
      if (f.version >= 7) {
        if (!r.CString(&clock)) return ErrorAt(at, "truncated BUFFER option");
        b.clock = std::string(clock);
        uint32_t ncpu = 0;
        if (!b.latency && (!r.Read(&b.page_size) || !r.Read(&ncpu))) {
          return ErrorAt(at, "truncated BUFFER option");
        }
        if (ncpu > 65536) return ErrorAt(at, absl::StrCat("BUFFER option with ", ncpu, " CPUs"));
        for (uint32_t i = 0; i < ncpu; ++i) {
          uint32_t cpu = 0;
          CpuData c;
          if (!r.Read(&cpu) || !r.Read(&c.offset) || !r.Read(&c.size)) {
            return ErrorAt(at, "truncated BUFFER option CPU list");
          }
          c.cpu = static_cast<int>(cpu);
          b.cpus.push_back(c);
        }
        (*section_offsets)[static_cast<uint16_t>(1000 + f.buffers.size())] = off;
      }
      f.buffers.push_back(std::move(b));
      break;
    }
    case kOptHeaderInfo:
    case kOptFtraceEvents:
    case kOptEventFormats:
    case kOptKallsyms:
    case kOptPrintk:
    case kOptCmdlines: {
      uint64_t off = 0;
      if (r.Read(&off)) (*section_offsets)[id] = off;
      break;
    }
    default:
      break;
  }
  return absl::OkStatus();
}

// {u16 id, u32 size, data}... ; v6 ends at id 0 (no size), v7 at DONE {0, 8, u64 next}.
absl::Status ReadOptions(ByteReader& r, TraceDatFile& f,
                         absl::flat_hash_map<uint16_t, uint64_t>* sections, uint64_t* next) {
  *next = 0;
  for (;;) {
    uint64_t at = r.offset();
    uint16_t id = 0;
    if (!r.Read(&id)) return ErrorAt(at, "truncated options");
    if (id == kOptDone && f.version < 7) return absl::OkStatus();
    uint32_t size = 0;
    std::string_view data;
    if (!r.Read(&size) || !r.Bytes(size, &data)) {
      return ErrorAt(at, absl::StrCat("option ", OptionName(id), " of ", size,
                                      " bytes is truncated"));
    }
    if (id == kOptDone) {
      ByteReader d(data, NeedsSwap(f.big_endian), at + 6);
      if (!d.Read(next)) return ErrorAt(at, "short DONE option");
      return absl::OkStatus();
    }
    if (absl::Status st = HandleOption(id, data, at + 6, f, sections); !st.ok()) return st;
  }
}

absl::Status ReadV6(std::string_view file, TraceDatFile& f) {
  tep::TracingDataInfo info;
  auto ev = tep::ParseTracingData(file, 0, &info);
  if (!ev.ok()) return ev.status();
  f.events = std::move(*ev);
  f.ftrace_formats = info.ftrace_formats;
  f.event_formats = info.event_formats;
  f.kallsyms_bytes = info.kallsyms.size();
  f.kallsyms.assign(info.kallsyms);
  f.printk_bytes = info.printk.size();
  ParseCmdlines(info.cmdlines, &f.comms);
  ByteReader r(file, NeedsSwap(f.big_endian));
  r.Seek(info.end);
  uint64_t at = r.offset();
  uint32_t cpus = 0;
  if (!r.Read(&cpus)) return ErrorAt(at, "truncated CPU count");
  if (cpus > 65536) return ErrorAt(at, absl::StrCat("implausible CPU count ", cpus));
  f.cpu_count = cpus;
  absl::flat_hash_map<uint16_t, uint64_t> unused;
  std::string_view kind;
  at = r.offset();
  if (!r.Bytes(10, &kind)) return ErrorAt(at, "truncated after the CPU count");
  if (kind == std::string_view("options  \0", 10)) {
    uint64_t next = 0;
    if (absl::Status st = ReadOptions(r, f, &unused, &next); !st.ok()) return st;
    at = r.offset();
    if (!r.Bytes(10, &kind)) return ErrorAt(at, "truncated after the options");
  }
  Buffer top;
  top.page_size = f.page_size;
  top.clock = f.trace_clock;
  if (kind == std::string_view("latency  \0", 10)) {
    top.latency = true;
  } else if (kind == std::string_view("flyrecord\0", 10)) {
    for (uint32_t i = 0; i < cpus; ++i) {
      CpuData c;
      c.cpu = static_cast<int>(i);
      if (!r.Read(&c.offset) || !r.Read(&c.size)) return ErrorAt(at, "truncated flyrecord table");
      top.cpus.push_back(c);
    }
  } else {
    return ErrorAt(at, "expected \"flyrecord\" or \"latency\"");
  }
  // v6 BUFFER options name instances whose data sits elsewhere; only the top one is read.
  f.buffers.insert(f.buffers.begin(), std::move(top));
  return absl::OkStatus();
}

using SectionOffsets = absl::flat_hash_map<uint16_t, uint64_t>;

// Follows the chain of options sections (each DONE names the next) from `off`.
absl::Status ReadOptionChain(std::string_view file, uint64_t off, TraceDatFile& f,
                             SectionOffsets* sections) {
  absl::flat_hash_set<uint64_t> seen;
  for (int n = 0; off != 0; ++n) {
    if (n >= kMaxOptionSections || !seen.insert(off).second) {
      return ErrorAt(off, "options sections form a loop");
    }
    std::string storage;
    auto data = ReadSection(file, off, f.big_endian, kOptDone, &storage);
    if (!data.ok()) return data.status();
    ByteReader o(*data, NeedsSwap(f.big_endian), off + 16);
    if (absl::Status st = ReadOptions(o, f, sections, &off); !st.ok()) return st;
  }
  return absl::OkStatus();
}

// HEADER_INFO (first: it sets the kernel long size), FTRACE_EVENTS, EVENT_FORMATS, CMDLINES,
// and the sizes of KALLSYMS and PRINTK.
absl::Status ReadMetadataSections(std::string_view file, const SectionOffsets& sections,
                                  TraceDatFile& f) {
  auto section = [&](uint16_t id, std::string* storage) -> absl::StatusOr<ByteReader> {
    auto it = sections.find(id);
    if (it == sections.end()) return ErrorAt(0, absl::StrCat("no ", OptionName(id), " section"));
    auto data = ReadSection(file, it->second, f.big_endian, id, storage);
    if (!data.ok()) return data.status();
    return ByteReader(*data, NeedsSwap(f.big_endian), it->second + 16);
  };
  std::string storage;
  auto hi = section(kOptHeaderInfo, &storage);
  if (!hi.ok()) return hi.status();
  if (absl::Status st = tep::ReadHeaderInfo(*hi, *f.events); !st.ok()) return st;
  if (sections.contains(kOptFtraceEvents)) {
    auto fe = section(kOptFtraceEvents, &storage);
    if (!fe.ok()) return fe.status();
    if (auto st = tep::ReadFtraceFormats(*fe, *f.events, &f.ftrace_formats); !st.ok()) return st;
  }
  auto ef = section(kOptEventFormats, &storage);
  if (!ef.ok()) return ef.status();
  if (auto st = tep::ReadEventFormats(*ef, *f.events, &f.event_formats); !st.ok()) return st;
  if (sections.contains(kOptCmdlines)) {
    auto cl = section(kOptCmdlines, &storage);
    if (!cl.ok()) return cl.status();
    uint64_t size = 0;
    std::string_view text;
    uint64_t at = cl->offset();
    if (!cl->Read(&size) || size > cl->remaining() || !cl->Bytes(size, &text)) {
      return ErrorAt(at, "truncated saved cmdlines");
    }
    ParseCmdlines(text, &f.comms);
  }
  for (uint16_t id : {kOptKallsyms, kOptPrintk}) {
    auto it = sections.find(id);
    if (it == sections.end()) continue;
    if (auto d = ReadSection(file, it->second, f.big_endian, id, &storage); d.ok() && d->size() >= 4) {
      (id == kOptKallsyms ? f.kallsyms_bytes : f.printk_bytes) = d->size() - 4;
      if (id == kOptKallsyms) f.kallsyms.assign(d->substr(4));
    }
  }
  return absl::OkStatus();
}

absl::Status ReadV7(std::string_view file, ByteReader& r, TraceDatFile& f) {
  uint64_t at = r.offset();
  std::string_view zname, zver;
  uint64_t options_off = 0;
  if (!r.CString(&zname) || !r.CString(&zver) || !r.Read(&options_off)) {
    return ErrorAt(at, "truncated compression header");
  }
  f.compression = std::string(zname);
  f.compression_version = std::string(zver);
  if (f.compression != "none" && f.compression != "zstd") {
    return ErrorAt(at, absl::StrCat("unsupported compression \"", AV(zname), "\" (tk reads zstd)"));
  }
  f.events = std::make_unique<tep::TraceEvents>(f.big_endian, f.long_size, f.page_size);
  SectionOffsets sections;
  if (absl::Status st = ReadOptionChain(file, options_off, f, &sections); !st.ok()) return st;
  if (absl::Status st = ReadMetadataSections(file, sections, f); !st.ok()) return st;
  // Each buffer's flyrecord section header says whether its CPU data is compressed.
  for (size_t i = 0; i < f.buffers.size(); ++i) {
    auto it = sections.find(static_cast<uint16_t>(1000 + i));
    if (it == sections.end()) continue;
    Buffer& b = f.buffers[i];
    uint16_t want = b.latency ? kOptBufferText : kOptBuffer;
    if (it->second + 16 > file.size()) return ErrorAt(it->second, "truncated buffer section");
    ByteReader h(file.substr(it->second), NeedsSwap(f.big_endian), it->second);
    uint16_t id = 0, flags = 0;
    h.Read(&id);
    h.Read(&flags);
    if (id != want) return ErrorAt(it->second, absl::StrCat("expected buffer section, found ", id));
    b.compressed = flags & 1;
    if (b.page_size == 0) b.page_size = f.page_size;
  }
  for (const Buffer& b : f.buffers) {
    if (!b.latency && (b.page_size < 64 || b.page_size > (64u << 20))) {
      return ErrorAt(0, absl::StrCat("buffer \"", b.name, "\": implausible page size ",
                                     b.page_size));
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::string OptionName(uint16_t id) {
  static constexpr const char* kNames[] = {
      "DONE", "DATE", "CPUSTAT", "BUFFER", "TRACECLOCK", "UNAME", "HOOK", "OFFSET", "CPUCOUNT",
      "VERSION", "PROCMAPS", "TRACEID", "TIME_SHIFT", "GUEST", "TSC2NSEC", "STRINGS",
      "HEADER_INFO", "FTRACE_EVENTS", "EVENT_FORMATS", "KALLSYMS", "PRINTK", "CMDLINES",
      "BUFFER_TEXT", "BTF_FILE", "LAST_BOOT_INFO", "MODULES_FILE"};
  if (id < sizeof(kNames) / sizeof(kNames[0])) return kNames[id];
  return absl::StrCat("OPTION_", id);
}

std::string SelectedClock(std::string_view text) {
  size_t open = text.find('[');
  size_t close = text.find(']', open);
  if (open == std::string_view::npos || close == std::string_view::npos) {
    size_t end = text.find_first_of(" \n");
    return std::string(text.substr(0, end));
  }
  return std::string(text.substr(open + 1, close - open - 1));
}

int64_t TraceDatFile::ToNs(uint64_t raw) const {
  uint64_t ns = raw;
  if (tsc_mult) {
    // mul_u64_u32_shr: 128-bit product, no overflow.
    ns = static_cast<uint64_t>((static_cast<unsigned __int128>(raw) * tsc_mult) >> tsc_shift);
  }
  return static_cast<int64_t>(ns + static_cast<uint64_t>(ts_offset));
}

const Buffer* TraceDatFile::TopBuffer() const {
  for (const Buffer& b : buffers) {
    if (b.name.empty()) return &b;
  }
  return buffers.empty() ? nullptr : &buffers.front();
}

absl::StatusOr<std::unique_ptr<TraceDatFile>> ReadTraceDat(std::string_view data) {
  auto f = std::make_unique<TraceDatFile>();
  ByteReader r(data, NeedsSwap(false));
  if (!r.Expect(kMagic)) return ErrorAt(0, "not a trace.dat file (bad magic)");
  std::string_view version;
  uint8_t endian = 0, long_size = 0;
  if (!r.CString(&version) || !r.Read(&endian) || !r.Read(&long_size)) {
    return ErrorAt(10, "truncated file header");
  }
  if (version == "6") {
    f->version = 6;
  } else if (version == "7") {
    f->version = 7;
  } else {
    return ErrorAt(10, absl::StrCat("unsupported trace.dat version \"", AV(version.substr(0, 16)),
                                    "\" (tk reads 6 and 7)"));
  }
  f->big_endian = endian != 0;
  f->long_size = long_size;
  r.set_swap(NeedsSwap(f->big_endian));
  if (!r.Read(&f->page_size)) return ErrorAt(r.offset(), "truncated file header");
  if (long_size != 4 && long_size != 8) {
    return ErrorAt(r.offset() - 5, absl::StrCat("long size ", long_size, " is not 4 or 8"));
  }
  if (f->page_size < 64 || f->page_size > (64u << 20)) {
    return ErrorAt(r.offset() - 4, absl::StrCat("implausible page size ", f->page_size));
  }
  absl::Status st = f->version == 6 ? ReadV6(data, *f) : ReadV7(data, r, *f);
  if (!st.ok()) return st;
  if (f->trace_clock.empty()) {
    if (const Buffer* top = f->TopBuffer()) f->trace_clock = top->clock;
  }
  return f;
}

}  // namespace tk::parsers::trace_dat
