// `tk pprof --off-cpu`: folded stacks (`tk fold --off-cpu`'s, in microseconds) as a pprof
// profile.proto, so go tool pprof, Pyroscope and Parca show where threads were blocked.
//
//   sample_type   [offcpu/microseconds] (period_type the same, period 1), as issue 14 names it:
//                 the fold's own unit, so a sample's value is the folded count itself
//   sample        one per folded stack: value = its µs; label comm = the stack's root
//                 (as `tk fold` writes it: "comm", "comm-PID", "comm-PID/TID")
//   location      one per function name, address 0 and no mapping (a folded stack keeps no
//                 addresses), one Line; function one per name (name = system_name)
// The stacks, names and totals are then exactly `tk fold --off-cpu`'s: `go tool pprof
// -traces` prints its stacks without the root, `-raw` sums to its total.
#ifndef TK_ANALYSES_PPROF_FOLDED_PROFILE_H_
#define TK_ANALYSES_PPROF_FOLDED_PROFILE_H_

#include <string>
#include <string_view>

#include "analyses/fold/fold.h"
#include "analyses/pprof/profile_builder.h"

namespace tk::analyses::pprof {

struct FoldedType {
  std::string type = "offcpu", unit = "microseconds";
  int64_t scale = 1;  // one folded count in `unit`s
};

// The serialized (not yet gzipped) Profile of `stacks`; meta's comments and time as in
// ProfileBuilder::Serialize (duration unknown: 0).
std::string SerializeFolded(const fold::StackCounts& stacks, const FoldedType& type,
                            const ProfileMeta& meta);

}  // namespace tk::analyses::pprof

#endif  // TK_ANALYSES_PPROF_FOLDED_PROFILE_H_
