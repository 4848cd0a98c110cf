// Symbol loads shared by the Machines of one split parse (parsers/perf_data/session.h
// RunSessionParts): each part's Machine would otherwise read kallsyms and every DSO's symbols
// again. The first Machine to ask for a load does it (on its own thread, or its kernel
// prefetch's); one asking for the same meanwhile waits for it. A load's result is the same
// whoever makes it (a function of the key: paths, build id, options), and each Machine takes
// its own copy of the tables (SymbolTable::Clone), because a table is not safe to look up from
// two threads (symbols made, pages indexed and names demangled on demand).
#ifndef TK_PARSERS_SYMBOLIZE_SHARED_LOADS_H_
#define TK_PARSERS_SYMBOLIZE_SHARED_LOADS_H_

#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>

#include "absl/container/flat_hash_map.h"

namespace tk::parsers::symbolize {

class SharedLoads {
 public:
  // The result of `load` for `key`: made once, by the first caller; the others wait for it.
  std::shared_ptr<const void> Get(const std::string& key,
                                  const std::function<std::shared_ptr<const void>()>& load) {
    std::shared_future<std::shared_ptr<const void>> f;
    std::promise<std::shared_ptr<const void>> mine;
    bool first = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto [it, fresh] = loads_.try_emplace(key);
      if (fresh) {
        it->second = mine.get_future().share();
        first = true;
      }
      f = it->second;
    }
    if (first) mine.set_value(load());
    return f.get();
  }

 private:
  std::mutex mu_;
  absl::flat_hash_map<std::string, std::shared_future<std::shared_ptr<const void>>> loads_;
};

}  // namespace tk::parsers::symbolize

#endif  // TK_PARSERS_SYMBOLIZE_SHARED_LOADS_H_
