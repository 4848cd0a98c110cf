// The recorded machine, rebuilt from perf.data side-band records, and frame symbolization.
//
// Threads: the one task table (core/task_table.h) holds them, tid → {pid, comm}. COMM names a
// thread (a record's name); FORK creates the child with the parent's comm and, for a new
// process, a copy of the parent's maps (not for perf's own synthesized FORKs); a thread never
// named prints as ":TID" and tid 0 as "swapper", as in `perf script`.
//
// Maps: per process (tgid) from MMAP/MMAP2 (a new map cuts whatever it overlaps, as the
// kernel's mmap does); kernel maps from the "[kernel.kallsyms]_text" MMAP (pid -1), module
// MMAPs and KSYMBOL records (BPF programs, trampolines).
//
// Frames: user ip → map → file offset (ip − start + pgoff) → DSO symbol table, loaded on the
// first hit by build id from perf's cache (~/.debug), else --symfs + recorded path, else the
// recorded path (only a file with the recorded build id is used). Kernel ip → kallsyms
// (--kallsyms, the build-id cache, or /proc/kallsyms when the running kernel's build id is the
// recorded one). Anonymous executable memory is "/tmp/perf-PID.map" (JIT symbols). What
// cannot be resolved prints as perf script prints it: "[unknown]" in the DSO, "[unknown]
// ([unknown])" outside any map. Kernel frames are cached per address.
//
// Files: machine.cc (threads, maps, Resolve), machine_symbols.cc (where symbol files are
// looked for and how they load, on this thread or beside it), machine_internal.h (the DSO
// record both share).
#ifndef TK_PARSERS_SYMBOLIZE_MACHINE_H_
#define TK_PARSERS_SYMBOLIZE_MACHINE_H_

#include <cstdint>
#include <future>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/event.h"
#include "core/intern.h"
#include "core/task_table.h"
#include "parsers/symbolize/elf_symbols.h"

namespace tk::parsers::symbolize {

class SharedLoads;

struct SymbolizeOptions {
  std::string symfs;             // prefix for recorded DSO paths; empty = none
  std::string kallsyms;          // kernel symbols file; empty = cache / host
  bool use_buildid_cache = true;
  bool use_host_kallsyms = true;  // this host's kernel symbols: /proc/kallsyms, its vdso
  std::string buildid_dir;       // perf's cache; empty = $HOME/.debug
  // The Machines of one split parse load kallsyms and ELF symbols once (shared_loads.h).
  std::shared_ptr<SharedLoads> shared;
};

struct Dso;
class DsoPrefetch;

class Machine {
 public:
  explicit Machine(SymbolizeOptions opts);
  ~Machine();
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;

  // A build id the file recorded for `filename` (BUILD_ID feature, MMAP2 with build id).
  void AddBuildId(std::string_view filename, std::string_view build_id, bool kernel);

  void OnMmap(int32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
              std::string_view filename, bool kernel_mode, std::string_view build_id);
  void OnKsymbol(uint64_t addr, uint64_t len, std::string_view name, bool unregister);
  void OnComm(int32_t pid, int32_t tid, std::string_view comm);
  void OnFork(int32_t pid, int32_t tid, int32_t ppid, int32_t ptid, bool synthesized);

  // Starts loading the kernel's symbols on another thread, for when the first kernel frame
  // needs them (kallsyms is ~120k lines: a fifth of `tk fold` on one core). Call when the
  // build ids are known (a file's header); further calls do nothing. Later build ids that
  // change which kallsyms is right make the first kernel frame load it again, synchronously.
  void PrefetchKernel();
  // Starts loading the symbols of these DSOs (paths the file recorded build ids for: its
  // samples hit them) on another thread (dso_prefetch.h), in this order. Call once the build
  // ids are known; further calls do nothing. Only ELF files with a recorded build id are
  // prefetched; what the first lookup of each then loads is the same.
  void PrefetchDsos(const std::vector<std::string>& names);

  // The comm of `tid` now (valid while the Machine lives).
  std::string_view Comm(int32_t pid, int32_t tid);

  // Symbolizes one address of process `pid`; `kernel` selects the kernel's maps.
  Frame Resolve(int32_t pid, bool kernel, uint64_t ip);

  // Generations of the maps, for a memo of whole stacks (the decoder's stack_id). What
  // Resolve gives for a user address of `pid` is a function of the address and
  // MapsGeneration(pid); for a kernel address, of the address and kernel_generation(). Each is
  // a new number whenever the maps it covers change (MMAP/MMAP2, a FORK that makes a new
  // process; module MMAPs, KSYMBOLs, the kernel map extended once kallsyms is loaded: where
  // the kernel's per-address cache is cleared). 0: `pid` has no maps yet.
  uint64_t MapsGeneration(int32_t pid) const {
    auto it = procs_.find(pid);
    return it == procs_.end() || !it->second ? 0 : it->second->generation;
  }
  uint64_t kernel_generation() const { return kernel_generation_; }
  // The last generation handed out: unchanged as long as no maps changed.
  uint64_t generations() const { return generations_; }

  // The executable user map of `pid` holding `addr` and the files a DWARF unwinder reads for
  // it (pointers live as long as the Machine; empty strings when none was found): the
  // runtime ELF (the build-id cache's `elf`, else --symfs + recorded path; [vdso]: the cache's
  // copy, else this host's) and separate debuginfo (the cache's `debug`,
  // /usr/lib/debug/.build-id/xx/rest.debug, .gnu_debuglink targets). A file is used only when
  // its build id is the recorded one. False outside any map.
  struct UnwindFiles {
    uint64_t start = 0, end = 0, pgoff = 0;
    const std::string* elf = nullptr;
    const std::string* debug = nullptr;
  };
  bool FindUnwindFiles(int32_t pid, uint64_t addr, UnwindFiles* out);

  // One-line notes about symbols that could not be loaded (each returned once).
  std::vector<std::string> TakeNotes();

  uint64_t dsos_loaded() const { return dsos_loaded_; }

 private:
  struct Map {
    uint64_t start = 0, end = 0, pgoff = 0;
    Dso* dso = nullptr;
  };
  using Maps = std::map<uint64_t, Map>;  // by start; non-overlapping
  // A process: its maps.
  struct Proc {
    Maps maps;
    uint64_t generation = 0;  // MapsGeneration
    const Map* last_map = nullptr;  // of the last lookup (samples of a process hit few maps)
    // The free range between maps around the last address outside every map, [start, end):
    // half the user addresses of a `perf record -a -g` of -O2 code are (callchain entries
    // past the last frame pointer: 0, heap and stack values), mostly in the same few gaps.
    uint64_t gap_start = 0, gap_end = 0;
    // `maps` as one sorted array, for FindProcMap (a search of ~50 maps touches 2-3 cache
    // lines where the tree's walk was a node each); empty: to build (any change to maps).
    std::vector<Map> flat;
  };
  // Threads (the task table's TaskInfo: comm_from_record is "named by a COMM").
  TaskInfo& FindOrAddThread(int32_t pid, int32_t tid);
  static void InsertMap(Maps& maps, const Map& m);
  static const Map* FindMap(const Maps& maps, uint64_t ip);
  // FindMap for a process; outside every map, the free range around `ip` into its gap.
  static const Map* FindProcMap(Proc& proc, uint64_t ip);
  Frame ResolveIn(const Map* m, uint64_t ip);
  Dso* GetDso(std::string_view name, int kind);
  void Load(Dso* d);
  // Loaded kernel symbols (or none) and notes about the candidates that failed.
  struct KernelLoad;
  std::vector<std::string> KernelCandidates() const;
  static std::unique_ptr<KernelLoad> LoadFirstKallsyms(const std::vector<std::string>& candidates,
                                      const std::string& given);
  // LoadFirstKallsyms, through `shared` when there is one (a copy of the shared load).
  static std::unique_ptr<KernelLoad> LoadKernelSymbols(const std::vector<std::string>& candidates,
                                                       const std::string& given,
                                                       const std::shared_ptr<SharedLoads>& shared);
  // LoadElf of a kElf DSO, through opts_.shared when there is one.
  std::optional<ElfImage> LoadElfDso(const std::string& name, const std::string& id);
  void LoadKernel();
  void ExtendKernelMap();
  std::vector<std::string> ElfCandidates(const std::string& name, const std::string& id,
                                         bool vdso);
  std::string HostVdso();
  void ResolveUnwindFiles(Dso* d);
  std::string DsoBuildId(const Dso* d);
  std::string BuildIdPath(const std::string& build_id, std::string_view file) const;
  void AddNote(std::string note);

  SymbolizeOptions opts_;
  Interner strings_;
  TaskTable threads_;
  absl::flat_hash_map<int32_t, std::unique_ptr<Proc>> procs_;
  Maps kernel_maps_;
  absl::flat_hash_map<uint64_t, Frame> kernel_frames_;
  // The kernel maps changed: clears their per-address cache, gives them a new generation.
  void NewKernelGeneration() {
    kernel_frames_.clear();
    kernel_generation_ = ++generations_;
  }
  uint64_t generations_ = 0;  // the last generation handed out
  uint64_t kernel_generation_ = 0;
  std::map<std::string, std::unique_ptr<Dso>, std::less<>> dsos_;
  ElfFiles elf_files_;  // the files a DSO load opens several times
  std::map<std::string, std::string, std::less<>> build_ids_;  // path -> id
  std::string kernel_build_id_;
  // perf's ref_reloc_sym: the "[kernel.kallsyms]_text" MMAP names a symbol ("_text") and
  // records its address then (pgoff). A kallsyms from another boot (KASLR) puts it elsewhere:
  // the kernel's symbols are moved by the difference, as perf does.
  std::string kernel_ref_name_;
  uint64_t kernel_ref_addr_ = 0;
  bool kernel_loaded_ = false;
  struct KernelState;
  std::unique_ptr<KernelState> kernel_;
  std::string prefetched_build_id_;  // kernel_build_id_ when the prefetch chose its candidates
  std::future<std::unique_ptr<KernelLoad>> kernel_prefetch_;  // joined by LoadKernel or the destructor
  std::vector<std::string> notes_;
  std::string host_vdso_;  // a temporary copy of this process's vdso, removed at the end
  bool host_vdso_tried_ = false;
  size_t notes_taken_ = 0;
  uint64_t dsos_loaded_ = 0;
  // Last lookup (samples of one process come in runs).
  int32_t last_pid_ = -2;
  Proc* last_proc_ = nullptr;
  std::unique_ptr<DsoPrefetch> dso_prefetch_;  // last: its thread stops first
};

}  // namespace tk::parsers::symbolize

#endif  // TK_PARSERS_SYMBOLIZE_MACHINE_H_
