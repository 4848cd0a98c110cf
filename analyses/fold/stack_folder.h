// Folding by ids, for events whose names stay valid for the whole parse (Event::stable_views:
// perf.data). A folded stack is kept as a sequence of small ids, [root, frame, frame, ...]:
//   - the root ("comm", "comm-PID", "comm-PID/TID") by its string, built once per comm view
//     and the ids it shows (RootOf), not per event;
//   - a frame by the views it is named from (symbol and DSO as pointer and size, the address
//     when --addrs names unknown symbols by it, whether the root is "java"): the same views
//     always name a frame the same way (AppendFrame), and stable views never change, so
//     AppendFrame runs once per distinct frame instead of once per frame of every sample;
//   - the sequence by its ids, so a stack's key is 4 bytes a frame, not its folded text.
// The folded strings are built once per distinct sequence, when the counts are taken
// (FlushTo). Output is what FoldSink's string path gives: the same names, summed the same.
#ifndef TK_ANALYSES_FOLD_STACK_FOLDER_H_
#define TK_ANALYSES_FOLD_STACK_FOLDER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "analyses/fold/fold.h"
#include "core/event.h"

namespace tk::analyses::fold {

class StackFolder {
 public:
  explicit StackFolder(const FoldOptions& opt) : opt_(opt) {}

  // Counts one stack (leaf first; views stable) with `weight` under the root named by
  // comm/pid/tid; returns its slot (for AddWeight).
  uint32_t Add(std::string_view comm, int32_t pid, int32_t tid, absl::Span<const Frame> stack,
               uint64_t weight);
  void AddWeight(uint32_t slot, uint64_t weight) { counts_[slot] += weight; }

  // Adds the stacks counted since the last call to `out`, as folded strings.
  void FlushTo(StackCounts* out);

 private:
  struct FrameKey {
    const char* sym;
    const char* dso;
    uint32_t sym_size, dso_size;
    uint64_t ip;  // only with --addrs
    bool java;
    bool operator==(const FrameKey& o) const {
      return sym == o.sym && dso == o.dso && sym_size == o.sym_size && dso_size == o.dso_size &&
             ip == o.ip && java == o.java;
    }
    template <typename H>
    friend H AbslHashValue(H h, const FrameKey& k) {
      return H::combine(std::move(h), k.sym, k.dso, k.sym_size, k.dso_size, k.ip, k.java);
    }
  };

  uint32_t NameId(const Frame& f, bool java);
  // The root's name id and whether it is "java", by the comm's view and the ids the root
  // shows (0 when it shows none): the root's string is built once per thread, not per event.
  struct RootKey {
    const char* comm;
    size_t comm_size;
    int32_t pid, tid;
    bool operator==(const RootKey& o) const {
      return comm == o.comm && comm_size == o.comm_size && pid == o.pid && tid == o.tid;
    }
    template <typename H>
    friend H AbslHashValue(H h, const RootKey& k) {
      return H::combine(std::move(h), k.comm, k.comm_size, k.pid, k.tid);
    }
  };
  struct Root {
    uint32_t id;
    bool java;
  };
  Root RootOf(std::string_view comm, int32_t pid, int32_t tid);

  const FoldOptions& opt_;
  std::string scratch_;
  std::vector<uint32_t> seq_;
  absl::flat_hash_map<std::string, uint32_t> root_ids_;
  absl::flat_hash_map<RootKey, Root> roots_;  // RootOf's
  absl::flat_hash_map<FrameKey, uint32_t> frame_ids_;
  std::vector<std::string> names_;  // by id: roots as they are, frames as ";name..."
  // Sequences by their bytes (the ids), kept in blocks that never move.
  absl::flat_hash_map<std::string_view, uint32_t> slots_;
  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t block_used_ = 0, block_size_ = 0;
  std::vector<std::string_view> seqs_;  // by slot
  std::vector<uint64_t> counts_;        // by slot, since the last FlushTo
};

}  // namespace tk::analyses::fold

#endif  // TK_ANALYSES_FOLD_STACK_FOLDER_H_
