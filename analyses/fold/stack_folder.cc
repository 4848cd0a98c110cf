#include "analyses/fold/stack_folder.h"

#include <algorithm>
#include <cstring>

#include "analyses/fold/frame_name.h"

namespace tk::analyses::fold {

uint32_t StackFolder::NameId(const Frame& f, bool java) {
  const FrameKey k{f.symbol.data(), f.dso.data(), static_cast<uint32_t>(f.symbol.size()),
                   static_cast<uint32_t>(f.dso.size()), opt_.names.include_addrs ? f.ip : 0,
                   java};
  auto [it, inserted] = frame_ids_.try_emplace(k, static_cast<uint32_t>(names_.size()));
  if (inserted) {
    FrameNameOptions names = opt_.names;
    names.java = java;
    scratch_.clear();
    AppendFrame(f, names, &scratch_);
    names_.push_back(scratch_);
  }
  return it->second;
}

StackFolder::Root StackFolder::RootOf(std::string_view comm, int32_t pid, int32_t tid) {
  const bool shows_pid = opt_.include_pid || opt_.include_tid;
  const RootKey k{comm.data(), comm.size(), shows_pid ? pid : 0, opt_.include_tid ? tid : 0};
  auto [it, inserted] = roots_.try_emplace(k, Root{0, false});
  if (!inserted) return it->second;
  scratch_.clear();
  AppendRoot(opt_, comm, pid, tid, &scratch_);
  auto [root, new_root] = root_ids_.try_emplace(scratch_, static_cast<uint32_t>(names_.size()));
  if (new_root) names_.push_back(scratch_);
  // As FoldSink::Count: Java names are tidied only under the root "java".
  it->second = Root{root->second, scratch_ == "java"};
  return it->second;
}

uint32_t StackFolder::Add(std::string_view comm, int32_t pid, int32_t tid,
                          absl::Span<const Frame> stack, uint64_t weight) {
  const Root root = RootOf(comm, pid, tid);
  seq_.clear();
  seq_.push_back(root.id);
  for (size_t i = stack.size(); i-- > 0;) seq_.push_back(NameId(stack[i], root.java));
  const std::string_view key(reinterpret_cast<const char*>(seq_.data()), seq_.size() * 4);
  auto it = slots_.find(key);
  if (it == slots_.end()) {
    if (block_used_ + key.size() > block_size_) {
      block_size_ = std::max<size_t>(key.size(), 1 << 16);
      blocks_.push_back(std::make_unique<char[]>(block_size_));
      block_used_ = 0;
    }
    char* at = blocks_.back().get() + block_used_;
    std::memcpy(at, key.data(), key.size());
    block_used_ += key.size();
    it = slots_.emplace(std::string_view(at, key.size()), static_cast<uint32_t>(seqs_.size())).first;
    seqs_.push_back(it->first);
    counts_.push_back(0);
  }
  counts_[it->second] += weight;
  return it->second;
}

void StackFolder::FlushTo(StackCounts* out) {
  std::string folded;
  for (size_t slot = 0; slot < seqs_.size(); ++slot) {
    if (counts_[slot] == 0) continue;
    const std::string_view seq = seqs_[slot];
    folded.clear();
    for (size_t at = 0; at < seq.size(); at += 4) {
      uint32_t id;
      std::memcpy(&id, seq.data() + at, 4);
      folded += names_[id];
    }
    (*out)[folded] += counts_[slot];
    counts_[slot] = 0;
  }
}

}  // namespace tk::analyses::fold
