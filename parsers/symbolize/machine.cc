// Machine: processes and threads, their maps and the kernel's, and an address resolved to
// its frame (machine.h). Finding and loading the symbol files is machine_symbols.cc's.
#include "parsers/symbolize/machine.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "parsers/symbolize/dso_prefetch.h"
#include "parsers/symbolize/machine_internal.h"

namespace tk::parsers::symbolize {

using machine_internal::IsAnon;
using machine_internal::kKernelName;
using machine_internal::kUnknown;

namespace {

// "/lib/modules/6.1.0/kernel/net/veth.ko.xz" -> "[veth]" (perf's kmod_path__parse_name).
std::string ModuleDsoName(std::string_view path) {
  if (path.starts_with("[")) return std::string(path);
  size_t slash = path.rfind('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  size_t ko = base.find(".ko");
  if (ko != std::string_view::npos) base = base.substr(0, ko);
  std::string name(base);
  for (char& c : name)
    if (c == '-') c = '_';
  return absl::StrCat("[", name, "]");
}

}  // namespace

Machine::Machine(SymbolizeOptions opts) : opts_(std::move(opts)) {
  if (opts_.buildid_dir.empty()) {
    const char* home = std::getenv("HOME");
    if (home) opts_.buildid_dir = absl::StrCat(home, "/.debug");
  }
  // perf registers the idle task: tid 0 is "swapper" until a COMM says otherwise.
  threads_.Name(0, "swapper");
  threads_.Get(0).pid = 0;
}

Machine::~Machine() {
  if (!host_vdso_.empty()) ::unlink(host_vdso_.c_str());
}

void Machine::AddBuildId(std::string_view filename, std::string_view build_id, bool kernel) {
  if (build_id.empty()) return;
  if (kernel && filename.starts_with(kKernelName)) {
    kernel_build_id_ = std::string(build_id);
    return;
  }
  build_ids_[std::string(filename)] = std::string(build_id);
}

// The thread as perf's machine__findnew_thread makes it: a new one is ":TID" until named.
TaskInfo& Machine::FindOrAddThread(int32_t pid, int32_t tid) {
  TaskInfo& t = threads_.Get(tid);
  if (t.comm.empty() && !t.comm_from_record) t.comm = threads_.Intern(absl::StrCat(":", tid));
  if (t.pid == -1) t.pid = pid;
  return t;
}

std::string_view Machine::Comm(int32_t pid, int32_t tid) { return FindOrAddThread(pid, tid).comm; }

// A record's name (TaskTable::Name's rule; an empty COMM, prctl(PR_SET_NAME, ""), included).
void Machine::OnComm(int32_t pid, int32_t tid, std::string_view comm) {
  TaskInfo& t = FindOrAddThread(pid, tid);
  t.comm = threads_.Intern(comm);
  t.comm_from_record = true;
}

void Machine::OnFork(int32_t pid, int32_t tid, int32_t ppid, int32_t ptid, bool synthesized) {
  const TaskInfo parent = FindOrAddThread(ppid, ptid);  // a copy: Get(tid) may rehash
  threads_.Get(tid) = TaskInfo{};  // a reused tid is a new thread
  TaskInfo& child = FindOrAddThread(pid, tid);
  if (parent.comm_from_record) {
    child.comm = parent.comm;
    child.comm_from_record = true;
  }
  if (pid != ppid && !synthesized) {
    auto src = procs_.find(ppid);
    auto copy = std::make_unique<Proc>();
    if (src != procs_.end() && src->second) copy->maps = src->second->maps;
    copy->generation = ++generations_;
    procs_[pid] = std::move(copy);  // may rehash: `src` is not used after this
    last_pid_ = -2;
  }
}

void Machine::InsertMap(Maps& maps, const Map& m) {
  // Cut what the new map overlaps (maps__fixup_overlappings): keep the parts outside it.
  auto it = maps.upper_bound(m.start);
  if (it != maps.begin()) --it;
  std::vector<Map> keep;
  while (it != maps.end() && it->second.start < m.end) {
    const Map& old = it->second;
    if (old.end <= m.start) {
      ++it;
      continue;
    }
    if (old.start < m.start) keep.push_back(Map{old.start, m.start, old.pgoff, old.dso});
    if (old.end > m.end) keep.push_back(Map{m.end, old.end, old.pgoff + (m.end - old.start), old.dso});
    it = maps.erase(it);
  }
  for (const Map& k : keep) maps[k.start] = k;
  maps[m.start] = m;
}

const Machine::Map* Machine::FindMap(const Maps& maps, uint64_t ip) {
  auto it = maps.upper_bound(ip);
  if (it == maps.begin()) return nullptr;
  --it;
  return ip < it->second.end ? &it->second : nullptr;
}

const Machine::Map* Machine::FindProcMap(Proc& proc, uint64_t ip) {
  if (proc.flat.empty()) {
    if (proc.maps.empty()) return nullptr;
    proc.flat.reserve(proc.maps.size());
    for (const auto& [start, m] : proc.maps) proc.flat.push_back(m);
  }
  auto it = std::upper_bound(proc.flat.begin(), proc.flat.end(), ip,
                             [](uint64_t a, const Map& m) { return a < m.start; });
  const uint64_t next = it == proc.flat.end() ? ~uint64_t{0} : it->start;
  uint64_t free_from = 0;
  if (it != proc.flat.begin()) {
    --it;
    if (ip < it->end) return &*it;
    free_from = it->end;
  }
  proc.gap_start = free_from;
  proc.gap_end = next;
  return nullptr;
}

Dso* Machine::GetDso(std::string_view name, int kind) {
  auto it = dsos_.find(name);
  if (it != dsos_.end()) return it->second.get();
  auto d = std::make_unique<Dso>();
  d->name = std::string(name);
  d->kind = kind;
  Dso* raw = d.get();
  dsos_.emplace(std::string(name), std::move(d));
  return raw;
}

void Machine::OnMmap(int32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
                     std::string_view filename, bool kernel_mode, std::string_view build_id) {
  uint64_t end = start + len < start ? ~uint64_t{0} : start + len;
  if (kernel_mode) {
    Dso* d = filename.starts_with(kKernelName) ? GetDso(kKernelName, kKernel)
                                               : GetDso(ModuleDsoName(filename), kModule);
    if (d->kind == kKernel && filename.size() > kKernelName.size() && pgoff != 0) {
      kernel_ref_name_ = std::string(filename.substr(kKernelName.size()));
      kernel_ref_addr_ = pgoff;
    }
    if (!build_id.empty()) AddBuildId(d->kind == kKernel ? kKernelName : filename, build_id, d->kind == kKernel);
    InsertMap(kernel_maps_, Map{start, end, pgoff, d});
    NewKernelGeneration();
    return;
  }
  std::string name(filename);
  int kind = kElf;
  if (IsAnon(filename)) {
    name = absl::StrCat("/tmp/perf-", pid, ".map");
    kind = kJit;
  } else if (filename.starts_with("/tmp/perf-") && filename.ends_with(".map")) {
    kind = kJit;
  } else if (filename == "[vdso]") {
    kind = kVdso;
    // perf names a 32-bit process's vdso [vdso32] (its build id is recorded under that name);
    // the compat vdso is mapped below 4 GiB.
    if (end <= (1ull << 32)) name = "[vdso32]";
  }
  if (!build_id.empty()) AddBuildId(filename, build_id, false);
  auto& proc = procs_[pid];
  if (!proc) proc = std::make_unique<Proc>();
  InsertMap(proc->maps, Map{start, end, pgoff, GetDso(name, kind)});
  proc->generation = ++generations_;
  proc->last_map = nullptr;
  proc->gap_start = proc->gap_end = 0;
  proc->flat.clear();
  last_pid_ = -2;
}

void Machine::OnKsymbol(uint64_t addr, uint64_t len, std::string_view name, bool unregister) {
  if (unregister) {
    auto it = kernel_maps_.find(addr);
    if (it != kernel_maps_.end() && it->second.dso->kind == kKsym) kernel_maps_.erase(it);
    NewKernelGeneration();
    return;
  }
  if (FindMap(kernel_maps_, addr)) return;  // inside the kernel image: kallsyms names it
  Dso* d = GetDso(name, kKsym);
  if (!d->loaded) {
    d->own.Add(0, len, name, Binding::kGlobal);
    d->own.Finalize(false);
    d->syms = &d->own;
    d->loaded = true;
  }
  InsertMap(kernel_maps_, Map{addr, addr + len, 0, d});
  NewKernelGeneration();
}

void Machine::AddNote(std::string note) { notes_.push_back(std::move(note)); }

std::vector<std::string> Machine::TakeNotes() {
  std::vector<std::string> out(notes_.begin() + static_cast<long>(notes_taken_), notes_.end());
  notes_taken_ = notes_.size();
  return out;
}

Frame Machine::Resolve(int32_t pid, bool kernel, uint64_t ip) {
  if (kernel) {
    // Kernel frames are the same in every process: cached per address (the kernel maps only
    // change with module MMAPs and KSYMBOLs, which clear the cache).
    auto it = kernel_frames_.find(ip);
    if (it != kernel_frames_.end()) return it->second;
    Frame f = ResolveIn(FindMap(kernel_maps_, ip), ip);  // may load symbols and clear the cache
    kernel_frames_.emplace(ip, f);
    return f;
  }
  if (pid != last_pid_) {
    auto it = procs_.find(pid);
    last_proc_ = it == procs_.end() ? nullptr : it->second.get();
    last_pid_ = pid;
  }
  if (!last_proc_) return Frame{ip, kUnknown, kUnknown};
  // No per-address cache for user addresses: most are seen once (a sample's leaf IP), and
  // inserting each cost more than the lookup it saves (the page index of SymbolTable::Find
  // makes a lookup a few loads): 10-20% less CPU for `tk fold` of a `perf record -a -g` file.
  Proc& proc = *last_proc_;
  const Map* m = proc.last_map;
  if (!m || ip < m->start || ip >= m->end) {
    if (ip >= proc.gap_start && ip < proc.gap_end) return Frame{ip, kUnknown, kUnknown};
    m = FindProcMap(proc, ip);
    if (m) proc.last_map = m;
  }
  return ResolveIn(m, ip);
}

Frame Machine::ResolveIn(const Map* m, uint64_t ip) {
  if (!m) return Frame{ip, kUnknown, kUnknown};
  Dso* d = m->dso;
  if (!d->loaded) Load(d);
  // Kernel symbols are absolute; JIT maps are identity maps; KSYMBOL tables start at 0.
  uint64_t addr = ip;
  if (d->kind == kElf || d->kind == kVdso || d->kind == kKsym) addr = ip - m->start + m->pgoff;
  const Symbol* s = d->Lookup(addr);
  return Frame{d->kind == kKsym || d->kind == kElf || d->kind == kVdso ? addr : ip,
               s ? d->syms->NameOf(*s) : kUnknown, d->name,
               s ? static_cast<int64_t>(addr - s->start) : -1};
}

}  // namespace tk::parsers::symbolize
