#include "tests/live/set_checks.h"

#include <cstdio>
#include <sstream>
#include <vector>

#include "gtest/gtest.h"
#include "tests/support/golden.h"

namespace tk::testing {

std::string Bare(const std::string& name) {
  size_t colon = name.rfind(':');
  return colon == std::string::npos ? name : name.substr(colon + 1);
}

Info TkInfo(const std::string& file) {
  Info info;
  info.json = nlohmann::json::object();
  RunResult r = RunTk({"info", "--json", file});
  EXPECT_EQ(r.exit_code, 0) << "tk info --json " << file << "\nstderr: " << r.err;
  if (r.exit_code != 0) return info;
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  EXPECT_TRUE(j.is_object()) << "tk info --json " << file << " printed: " << r.out;
  if (!j.is_object()) return info;
  info.json = std::move(j);
  if (info.json.contains("events")) {
    for (auto it = info.json["events"].begin(); it != info.json["events"].end(); ++it) {
      info.events[Bare(it.key())] += it->get<uint64_t>();
    }
  }
  info.lost = info.json.value("lost", uint64_t{0});
  return info;
}

// Per-event line counts of `perf script` default output:
//   "  dd  9713 [000]  789.102820:  block:block_rq_issue: 254,0 RA ..." -> block_rq_issue
std::map<std::string, uint64_t> CountPerfScript(const std::string& text) {
  std::map<std::string, uint64_t> n;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    for (std::string w; words >> w;) {
      size_t c = w.find(':');
      if (c != std::string::npos && c > 0 && w.size() > c + 2 && w.back() == ':' &&
          w.find(':', c + 1) == w.size() - 1 && w[0] >= 'a' && w[0] <= 'z') {
        ++n[w.substr(c + 1, w.size() - c - 2)];
        break;
      }
    }
  }
  return n;
}

// Per-event line counts of `trace-cmd report` output: the word after the timestamp.
//   "  dd-14380 [001]   910.167743: block_rq_issue:  7,0 RM ..." -> block_rq_issue
std::map<std::string, uint64_t> CountReport(const std::string& text) {
  std::map<std::string, uint64_t> n;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    bool after_cpu = false;
    for (std::string w; words >> w;) {
      if (!after_cpu) {
        after_cpu = w.size() > 2 && w.front() == '[' && w.back() == ']';
        continue;
      }
      if (w.back() == ':' && w.find('.') != std::string::npos) {  // the timestamp
        if (words >> w && w.size() > 1 && w.back() == ':') ++n[w.substr(0, w.size() - 1)];
        break;
      }
    }
  }
  return n;
}

std::string Show(const std::map<std::string, uint64_t>& m) {
  std::string s;
  for (const auto& [k, v] : m) s += k + "=" + std::to_string(v) + " ";
  return s;
}

void ExpectSameEventNames(const Info& perf, const Info& dat) {
  std::vector<std::string> a, b;
  for (const auto& [k, v] : perf.events) a.push_back(k);
  for (const auto& [k, v] : dat.events) b.push_back(k);
  EXPECT_EQ(a, b) << "perf.data: " << Show(perf.events) << "\ntrace.dat: " << Show(dat.events);
}

// tk on a trace.dat v7 and on its v6 conversion, and both against `trace-cmd report`.
void CheckTraceDat(const std::string& prefix, Info* dat) {
  *dat = TkInfo(prefix + ".trace.dat");
  Info v6 = TkInfo(prefix + ".v6.trace.dat");
  EXPECT_EQ(dat->events, v6.events) << "v7: " << Show(dat->events) << "\nv6: " << Show(v6.events);
  EXPECT_EQ(dat->json.value("first_sample_time", ""), v6.json.value("first_sample_time", "x"));
  EXPECT_EQ(dat->json.value("last_sample_time", ""), v6.json.value("last_sample_time", "x"));
  std::map<std::string, uint64_t> anchor = CountReport(ReadFile(prefix + ".report.txt"));
  EXPECT_FALSE(anchor.empty());
  EXPECT_EQ(dat->events, anchor) << "tk: " << Show(dat->events) << "\ntrace-cmd report: "
                                 << Show(anchor);
}

void CheckPerfData(const std::string& prefix, Info* perf) {
  *perf = TkInfo(prefix + ".perf.data");
  std::map<std::string, uint64_t> anchor = CountPerfScript(ReadFile(prefix + ".perf-script.txt"));
  EXPECT_FALSE(anchor.empty());
  EXPECT_EQ(perf->events, anchor) << "tk: " << Show(perf->events) << "\nperf script: "
                                  << Show(anchor);
}

// The text forms saved from the same files parse to the same events: perf script text like
// perf.data, trace-cmd report (-R too) and the tracefs `trace` copies like trace.dat. One of
// them goes through stdin.
void CheckTextForms(const std::string& prefix, const Info& perf, const Info& dat) {
  Info text = TkInfo(prefix + ".perf-script.txt");
  EXPECT_EQ(text.events, perf.events) << "perf script text: " << Show(text.events);
  for (const char* suffix : {".report.txt", ".report-raw.txt", ".ftrace.txt",
                             ".ftrace-noirq.txt", ".ftrace-tgid.txt"}) {
    Info t = TkInfo(prefix + suffix);
    EXPECT_EQ(t.events, dat.events) << suffix << ": " << Show(t.events);
    EXPECT_EQ(t.json.value("malformed_records", 0), 0) << suffix;
  }
  RunResult r = RunTk({"info", "--json", "-"}, prefix + ".ftrace.txt");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_TRUE(j.is_object() && j.value("samples", 0) == dat.json.value("samples", 1)) << r.out;
}

uint64_t Count(const Info& i, const std::string& ev) {
  auto it = i.events.find(ev);
  return it == i.events.end() ? 0 : it->second;
}

std::string Shell(const std::string& cmd) {
  std::string out;
  FILE* f = popen(cmd.c_str(), "r");
  if (f == nullptr) return out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
  pclose(f);
  return out;
}

// Sum of the numbers that follow `key` in `text` ("CPU:0 [17056 EVENTS DROPPED]" with key
// "[" and suffix " EVENTS DROPPED]"; "PERF_RECORD_LOST lost 1224" with key "RECORD_LOST lost ").
uint64_t SumAfter(const std::string& text, const std::string& key, const std::string& suffix) {
  uint64_t sum = 0;
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + 1)) {
    size_t b = at + key.size(), e = b;
    while (e < text.size() && text[e] >= '0' && text[e] <= '9') ++e;
    if (e > b && text.compare(e, suffix.size(), suffix) == 0) {
      sum += std::stoull(text.substr(b, e - b));
    }
  }
  return sum;
}

}  // namespace tk::testing
