// The stack block cache (stack_cache.h): a parse with it gives the events and messages of a
// parse without it, frame for frame and line number for line number; equal stack_ids mean
// equal stacks.
#include "parsers/perf_script/stack_cache.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "parsers/perf_script/perf_script_parser.h"

namespace tk::parsers::perf_script {
namespace {

struct Seen {
  std::string text;  // everything but stack_id, printed
  std::string stack;
  uint64_t stack_id;
};

class Recorder : public EventSink {
 public:
  explicit Recorder(EventMask m) : mask_(m) {}
  EventMask wants() const override { return mask_; }
  absl::Status OnEvent(const Event& e) override {
    std::ostringstream s, st;
    s << static_cast<int>(e.kind()) << " " << e.ts_ns << " " << e.cpu << " " << e.pid << " "
      << e.tid << " [" << e.comm << "] [" << e.name << "] " << e.period << e.has_period
      << " recorded=" << e.stack_recorded << " callchain=" << e.callchain << " :";
    for (const Frame& f : e.stack) {
      st << " " << f.ip << "|" << f.symbol << "|" << f.dso << "|" << f.sym_offset;
    }
    seen.push_back({s.str() + st.str(), st.str() + (e.callchain ? " c" : "") +
                                             (e.stack_recorded ? " r" : ""), e.stack_id});
    return absl::OkStatus();
  }
  std::vector<Seen> seen;

 private:
  EventMask mask_;
};

struct Result {
  absl::Status status;
  std::vector<Seen> seen;
  std::string err;
};

Result Parse(std::string_view text, bool cache, EventMask mask = EventMask::All()) {
  auto in = Input::FromString(text, "t.txt");
  std::ostringstream err;
  Diagnostics diag("t.txt", &err);
  Recorder rec(mask);
  PerfScriptOptions ps;
  ps.stack_cache = cache;
  Result r;
  r.status = NewPerfScriptParser(ParseOptions{}, ps)->Parse(*in, rec, diag);
  diag.PrintSummary();
  r.seen = rec.seen;
  r.err = err.str();
  return r;
}

// Parses with and without the cache; checks they agree and that stack_id is a faithful key.
// Returns the cached parse.
Result Compare(std::string_view text, EventMask mask = EventMask::All()) {
  Result off = Parse(text, false, mask);
  Result on = Parse(text, true, mask);
  EXPECT_EQ(on.status, off.status);
  EXPECT_EQ(on.err, off.err);
  EXPECT_EQ(on.seen.size(), off.seen.size());
  std::map<uint64_t, std::string> by_id;
  for (size_t i = 0; i < std::min(on.seen.size(), off.seen.size()); ++i) {
    EXPECT_EQ(on.seen[i].text, off.seen[i].text) << "event " << i;
    EXPECT_EQ(off.seen[i].stack_id, 0u);
    if (uint64_t id = on.seen[i].stack_id) {
      auto [it, added] = by_id.emplace(id, on.seen[i].stack);
      EXPECT_EQ(it->second, on.seen[i].stack) << "event " << i << " id " << id;
    }
  }
  return on;
}

constexpr std::string_view kA =
    "\tffffffff821f2c2b pv_native_safe_halt+0xb ([kernel.kallsyms])\n"
    "\tffffffff81e8c9e5 default_idle+0x5 ([kernel.kallsyms])\n";
constexpr std::string_view kB =
    "\t           f8090 __GI___libc_open+0xd0 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
    "\t7f7241fbe6d8 arrayOopDesc::base(BasicType) const (/home/x/jdk/lib/server/libjvm.so)\n"
    "\t7f0c1b2c3d4e foo+0x1e (/tmp/libfoo.so (deleted))\n";
// Its second line is no frame: reported each time the block occurs.
constexpr std::string_view kBad =
    "\tffffffff821f2c2b pv_native_safe_halt+0xb ([kernel.kallsyms])\n"
    "\tnot a frame line\n";

std::string Header(int i, std::string_view comm = "swapper") {
  return std::string(comm) + " " + std::to_string(100 + i % 3) + " [00" +
         std::to_string(i % 4) + "] " + std::to_string(10 + i) + ".000001: " +
         std::to_string(1000 + i) + " cpu-clock:pppH:\n";
}

TEST(StackCache, RepeatedStacksGiveTheSameEventsAndMessages) {
  std::string text;
  for (int i = 0; i < 40; ++i) {
    text += Header(i, i % 5 == 0 ? "V8 WorkerThread" : "swapper");
    text += i % 3 == 0 ? kA : i % 3 == 1 ? kB : kBad;
    text += "\n";
    if (i % 7 == 0) text += Header(1000 + i) + "\n";  // an empty stack
  }
  Result r = Compare(text);
  ASSERT_TRUE(r.status.ok());
  // The malformed line is reported with its line numbers (first one, then the count).
  EXPECT_NE(r.err.find("line 14: unrecognized stack line: \"\tnot a frame line\""),
            std::string::npos)
      << r.err;
  // Clean blocks have ids (equal for equal bytes), the bad block has none.
  std::map<std::string, uint64_t> ids;
  for (const Seen& s : r.seen) {
    bool bad = s.stack.find("pv_native") != std::string::npos &&
               s.stack.find("default_idle") == std::string::npos;
    if (bad) {
      EXPECT_EQ(s.stack_id, 0u);
      continue;
    }
    EXPECT_NE(s.stack_id, 0u) << s.text;
    auto [it, added] = ids.emplace(s.stack, s.stack_id);
    EXPECT_EQ(it->second, s.stack_id);
  }
  EXPECT_EQ(ids.size(), 3u);  // kA, kB, the empty stack
}

// Every malformed line after cached blocks is reported at its own line: the cache counts
// the lines it skips.
TEST(StackCache, LineNumbersAfterSkippedBlocks) {
  std::string text;
  for (int i = 0; i < 6; ++i) text += Header(i) + std::string(kA) + "\n";
  text += Header(0) + std::string(kA) + "\n";  // earlier than the one before
  for (int i = 6; i < 9; ++i) text += Header(i) + std::string(kBad) + "\n";
  Result on = Compare(text);
  Result off = Parse(text, false);
  EXPECT_EQ(on.err, off.err);
  // 6 events of 4 lines, the unordered one, then a header and the bad block's two lines.
  EXPECT_NE(on.err.find("line 25: event at 10.000001000 is earlier"), std::string::npos)
      << on.err;
  EXPECT_NE(on.err.find("line 31: unrecognized"), std::string::npos) << on.err;
  EXPECT_NE(on.err.find("3 malformed lines skipped (first at line 31)"), std::string::npos)
      << on.err;
}

// Blocks the cache must not take as they look: one ended by a blank "\r\n" or "  " line, a
// comment inside, a header without blank line, the last event cut short, a stack that is
// printed on the header line, tracepoints with stacks, a mask without stacks.
TEST(StackCache, OddEndingsAgree) {
  std::string text;
  for (int i = 0; i < 3; ++i) {
    text += Header(i) + std::string(kA) + "\r\n";
    text += Header(10 + i) + std::string(kA) + "  \n";
    text += Header(20 + i) + std::string(kA) + "# a comment\n\n";
    text += Header(30 + i) + std::string(kA);  // the next header ends it
    text += "false 64414 [001] " + std::to_string(40 + i) +
            ".000001:      34467 cycles:u:  ffffffff9aa3c8de [unknown] ([unknown])\n\n";
    text += "dd 9615 [001] " + std::to_string(50 + i) +
            ".902792: block:block_bio_queue: 252,2 WS 488 + 8 [dd]\n" + std::string(kB) + "\n";
    text += Header(60 + i) + "\n\n\n";
  }
  text += Header(99) + std::string(kA);  // cut short: no blank line
  Compare(text);
  Compare(text, EventMask().Add(EventKind::kSample));
  Compare(text, EventMask::All().WithStacks(false));
  Compare(text.substr(0, text.size() - 1));  // cut mid-line
}

// A cached stack is the same whatever the event it first came with (a tracepoint, a sample).
TEST(StackCache, SameBlockUnderDifferentEvents) {
  std::string text;
  for (int i = 0; i < 4; ++i) {
    text += "dd 9615 [001] " + std::to_string(50 + i) +
            ".902792: block:block_bio_queue: 252,2 WS 488 + 8 [dd]\n" + std::string(kB) + "\n";
    text += Header(i) + std::string(kB) + "\n";
  }
  Result r = Compare(text);
  ASSERT_EQ(r.seen.size(), 8u);
  for (const Seen& s : r.seen) EXPECT_EQ(s.stack_id, r.seen[0].stack_id);
}

// Every recorded text, fuzz seed and (when present) stackcollapse corpus input, as it is and
// twice over (so its stacks repeat), parses the same with the cache.
TEST(StackCache, FixturesAndCorporaAgree) {
  std::vector<std::string> dirs = {std::string(TK_SOURCE_DIR) + "/testdata/fold",
                                   std::string(TK_SOURCE_DIR) + "/fuzz/corpus/perf_script",
                                   std::string(TK_SOURCE_DIR) +
                                       "/../shared/conformance/stackcollapse-perf/input"};
  if (const char* d = std::getenv("TK_SHARED_DIR")) {
    dirs.push_back(std::string(d) + "/conformance/stackcollapse-perf/input");
  }
  size_t files = 0;
  for (const std::string& dir : dirs) {
    std::error_code ec;
    for (const auto& f : std::filesystem::directory_iterator(dir, ec)) {
      if (!f.is_regular_file()) continue;
      std::ifstream in(f.path(), std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      std::string text = ss.str();
      SCOPED_TRACE(f.path().string());
      Compare(text);
      Compare(text + text);
      ++files;
    }
  }
  EXPECT_GT(files, 5u);
}

TEST(StackCache, FindDoubleNewlineMatchesAPlainScan) {
  // Pairs at every position and alignment, also across the 16-byte steps.
  for (size_t len = 0; len < 70; ++len) {
    for (size_t at = 0; at + 1 < len + 2; ++at) {
      std::string s(len, 'x');
      for (size_t k = 0; k < len; k += 3) s[k] = '\n';  // lone newlines
      if (at + 1 < len) s[at] = s[at + 1] = '\n';
      for (size_t from = 0; from < std::min<size_t>(len, 18); ++from) {
        const char* want = nullptr;
        for (size_t k = from; k + 1 < len; ++k) {
          if (s[k] == '\n' && s[k + 1] == '\n') {
            want = s.data() + k;
            break;
          }
        }
        ASSERT_EQ(FindDoubleNewline(s.data() + from, s.data() + len), want)
            << "len " << len << " at " << at << " from " << from;
      }
    }
  }
}

TEST(StackCache, BlockFinderScansOnce) {
  std::string text = "h\n\ta\n\tb\n\nh\n\nh\n\tc\n";
  BlockFinder f;
  std::string_view t = text;
  EXPECT_EQ(f.BlockLength(t.substr(2)), 6u);  // "\ta\n\tb\n", then the blank line
  EXPECT_EQ(f.BlockLength(t.substr(5)), 3u);  // from inside the same block
  EXPECT_EQ(f.BlockLength(t.substr(11)), 0u);  // "h\n" then blank
  EXPECT_EQ(f.BlockLength(t.substr(14)), std::string_view::npos);  // no blank line follows
  EXPECT_EQ(f.BlockLength(t.substr(17)), std::string_view::npos);
  // Back to an earlier position (a look-ahead that was not taken): searched again.
  EXPECT_EQ(f.BlockLength(t.substr(5)), 3u);
  EXPECT_EQ(f.BlockLength(t.substr(14)), std::string_view::npos);
}

TEST(StackCache, AddCopiesAndCaps) {
  StackCache c;
  std::string block = "\tffff foo+0x1 (dso)\n";
  Frame f;
  f.ip = 0xffff;
  f.symbol = std::string_view(block).substr(6, 3);
  f.dso = std::string_view(block).substr(15, 3);
  const StackCache::Entry* e = c.Add(StackCache::Key(block), {&f, 1}, true);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->id, 1u);
  EXPECT_EQ(e->lines, 1u);
  std::string copy = block;
  block.assign(block.size(), '?');  // the cache kept its own bytes
  const StackCache::Entry* g = c.Find(StackCache::Key(copy));
  ASSERT_NE(g, nullptr);
  std::vector<Frame> moved;  // into the equal bytes looked up
  c.CopyFrames(*g, copy.data(), &moved);
  ASSERT_EQ(moved.size(), 1u);
  EXPECT_EQ(moved[0].symbol.data(), copy.data() + 6);
  EXPECT_EQ(moved[0].symbol, "foo");
  EXPECT_EQ(moved[0].dso, "dso");
  EXPECT_EQ(moved[0].ip, 0xffffu);
  EXPECT_EQ(moved[0].sym_offset, f.sym_offset);
  EXPECT_EQ(c.Find(StackCache::Key(block)), nullptr);
  Frame outside;
  outside.symbol = "elsewhere";
  // Views not into the block; a block too long.
  EXPECT_EQ(c.Add(StackCache::Key("\tother\n"), {&outside, 1}, true), nullptr);
  std::string huge(StackCache::kMaxBlock + 1, '\t');
  EXPECT_EQ(c.Add(StackCache::Key(huge), {}, false), nullptr);
  EXPECT_EQ(c.size(), 1u);
}

}  // namespace
}  // namespace tk::parsers::perf_script
