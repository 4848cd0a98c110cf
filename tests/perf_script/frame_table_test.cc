// FrameTable (frame_table.h): a frame line gives ParseFrameLine's frame whichever way it is
// read (the line by itself, or scanned in a buffer up to its "\n"), the first time and when
// its tail is found again; names are interned (equal names, equal views).
#include "parsers/perf_script/frame_table.h"

#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "parsers/perf_script/frame.h"
#include "tests/support/golden.h"

namespace tk::parsers::perf_script {
namespace {

std::string Show(const std::optional<Frame>& f) {
  if (!f) return "none";
  std::ostringstream o;
  o << std::hex << f->ip << std::dec << " [" << f->symbol << "] [" << f->dso << "] "
    << f->sym_offset;
  return o.str();
}

// One frame line at `p` through ParseLines: the byte after its "\n" and its frame, or
// nullptr when ParseLines does not take it.
const char* ParseLine(FrameTable& table, const char* p, const char* e, Frame* f) {
  std::vector<Frame> out;
  uint64_t n;
  const char* end = table.ParseLines(p, e, &out, &n);
  EXPECT_EQ(n, out.size());
  if (n == 0) return nullptr;
  EXPECT_EQ(n, 1u);
  *f = out[0];
  return end;
}

// Checks `line` three ways, twice each (a miss, then a hit), against ParseFrameLine.
void ExpectAsParseFrameLine(FrameTable& table, const std::string& line) {
  const std::string want = Show(ParseFrameLine(line));
  for (int pass = 0; pass < 2; ++pass) {
    EXPECT_EQ(Show(table.Parse(line)), want) << line;
    if (line.empty() || line[0] != '\t') continue;
    const std::string buf = line + "\n";
    Frame f;
    const char* next = ParseLine(table, buf.data(), buf.data() + buf.size(), &f);
    if (next) {
      EXPECT_EQ(next, buf.data() + buf.size()) << line;
      EXPECT_EQ(Show(f), want) << line;
    }
    // A run as the parser reads it: scan, prefetch, resolve.
    FrameTable::Line l;
    if (table.ScanLine(buf.data(), buf.data() + buf.size(), &l)) {
      EXPECT_TRUE(next) << line;
      table.Prefetch(&l);
      EXPECT_EQ(Show(table.Resolve(l)), want) << line;
    } else {
      EXPECT_FALSE(next) << line;
    }
    // Without its "\n" at the buffer's end the line is left to the tokenizer.
    EXPECT_EQ(ParseLine(table, line.data(), line.data() + line.size(), &f), nullptr) << line;
  }
}

TEST(FrameTable, LinesParseAsParseFrameLine) {
  FrameTable table;
  for (const char* line : {
           "\t    ffffffff815fc5b4 unmap_page_range+0x564 ([kernel.kallsyms])",
           "\t    ffffffff815fc5b4 unmap_page_range+0x568 ([kernel.kallsyms])",
           "\t           d4ad7 __GI___execve+0x7 (/usr/lib/x86_64-linux-gnu/libc.so.6)",
           "\t               1 [unknown] ([unknown])",
           "\t               0 [unknown] ([unknown])",
           "\tffffffffffffffff x (y)",
           "\t    FFFFFFFF815FC5B4 upper+0x1 ([kernel.kallsyms])",
           "\t    ffffffff815Fc5b4 mixed+0x1 ([kernel.kallsyms])",
           "\t  1ffffffff815fc5b4 seventeen (z)",
           "\t    ffffffff 815fc5b4 split (z)",
           "\t                 nothing (z)",
           "\t    ffffffff815fc5b4  (/lib/x86_64-linux-gnu/libc-2.15.so)",
           "\t    7f0c1b2c3d4e foo+0x1e (/tmp/libfoo.so (deleted))",
           "\t    7f7241fbe6d8 arrayOopDesc::base(BasicType) const (/x/libjvm.so)",
           "\t    ffffffff8103ce3b native_safe_halt",
           "\t    ffffffff8103ce3b native_safe_halt ",
           "\t    ffffffff8103ce3b native_safe_halt\r",
           "\t    ffffffff8103ce3b\tnative_safe_halt (k)",
           "\t    ffffffff8103ce3b",
           "\t    ffffffff8103ce3b ",
           "\t    fffffffg8103ce3b x (y)",
           "\t",
           "\t    ffffffff8103ce3b a_name_of_exactly_sixteen (k)",
           "\t    ffffffff8103ce3b 1234567 (k)",
           "\t    ffffffff8103ce3b 12345678",
           "    ffffffff815fc5b4 spaces_only+0x1 ([kernel.kallsyms])",
           "ffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])",
           "not a frame",
       }) {
    ExpectAsParseFrameLine(table, line);
  }
  int files = 0;
  for (const char* dir : {"testdata/fold", "testdata/inputs"}) {
    for (const auto& f : std::filesystem::directory_iterator(tk::testing::SourcePath(dir))) {
      if (f.path().extension() != ".txt") continue;
      ++files;
      std::istringstream text(tk::testing::ReadFile(f.path().string()));
      for (std::string line; std::getline(text, line);) {
        if (!line.empty() && line[0] == '\t') ExpectAsParseFrameLine(table, line);
      }
    }
  }
  EXPECT_GT(files, 5);
}

TEST(FrameTable, TailsKeptOnceAndNamesInterned) {
  FrameTable table;
  const std::string a = "\t    ffffffff815fc5b4 unmap_page_range+0x564 ([kernel.kallsyms])\n";
  const std::string b = "\t    ffffffff815fc5b8 unmap_page_range+0x568 ([kernel.kallsyms])\n";
  Frame fa, fb, fa2;
  ASSERT_TRUE(ParseLine(table, a.data(), a.data() + a.size(), &fa));
  ASSERT_TRUE(ParseLine(table, b.data(), b.data() + b.size(), &fb));
  EXPECT_EQ(table.tails(), 2u);
  // The same tail by Parse (its own hash) and at another address: found, not added.
  std::optional<Frame> again = table.Parse("\t    ffffffff00000001 unmap_page_range+0x564 ([kernel.kallsyms])");
  ASSERT_TRUE(again);
  EXPECT_EQ(table.tails(), 2u);
  EXPECT_EQ(again->ip, 0xffffffff00000001u);
  EXPECT_EQ(again->sym_offset, 0x564);
  // Equal names, equal views, none into the lines.
  EXPECT_EQ(fa.symbol.data(), fb.symbol.data());
  EXPECT_EQ(fa.dso.data(), fb.dso.data());
  EXPECT_EQ(again->symbol.data(), fa.symbol.data());
  EXPECT_FALSE(fa.symbol.data() >= a.data() && fa.symbol.data() < a.data() + a.size());
  EXPECT_EQ(table.Intern(std::string("unmap_page_range")).data(), fa.symbol.data());
  EXPECT_TRUE(table.Intern("").empty());
}

TEST(FrameTable, HashOfEveryLength) {
  // ScanLine hashes while it looks for the "\n"; Parse hashes the tail by itself: a tail of
  // any length (around the eight-byte words) found by one is found by the other.
  for (size_t n = 1; n < 40; ++n) {
    FrameTable table;
    std::string tail = " " + std::string(n, 'x');
    for (size_t i = 1; i < tail.size(); ++i) tail[i] = static_cast<char>('a' + (i * 7) % 26);
    const std::string line = "\t    ffffffff815fc5b4" + tail;
    ASSERT_TRUE(table.Parse(line));
    const std::string buf = line + "\n";
    Frame f;
    ASSERT_TRUE(ParseLine(table, buf.data(), buf.data() + buf.size(), &f)) << n;
    EXPECT_EQ(table.tails(), 1u) << n;
  }
}

// Over a stable text (SetStableText) ParseLines reads ahead across events; called at each
// line start in turn, as the parser calls it, it takes the same lines and gives the same
// frames as a table without the lookahead: lines it does not take (other shapes, a last line
// without "\n"), runs longer than its ring, tails new and repeated, headers, blank lines.
TEST(FrameTable, LookaheadGivesWhatLineRunsGive) {
  const char* frames[] = {
      "\t    ffffffff815fc5b4 unmap_page_range+0x564 ([kernel.kallsyms])",
      "\t           d4ad7 __GI___execve+0x7 (/usr/lib/x86_64-linux-gnu/libc.so.6)",
      "\t               0 [unknown] ([unknown])",
      "\t    ffffffff8103ce3b native_safe_halt ",
      "\t    ffffffff8103ce3b\tnative_safe_halt (k)",
      "    ffffffff815fc5b4 spaces_only+0x1 ([kernel.kallsyms])",
      "\t    fffffffg8103ce3b x (y)",
      "\t          b1df61 eliminate_dom_walker::before_dom_children+0x5d1 (/usr/lib/gcc/cc1plus)",
  };
  std::string text;
  uint32_t seed = 7;
  for (int ev = 0; ev < 400; ++ev) {
    text += "cc1plus 30577 [000]  1780.963069:     250000 cpu-clock:pppH: \n";
    seed = seed * 1103515245 + 12345;
    const int n = static_cast<int>((seed >> 16) % (ev % 50 == 0 ? 90 : 6));
    for (int i = 0; i < n; ++i) {
      seed = seed * 1103515245 + 12345;
      const size_t k = (seed >> 16) % (sizeof frames / sizeof frames[0]);
      std::string line = frames[k];
      if (k < 3 && (seed >> 8) % 3 == 0) line += std::to_string(ev % 13);  // new tails
      text += line + "\n";
    }
    if (ev % 17 != 3) text += "\n";
  }
  text += "\t    ffffffff815fc5b4 unmap_page_range+0x564 ([kernel.kallsyms])";  // no "\n"
  const char* b = text.data();
  const char* e = b + text.size();
  FrameTable plain, ahead;
  ahead.SetStableText(e);
  uint64_t taken = 0;
  for (const char* p = b; p < e;) {
    std::vector<Frame> want, got;
    uint64_t nw, ng;
    const char* ew = plain.ParseLines(p, e, &want, &nw);
    const char* eg = ahead.ParseLines(p, e, &got, &ng);
    ASSERT_EQ(ew, eg) << "at " << (p - b);
    ASSERT_EQ(nw, ng);
    ASSERT_EQ(want.size(), got.size());
    for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(Show(want[i]), Show(got[i]));
    taken += ng;
    if (ew != p) {
      p = ew;
      continue;
    }
    const void* nl = std::memchr(p, '\n', static_cast<size_t>(e - p));
    p = nl ? static_cast<const char*>(nl) + 1 : e;
  }
  EXPECT_GT(taken, 500u);
  // Back to the first stack (a caller may go back): still the same.
  std::vector<Frame> want, got;
  uint64_t nw, ng;
  const char* first = b;
  for (FrameTable probe; probe.ParseLines(first, e, &want, &nw) == first;) {
    first = static_cast<const char*>(std::memchr(first, '\n', static_cast<size_t>(e - first))) + 1;
  }
  want.clear();
  EXPECT_EQ(plain.ParseLines(first, e, &want, &nw), ahead.ParseLines(first, e, &got, &ng));
  EXPECT_EQ(nw, ng);
  EXPECT_GT(ng, 0u);
}

}  // namespace
}  // namespace tk::parsers::perf_script
