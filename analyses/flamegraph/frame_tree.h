// Interned frames: a prefix tree of stack frames (root = node 0, named ""). Node i at depth d
// stands for one distinct path root;f1;...;fd. Memory grows with the distinct paths, not with
// the input size; names are stored once per node in an arena.
#ifndef TK_ANALYSES_FLAMEGRAPH_FRAME_TREE_H_
#define TK_ANALYSES_FLAMEGRAPH_FRAME_TREE_H_

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace tk::analyses::flamegraph {

class FrameTree {
 public:
  static constexpr uint32_t kRoot = 0;
  struct Node {
    std::string_view name;
    uint32_t parent;
    uint32_t depth;
  };

  FrameTree();
  // The child of `parent` named `name`, added when new.
  uint32_t Child(uint32_t parent, std::string_view name);
  const Node& node(uint32_t id) const { return nodes_[id]; }
  size_t size() const { return nodes_.size(); }
  // A copy of `s` that lives as long as the tree.
  std::string_view Store(std::string_view s);
  // The ids of the path root..id (root first) into `path`.
  void Path(uint32_t id, std::vector<uint32_t>* path) const;

 private:
  struct Key {
    uint32_t parent;
    std::string_view name;
    bool operator==(const Key& o) const { return parent == o.parent && name == o.name; }
    template <typename H>
    friend H AbslHashValue(H h, const Key& k) {
      return H::combine(std::move(h), k.parent, k.name);
    }
  };
  std::vector<Node> nodes_;
  absl::flat_hash_map<Key, uint32_t> index_;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* free_ = nullptr;
  size_t left_ = 0;
};

}  // namespace tk::analyses::flamegraph

#endif  // TK_ANALYSES_FLAMEGRAPH_FRAME_TREE_H_
