// Per-thread off-CPU totals from tk's folded output and from `perf sched timehist`'s rows,
// for the tests that hold one against the other.
#ifndef TK_TESTS_OFFCPU_TOTALS_H_
#define TK_TESTS_OFFCPU_TOTALS_H_

#include <cstdint>
#include <map>
#include <string>

namespace tk::testing {

// Per TID, the µs of the folded lines (`tk fold --off-cpu --tid`) whose root starts with
// `prefix` ("oc-ping-?/611;...;__schedule 52").
std::map<int, uint64_t> TkTotals(const std::string& folded, const std::string& prefix = "oc-");
// Per TID, the sum of perf sched timehist's "wait time" column (msec with 3 decimals, which
// perf truncates from ns: exactly µs) over the rows of threads whose comm starts with `prefix`.
std::map<int, uint64_t> TimehistTotals(const std::string& text, const std::string& prefix = "oc-");

}  // namespace tk::testing

#endif  // TK_TESTS_OFFCPU_TOTALS_H_
