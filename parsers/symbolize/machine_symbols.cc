// Machine's symbol files (machine.h): where a DSO's symbols are looked for (perf's search
// order, the build-id cache, --symfs), kallsyms and ELF loads and their prefetch on other
// threads, the host's vdso, and the files for DWARF unwinding.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "parsers/symbolize/dso_prefetch.h"
#include "parsers/symbolize/elf_symbols.h"
#include "parsers/symbolize/jit_map.h"
#include "parsers/symbolize/kallsyms.h"
#include "parsers/symbolize/machine.h"
#include "parsers/symbolize/machine_internal.h"
#include "parsers/symbolize/shared_loads.h"

namespace tk::parsers::symbolize {

using machine_internal::IsAnon;

namespace {

// The running kernel's build id from /sys/kernel/notes (ELF notes: {u32 namesz, descsz,
// type, name padded to 4, desc padded to 4}; type 3 "GNU" is the build id).
std::string HostKernelBuildId() {
  std::ifstream f("/sys/kernel/notes", std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  size_t off = 0;
  while (off + 12 <= s.size()) {
    uint32_t namesz, descsz, type;
    std::memcpy(&namesz, s.data() + off, 4);
    std::memcpy(&descsz, s.data() + off + 4, 4);
    std::memcpy(&type, s.data() + off + 8, 4);
    size_t name_off = off + 12, desc_off = name_off + ((namesz + 3) & ~3u);
    if (desc_off + descsz > s.size()) break;
    if (type == 3 && namesz == 4 && s.compare(name_off, 3, "GNU") == 0) {
      std::string hex;
      for (size_t i = 0; i < descsz; ++i) {
        absl::StrAppend(&hex, absl::Hex(static_cast<unsigned char>(s[desc_off + i]), absl::kZeroPad2));
      }
      return hex;
    }
    off = desc_off + ((descsz + 3) & ~3u);
  }
  return "";
}

bool Exists(const std::string& p) { return std::ifstream(p).good(); }

// perf's build-id cache path of `file` for `id`: BUILDID_DIR/.build-id/xx/rest/FILE.
std::string BuildIdPathIn(const SymbolizeOptions& opts, const std::string& id,
                          std::string_view file) {
  if (id.size() < 3 || opts.buildid_dir.empty()) return "";
  return absl::StrCat(opts.buildid_dir, "/.build-id/", id.substr(0, 2), "/", id.substr(2), "/",
                      AV(file));
}

// perf's search order (dso__load's binary_type_symtab): the .gnu_debuglink target next to the
// file, in its .debug/ or under /usr/lib/debug; the build-id cache's elf and debug copies;
// /usr/lib/debug/PATH(.debug) and /usr/lib/debug/.build-id/xx/rest.debug; the file itself.
// Everything but the cache is under --symfs when given. A vdso: the cache's copy only.
std::vector<std::string> ElfCandidatesIn(const SymbolizeOptions& opts, const std::string& name,
                                         const std::string& id, bool vdso, ElfFiles* files) {
  std::vector<std::string> c;
  if (vdso) {
    if (opts.use_buildid_cache && !id.empty()) c.push_back(BuildIdPathIn(opts, id, "vdso"));
    return c;
  }
  const std::string& root = opts.symfs;
  std::string file = root + name;
  std::string dir = name.substr(0, name.rfind('/') + 1);
  if (std::optional<std::string> link = ReadDebugLink(file, files)) {
    c.push_back(absl::StrCat(root, dir, *link));
    c.push_back(absl::StrCat(root, dir, ".debug/", *link));
    c.push_back(absl::StrCat(root, "/usr/lib/debug", dir, *link));
  }
  if (opts.use_buildid_cache && !id.empty()) {
    c.push_back(BuildIdPathIn(opts, id, "elf"));
    c.push_back(BuildIdPathIn(opts, id, "debug"));
  }
  c.push_back(absl::StrCat(root, "/usr/lib/debug", name, ".debug"));
  c.push_back(absl::StrCat(root, "/usr/lib/debug", name));
  if (id.size() > 2) {
    c.push_back(absl::StrCat(root, "/usr/lib/debug/.build-id/", id.substr(0, 2), "/", id.substr(2), ".debug"));
  }
  c.push_back(file);
  return c;
}

// A recorded path whose symbols Load reads from an ELF file (kind kElf): not a kernel
// module, [vdso], a JIT map or an anonymous map.
bool IsElfDsoPath(std::string_view name) {
  return name.starts_with("/") && name.find(".ko") == std::string_view::npos && !IsAnon(name) &&
         !(name.starts_with("/tmp/perf-") && name.ends_with(".map"));
}

}  // namespace

// perf's fallback for [vdso] (machine__findnew_vdso): a copy of its own process's vdso, which
// is right when the recording ran on this kernel — LoadElf skips it when a recorded build id
// differs. Pipe mode needs it: build ids come at the end of the stream.
std::string Machine::HostVdso() {
  if (host_vdso_tried_) return host_vdso_;
  host_vdso_tried_ = true;
  std::ifstream maps("/proc/self/maps");
  std::string line;
  uint64_t lo = 0, hi = 0;
  while (std::getline(maps, line)) {
    if (!line.ends_with("[vdso]")) continue;
    if (std::sscanf(line.c_str(), "%" SCNx64 "-%" SCNx64, &lo, &hi) != 2) return "";
    break;
  }
  if (lo == 0 || hi <= lo || hi - lo > (64u << 10)) return "";
  const char* tmp = std::getenv("TMPDIR");
  std::string path = absl::StrCat(tmp && *tmp ? tmp : "/tmp", "/tk-vdso-XXXXXX");
  int fd = ::mkstemp(path.data());
  if (fd < 0) return "";
  // write(2) reads the vdso pages in the kernel: no user-space load of them.
  bool ok = ::write(fd, reinterpret_cast<const void*>(lo), hi - lo) == static_cast<ssize_t>(hi - lo);
  ::close(fd);
  if (!ok) {
    ::unlink(path.c_str());
    return "";
  }
  host_vdso_ = path;
  return host_vdso_;
}

std::string Machine::BuildIdPath(const std::string& id, std::string_view file) const {
  return BuildIdPathIn(opts_, id, file);
}

std::vector<std::string> Machine::KernelCandidates() const {
  std::vector<std::string> candidates;
  if (!opts_.kallsyms.empty()) {
    candidates.push_back(opts_.kallsyms);
    return candidates;
  }
  if (opts_.use_buildid_cache && !kernel_build_id_.empty() && !opts_.buildid_dir.empty()) {
    candidates.push_back(BuildIdPath(kernel_build_id_, "kallsyms"));
    candidates.push_back(absl::StrCat(opts_.buildid_dir, "/[kernel.kallsyms]/", kernel_build_id_, "/kallsyms"));
  }
  if (!opts_.use_host_kallsyms) return candidates;
  // /sys/kernel/notes, read once and only when something compares or names by it.
  const std::string host_id =
      !kernel_build_id_.empty() || opts_.use_buildid_cache ? HostKernelBuildId() : "";
  if (kernel_build_id_.empty() || host_id == kernel_build_id_) {
    // No build id in the file: perf's cache copy of this host's kallsyms when it is current
    // (kallsyms.h), which maps in a few ms where /proc/kallsyms costs ~35 ms to format.
    if (opts_.use_buildid_cache && kernel_build_id_.empty()) {
      std::string copy = BuildIdPath(host_id, "kallsyms");
      if (!copy.empty() && IsCurrentKallsymsCopy(copy)) candidates.push_back(copy);
    }
    candidates.push_back("/proc/kallsyms");
  }
  return candidates;
}

// Runs on the prefetch thread: touches nothing of the Machine.
std::unique_ptr<Machine::KernelLoad> Machine::LoadFirstKallsyms(
    const std::vector<std::string>& candidates, const std::string& given) {
  auto r = std::make_unique<KernelLoad>();
  for (const std::string& path : candidates) {
    if (path != given && !Exists(path)) continue;
    absl::StatusOr<KernelSymbols> ks = LoadKallsyms(path);
    if (ks.ok()) {
      r->ks = std::move(*ks);
      return r;
    }
    r->notes.emplace_back(SV(ks.status().message()));
  }
  return r;
}

std::unique_ptr<Machine::KernelLoad> Machine::LoadKernelSymbols(
    const std::vector<std::string>& candidates, const std::string& given,
    const std::shared_ptr<SharedLoads>& shared) {
  if (!shared) return LoadFirstKallsyms(candidates, given);
  std::string key = absl::StrCat("kallsyms\n", given);
  for (const std::string& c : candidates) absl::StrAppend(&key, "\n", c);
  auto loaded = std::static_pointer_cast<const KernelLoad>(shared->Get(key, [&] {
    return std::shared_ptr<const void>(LoadFirstKallsyms(candidates, given));
  }));
  auto r = std::make_unique<KernelLoad>();
  r->notes = loaded->notes;
  if (loaded->ks) {
    r->ks.emplace();
    r->ks->kernel = loaded->ks->kernel.Clone(loaded);
    for (const auto& [name, table] : loaded->ks->modules) {
      r->ks->modules.emplace(name, table.Clone(loaded));
    }
    r->ks->ref_symbols = loaded->ks->ref_symbols;
  }
  return r;
}

std::optional<ElfImage> Machine::LoadElfDso(const std::string& name, const std::string& id) {
  if (!opts_.shared) return LoadElf(ElfCandidates(name, id, false), id, &elf_files_);
  auto loaded = std::static_pointer_cast<const std::optional<ElfImage>>(
      opts_.shared->Get(absl::StrCat("elf\n", name, "\n", id), [&] {
        return std::make_shared<const std::optional<ElfImage>>(
            LoadElf(ElfCandidates(name, id, false), id, &elf_files_));
      }));
  if (!*loaded) return std::nullopt;
  return ElfImage{(*loaded)->build_id, (*loaded)->path, (*loaded)->symbols.Clone(loaded)};
}

void Machine::PrefetchKernel() {
  if (kernel_loaded_ || kernel_prefetch_.valid()) return;
  prefetched_build_id_ = kernel_build_id_;
  kernel_prefetch_ = std::async(std::launch::async, &Machine::LoadKernelSymbols,
                                KernelCandidates(), opts_.kallsyms, opts_.shared);
}

void Machine::PrefetchDsos(const std::vector<std::string>& names) {
  if (dso_prefetch_) return;
  std::vector<std::pair<std::string, std::string>> dsos;
  for (const std::string& name : names) {
    auto id = build_ids_.find(name);
    if (id == build_ids_.end() || !IsElfDsoPath(name)) continue;
    auto d = dsos_.find(name);
    if (d != dsos_.end() && d->second->loaded) continue;
    dsos.emplace_back(name, id->second);
  }
  if (dsos.empty()) return;
  // The largest files first: a big executable's symbols (cc1plus: 31k) take milliseconds and
  // most samples hit it, while the small ones the decoder needs first it loads itself
  // meanwhile (DsoPrefetch::Take of one not started).
  std::vector<std::pair<off_t, size_t>> order;
  for (size_t i = 0; i < dsos.size(); ++i) {
    struct stat st;
    const std::string path = opts_.symfs + dsos[i].first;
    order.emplace_back(::stat(path.c_str(), &st) == 0 ? -st.st_size : 0, i);
  }
  std::sort(order.begin(), order.end());  // (the index keeps equal sizes in header order)
  std::vector<std::pair<std::string, std::string>> sorted;
  for (const auto& [size, i] : order) sorted.push_back(std::move(dsos[i]));
  dsos = std::move(sorted);
  dso_prefetch_ = std::make_unique<DsoPrefetch>(
      std::move(dsos), [opts = opts_](const std::string& name, const std::string& id, ElfFiles* files) {
        return LoadElf(ElfCandidatesIn(opts, name, id, false, files), id, files);
      });
}

void Machine::LoadKernel() {
  kernel_loaded_ = true;
  std::unique_ptr<KernelLoad> r;
  // The candidates depend on the options and the kernel's build id only: the same id, the
  // same choice (without reading the host's files again).
  if (kernel_prefetch_.valid() && kernel_build_id_ == prefetched_build_id_) {
    r = kernel_prefetch_.get();
  } else {
    r = LoadKernelSymbols(KernelCandidates(), opts_.kallsyms, opts_.shared);
  }
  for (std::string& n : r->notes) AddNote(std::move(n));
  if (r->ks) {
    kernel_ = std::make_unique<KernelState>(KernelState{std::move(*r->ks)});
    auto ref = kernel_->ks.ref_symbols.find(kernel_ref_name_);
    if (!kernel_ref_name_.empty() && ref != kernel_->ks.ref_symbols.end() &&
        ref->second != kernel_ref_addr_) {
      kernel_->ks.kernel.Shift(ref->second - kernel_ref_addr_);  // modulo 2^64, both ways
    }
    ExtendKernelMap();
    return;
  }
  AddNote(opts_.kallsyms.empty()
              ? "no kernel symbols for this recording (kernel frames print as [unknown]; use --kallsyms FILE)"
              : absl::StrCat("cannot load kernel symbols from ", opts_.kallsyms));
}

// perf's map__fixup_start/end after loading kallsyms: the kernel map then runs from the first
// to the end of the last kernel symbol, past the recorded _text.._etext (init text, where
// the idle task's x86_64_start_kernel frames are).
void Machine::ExtendKernelMap() {
  const SymbolTable& syms = kernel_->ks.kernel;  // kallsyms.h: its symbols made on demand
  if (syms.size() == 0) return;
  for (auto it = kernel_maps_.begin(); it != kernel_maps_.end(); ++it) {
    if (it->second.dso->kind != kKernel) continue;
    Map m = it->second;
    kernel_maps_.erase(it);
    m.start = syms.front().start;
    m.end = syms.back().end;
    InsertMap(kernel_maps_, m);
    NewKernelGeneration();
    return;
  }
}

void Machine::Load(Dso* d) {
  d->loaded = true;
  if (d->kind == kKernel || d->kind == kModule) {
    if (!kernel_loaded_) LoadKernel();
    if (!kernel_) return;
    if (d->kind == kKernel) {
      d->syms = &kernel_->ks.kernel;
    } else {
      auto it = kernel_->ks.modules.find(std::string_view(d->name).substr(1, d->name.size() - 2));
      if (it != kernel_->ks.modules.end()) d->syms = &it->second;
    }
    return;
  }
  if (d->kind == kJit) {
    for (const std::string& p : {opts_.symfs.empty() ? "" : opts_.symfs + d->name, d->name}) {
      if (p.empty()) continue;
      if (std::optional<SymbolTable> t = LoadPerfMap(p)) {
        d->own = std::move(*t);
        d->syms = &d->own;
        ++dsos_loaded_;
        return;
      }
    }
    return;
  }
  std::string id = DsoBuildId(d);
  std::optional<ElfImage> img;
  if (d->kind != kElf || !dso_prefetch_ || !dso_prefetch_->Take(d->name, id, &img)) {
    img = d->kind == kElf ? LoadElfDso(d->name, id)
                          : LoadElf(ElfCandidates(d->name, id, d->kind == kVdso), id, &elf_files_);
  }
  if (!img && d->kind == kVdso && d->name == "[vdso]" && opts_.use_host_kallsyms) {
    // Only now: the copy of this host's vdso is made when nothing else has the symbols.
    if (std::string host = HostVdso(); !host.empty()) img = LoadElf({host}, id, &elf_files_);
  }
  if (!img) return;
  d->own = std::move(img->symbols);
  d->syms = &d->own;
  ++dsos_loaded_;
}

std::string Machine::DsoBuildId(const Dso* d) {
  auto bid = build_ids_.find(d->name);
  std::string id = bid == build_ids_.end() ? "" : bid->second;
  if (id.empty() && d->kind == kElf) {
    // No recorded build id: perf reads the file's own, then looks for it in the cache.
    id = ReadElfBuildId(opts_.symfs + d->name, &elf_files_).value_or("");
  }
  return id;
}

bool Machine::FindUnwindFiles(int32_t pid, uint64_t addr, UnwindFiles* out) {
  auto it = procs_.find(pid);
  if (it == procs_.end() || !it->second) return false;
  const Map* m = FindMap(it->second->maps, addr);
  if (!m) return false;
  if (!m->dso->unwind_resolved) ResolveUnwindFiles(m->dso);
  *out = UnwindFiles{m->start, m->end, m->pgoff, &m->dso->unwind_elf, &m->dso->unwind_debug};
  return true;
}

// The unwinder's files: perf's dso__data_fd order for the runtime ELF (build-id cache, then
// the system path under --symfs), and the debuginfo places of ElfCandidates.
void Machine::ResolveUnwindFiles(Dso* d) {
  d->unwind_resolved = true;
  if (d->kind != kElf && d->kind != kVdso) return;
  const std::string id = DsoBuildId(d);
  auto first = [&](const std::vector<std::string>& candidates) -> std::string {
    for (const std::string& p : candidates) {
      if (p.empty() || !Exists(p)) continue;
      std::optional<std::string> got = ReadElfBuildId(p, &elf_files_);
      if (got && (id.empty() || *got == id)) return p;
    }
    return "";
  };
  const bool cache = opts_.use_buildid_cache && !id.empty();
  if (d->kind == kVdso) {
    d->unwind_elf = first({cache ? BuildIdPath(id, "vdso") : ""});
    if (d->unwind_elf.empty() && d->name == "[vdso]" && opts_.use_host_kallsyms) {
      d->unwind_elf = first({HostVdso()});  // this host's vdso is a 64-bit one
    }
    return;
  }
  const std::string& root = opts_.symfs;
  d->unwind_elf = first({cache ? BuildIdPath(id, "elf") : "", root + d->name});
  std::vector<std::string> debug;
  if (cache) debug.push_back(BuildIdPath(id, "debug"));
  if (id.size() > 2) {
    debug.push_back(absl::StrCat(root, "/usr/lib/debug/.build-id/", id.substr(0, 2), "/",
                                 id.substr(2), ".debug"));
  }
  std::string dir = d->name.substr(0, d->name.rfind('/') + 1);
  if (std::optional<std::string> link = ReadDebugLink(root + d->name, &elf_files_)) {
    debug.push_back(absl::StrCat(root, dir, *link));
    debug.push_back(absl::StrCat(root, dir, ".debug/", *link));
    debug.push_back(absl::StrCat(root, "/usr/lib/debug", dir, *link));
  }
  d->unwind_debug = first(debug);
  if (d->unwind_debug == d->unwind_elf) d->unwind_debug.clear();
}

std::vector<std::string> Machine::ElfCandidates(const std::string& name, const std::string& id,
                                                bool vdso) {
  return ElfCandidatesIn(opts_, name, id, vdso, &elf_files_);
}

}  // namespace tk::parsers::symbolize
