// The flame graph library: Perl's drand48 and namehash, the folded-line regex, the sort and
// merge order, chain renaming, UTF-8 repair, number formats, differential colours, diff.
#include <string>
#include <vector>

#include "analyses/flamegraph/color.h"
#include "analyses/flamegraph/diff.h"
#include "analyses/flamegraph/folded.h"
#include "analyses/flamegraph/layout.h"
#include "analyses/flamegraph/text.h"
#include "gtest/gtest.h"

namespace tk::analyses::flamegraph {
namespace {

// perl -e 'srand(0); print rand(1)' and srand(100): 0.17082803610629, 0.25105890266514.
TEST(Drand48, MatchesPerl) {
  EXPECT_NEAR(Drand48(0).Next(), 0.17082803610629, 1e-14);
  EXPECT_NEAR(Drand48(100).Next(), 0.25105890266514, 1e-14);
}

TEST(Color, DefaultIsSeededByCodePointSum) {
  Drand48 unused(1);
  // The root (name "") in every flamegraph.pl SVG: srand(0).
  EXPECT_EQ(FrameColor("hot", ColorMode::kDefault, "", &unused), "rgb(213,39,9)");
  // "ab" and "ba" have the same sum, so the same colour.
  EXPECT_EQ(FrameColor("hot", ColorMode::kDefault, "ab", &unused),
            FrameColor("hot", ColorMode::kDefault, "ba", &unused));
  EXPECT_EQ(FrameColor("nosuch", ColorMode::kDefault, "x", &unused), "rgb(0,0,0)");
  EXPECT_EQ(FrameColor("chain", ColorMode::kDefault, "x_[w]", &unused).substr(0, 4), "rgb(");
}

TEST(Color, NameHashSkipsModule) {
  EXPECT_EQ(NameHash("libc.so`memcpy"), NameHash("memcpy"));
  EXPECT_EQ(NameHash(""), 1.0);
  EXPECT_NE(NameHash("abc"), NameHash("abd"));
  EXPECT_EQ(NameHash("abcX"), NameHash("abcY"));  // three characters count
}

TEST(Color, Delta) {
  EXPECT_EQ(DeltaColor(0, 10), "rgb(255,255,255)");
  EXPECT_EQ(DeltaColor(10, 10), "rgb(255,0,0)");
  EXPECT_EQ(DeltaColor(-5, 10), "rgb(105,105,255)");
}

TEST(FoldedLine, PerlRegex) {
  FoldedLine p;
  ASSERT_TRUE(ParseFoldedLine("a;b c 12", &p));
  EXPECT_EQ(p.stack, "a;b c");
  EXPECT_EQ(p.c1, 12);
  EXPECT_FALSE(p.two);
  ASSERT_TRUE(ParseFoldedLine("a;b 3 4.5", &p));
  EXPECT_TRUE(p.two);
  EXPECT_EQ(p.stack, "a;b");
  EXPECT_EQ(p.c1, 3);
  EXPECT_EQ(p.c2, 4.5);
  ASSERT_TRUE(ParseFoldedLine("a  5.", &p));  // the stack keeps all but the last space
  EXPECT_EQ(p.stack, "a ");
  EXPECT_EQ(p.c1, 5);
  ASSERT_TRUE(ParseFoldedLine(" 7", &p));
  EXPECT_EQ(p.stack, "");
  ASSERT_TRUE(ParseFoldedLine("a\xC2\xA0" "9", &p));  // U+00A0 is Perl \s
  EXPECT_EQ(p.stack, "a");
  for (const char* bad : {"", "a", "a 1.2.3", "a .5", "7", "a 5x", "a;b 5 "}) {
    EXPECT_FALSE(ParseFoldedLine(bad, &p)) << bad;
  }
}

std::vector<std::string> Frames(const std::string& text, bool reverse = false) {
  FoldedProfile prof(reverse, false);
  prof.AddText(text);
  FlameOptions o;
  o.minwidth = "0";
  Layout l = LayOut(prof, o);
  std::vector<std::string> out;
  for (const Frame& f : l.frames) {
    out.push_back(std::string(l.tree->node(f.node).name) + "@" + std::to_string(f.depth) + ":" +
                  std::to_string(static_cast<int>(f.stime)) + "-" +
                  std::to_string(static_cast<int>(f.etime)));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// ' ' < '.' < ';': "main;foo 5" < "main;foo.isra.0;x 2" < "main;foo;y 3" draws two foo.
TEST(Layout, OnlyAdjacentSiblingsMerge) {
  std::vector<std::string> f = Frames("main;foo;y 3\nmain;foo 5\nmain;foo.isra.0;x 2\n");
  std::vector<std::string> want = {"@0:0-10",         "foo.isra.0@2:5-7", "foo@2:0-5",
                                   "foo@2:7-10",      "main@1:0-10",      "x@3:5-7",
                                   "y@3:7-10"};
  EXPECT_EQ(f, want);
}

TEST(Layout, IdenticalLinesAndTrailingEmptyFrames) {
  // Identical lines merge; "a;b;" is a;b but sorts as written (after "a;b 1").
  std::vector<std::string> f = Frames("a;b 1\na;b 1\na;b; 2\na;c 1\n");
  std::vector<std::string> want = {"@0:0-5", "a@1:0-5", "b@2:0-4", "c@2:4-5"};
  EXPECT_EQ(f, want);
}

TEST(Layout, Reverse) {
  std::vector<std::string> f = Frames("a;b 2\nc;b 1\n", true);
  std::vector<std::string> want = {"@0:0-3", "a@2:0-2", "b@1:0-3", "c@2:2-3"};
  EXPECT_EQ(f, want);
}

TEST(Layout, SelfDelta) {
  FoldedProfile prof(false, false);
  prof.AddText("a;b 1 5\na 4 2\na;b;c 0 1\n");
  FlameOptions o;
  Layout l = LayOut(prof, o);
  EXPECT_EQ(l.time, 8);
  EXPECT_EQ(l.maxdelta, 4);
  for (const Frame& f : l.frames) {
    std::string_view n = l.tree->node(f.node).name;
    EXPECT_TRUE(f.has_delta);
    if (n == "a") {
      EXPECT_EQ(f.delta, -2);  // the line "a 4 2" opened it
    } else if (n == "b") {
      EXPECT_EQ(f.delta, 4);
    } else if (n == "c") {
      EXPECT_EQ(f.delta, 1);
    }
  }
}

TEST(Layout, ChainStack) {
  EXPECT_EQ(ChainStack("t;s;--;w1;w2"), "t;s;--;w1_[w];w2_[w]");
  EXPECT_EQ(ChainStack("t;s"), "t;s");  // flamegraph.pl: "t;s;--"
  EXPECT_EQ(ChainStack("t;--;a;--;b"), "t;--;a_[w];--;b_[w]");
}

TEST(Text, Utf8AndNumbers) {
  EXPECT_TRUE(IsValidUtf8("caf\xC3\xA9"));
  EXPECT_FALSE(IsValidUtf8("\xC0\xAF"));
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));  // a surrogate
  EXPECT_EQ(RepairUtf8("a\xFF" "b\xE4\xB8"), "a\xEF\xBF\xBD" "b\xEF\xBF\xBD");
  EXPECT_EQ(CodePointPrefix("\xC3\xA9\xC3\xA9x", 2), 4u);
  std::string s;
  AppendWithCommas(&s, "1234567");
  EXPECT_EQ(s, "1,234,567");
  s.clear();
  AppendWithCommas(&s, "123");
  EXPECT_EQ(s, "123");
  s.clear();
  AppendPerlNumber(&s, 95.5);
  AppendPerlNumber(&s, 214);
  EXPECT_EQ(s, "95.5214");
  s.clear();
  AppendXml(&s, "<a&\"b\">\x01\t", true);
  EXPECT_EQ(s, "&lt;a&amp;&quot;b&quot;&gt;\t");
}

TEST(Diff, NormalizeAndStripHex) {
  FoldedDiff d({.normalize = true, .strip_hex = true});
  uint64_t bad = 0, first = 0;
  d.AddText(0, "a;0x1f 3\nb 1\nnot a line\n", &bad, &first);
  d.AddText(1, "a;0xAB 4\nc 4\n", &bad, &first);
  EXPECT_EQ(bad, 1u);
  EXPECT_EQ(first, 3u);
  // total1 4, total2 8: int(3 * 8 / 4) = 6, int(1 * 2) = 2.
  EXPECT_EQ(d.Output(), "a;0x... 6 4\nb 2 0\nc 0 4\n");
}

}  // namespace
}  // namespace tk::analyses::flamegraph
