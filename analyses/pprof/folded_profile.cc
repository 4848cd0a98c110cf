#include "analyses/pprof/folded_profile.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analyses/pprof/profile.pb.h"
#include "google/protobuf/arena.h"

namespace tk::analyses::pprof {

std::string SerializeFolded(const fold::StackCounts& stacks, const FoldedType& type,
                            const ProfileMeta& meta) {
  google::protobuf::Arena arena;
  auto& p = *google::protobuf::Arena::CreateMessage<perftools::profiles::Profile>(&arena);
  absl::flat_hash_map<std::string, int64_t> strings;
  auto id = [&](std::string_view s) {
    auto [it, added] = strings.try_emplace(std::string(s), static_cast<int64_t>(strings.size()));
    if (added) p.add_string_table(std::string(s));
    return it->second;
  };
  id("");
  auto* st = p.add_sample_type();
  st->set_type(id(type.type));
  st->set_unit(id(type.unit));
  *p.mutable_period_type() = *st;
  p.set_period(type.scale);
  // Bytewise order, as tk fold prints the stacks, so the profile does not depend on hashing.
  std::vector<const std::pair<const std::string, uint64_t>*> sorted;
  for (const auto& kv : stacks) sorted.push_back(&kv);
  std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->first < b->first; });
  absl::flat_hash_map<std::string_view, uint64_t> location_of;  // function name -> id
  const int64_t comm_key = id("comm");
  std::vector<uint64_t> locs;
  for (const auto* kv : sorted) {
    std::string_view stack = kv->first;
    size_t semi = stack.find(';');
    std::string_view root = stack.substr(0, semi);
    locs.clear();
    while (semi != std::string_view::npos) {
      size_t next = stack.find(';', semi + 1);
      std::string_view name = stack.substr(semi + 1, next == std::string_view::npos
                                                         ? std::string_view::npos
                                                         : next - semi - 1);
      auto [it, added] = location_of.try_emplace(name, location_of.size() + 1);
      if (added) {
        auto* f = p.add_function();
        f->set_id(it->second);
        f->set_name(id(name));
        f->set_system_name(f->name());
        auto* l = p.add_location();
        l->set_id(it->second);
        l->add_line()->set_function_id(it->second);
      }
      locs.push_back(it->second);
      semi = next;
    }
    if (locs.empty()) continue;  // a bare root: no frame to show
    auto* s = p.add_sample();
    for (size_t i = locs.size(); i-- > 0;) s->add_location_id(locs[i]);  // leaf first
    s->add_value(static_cast<int64_t>(kv->second) * type.scale);
    auto* lb = s->add_label();
    lb->set_key(comm_key);
    lb->set_str(id(root));
  }
  if (!meta.perf_version.empty()) p.add_comment(id("perf-version:" + meta.perf_version));
  if (!meta.cmdline.empty()) p.add_comment(id("perf-command:" + meta.cmdline));
  p.set_time_nanos(meta.time_nanos);
  return p.SerializeAsString();
}

}  // namespace tk::analyses::pprof
