// Interned frames: a prefix tree of stack frames (root = node 0, named ""). Node i at depth d
// stands for one distinct path root;f1;...;fd. Memory grows with the distinct paths, not with
// the input size; names are stored once per node in an arena.
//
// Children are a linked list per node; a node's children go into a hash index only once it
// has more than a few (a sorted folded input rarely looks a child up twice: lines with the
// same prefix are adjacent), which keeps the common case free of hash-table cache misses.
#ifndef TK_ANALYSES_FLAMEGRAPH_FRAME_TREE_H_
#define TK_ANALYSES_FLAMEGRAPH_FRAME_TREE_H_

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"

namespace tk::analyses::flamegraph {

class FrameTree {
 public:
  static constexpr uint32_t kRoot = 0;
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Node {
    std::string_view name;
    uint32_t parent;
    uint32_t depth;
    uint32_t first_child = kNone;
    uint32_t next_sibling = kNone;
    uint32_t children = 0;      // how many
    uint32_t user = kNone;      // free for the tree's owner (FoldedProfile: its first line)
  };

  FrameTree();
  // The child of `parent` named `name`, added when new.
  uint32_t Child(uint32_t parent, std::string_view name);
  const Node& node(uint32_t id) const { return nodes_[id]; }
  Node& node(uint32_t id) { return nodes_[id]; }
  size_t size() const { return nodes_.size(); }
  // A copy of `s` that lives as long as the tree.
  std::string_view Store(std::string_view s);
  // The ids of the path root..id (root first) into `path`.
  void Path(uint32_t id, std::vector<uint32_t>* path) const;

 private:
  static constexpr uint32_t kIndexAbove = 8;  // children scanned linearly up to this many
  struct Key {
    uint32_t parent;
    std::string_view name;
  };
  static size_t HashOf(uint32_t parent, std::string_view name);
  // The index holds node ids only; lookups are by (parent, name).
  struct IdHash {
    using is_transparent = void;
    const std::vector<Node>* nodes;
    size_t operator()(uint32_t id) const {
      return HashOf((*nodes)[id].parent, (*nodes)[id].name);
    }
    size_t operator()(const Key& k) const { return HashOf(k.parent, k.name); }
  };
  struct IdEq {
    using is_transparent = void;
    const std::vector<Node>* nodes;
    bool operator()(uint32_t a, uint32_t b) const { return a == b; }
    bool operator()(uint32_t a, const Key& k) const {
      const Node& n = (*nodes)[a];
      return n.parent == k.parent && n.name == k.name;
    }
    bool operator()(const Key& k, uint32_t a) const { return (*this)(a, k); }
  };
  uint32_t Add(uint32_t parent, std::string_view name);

  std::vector<Node> nodes_;
  absl::flat_hash_set<uint32_t, IdHash, IdEq> index_;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* free_ = nullptr;
  size_t left_ = 0;
};

}  // namespace tk::analyses::flamegraph

#endif  // TK_ANALYSES_FLAMEGRAPH_FRAME_TREE_H_
