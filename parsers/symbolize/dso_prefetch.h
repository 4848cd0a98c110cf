// Loads DSO symbol tables on background threads before the decoder asks for them.
//
// A perf.data file's header lists the DSOs its samples hit (the BUILD_ID feature: perf
// record writes the build ids of the DSOs with hits), so which ELF files symbolization
// will read is known before the first record. Loading them (libelf, the symbol sort, the
// page faults of reading .symtab) was ~9% of the decoding thread of `tk fold` on a
// `perf record -a -g` file; two more threads do it meanwhile, in the order given (each takes
// the next DSO not started).
//
// Each DSO is loaded once, by whichever side gets to it first: Take() of a DSO no thread has
// started claims it (the caller loads it itself, as without a prefetch), of one being
// loaded waits for it, of a loaded one hands its image over. The load is the caller's
// function, run with an ElfFiles of the loading thread's own (files it opened stay open as
// long as the symbol tables that view them, through SymbolTable::KeepAlive).
#ifndef TK_PARSERS_SYMBOLIZE_DSO_PREFETCH_H_
#define TK_PARSERS_SYMBOLIZE_DSO_PREFETCH_H_

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "parsers/symbolize/elf_symbols.h"

namespace tk::parsers::symbolize {

class DsoPrefetch {
 public:
  // (name, build id) → its symbols, or nullopt when none could be loaded.
  using LoadFn = std::function<std::optional<ElfImage>(const std::string& name,
                                                       const std::string& build_id, ElfFiles*)>;

  // Starts loading `dsos` ((name, build id), in order; a name given twice is loaded once).
  // `load` must not touch state the caller's thread uses.
  DsoPrefetch(std::vector<std::pair<std::string, std::string>> dsos, LoadFn load);
  // Stops after the load under way (if any) and joins the thread.
  ~DsoPrefetch();
  DsoPrefetch(const DsoPrefetch&) = delete;
  DsoPrefetch& operator=(const DsoPrefetch&) = delete;

  // The image of `name` as loaded for `build_id`, waiting while it is being loaded. False when
  // the caller is to load it itself: `name` was not listed, was listed with another build id,
  // was taken before, or no thread had started it (then none will).
  bool Take(const std::string& name, const std::string& build_id, std::optional<ElfImage>* out);

 private:
  enum class State { kPending, kLoading, kDone, kTaken };
  struct Slot {
    std::string name, build_id;
    State state = State::kPending;
    std::optional<ElfImage> image;
  };
  void Run();

  LoadFn load_;
  std::mutex mu_;
  std::condition_variable done_cv_;
  std::vector<Slot> slots_;
  absl::flat_hash_map<std::string, size_t> by_name_;
  bool stop_ = false;
  static constexpr size_t kThreads = 2;
  std::vector<std::thread> threads_;  // last: start once the members above exist
};

}  // namespace tk::parsers::symbolize

#endif  // TK_PARSERS_SYMBOLIZE_DSO_PREFETCH_H_
