// `tk pprof`: samples as pprof's profile.proto (perftools.profiles.Profile), gzipped.
//
// What goes where:
//   sample_type   [samples/count, cpu/nanoseconds] for cpu-clock and task-clock (period_type
//                 cpu/nanoseconds), else [samples/count, EVENT/count]; the preferred type last
//   sample        one per distinct (stack, comm, thread comm, pid, tid): values {count, period
//                 sum}; labels comm and thread_comm (strings), pid and tid (numbers with
//                 num_unit "pid"/"tid": pprof drops a unit-less 0)
//   location      one per (DSO, address) with the address tk symbolized (DSO-relative for
//                 files, absolute for the kernel), its Lines the frame's functions as `tk fold`
//                 names them, the inlined callee first: a DWARF-unwound frame's inline frames
//                 (the decoder's frames at one address with the DSO "inlined") are Lines of
//                 the one Location of the function they are inlined into, in its DSO's
//                 mapping (also where DWARF names it otherwise than its ELF symbol)
//   mapping       one per DSO (file path, [kernel.kallsyms], [vdso], JIT map), its build id
//                 from the file, addresses normalized (start 0, offset 0): a DSO's locations
//                 hold file-relative addresses, as Parca's --normalized; has_functions only
//                 when every location in it was resolved, so pprof may still symbolize the
//                 rest from local binaries. mapping[0] is the main binary.
//   function      one per name (name = system_name)
//   comment       "perf-version:..." and "perf-command:..." (as perf_data_converter)
//   time_nanos    the file's mtime minus the duration (perf's clock is not wall time)
//   duration_nanos the last minus the first sample time
// Ids run 1..N in order (Parca requires it).
#ifndef TK_ANALYSES_PPROF_PROFILE_BUILDER_H_
#define TK_ANALYSES_PPROF_PROFILE_BUILDER_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/types/span.h"
#include "analyses/fold/frame_name.h"
#include "core/intern.h"
#include "core/sink.h"

namespace tk::analyses::pprof {

struct PprofOptions {
  std::string event_filter;      // --event-filter; empty: the first event type seen
  fold::FrameNameOptions names;  // --kernel, --jit, --addrs
};

// Facts from the file's header (perf.data); all optional.
struct ProfileMeta {
  std::string perf_version, cmdline;
  std::map<std::string, std::string, std::less<>> build_ids;  // filename -> hex
  int64_t time_nanos = 0;                                     // wall-clock start
  int64_t duration_nanos = -1;                                // -1: from the samples' times
};

class ProfileBuilder final : public EventSink {
 public:
  explicit ProfileBuilder(PprofOptions opt) : opt_(std::move(opt)) {}

  EventMask wants() const override {
    return EventMask().Add(EventKind::kSample).Add(EventKind::kComm).WithStacks();
  }
  absl::Status OnEvent(const Event& e) override;

  const std::string& event_type() const { return filter_; }
  uint64_t samples() const { return samples_; }
  // Samples whose locations came from the stack memo (a stack_id seen before), for tests.
  uint64_t stack_memo_hits() const { return stack_memo_hits_; }
  // The serialized (not yet gzipped) Profile.
  std::string Serialize(const ProfileMeta& meta) const;

 private:
  struct Loc {
    uint32_t mapping;  // index into dsos_
    uint64_t address;
    std::vector<uint32_t> functions;  // indexes into functions_, callee first
  };
  struct Dso {
    std::string_view name;
    uint64_t max_address = 0;
    uint64_t leaf_samples = 0;
    bool all_resolved = true;
  };
  struct Agg {
    uint64_t count = 0, period = 0;
  };
  struct SampleKey {
    std::vector<uint32_t> locs;  // leaf first, indexes into locs_
    std::string_view comm, thread_comm;
    int32_t pid, tid;
    bool operator==(const SampleKey&) const = default;
    template <typename H>
    friend H AbslHashValue(H h, const SampleKey& k) {
      return H::combine(std::move(h), k.locs, k.comm, k.thread_comm, k.pid, k.tid);
    }
  };
  uint32_t LocationOf(absl::Span<const Frame> frames, bool java);
  uint32_t FunctionOf(std::string_view name);
  std::vector<uint32_t> MappingOrder() const;

  PprofOptions opt_;
  std::string filter_;
  Interner strings_;
  absl::flat_hash_map<int32_t, std::string_view> process_comm_;
  absl::flat_hash_map<std::string_view, uint32_t> dso_index_;
  std::vector<Dso> dsos_;
  // (mapping, address, interned name for Java and inline frames without their ELF symbol's)
  using LocKey = std::tuple<uint32_t, uint64_t, const char*>;
  absl::flat_hash_map<LocKey, uint32_t> loc_index_;
  std::vector<Loc> locs_;
  absl::flat_hash_map<std::string_view, uint32_t> function_index_;
  std::vector<std::string_view> functions_;
  // {Event::stack_id, java} -> the stack's locations (key_.locs): one per distinct stack.
  // Its own key, unlike report's StackKey (the sort keys' comm/tid/cpu context) and fold's
  // MemoKey (the root's comm/pid/tid): a stack's locations depend only on its frames and on
  // whether the comm is java (Java frames are named differently), not on the thread.
  absl::flat_hash_map<std::pair<uint64_t, bool>, std::vector<uint32_t>> stack_locs_;
  absl::node_hash_map<SampleKey, Agg> samples_by_key_;  // pointer-stable: sample_order_
  std::vector<const SampleKey*> sample_order_;
  SampleKey key_;  // scratch
  std::string scratch_;
  std::vector<std::string_view> names_;
  uint64_t samples_ = 0, period_ = 0, stack_memo_hits_ = 0;
  int64_t first_ts_ = -1, last_ts_ = -1;
  std::map<uint64_t, uint64_t> periods_;  // period -> samples, for Profile.period
};

// gzip (RFC 1952) of `data` with zlib; false on a zlib error.
bool Gzip(std::string_view data, std::string* out);

}  // namespace tk::analyses::pprof

#endif  // TK_ANALYSES_PPROF_PROFILE_BUILDER_H_
