// symbolize::StackKeys and StackMemo: a key gets an id at its second sight, ids count up in
// order; a stack is memoized by key id under two generations, found only under the same ones,
// replaced under new ones at their second sight; a dropped stack keeps its IP; entries
// survive the tables' growth.
#include "parsers/symbolize/stack_memo.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tk::testing {
namespace {

using tk::parsers::symbolize::StackKeys;
using tk::parsers::symbolize::StackMemo;

TEST(StackKeys, SecondSightAndIdsInOrder) {
  StackKeys keys;
  EXPECT_EQ(keys.Intern("key a"), 0u);  // first sight
  EXPECT_EQ(keys.Intern("key b"), 0u);
  EXPECT_EQ(keys.Intern("key b"), 1u);
  EXPECT_EQ(keys.Intern("key a"), 2u);
  EXPECT_EQ(keys.Intern("key a"), 2u);
  EXPECT_EQ(keys.Intern("key b"), 1u);
  EXPECT_EQ(keys.Intern(""), 0u);
  EXPECT_EQ(keys.Intern(""), 3u);
  EXPECT_EQ(keys.size(), 3u);
}

// "Seen" is a fixed table (a key's slot may be another's by its next sight), but a key seen
// twice in a row always gets its id, and an id, once given, stays the key's.
TEST(StackKeys, ManyKeysThroughGrowth) {
  StackKeys keys;
  std::vector<std::string> k;
  for (int i = 0; i < 300000; ++i) k.push_back("stack " + std::to_string(i));
  // A key's first sight gives 0, but when its 16-bit fingerprint is the one another key left
  // in its slot (1 in 2^15): then the id comes at once, the same one its next sight gives.
  size_t early = 0;
  for (size_t i = 0; i < k.size(); ++i) {
    const uint32_t first = keys.Intern(k[i]);
    if (first != 0) {
      ++early;
      ASSERT_EQ(first, i + 1) << k[i];
    }
    ASSERT_EQ(keys.Intern(k[i]), i + 1) << k[i];
  }
  EXPECT_LT(early, 40u);  // ~9 expected
  for (size_t i = 0; i < k.size(); ++i) ASSERT_EQ(keys.Intern(k[i]), i + 1) << k[i];
  EXPECT_EQ(keys.size(), k.size());
  // 300k keys seen once, more than the table's slots: most are forgotten, and one gets an
  // id only when its 16-bit fingerprint is the one another key left in its slot (1 in 2^15:
  // ~9 expected here).
  size_t ids = 0;
  for (int i = 0; i < 300000; ++i) ids += keys.Intern("other " + std::to_string(i)) != 0;
  EXPECT_LT(ids, 40u);
}

// Keys are compared whole: a key and its prefixes, and keys of one size differing in a
// byte, are different keys; asking for a key's slots ahead (Prefetch) changes nothing.
TEST(StackKeys, WholeKeysAndPrefetch) {
  StackKeys keys;
  const std::string a("ab\0cd", 5), b("ab\0ce", 5);
  for (const std::string& k : {a, b, a.substr(0, 2), a.substr(0, 3)}) {
    keys.Prefetch(StackKeys::Hash(k));
    EXPECT_EQ(keys.Intern(k), 0u) << k.size();
  }
  EXPECT_EQ(keys.Intern(a.substr(0, 3)), 1u);
  EXPECT_EQ(keys.Intern(a), 2u);
  keys.Prefetch(StackKeys::Hash(b));
  EXPECT_EQ(keys.Intern(b), 3u);
  EXPECT_EQ(keys.Intern(a.substr(0, 2)), 4u);
  EXPECT_EQ(keys.Intern(a.substr(0, 3)), 1u);
  EXPECT_EQ(keys.Intern(a), 2u);
  EXPECT_EQ(keys.size(), 4u);
}

// A key in two parts (the perf.data reader's words, then the callchain in the record) hashes
// and interns as the joined key, whatever the tail's length (whole words or not, empty); a
// split at another place, or other bytes in either part, is another key.
TEST(StackKeys, TwoPartKeysAreTheJoinedKey) {
  std::string tail_bytes;
  for (int i = 0; i < 40; ++i) tail_bytes.push_back(static_cast<char>(i * 37 + 1));
  const std::string head("0123456789abcdef", 16);
  for (size_t n = 0; n <= tail_bytes.size(); ++n) {
    const std::string_view tail(tail_bytes.data(), n);
    const std::string joined = head + std::string(tail);
    EXPECT_EQ(StackKeys::Hash(head, tail), StackKeys::Hash(joined)) << n;
    StackKeys keys;
    EXPECT_EQ(keys.Intern(head, tail, StackKeys::Hash(head, tail)), 0u) << n;
    EXPECT_EQ(keys.Intern(joined), 1u) << n;  // the second sight, joined
    EXPECT_EQ(keys.Intern(head, tail, StackKeys::Hash(joined)), 1u) << n;
    EXPECT_EQ(keys.Intern(joined, StackKeys::Hash(head, tail)), 1u) << n;
    if (n == 0) continue;
    std::string other = std::string(tail);
    other.back() ^= 1;
    EXPECT_NE(StackKeys::Hash(head, other), StackKeys::Hash(joined)) << n;
    keys.Intern(head, other, StackKeys::Hash(head, other));
    EXPECT_EQ(keys.Intern(head, other, StackKeys::Hash(head, other)), 2u) << n;
  }
  // The same bytes split after 8 bytes instead of 16: the same key (only the bytes count).
  StackKeys keys;
  const std::string joined = head + tail_bytes;
  keys.Intern(joined);
  const std::string_view j(joined);
  EXPECT_EQ(keys.Intern(j.substr(0, 8), j.substr(8), StackKeys::Hash(j.substr(0, 8), j.substr(8))), 1u);
}

TEST(StackMemo, ByKeyAndGenerations) {
  StackMemo memo;
  const Frame f{0x10, "sym", "dso"};
  EXPECT_EQ(memo.Find(1, 5, 7), nullptr);
  EXPECT_TRUE(memo.ShouldAdd(1, 5, 7));  // a key id without a stack
  const StackMemo::Stack* s = memo.Add(1, 5, 7, absl::MakeConstSpan(&f, 1), nullptr);
  EXPECT_EQ(s->id, 1u);
  ASSERT_EQ(memo.Find(1, 5, 7), s);
  EXPECT_EQ(s->frames.size(), 1u);
  EXPECT_EQ(s->frames[0].symbol, "sym");
  EXPECT_EQ(s->dropped_ip, nullptr);
  EXPECT_EQ(memo.Find(1, 6, 7), nullptr);  // the process' maps changed
  EXPECT_EQ(memo.Find(1, 5, 8), nullptr);  // the kernel's
  EXPECT_EQ(memo.Find(2, 5, 7), nullptr);
  // A dropped stack keeps the sample's IP.
  const Frame drop{0x20, "[unknown]", "[unknown]"};
  const StackMemo::Stack* t = memo.Add(40, 1, 1, {}, &drop);
  EXPECT_EQ(t->id, 2u);
  ASSERT_NE(t->dropped_ip, nullptr);
  EXPECT_EQ(t->dropped_ip->ip, 0x20u);
  EXPECT_TRUE(t->frames.empty());
  EXPECT_EQ(memo.Find(40, 1, 1)->id, 2u);
  const StackMemo::Stack* again = memo.Find(1, 5, 7);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->id, 1u);
  const Frame* kept = again->frames.data();
  // New generations: memoized again at their second sight, under a new stack id; the old
  // frames stay where they were.
  EXPECT_FALSE(memo.ShouldAdd(1, 6, 7));
  EXPECT_TRUE(memo.ShouldAdd(1, 6, 7));
  const Frame g{0x11, "other", "dso"};
  const StackMemo::Stack* u = memo.Add(1, 6, 7, absl::MakeConstSpan(&g, 1), nullptr);
  EXPECT_EQ(u->id, 3u);
  EXPECT_EQ(memo.Find(1, 5, 7), nullptr);
  EXPECT_EQ(memo.Find(1, 6, 7)->frames[0].symbol, "other");
  EXPECT_EQ(kept->symbol, "sym");
  EXPECT_EQ(memo.size(), 3u);
}

TEST(StackMemo, ManyKeysThroughGrowth) {
  StackMemo memo;
  std::vector<Frame> frames;
  for (uint32_t i = 1; i <= 20000; i += 2) {
    frames.assign(i % 5, Frame{i, "s", "d"});
    EXPECT_EQ(memo.Add(i, i, 0, frames, nullptr)->id, i / 2 + 1);
  }
  for (uint32_t i = 1; i <= 20001; ++i) {
    const StackMemo::Stack* s = memo.Find(i, i, 0);
    if (i % 2 == 0 || i > 20000) {
      EXPECT_EQ(s, nullptr) << i;
      continue;
    }
    ASSERT_NE(s, nullptr) << i;
    EXPECT_EQ(s->id, i / 2 + 1);
    ASSERT_EQ(s->frames.size(), i % 5);
    if (!s->frames.empty()) {
      EXPECT_EQ(s->frames[0].ip, i);
    }
  }
}

}  // namespace
}  // namespace tk::testing
