// String interning for analyses that keep names past OnEvent (views die with the call).
#ifndef TK_CORE_INTERN_H_
#define TK_CORE_INTERN_H_

#include <deque>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_set.h"

namespace tk {

class Interner {
 public:
  // Returns a view that lives as long as the Interner; equal strings share storage.
  std::string_view Intern(std::string_view s) {
    auto it = set_.find(s);
    if (it != set_.end()) return *it;
    store_.emplace_back(s);
    std::string_view v = store_.back();
    set_.insert(v);
    return v;
  }
  size_t size() const { return set_.size(); }

 private:
  std::deque<std::string> store_;  // deque: stable addresses
  absl::flat_hash_set<std::string_view> set_;
};

}  // namespace tk

#endif  // TK_CORE_INTERN_H_
