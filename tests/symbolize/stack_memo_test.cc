// symbolize::StackMemo: a key is memoized at its second sight, ids count up in order of
// memoization, a dropped stack keeps its IP, and entries survive the table's growth.
#include "parsers/symbolize/stack_memo.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tk::testing {
namespace {

using tk::parsers::symbolize::StackMemo;

TEST(StackMemo, SecondSightAndIdsInOrder) {
  StackMemo memo;
  const Frame f{0x10, "sym", "dso"};
  const std::string a = "key a", b = "key b";
  const size_t ha = StackMemo::Hash(a);
  EXPECT_EQ(memo.Find(a, ha), nullptr);
  EXPECT_FALSE(memo.SeenBefore(ha));
  EXPECT_EQ(memo.Find(a, ha), nullptr);  // seen once: not a stack yet
  EXPECT_TRUE(memo.SeenBefore(ha));
  const StackMemo::Stack* s = memo.Add(a, absl::MakeConstSpan(&f, 1), nullptr);
  EXPECT_EQ(s->id, 1u);
  ASSERT_EQ(memo.Find(a, ha), s);
  EXPECT_EQ(s->frames.size(), 1u);
  EXPECT_EQ(s->frames[0].symbol, "sym");
  EXPECT_EQ(s->dropped_ip, nullptr);
  // A dropped stack keeps the sample's IP.
  const size_t hb = StackMemo::Hash(b);
  EXPECT_FALSE(memo.SeenBefore(hb));
  const Frame drop{0x20, "[unknown]", "[unknown]"};
  const StackMemo::Stack* t = memo.Add(b, {}, &drop);
  EXPECT_EQ(t->id, 2u);
  ASSERT_NE(t->dropped_ip, nullptr);
  EXPECT_EQ(t->dropped_ip->ip, 0x20u);
  EXPECT_TRUE(t->frames.empty());
  EXPECT_EQ(memo.Find(b, hb)->id, 2u);
  EXPECT_EQ(memo.Find(a, ha)->id, 1u);
  EXPECT_EQ(memo.size(), 2u);
}

TEST(StackMemo, ManyKeysThroughGrowth) {
  StackMemo memo;
  std::vector<std::string> keys;
  for (int i = 0; i < 20000; ++i) keys.push_back("stack " + std::to_string(i));
  for (const std::string& k : keys) EXPECT_FALSE(memo.SeenBefore(StackMemo::Hash(k)));
  std::vector<Frame> frames;
  for (size_t i = 0; i < keys.size(); i += 2) {
    const size_t h = StackMemo::Hash(keys[i]);
    ASSERT_TRUE(memo.SeenBefore(h));
    frames.assign(i % 5, Frame{i, "s", "d"});
    EXPECT_EQ(memo.Add(keys[i], frames, nullptr)->id, i / 2 + 1);
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    const StackMemo::Stack* s = memo.Find(keys[i], StackMemo::Hash(keys[i]));
    if (i % 2) {
      EXPECT_EQ(s, nullptr) << keys[i];
      continue;
    }
    ASSERT_NE(s, nullptr) << keys[i];
    EXPECT_EQ(s->id, i / 2 + 1);
    ASSERT_EQ(s->frames.size(), i % 5);
    if (!s->frames.empty()) EXPECT_EQ(s->frames[0].ip, i);
  }
}

}  // namespace
}  // namespace tk::testing
