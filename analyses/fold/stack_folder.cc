#include "analyses/fold/stack_folder.h"

#include <algorithm>
#include <cstring>

#include "analyses/fold/frame_name.h"

namespace tk::analyses::fold {

uint32_t StackFolder::NameId(const Frame& f, bool java) {
  const FrameKey k{f.symbol.data(), f.dso.data(), static_cast<uint32_t>(f.symbol.size()),
                   static_cast<uint32_t>(f.dso.size()), opt_.names.include_addrs ? f.ip : 0,
                   java};
  FrameMemo& m = frame_memo_[(FrameKeyHash{}(k) >> 20) % kFrameMemo];
  if (m.set && m.key == k) return m.id;
  auto [it, inserted] = frame_ids_.try_emplace(k, static_cast<uint32_t>(names_.size()));
  if (inserted) {
    FrameNameOptions names = opt_.names;
    names.java = java;
    scratch_.clear();
    AppendFrame(f, names, &scratch_);
    names_.push_back(scratch_);
  }
  m = FrameMemo{k, it->second, true};
  return it->second;
}

uint32_t StackFolder::RootId(std::string_view comm, int32_t pid, int32_t tid, bool* java) {
  // Only what the root shows tells roots apart.
  if (!opt_.include_pid && !opt_.include_tid) pid = 0;
  if (!opt_.include_tid) tid = 0;
  const uint64_t h = (reinterpret_cast<uintptr_t>(comm.data()) ^ static_cast<uint32_t>(pid) ^
                      (uint64_t{static_cast<uint32_t>(tid)} << 32)) * 0x9e3779b97f4a7c15ULL;
  RootMemo& m = root_memo_[(h >> 40) % kRootMemo];
  if (m.comm == comm.data() && m.comm_size == comm.size() && m.pid == pid && m.tid == tid &&
      m.comm) {
    *java = m.java;
    return m.id;
  }
  scratch_.clear();
  AppendRoot(opt_, comm, pid, tid, &scratch_);
  // As FoldSink::Count: Java names are tidied only under the root "java".
  *java = scratch_ == "java";
  auto [root, new_root] = root_ids_.try_emplace(scratch_, static_cast<uint32_t>(names_.size()));
  if (new_root) names_.push_back(scratch_);
  m = RootMemo{comm.data(), comm.size(), pid, tid, root->second, *java};
  return root->second;
}

uint32_t StackFolder::Add(std::string_view comm, int32_t pid, int32_t tid,
                          absl::Span<const Frame> stack, uint64_t weight) {
  bool java;
  const uint32_t root = RootId(comm, pid, tid, &java);
  seq_.clear();
  seq_.push_back(root);
  for (size_t i = stack.size(); i-- > 0;) seq_.push_back(NameId(stack[i], java));
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
