// Checks shared by the live-recording tests and the committed-fixture test: tk's view of a
// recorded set (perf.data, trace.dat, v6, text forms) against the anchor tools' own output.
#ifndef TK_TESTS_LIVE_SET_CHECKS_H_
#define TK_TESTS_LIVE_SET_CHECKS_H_

#include <cstdint>
#include <map>
#include <string>

#include "nlohmann/json.hpp"

namespace tk::testing {

// "sched:sched_switch" and "sched_switch" are the same event.
std::string Bare(const std::string& name);

struct Info {
  nlohmann::json json = nlohmann::json::object();
  std::map<std::string, uint64_t> events;  // bare name -> count
  uint64_t lost = 0;
};

// `tk info --json FILE`, with a gtest failure (and empty result) when it does not succeed.
Info TkInfo(const std::string& file);

// Per-event line counts of `perf script` default output:
//   "  dd  9713 [000]  789.102820:  block:block_rq_issue: 254,0 RA ..." -> block_rq_issue
std::map<std::string, uint64_t> CountPerfScript(const std::string& text);

// Per-event line counts of `trace-cmd report` output: the word after the timestamp.
//   "  dd-14380 [001]   910.167743: block_rq_issue:  7,0 RM ..." -> block_rq_issue
std::map<std::string, uint64_t> CountReport(const std::string& text);

std::string Show(const std::map<std::string, uint64_t>& m);
uint64_t Count(const Info& i, const std::string& ev);

void ExpectSameEventNames(const Info& perf, const Info& dat);
// tk on PREFIX.trace.dat and PREFIX.v6.trace.dat (equal), both = `trace-cmd report` counts.
void CheckTraceDat(const std::string& prefix, Info* dat);
// tk on PREFIX.perf.data = `perf script` counts (PREFIX.perf-script.txt).
void CheckPerfData(const std::string& prefix, Info* perf);
// The text forms of the set parse to the same events as their binary file (one via stdin).
void CheckTextForms(const std::string& prefix, const Info& perf, const Info& dat);

// stdout of a shell command (anchor tools), "" on failure.
std::string Shell(const std::string& cmd);
// Sum of the numbers that follow `key` and are followed by `suffix` in `text`:
//   "CPU:0 [17056 EVENTS DROPPED]" with key "[" and suffix " EVENTS DROPPED]".
uint64_t SumAfter(const std::string& text, const std::string& key, const std::string& suffix);

}  // namespace tk::testing

#endif  // TK_TESTS_LIVE_SET_CHECKS_H_
