#include "analyses/flamegraph/frame_tree.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"

namespace tk::analyses::flamegraph {

FrameTree::FrameTree() : index_(0, IdHash{&nodes_}, IdEq{&nodes_}) {
  nodes_.push_back({std::string_view(), kRoot, 0});
}

size_t FrameTree::HashOf(uint32_t parent, std::string_view name) {
  return absl::Hash<std::pair<uint32_t, absl::string_view>>{}(
      std::make_pair(parent, absl::string_view(name.data(), name.size())));
}

std::string_view FrameTree::Store(std::string_view s) {
  if (s.empty()) return std::string_view();
  if (s.size() > left_) {
    size_t size = std::max<size_t>(s.size(), 1 << 20);
    blocks_.push_back(std::make_unique<char[]>(size));
    free_ = blocks_.back().get();
    left_ = size;
  }
  std::memcpy(free_, s.data(), s.size());
  std::string_view stored(free_, s.size());
  free_ += s.size();
  left_ -= s.size();
  return stored;
}

uint32_t FrameTree::Add(uint32_t parent, std::string_view name) {
  uint32_t id = static_cast<uint32_t>(nodes_.size());
  Node n{Store(name), parent, nodes_[parent].depth + 1};
  Node& p = nodes_[parent];
  n.next_sibling = p.first_child;
  p.first_child = id;
  uint32_t count = ++p.children;
  nodes_.push_back(n);
  if (count > kIndexAbove) {
    if (count == kIndexAbove + 1) {  // the list became long: index all of it
      for (uint32_t c = nodes_[parent].first_child; c != kNone; c = nodes_[c].next_sibling)
        index_.insert(c);
    } else {
      index_.insert(id);
    }
  }
  return id;
}

uint32_t FrameTree::Child(uint32_t parent, std::string_view name) {
  const Node& p = nodes_[parent];
  if (p.children > kIndexAbove) {
    auto it = index_.find(Key{parent, name});
    if (it != index_.end()) return *it;
  } else {
    for (uint32_t c = p.first_child; c != kNone; c = nodes_[c].next_sibling)
      if (nodes_[c].name == name) return c;
  }
  return Add(parent, name);
}

void FrameTree::Path(uint32_t id, std::vector<uint32_t>* path) const {
  path->resize(nodes_[id].depth + 1);
  for (uint32_t d = nodes_[id].depth;; --d) {
    (*path)[d] = id;
    if (d == 0) break;
    id = nodes_[id].parent;
  }
}

}  // namespace tk::analyses::flamegraph
