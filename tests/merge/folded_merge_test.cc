#include "analyses/merge/folded_merge.h"

#include <sstream>

#include "gtest/gtest.h"

namespace tk::analyses::merge {
namespace {

TEST(ParseFoldedLine, SplitsAtTheLastSpace) {
  std::string_view stack;
  uint64_t n = 0;
  ASSERT_TRUE(ParseFoldedLine("a b;c 12", &stack, &n));
  EXPECT_EQ(stack, "a b;c");
  EXPECT_EQ(n, 12u);
  EXPECT_FALSE(ParseFoldedLine("a;b", &stack, &n));
  EXPECT_FALSE(ParseFoldedLine(" 3", &stack, &n));
  EXPECT_FALSE(ParseFoldedLine("a 1.5", &stack, &n));
  EXPECT_FALSE(ParseFoldedLine("a -1", &stack, &n));
  EXPECT_FALSE(ParseFoldedLine("a ", &stack, &n));
  EXPECT_FALSE(ParseFoldedLine("a 99999999999999999999", &stack, &n));
  EXPECT_FALSE(ParseFoldedLine("", &stack, &n));
}

// Merges in-memory inputs; returns "STACK N\n" lines.
std::string Merge(const std::vector<std::string>& texts, bool normalize,
                  std::string* err = nullptr) {
  FoldedMerge m(normalize);
  std::ostringstream diag_out;
  for (size_t i = 0; i < texts.size(); ++i) {
    Diagnostics diag("in" + std::to_string(i), &diag_out);
    EXPECT_TRUE(m.Add(Input::FromString(texts[i]), diag).ok());
    diag.PrintSummary();
  }
  std::string out;
  absl::Status st = m.Run([&](std::string_view s, uint64_t n) {
    out += std::string(s) + " " + std::to_string(n) + "\n";
  });
  if (!st.ok()) out += "ERROR " + std::string(st.message());
  if (err) *err = diag_out.str();
  return out;
}

TEST(FoldedMerge, SumsEqualStacksAndSortsBytewise) {
  EXPECT_EQ(Merge({"a;b 1\nb 2\n", "a 5\na;b 3\nc 1"}, false), "a 5\na;b 4\nb 2\nc 1\n");
}

TEST(FoldedMerge, OrderOfInputsDoesNotMatter) {
  std::vector<std::string> in = {"x;y 1\nz 7\n", "b 2\na 1\nb 1\n", "z 1\r\n"};
  std::string forward = Merge(in, false);
  std::swap(in[0], in[2]);
  EXPECT_EQ(Merge(in, false), forward);
  EXPECT_EQ(forward, "a 1\nb 3\nx;y 1\nz 8\n");
}

TEST(FoldedMerge, UnsortedInputWithRepeats) {
  EXPECT_EQ(Merge({"b 1\na 2\nb 3\na 1\n"}, false), "a 3\nb 4\n");
}

TEST(FoldedMerge, MalformedLinesCountedAndReportedOnce) {
  std::string err;
  EXPECT_EQ(Merge({"a 1\nnocount\n\nb x\nb 2\n"}, false, &err), "a 1\nb 2\n");
  EXPECT_NE(err.find("line 2"), std::string::npos) << err;
  EXPECT_EQ(err.find("line 3:"), std::string::npos) << err;  // only the first is printed
  EXPECT_NE(err.find("3 malformed lines"), std::string::npos) << err;
}

TEST(FoldedMerge, NormalizeScalesToTheFirstInputsTotal) {
  // Input 2's total is 40, input 1's 10: its counts are scaled by 10/40 and truncated.
  EXPECT_EQ(Merge({"a 4\nb 6\n", "a 30\nc 10\n"}, true), "a 11\nb 6\nc 2\n");
  EXPECT_EQ(Merge({"a 4\nb 6\n", "a 30\nc 10\n"}, false), "a 34\nb 6\nc 10\n");
}

TEST(FoldedMerge, OverflowIsAnError) {
  std::string out = Merge({"a 18446744073709551615\n", "a 1\n"}, false);
  EXPECT_NE(out.find("ERROR sum of stack overflows"), std::string::npos) << out;
}

}  // namespace
}  // namespace tk::analyses::merge
