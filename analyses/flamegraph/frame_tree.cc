#include "analyses/flamegraph/frame_tree.h"

#include <algorithm>
#include <cstring>

namespace tk::analyses::flamegraph {

FrameTree::FrameTree() { nodes_.push_back({std::string_view(), kRoot, 0}); }

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

uint32_t FrameTree::Child(uint32_t parent, std::string_view name) {
  auto it = index_.find(Key{parent, name});
  if (it != index_.end()) return it->second;
  uint32_t id = static_cast<uint32_t>(nodes_.size());
  std::string_view stored = Store(name);
  nodes_.push_back({stored, parent, nodes_[parent].depth + 1});
  index_.emplace(Key{parent, stored}, id);
  return id;
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
