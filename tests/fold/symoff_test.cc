// `perf script -F ...,symoff` text ("func+0x1a" in every frame, testdata/fold/symoff-g.txt)
// and the same samples printed without symoff (symoff-plain.txt), through the real binary:
//  - tk fold strips the offsets as stackcollapse-perf.pl does (its output is the reference,
//    testdata/fold/reference/symoff-g-*.folded, checked with every fixture by golden_test.cc),
//    so both texts fold alike;
//  - tk script keeps them: with perf's field list it prints perf's own text back, byte for
//    byte (reading the text used to drop every "+0x1a");
//  - tk report names the symbols without them: the same report from both texts.
#include <string>

#include "gtest/gtest.h"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

const std::string kWithOff = "testdata/fold/symoff-g.txt";
const std::string kPlain = "testdata/fold/symoff-plain.txt";

TEST(SymOff, FoldStripsTheOffsetsAsStackcollapse) {
  RunResult off = RunTk({"fold", SourcePath(kWithOff)});
  RunResult plain = RunTk({"fold", SourcePath(kPlain)});
  ASSERT_EQ(off.exit_code, 0) << off.err;
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(off.out, ReadFile(SourcePath("testdata/fold/reference/symoff-g-default.folded")));
  EXPECT_EQ(off.out, plain.out);
  EXPECT_EQ(off.out.find("+0x"), std::string::npos);
}

TEST(SymOff, ScriptPrintsPerfsTextBack) {
  for (const auto& [file, fields] :
       {std::pair{kWithOff, "comm,pid,tid,time,event,ip,sym,symoff,dso"},
        std::pair{kPlain, "comm,pid,tid,time,event,ip,sym,dso"}}) {
    for (bool stdin_input : {false, true}) {
      RunResult r = stdin_input ? RunTk({"script", "-F", fields, "-"}, SourcePath(file))
                                : RunTk({"script", "-F", fields, SourcePath(file)});
      ASSERT_EQ(r.exit_code, 0) << r.err;
      std::string want = ReadFile(SourcePath(file));
      EXPECT_EQ(r.out, want) << file << "\n" << UnifiedDiff(want, r.out);
    }
  }
  // -F without symoff drops the offsets of a text that has them, as perf script would.
  RunResult r = RunTk({"script", "-F", "comm,pid,tid,time,event,ip,sym,dso", SourcePath(kWithOff)});
  EXPECT_EQ(r.out, ReadFile(SourcePath(kPlain)));
}

TEST(SymOff, ReportNamesTheSymbolsWithoutOffsets) {
  for (const char* mode : {"", "--no-children"}) {
    std::vector<std::string> a = {"report"}, b = {"report"};
    if (*mode) {
      a.push_back(mode);
      b.push_back(mode);
    }
    a.push_back(SourcePath(kWithOff));
    b.push_back(SourcePath(kPlain));
    RunResult off = RunTk(a), plain = RunTk(b);
    ASSERT_EQ(off.exit_code, 0) << off.err;
    EXPECT_EQ(off.out, plain.out) << mode;
    EXPECT_NE(off.out.find("[k] finish_task_switch.isra.0\n"), std::string::npos) << mode;
    EXPECT_EQ(off.out.find("+0x"), std::string::npos);
  }
}

}  // namespace
}  // namespace tk::testing
