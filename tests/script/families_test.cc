// tk script on the typed event families (irq, softirq, raw_syscalls, kmem page events) against
// the tools' own output of the same recording (testdata/lttng/recorded, made by
// testdata/recorded/record-lttng.sh): perf script 6.1's text of lttng.perf.data byte for byte,
// and trace-cmd report 3.1.6's event text of lttng.trace.dat. Both references were written by
// the tools themselves and are never blessed. JSON carries each family's fields by name, the
// same from the binary file as from its perf script text.
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

const std::string kDir = "testdata/lttng/recorded/";

// mm_page_alloc's gfp_flags: perf and trace-cmd print the names of the format's
// __print_flags table, tk the number (a documented deviation, docs/script.md). Cut from both.
std::string WithoutGfp(const std::string& text) {
  std::string out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("mm_page_alloc") != std::string::npos) {
      size_t at = line.find(" gfp_flags=");
      if (at != std::string::npos) line.resize(at);
    }
    out += line;
    out += '\n';
  }
  return out;
}

bool IsFamily(std::string_view name) {
  for (std::string_view p : {"irq_handler_", "softirq_", "sys_enter", "sys_exit", "mm_page_"}) {
    if (name.find(p) != std::string_view::npos) return true;
  }
  return false;
}

// (event name without its system, the text after "name: ") of every family line.
std::vector<std::pair<std::string, std::string>> FamilyTexts(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    // "... [CPU] SECONDS: NAME: TEXT", NAME "system:name" (perf) or "name" (trace-cmd).
    size_t cpu = line.find("] ");
    size_t ts = cpu == std::string::npos ? cpu : line.find(": ", cpu);
    if (ts == std::string::npos) continue;
    size_t start = line.find_first_not_of(' ', ts + 2);
    size_t end = start == std::string::npos ? start : line.find(": ", start);
    if (end == std::string::npos) continue;
    std::string name = line.substr(start, end - start);
    if (size_t sys = name.find(':'); sys != std::string::npos) name = name.substr(sys + 1);
    if (!IsFamily(name)) continue;
    size_t text_at = line.find_first_not_of(' ', end + 2);
    out.emplace_back(name, text_at == std::string::npos ? "" : line.substr(text_at));
  }
  return out;
}

TEST(ScriptFamilies, PerfDataPrintsAsPerfScript) {
  const std::string want_file = SourcePath(kDir + "lttng.perf-script.txt");
  ASSERT_TRUE(FileExists(want_file));
  RunResult r = RunTk({"script", "--no-buildid-cache", "--no-host-kallsyms",
                       SourcePath(kDir + "lttng.perf.data")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string want = WithoutGfp(ReadFile(want_file));
  EXPECT_EQ(WithoutGfp(r.out), want) << UnifiedDiff(want, WithoutGfp(r.out));
  // 927 allocations of GFP_HIGHUSER_MOVABLE|__GFP_COMP, 0x140cca to perf's own decoding (a
  // perf script -s Python handler) and to trace-cmd report -R of the same kernel's format.
  EXPECT_NE(r.out.find("gfp_flags=0x140cca\n"), std::string::npos);
  // The families are most of the file: 7983 of its 8137 lines (awk over the anchor's text).
  EXPECT_EQ(FamilyTexts(want).size(), 7983u);
}

TEST(ScriptFamilies, TraceDatPrintsAsTraceCmdReport) {
  const std::string want_file = SourcePath(kDir + "lttng.report.txt");
  ASSERT_TRUE(FileExists(want_file));
  RunResult r = RunTk({"script", SourcePath(kDir + "lttng.trace.dat")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto want = FamilyTexts(WithoutGfp(ReadFile(want_file)));
  auto got = FamilyTexts(WithoutGfp(r.out));
  ASSERT_EQ(want.size(), 6446u);  // of the 6566 events (awk over the anchor's text)
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got[i], want[i]) << "family event " << i;
  }
}

// The first events of each family as JSON: typed fields by name, equal from perf.data and
// from perf script's text of it.
TEST(ScriptFamilies, JsonFieldsAreTypedAndSourceIndependent) {
  auto firsts = [](const std::string& file) {
    RunResult r = RunTk({"script", "--json", "--no-buildid-cache", "--no-host-kallsyms", file});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::map<std::string, nlohmann::json> by_event;
    std::istringstream in(r.out);
    std::string line;
    while (std::getline(in, line)) {
      nlohmann::json j = nlohmann::json::parse(line);
      std::string ev = j["event"];
      if (IsFamily(ev) && !by_event.count(ev)) by_event[ev] = j["fields"];
    }
    return by_event;
  };
  auto bin = firsts(SourcePath(kDir + "lttng.perf.data"));
  auto text = firsts(SourcePath(kDir + "lttng.perf-script.txt"));
  // Each family's first event as perf decodes it (a perf script -s Python handler printing the
  // first event of each name with its fields; perf script's first lines say the same).
  ASSERT_EQ(bin.size(), 10u);
  EXPECT_EQ(bin["irq:irq_handler_entry"],
            nlohmann::json::parse(R"({"irq":36,"name":"virtio1-req.0"})"));
  EXPECT_EQ(bin["irq:irq_handler_exit"], nlohmann::json::parse(R"({"irq":36,"ret":1})"));
  EXPECT_EQ(bin["irq:softirq_raise"], nlohmann::json::parse(R"({"vec":1})"));
  EXPECT_EQ(bin["raw_syscalls:sys_exit"], nlohmann::json::parse(R"({"id":270,"ret":1})"));
  EXPECT_EQ(bin["raw_syscalls:sys_enter"]["args"].size(), 6u);
  EXPECT_EQ(bin["kmem:mm_page_free"], nlohmann::json::parse(R"({"pfn":1096419,"order":0})"));
  for (auto& [ev, fields] : bin) {
    nlohmann::json t = text[ev];
    if (ev == "kmem:mm_page_alloc") {
      // GFP_KERNEL_ACCOUNT|__GFP_ZERO|__GFP_COMP; text prints the flags' names: left out.
      EXPECT_EQ(fields["gfp_flags"], 0x440dc0);
      fields.erase("gfp_flags");
    }
    EXPECT_EQ(fields, t) << ev;
  }
}

}  // namespace
}  // namespace tk::testing
