#include "analyses/fold/fold.h"

#include <algorithm>
#include <ostream>
#include <vector>

#include "absl/strings/numbers.h"
#include "core/absl_compat.h"
#include "nlohmann/json.hpp"

namespace tk::analyses::fold {
namespace {

// perf's event modifiers: "cycles:u", "cpu-clock:pppH", "instructions:uk".
bool IsModifierSuffix(std::string_view s) {
  if (s.size() < 2 || s[0] != ':') return false;
  return s.substr(1).find_first_not_of("ukhIGHpPSDWeb") == std::string_view::npos;
}

// Events that carry a stack and an event type; side-band records do not.
bool IsStackEvent(EventKind k) {
  return k != EventKind::kComm && k != EventKind::kFork && k != EventKind::kExit &&
         k != EventKind::kLost;
}

template <typename T>
void AppendInt(T v, std::string* out) {
  char buf[24];
  char* end = absl::numbers_internal::FastIntToBuffer(v, buf);
  out->append(buf, end - buf);
}

}  // namespace

bool SameEventType(std::string_view a, std::string_view b) {
  if (a == b) return true;
  if (a.size() > b.size()) std::swap(a, b);
  return b.starts_with(a) && IsModifierSuffix(b.substr(a.size()));
}

FoldSink::FoldSink(FoldOptions opt) : opt_(std::move(opt)), filter_(opt_.event_filter) {}

void FoldSink::SetDefaultType(std::string_view name) {
  if (!opt_.event_filter.empty() || !filter_.empty()) return;
  filter_ = std::string(name);
  defaulted_ = true;
}

bool FoldSink::Keep(std::string_view name) {
  if (name.empty()) return true;  // perf script -F without "event": nothing to filter on
  if (filter_.empty()) {
    // Merging different event types (cycles and instructions) would mislead: by default
    // only the first type seen is folded.
    filter_ = std::string(name);
    defaulted_ = true;
    return true;
  }
  if (SameEventType(name, filter_)) return true;
  if (defaulted_ && first_filtered_.empty()) first_filtered_ = std::string(name);
  return false;
}

// "comm", "comm-PID" or "comm-PID/TID", spaces in the comm as '_'.
void FoldSink::AppendRoot(const Event& e) {
  size_t from = key_.size();
  key_.append(e.comm);
  std::replace(key_.begin() + from, key_.end(), ' ', '_');
  if (!opt_.include_pid && !opt_.include_tid) return;
  key_.push_back('-');
  if (opt_.pid_shown && e.pid >= 0) {
    AppendInt(e.pid, &key_);
  } else {
    key_.push_back('?');
  }
  if (opt_.include_tid) {
    key_.push_back('/');
    AppendInt(e.tid, &key_);
  }
}

absl::Status FoldSink::OnEvent(const Event& e) {
  if (!IsStackEvent(e.kind()) || !Keep(e.name) || e.stack.empty()) return absl::OkStatus();
  key_.clear();
  AppendRoot(e);
  FrameNameOptions names = opt_.names;
  // stackcollapse (as its test results have it) tidies Java names only when the root is
  // exactly "java": not "java-PID" with --pid.
  names.java = key_ == "java";
  int frames = 0;
  for (size_t i = e.stack.size(); i-- > 0;) frames += AppendFrame(e.stack[i], names, &key_);
  if (frames == 0) return absl::OkStatus();
  uint64_t weight = e.has_period && e.period ? e.period : 1;
  auto it = stacks_.find(AV(key_));
  if (it == stacks_.end()) {
    stacks_.emplace(key_, weight);
  } else {
    it->second += weight;
  }
  return absl::OkStatus();
}

void FoldSink::Merge(const FoldSink& other) {
  for (const auto& [k, v] : other.stacks_) stacks_[k] += v;
  if (filter_.empty()) {
    filter_ = other.filter_;
    defaulted_ = other.defaulted_;
  }
  if (first_filtered_.empty()) first_filtered_ = other.first_filtered_;
}

void FoldSink::Write(std::ostream& out) const {
  std::vector<const std::pair<const std::string, uint64_t>*> v;
  v.reserve(stacks_.size());
  for (const auto& kv : stacks_) v.push_back(&kv);
  std::sort(v.begin(), v.end(), [](auto* a, auto* b) { return a->first < b->first; });
  std::string buf;
  buf.reserve(1 << 16);
  for (auto* kv : v) {
    buf.append(kv->first);
    buf.push_back(' ');
    AppendInt(kv->second, &buf);
    buf.push_back('\n');
    if (buf.size() >= (1 << 16)) {
      out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
      buf.clear();
    }
  }
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

void FoldSink::WriteJson(std::ostream& out) const {
  std::vector<const std::pair<const std::string, uint64_t>*> v;
  v.reserve(stacks_.size());
  for (const auto& kv : stacks_) v.push_back(&kv);
  std::sort(v.begin(), v.end(), [](auto* a, auto* b) { return a->first < b->first; });
  nlohmann::json stacks = nlohmann::json::array();
  uint64_t total = 0;
  for (auto* kv : v) {
    nlohmann::json frames = nlohmann::json::array();
    std::string_view rest = kv->first;
    while (true) {
      size_t semi = rest.find(';');
      frames.push_back(std::string(rest.substr(0, semi)));
      if (semi == std::string_view::npos) break;
      rest.remove_prefix(semi + 1);
    }
    stacks.push_back({{"frames", std::move(frames)}, {"count", kv->second}});
    total += kv->second;
  }
  nlohmann::json j = {{"event", filter_}, {"total", total}, {"stacks", std::move(stacks)}};
  // Replace, not throw, on invalid UTF-8 in symbol names.
  out << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace tk::analyses::fold
