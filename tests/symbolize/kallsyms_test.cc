// IsCurrentKallsymsCopy's rules on a fake /proc (stat, modules, kallsyms in a temporary
// directory), so they are checked on every host, with or without loadable modules, root or
// not. The real-host counterpart is Kallsyms.CurrentHostCopy in symbolize_test.cc.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tests/support/golden.h"
#include "parsers/symbolize/kallsyms.h"

namespace tk::testing {
namespace {

using tk::parsers::symbolize::IsCurrentKallsymsCopy;

// Two pages of kallsyms lines: the comparison reads only the first page (up to its last
// whole line), so a difference past it must not count.
std::string KallsymsText() {
  std::string text;
  for (int i = 0; text.size() < 8192; ++i) {
    char line[64];
    std::snprintf(line, sizeof line, "ffffffff81%06x T sym_%d\n", i * 16, i);
    text += line;
  }
  return text;
}

class FakeProc : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/tk-fake-proc." + std::to_string(::getpid());
    std::filesystem::create_directories(dir_ + "/proc");
    proc_ = dir_ + "/proc";
    copy_ = dir_ + "/kallsyms";
    text_ = KallsymsText();
    boot_ = std::time(nullptr) - 3600;
    Write(proc_ + "/stat", "cpu  1 2 3\nintr 5\nctxt 9\nbtime " + std::to_string(boot_) +
                               "\nprocesses 7\n");
    Write(proc_ + "/kallsyms", text_);
    Write(copy_, text_);  // written now: after boot
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static void Write(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::trunc) << text;
  }
  void SetMtime(std::time_t t) {
    struct timespec ts[2] = {{t, 0}, {t, 0}};
    ASSERT_EQ(utimensat(AT_FDCWD, copy_.c_str(), ts, 0), 0);
  }
  bool Current() const { return IsCurrentKallsymsCopy(copy_, proc_); }

  std::string dir_, proc_, copy_, text_;
  std::time_t boot_ = 0;
};

TEST_F(FakeProc, FreshCopyOfTheSameKernelIsCurrent) {
  EXPECT_TRUE(Current());  // no /proc/modules at all: a kernel without loadable modules
  Write(proc_ + "/modules", "");
  EXPECT_TRUE(Current());  // modules supported, none loaded
  SetMtime(boot_);
  EXPECT_TRUE(Current());  // written in the boot's first second
}

TEST_F(FakeProc, LoadedModulesMakeItStale) {
  Write(proc_ + "/modules", "veth 40960 0 - Live 0x0000000000000000\n");
  EXPECT_FALSE(Current());
}

TEST_F(FakeProc, CopyFromAnEarlierBootIsStale) {
  SetMtime(boot_ - 1);
  EXPECT_FALSE(Current());
}

TEST_F(FakeProc, OtherFirstPageIsStale) {
  std::string other = text_;
  other[5] ^= 1;  // an address in the first line (another KASLR offset)
  Write(copy_, other);
  EXPECT_FALSE(Current());
  other = text_;
  other[text_.find('\n') + 30] ^= 1;  // a name further down the first page
  Write(copy_, other);
  EXPECT_FALSE(Current());
  other = text_;
  other[6000] ^= 1;  // past the first page: not compared
  Write(copy_, other);
  EXPECT_TRUE(Current());
}

TEST_F(FakeProc, UnreadableOrUnknownIsNotCurrent) {
  EXPECT_FALSE(IsCurrentKallsymsCopy(copy_ + ".missing", proc_));
  Write(copy_, "");
  EXPECT_FALSE(Current());  // an empty copy
  Write(copy_, text_);
  Write(proc_ + "/kallsyms", "");
  EXPECT_FALSE(Current());  // nothing to compare with
  Write(proc_ + "/kallsyms", text_);
  Write(proc_ + "/stat", "cpu  1 2 3\n");
  EXPECT_FALSE(Current());  // no btime: the boot time is unknown
  std::filesystem::remove(proc_ + "/stat");
  EXPECT_FALSE(Current());
  std::filesystem::create_directories(dir_ + "/dir");
  Write(proc_ + "/stat", "cpu  1 2 3\nbtime " + std::to_string(boot_) + "\n");
  EXPECT_FALSE(IsCurrentKallsymsCopy(dir_ + "/dir", proc_));  // not a regular file
}

// The one-pass head parser (16 lowercase digits, eight at a time) and the general line parser
// read the same lines: any byte at any digit position, against ParseKallsymsLine.
TEST(KallsymsFastHead, EveryByteAtEveryDigitAgreesWithTheGeneralParser) {
  using tk::parsers::symbolize::KernelSymbols;
  using tk::parsers::symbolize::ParseKallsyms;
  using tk::parsers::symbolize::ParseKallsymsLine;
  const std::string base = "ffffffff81a0c3d9 T probe";
  for (size_t pos = 0; pos < 16; ++pos) {
    for (int b = 1; b < 256; ++b) {
      if (b == '\n') continue;
      std::string line = base;
      line[pos] = static_cast<char>(b);
      // A space in the digits moves the type (" 9 T probe": type '9', not a kept one).
      auto want = ParseKallsymsLine(line);
      if (want && want->type != 'T') want.reset();
      // The symbols' names are views into the text: it must outlive `ks`.
      const std::string text = line + "\nffffffffff000000 T other\n";
      absl::StatusOr<KernelSymbols> ks = ParseKallsyms(text, nullptr, "test");
      ASSERT_TRUE(ks.ok()) << ks.status();
      const auto& syms = ks->kernel.symbols();
      const bool read = syms.size() == 2;
      ASSERT_EQ(read, want.has_value()) << "byte " << b << " at " << pos;
      if (read) {
        EXPECT_EQ(syms[0].start, want->addr) << "byte " << b << " at " << pos;
        EXPECT_EQ(syms[0].name, "probe");
      }
    }
  }
  EXPECT_EQ(ParseKallsymsLine(base)->addr, 0xffffffff81a0c3d9u);
}

// The two ways to the same tables: the split one (modules above the kernel) against the
// one-table one, forced by a module symbol at address 1, below everything (it changes no
// other symbol's end: only the symbol before a boundary gets the boundary rule), on the
// shipped kallsyms files plus module lines, and on this host's /proc/kallsyms when readable.
void ExpectSameTables(const tk::parsers::symbolize::SymbolTable& a,
                      const tk::parsers::symbolize::SymbolTable& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i) {
    const auto &x = a.symbols()[i], &y = b.symbols()[i];
    ASSERT_TRUE(x.start == y.start && x.end == y.end && x.name == y.name &&
                x.binding == y.binding)
        << what << " #" << i << ": " << x.name << " vs " << y.name;
  }
}

TEST(KallsymsModules, SplitTablesEqualTheOneTable) {
  using tk::parsers::symbolize::KernelSymbols;
  using tk::parsers::symbolize::ParseKallsyms;
  std::vector<std::pair<std::string, std::string>> inputs;
  const std::string mods =
      "ffffffffc0001000 t veth_open\t[veth]\nffffffffc0001000 T veth_alias\t[veth]\n"
      "ffffffffc0003000 t bpf_prog_1\t[bpf]\nffffffffc0002000 t veth_close\t[veth]\n";
  for (const char* f : {"testdata/perf_data/kallsyms", "testdata/report/kallsyms",
                        "testdata/sched/chain.kallsyms"}) {
    const std::string text = ReadFile(SourcePath(f));
    ASSERT_FALSE(text.empty()) << f;
    inputs.emplace_back(f, text);
    inputs.emplace_back(std::string(f) + " + modules", text + mods);
  }
  std::ifstream live("/proc/kallsyms");
  std::string host((std::istreambuf_iterator<char>(live)), std::istreambuf_iterator<char>());
  if (!host.empty() && !host.starts_with("0000000000000000 ")) inputs.emplace_back("host", host);
  for (const auto& [what, text] : inputs) {
    absl::StatusOr<KernelSymbols> split = ParseKallsyms(text, nullptr, what);
    const std::string low = "0000000000000001 t first\t[zz_low]\n" + text;  // names view it
    absl::StatusOr<KernelSymbols> one = ParseKallsyms(low, nullptr, what);
    ASSERT_TRUE(split.ok() && one.ok()) << what;
    ExpectSameTables(split->kernel, one->kernel, what + ": kernel");
    ASSERT_EQ(split->modules.size() + 1, one->modules.size()) << what;
    for (const auto& [name, table] : split->modules) {
      ASSERT_TRUE(one->modules.contains(name)) << what << " " << name;
      ExpectSameTables(table, one->modules.at(name), what + ": " + name);
    }
    EXPECT_EQ(split->ref_symbols, one->ref_symbols) << what;
  }
}

// Modules below the kernel (arm64's layout) and a "]" name without a module tab: the one-table
// path. Each symbol before the other kind's ends 4 KiB past its start, page-rounded, as in
// perf's symbols__fixup_end over the whole file.
TEST(KallsymsModules, BelowTheKernelEndAtTheKindBoundary) {
  using tk::parsers::symbolize::KernelSymbols;
  using tk::parsers::symbolize::ParseKallsyms;
  for (const char* odd : {"", "ffffffff81000180 T odd_name[x]\n"}) {
    const std::string text = std::string("ffffffff80000000 t mod_lo\t[low]\n"
                                         "ffffffff80000100 t mod_lo2\t[low]\n"
                                         "ffffffff81000000 T _text\n"
                                         "ffffffff81000100 T kfn\n") +
                             odd + "ffffffffc0000000 t mod_hi\t[high]\n";
    absl::StatusOr<KernelSymbols> ks = ParseKallsyms(text, nullptr, "test");
    ASSERT_TRUE(ks.ok()) << ks.status();
    ASSERT_TRUE(ks->modules.contains("low") && ks->modules.contains("high"));
    const auto& low = ks->modules.at("low");
    EXPECT_EQ(low.Find(0xffffffff800000ff)->name, "mod_lo");
    EXPECT_EQ(low.Find(0xffffffff80001fff)->name, "mod_lo2");
    EXPECT_EQ(low.Find(0xffffffff80002000), nullptr);
    EXPECT_EQ(ks->kernel.Find(0xffffffff810000ff)->name, "_text");
    EXPECT_EQ(ks->modules.at("high").Find(0xffffffffc0000fff)->name, "mod_hi");
    EXPECT_EQ(ks->modules.at("high").Find(0xffffffffc0001000), nullptr);
    if (*odd) {
      // "odd_name[x]" counts as a module's for the boundary rule (it ends in ']') and stays a
      // kernel symbol (no tab): kfn is followed by it, it by mod_hi, whose start it extends to.
      EXPECT_EQ(ks->kernel.Find(0xffffffff8100017f)->name, "kfn");
      EXPECT_EQ(ks->kernel.Find(0xffffffff81000180)->name, "odd_name[x]");
      EXPECT_EQ(ks->kernel.Find(0xffffffffbfffffff)->name, "odd_name[x]");
      EXPECT_EQ(ks->kernel.Find(0xffffffffc0000000), nullptr);
    } else {
      EXPECT_EQ(ks->kernel.Find(0xffffffff81001fff)->name, "kfn");
      EXPECT_EQ(ks->kernel.Find(0xffffffff81002000), nullptr);
    }
  }
}

}  // namespace
}  // namespace tk::testing
