#include <cstdio>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

#include "core/diag.h"
#include "core/input.h"
#include "core/line_reader.h"
#include "core/rwbs.h"
#include "core/strings.h"
#include "core/task_state.h"
#include "core/timestamp.h"
#include "gtest/gtest.h"

namespace tk {
namespace {

TEST(Timestamp, ParsesExactly) {
  EXPECT_EQ(ParseTimestampNs("267.436250"), 267436250000);
  EXPECT_EQ(ParseTimestampNs("123.456789"), 123456789000);
  EXPECT_EQ(ParseTimestampNs("4794564.109216123"), 4794564109216123);
  EXPECT_EQ(ParseTimestampNs("5"), 5000000000);
  EXPECT_EQ(ParseTimestampNs("0.000000001"), 1);
  EXPECT_FALSE(ParseTimestampNs(""));
  EXPECT_FALSE(ParseTimestampNs("1."));
  EXPECT_FALSE(ParseTimestampNs(".5"));
  EXPECT_FALSE(ParseTimestampNs("1.2x"));
  EXPECT_FALSE(ParseTimestampNs("1.0123456789"));
  EXPECT_FALSE(ParseTimestampNs("99999999999999999999.0"));
}

TEST(Timestamp, FormatsTruncating) {
  EXPECT_EQ(FormatTimestamp(267436250999, 6), "267.436250");
  EXPECT_EQ(FormatTimestamp(1, 9), "0.000000001");
  EXPECT_EQ(FormatTimestamp(5000000000, 0), "5");
  EXPECT_EQ(FormatTimestamp(-1500000000, 3), "-1.500");
  std::string s = "x";
  AppendTimestamp(267436250999, 6, &s, 5);
  AppendTimestamp(4794564109216123, 9, &s, 5);
  EXPECT_EQ(s, "x  267.4362504794564.109216123");
}

// The parsers' shared helpers: whole-text integers only, the blanks given.
TEST(Strings, IntegersAndTrim) {
  int32_t i = 7;
  EXPECT_TRUE(ParseDecimal("-2147483648", &i));
  EXPECT_EQ(i, INT32_MIN);
  for (const char* bad : {"", "+1", " 1", "1 ", "2147483648", "0x10", "1a"})
    EXPECT_FALSE(ParseDecimal(bad, &i)) << bad;
  EXPECT_EQ(i, INT32_MIN);  // unchanged on failure
  uint32_t u = 0;
  EXPECT_FALSE(ParseDecimal("-1", &u));
  EXPECT_TRUE(ParseDecimal("007", &u));
  EXPECT_EQ(u, 7u);
  uint64_t v = 0;
  EXPECT_FALSE(ParseDecimal("1001", &v, 1000));
  EXPECT_TRUE(ParseDecimal("1000", &v, 1000));
  EXPECT_TRUE(ParseHex("ffffffff81000000", &v));
  EXPECT_EQ(v, 0xffffffff81000000u);
  EXPECT_FALSE(ParseHex("0x10", &v));
  EXPECT_FALSE(ParseHex("1ffffffffffffffff", &v));  // 65 bits
  // The one-loop paths (up to digits10 digits, up to 16 hex digits) and the general ones.
  EXPECT_TRUE(ParseHex("00000000000000000Ab", &v));
  EXPECT_EQ(v, 0xabu);
  EXPECT_FALSE(ParseHex("", &v));
  EXPECT_FALSE(ParseHex("12 ", &v));
  EXPECT_TRUE(ParseDecimal("18446744073709551615", &v));
  EXPECT_EQ(v, UINT64_MAX);
  EXPECT_FALSE(ParseDecimal("18446744073709551616", &v));
  uint8_t b = 0;
  EXPECT_TRUE(ParseDecimal("99", &b, 98) == false && ParseDecimal("255", &b) && b == 255);
  EXPECT_FALSE(ParseDecimal("256", &b));
  EXPECT_EQ(ParseUint("0x1f"), 31u);
  EXPECT_EQ(ParseInt("-12"), -12);
  EXPECT_EQ(ParseInt("0xffffffffffffffff"), -1);  // a raw long's bit pattern
  EXPECT_FALSE(ParseInt32("2147483648"));
  EXPECT_EQ(Trim(" \tx y\r"), "x y");
  EXPECT_EQ(TrimRight("x \t", " "), "x \t");
  EXPECT_EQ(TrimLeft("   "), "");
  std::string_view rest;
  EXPECT_EQ(NextWord("  ab cd", &rest), "ab");
  EXPECT_EQ(rest, " cd");
  std::string_view pieces = "a,,b c,";
  EXPECT_EQ(NextPiece(&pieces, ", "), "a");
  EXPECT_EQ(NextPiece(&pieces, ", "), "");
  EXPECT_EQ(NextPiece(&pieces, ", "), "b");
  EXPECT_EQ(NextPiece(&pieces, ", "), "c");
  EXPECT_TRUE(pieces.empty());  // no empty piece after the final delimiter
}

// SkipBlanks / SkipWord read eight bytes at a time: against the one-byte loops on runs and
// words of every length around the word size, with tabs, CRs, other control characters and
// high bytes mixed in.
TEST(Strings, WordScanningMatchesByteLoops) {
  const char alphabet[] = {' ', ' ', ' ', '\t', '\r', 'a', '9', '[', '\x01', '\x1f', '\x80',
                           '\xe9', '!', '\n'};
  uint32_t seed = 12345;
  for (int n = 0; n < 20000; ++n) {
    std::string s;
    size_t len = n % 40;
    for (size_t i = 0; i < len; ++i) {
      seed = seed * 1103515245 + 12345;
      s.push_back(alphabet[(seed >> 16) % sizeof alphabet]);
    }
    const char* b = s.data();
    const char* e = b + s.size();
    for (size_t from = 0; from <= s.size(); ++from) {
      const char* blanks = b + from;
      while (blanks < e && IsBlank(*blanks)) ++blanks;
      const char* word = b + from;
      while (word < e && !IsBlank(*word)) ++word;
      ASSERT_EQ(SkipBlanks(b + from, e), blanks) << "from " << from << " in '" << s << "'";
      ASSERT_EQ(SkipWord(b + from, e), word) << "from " << from << " in '" << s << "'";
    }
    std::string_view rest;
    std::string_view w = NextWord(s, &rest);
    EXPECT_EQ(w.data() + w.size(), rest.data());
    EXPECT_EQ(TrimLeft(s), std::string_view(SkipBlanks(b, e), e - SkipBlanks(b, e)));
  }
}

// EqualBytes compares sixteen bytes at a time, the last run overlapping: against memcmp for
// every length up to 70 and a difference at every position.
TEST(Strings, EqualBytesMatchesMemcmp) {
  std::string a, b;
  for (size_t n = 0; n <= 70; ++n) {
    a.assign(n, 'x');
    for (size_t i = 0; i < n; ++i) a[i] = static_cast<char>('a' + (i * 7) % 26);
    b = a;
    ASSERT_TRUE(EqualBytes(a.data(), b.data(), n)) << n;
    for (size_t at = 0; at < n; ++at) {
      b[at] ^= 1;
      ASSERT_FALSE(EqualBytes(a.data(), b.data(), n)) << n << " at " << at;
      b[at] ^= 1;
    }
  }
}

// FindByte scans sixteen bytes at a time for the first 64, then calls memchr: against a plain
// loop for every length up to 140, the byte at every position or absent, and a second
// occurrence after the first. Runs are heap blocks of exactly their length (ASan: no read
// outside).
TEST(Strings, FindByteMatchesALoop) {
  for (size_t n = 0; n <= 140; ++n) {
    for (size_t at = 0; at <= n; ++at) {  // at == n: absent
      std::unique_ptr<char[]> run(new char[n + 1]);
      char* p = run.get() + 1;  // (n bytes from an odd address)
      for (size_t i = 0; i < n; ++i) p[i] = static_cast<char>('a' + (i * 7) % 26);
      if (at < n) p[at] = '\n';
      if (at + 5 < n) p[at + 5] = '\n';
      const char* want = p;
      while (want < p + n && *want != '\n') ++want;
      ASSERT_EQ(FindByte(p, p + n, '\n'), want) << n << " at " << at;
      ASSERT_EQ(FindByte(p, p + n, '\0'), p + n) << n;
    }
  }
}

TEST(Rwbs, RoundTripsKernelStrings) {
  for (const char* s : {"W", "WS", "WSM", "FWFS", "RA", "R", "N", "F", "FF", "DE", "D", "WFS",
                        "RM", "ZA", "WZ", "WSU"}) {
    EXPECT_EQ(Rwbs::Parse(s).ToString(), s) << s;
  }
  Rwbs j = Rwbs::Parse("FWFS");
  EXPECT_TRUE(j.has(Rwbs::kPreflush));
  EXPECT_TRUE(j.has(Rwbs::kFua));
  EXPECT_TRUE(j.has(Rwbs::kSync));
  EXPECT_EQ(j.op, Rwbs::Op::kWrite);
  EXPECT_TRUE(Rwbs::Parse("WS").is_sync_write());
  EXPECT_FALSE(Rwbs::Parse("W").is_sync_write());
  EXPECT_FALSE(Rwbs::Parse("RS").is_sync_write());
  EXPECT_EQ(Rwbs::Parse("F").op, Rwbs::Op::kFlush);
  EXPECT_TRUE(Rwbs::Parse("WQ").has(Rwbs::kUnknown));
}

TEST(TaskState, Letters) {
  EXPECT_TRUE(TaskState::FromLetters("R").runnable());
  EXPECT_FALSE(TaskState::FromLetters("R").preempted);
  EXPECT_TRUE(TaskState::FromLetters("R+").preempted);
  EXPECT_EQ(TaskState::FromLetters("R+").ToString(), "R+");
  EXPECT_TRUE(TaskState::FromLetters("D").disk_sleep());
  EXPECT_EQ(TaskState::FromLetters("D|K").ToString(), "D|K");
  EXPECT_EQ(TaskState::FromLetters("S").Letter(), 'S');
  EXPECT_EQ(TaskState::FromLetters("I").Letter(), 'I');
  EXPECT_EQ(TaskState::FromLetters("Q").ToString(), "?");
}


TEST(LineReader, StreamsAcrossChunksWithCrlf) {
  std::string text = "first\r\nsecond line\n\nlast-no-newline";
  for (size_t chunk : {1, 2, 3, 7, 100}) {
    auto in = Input::StreamFromString(text, chunk);
    LineReader r(*in, chunk);
    std::vector<std::string> lines;
    std::string_view l;
    while (r.Next(&l)) lines.emplace_back(l);
    EXPECT_EQ(lines, (std::vector<std::string>{"first", "second line", "", "last-no-newline"}))
        << chunk;
    EXPECT_EQ(r.line_number(), 4u);
  }
  auto in = Input::FromString(text);
  LineReader r(*in);
  std::string_view l;
  int n = 0;
  while (r.Next(&l)) ++n;
  EXPECT_EQ(n, 4);
}

TEST(Input, PeekThenReadAndSpool) {
  std::string text(10000, 'x');
  text[9999] = 'y';
  auto in = Input::StreamFromString(text, 333);
  auto head = in->Peek(10);
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(*head, "xxxxxxxxxx");
  ASSERT_TRUE(in->EnsureMapped().ok());
  ASSERT_TRUE(in->mapped());
  EXPECT_EQ(*in->mapped(), text);
}

// Released pages of a mapped file read back as the file (from the page cache); resident
// file pages drop. In-memory inputs ignore it.
TEST(Input, ReleaseBelowKeepsContentAndDropsResidentPages) {
  std::string path = ::testing::TempDir() + "/tk_release_input";
  std::string data(24 << 20, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 131 + (i >> 12));
  {
    std::ofstream(path, std::ios::binary).write(data.data(), static_cast<std::streamsize>(data.size()));
  }
  auto rss_file_kb = [] {  // the file's pages: RssShmem when TMPDIR is a tmpfs
    std::ifstream st("/proc/self/status");
    std::string line;
    long kb = 0;
    while (std::getline(st, line)) {
      if (line.rfind("RssFile:", 0) == 0 || line.rfind("RssShmem:", 0) == 0) {
        kb += std::stol(line.substr(line.find(':') + 1));
      }
    }
    return kb;
  };
  auto in = Input::Open(path);
  ASSERT_TRUE(in.ok());
  std::string_view m = *(*in)->mapped();
  uint64_t sum = 0;
  for (size_t i = 0; i < m.size(); i += 512) sum += static_cast<unsigned char>(m[i]);
  EXPECT_GT(sum, 0u);  // the pages are touched (and the loop kept)
  long before = rss_file_kb();
  (*in)->ReleaseBelow(20 << 20);
  long after = rss_file_kb();
  if (before > 0) {
    EXPECT_LT(after, before - (16 << 10)) << before << " kB -> " << after << " kB";
  }
  EXPECT_EQ(m, data);  // every byte, released or not
  (*in)->ReleaseBelow(UINT64_MAX);  // past the end: clamped
  EXPECT_EQ(m.substr(m.size() - 4096), std::string_view(data).substr(data.size() - 4096));
  auto mem = Input::FromString(data);
  mem->ReleaseBelow(20 << 20);
  EXPECT_EQ(*mem->mapped(), data);
  std::remove(path.c_str());
}

TEST(Diagnostics, ReportsFirstAndSummarises) {
  std::ostringstream err;
  Diagnostics d("f.txt", &err);
  d.Malformed(Stat::kMalformedLines, Diagnostics::Unit::kLine, 17, "frame outside an event");
  d.Malformed(Stat::kMalformedLines, Diagnostics::Unit::kLine, 20, "again");
  d.PrintSummary();
  EXPECT_EQ(err.str(),
            "tk: f.txt: line 17: frame outside an event\n"
            "tk: f.txt: 2 malformed lines skipped (first at line 17)\n");
  EXPECT_EQ(d.count(Stat::kMalformedLines), 2u);
}

// The declared counters (core/stats.h): one entry per enum value, in enum order, each with a
// unique snake_case name, a unique summary noun and a description.
TEST(Stats, EveryCounterIsDeclaredOnceWithADescription) {
  std::set<std::string_view> names, nouns;
  for (int i = 0; i < kNumStats; ++i) {
    const StatInfo& s = kStats[i];
    EXPECT_EQ(static_cast<int>(s.id), i) << s.name;
    EXPECT_EQ(&Describe(s.id), &s);
    EXPECT_TRUE(names.insert(s.name).second) << "duplicate name " << s.name;
    EXPECT_TRUE(nouns.insert(s.noun).second) << "duplicate noun " << s.noun;
    EXPECT_FALSE(s.description.empty()) << s.name;
    EXPECT_FALSE(SeverityName(s.severity).empty()) << s.name;
    for (char c : s.name) EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') << s.name;
  }
}

TEST(Diagnostics, NotesPrintOncePerCounterOrKey) {
  std::ostringstream err;
  Diagnostics d("f", &err);
  d.Note(Stat::kOutOfOrder, "first");
  d.Note(Stat::kOutOfOrder, "second", 4);
  d.NoteEach(Stat::kLostEvents, "0", "CPU 0 lost", 2);
  d.NoteEach(Stat::kLostEvents, "1", "CPU 1 lost", 3);
  d.NoteEach(Stat::kLostEvents, "1", "CPU 1 again", 1);
  d.Count(Stat::kDwarfNoUserRegs, 7);
  EXPECT_EQ(err.str(), "tk: f: first\ntk: f: CPU 0 lost\ntk: f: CPU 1 lost\n");
  EXPECT_EQ(d.count(Stat::kOutOfOrder), 5u);
  EXPECT_EQ(d.count(Stat::kLostEvents), 6u);
  EXPECT_EQ(d.count(Stat::kDwarfNoUserRegs), 7u);
  EXPECT_EQ(d.total_malformed(), 0u);
  EXPECT_EQ(d.notes(), (std::vector<Stat>{Stat::kOutOfOrder, Stat::kLostEvents}));
}

}  // namespace
}  // namespace tk
