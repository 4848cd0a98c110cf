// tk_symbolize: perf's symbol rules (ends, aliases), demangling as perf prints it, kallsyms,
// ELF tables of the fixture binary, JIT maps, process maps across mmap/fork.
#include <fcntl.h>
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "core/absl_compat.h"
#include "gtest/gtest.h"
#include "parsers/symbolize/demangle.h"
#include "parsers/symbolize/elf_symbols.h"
#include "parsers/symbolize/jit_map.h"
#include "parsers/symbolize/kallsyms.h"
#include "parsers/symbolize/machine.h"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

using namespace tk::parsers::symbolize;

TEST(Demangle, AsPerfPrintsWithoutParameters) {
  // Expected values: `c++filt -p` (libiberty, DMGL_NO_OPTS as perf uses it).
  EXPECT_EQ(Demangle("_Z2twIlET_S0_"), "tw<long>");
  EXPECT_EQ(Demangle("_ZN2ns1K4workEi"), "ns::K::work");
  EXPECT_EQ(Demangle("_ZNKSt8functionIFiiEEclEi"), "std::function<int (int)>::operator()");
  EXPECT_EQ(Demangle("_ZN12_GLOBAL__N_13fooEv"), "(anonymous namespace)::foo");
  // A lambda's "{lambda(int)#1}" is part of the name (perf: _start::{lambda(int)#1}::operator()).
  EXPECT_EQ(Demangle("_ZZ6_startENKUliE_clEi"), "_start::{lambda(int)#1}::operator()");
  EXPECT_EQ(Demangle("_ZNSt6vectorIiSaIiEE9push_backEOi"), "std::vector<int, std::allocator<int> >::push_back");
  EXPECT_EQ(Demangle("_ZnwmRKSt9nothrow_t"), "operator new");
  EXPECT_EQ(Demangle("_ZN1AltERKS_"), "A::operator<");
  EXPECT_EQ(Demangle("_ZStplIcSt11char_traitsIcESaIcEENSt7__cxx1112basic_stringIT_T0_T1_EEPKS5_RKS8_"),
            "std::operator+<char, std::char_traits<char>, std::allocator<char> >");
  EXPECT_EQ(Demangle("_ZNK1AltIiEEbv"), "A::operator< <int>");
  EXPECT_EQ(Demangle("_ZlsRSoRK1A"), "operator<<");
  // Special names keep their parameters, as libiberty prints them.
  EXPECT_EQ(Demangle("_ZThn8_N1A1fEv"), "non-virtual thunk to A::f()");
  EXPECT_EQ(Demangle("_ZTV1A"), "vtable for A");
  EXPECT_EQ(Demangle("main"), "main");
  EXPECT_EQ(Demangle("_Znot_mangled"), "_Znot_mangled");
}

TEST(SymbolTable, PerfEndAndAliasRules) {
  SymbolTable t;
  t.Add(0x100, 0x10, "sized", Binding::kGlobal);
  t.Add(0x200, 0, "zero", Binding::kGlobal);   // extends to 0x300
  t.Add(0x300, 0, "__alias", Binding::kGlobal);
  t.Add(0x300, 0x20, "weak_one", Binding::kWeak);
  t.Add(0x300, 0x20, "global_one", Binding::kGlobal);  // sized, non-weak, global: kept
  t.Add(0x1000, 0, "last", Binding::kLocal);   // ends at roundup(0x1000)+4096
  t.Finalize(false);
  EXPECT_EQ(t.Find(0x105)->name, "sized");
  EXPECT_EQ(t.Find(0x110), nullptr);  // a gap after a sized symbol
  EXPECT_EQ(t.Find(0x2ff)->name, "zero");
  EXPECT_EQ(t.Find(0x310)->name, "global_one");
  EXPECT_EQ(t.Find(0x1fff)->name, "last");
  EXPECT_EQ(t.Find(0x2000), nullptr);
  EXPECT_EQ(t.Find(0x50), nullptr);
}

TEST(Kallsyms, TypesModulesAndLastAliasWins) {
  std::string path = ::testing::TempDir() + "/kallsyms";
  std::ofstream(path) << "ffffffff81000000 T _text\n"
                         "ffffffff81000000 T _stext\n"
                         "ffffffff81000010 t helper\n"
                         "ffffffff81000020 r some_rodata\n"
                         "ffffffff81000030 T next_func\n"
                         "zzzzffff81000040 T not_hex\n"
                         "ffffffff81000050\n"
                         "ffffffff81000060 T\n"
                         "\n"
                         "ffffffffc0001000 t mod_func\t[veth]\n"
                         "ffffffffc0002000 t last_func\t[veth]";  // no final newline
  absl::StatusOr<KernelSymbols> ks = LoadKallsyms(path);
  ASSERT_TRUE(ks.ok()) << ks.status();
  EXPECT_EQ(ks->ref_symbols.at("_text"), 0xffffffff81000000u);
  EXPECT_EQ(ks->ref_symbols.at("_stext"), 0xffffffff81000000u);
  // Both at _text have size 0 but the last one extends to helper: it is kept.
  EXPECT_EQ(ks->kernel.Find(0xffffffff81000005)->name, "_stext");
  EXPECT_EQ(ks->kernel.Find(0xffffffff81000025)->name, "helper");  // 'r' is not loaded
  ASSERT_EQ(ks->modules.count("veth"), 1u);
  EXPECT_EQ(ks->modules["veth"].Find(0xffffffffc0001004)->name, "mod_func");
  EXPECT_EQ(ks->modules["veth"].Find(0xffffffffc0002004)->name, "last_func");
  // The last kernel symbol before the modules' ends 4 KiB past its start, page-rounded
  // (malformed lines in between are skipped, not symbols).
  EXPECT_EQ(ks->kernel.Find(0xffffffff81001fff)->name, "next_func");
  EXPECT_EQ(ks->kernel.Find(0xffffffff81002000), nullptr);
  EXPECT_EQ(ks->kernel.size(), 3u);  // _stext (aliasing _text), helper, next_func
  EXPECT_FALSE(LoadKallsyms("/nonexistent/kallsyms").ok());
  std::string hidden = ::testing::TempDir() + "/kallsyms.hidden";  // non-root /proc/kallsyms
  std::ofstream(hidden) << "0000000000000000 T _text\n0000000000000000 T do_idle\n";
  absl::StatusOr<KernelSymbols> zero = LoadKallsyms(hidden);
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(std::string(SV(zero.status().message())).find("kptr_restrict"), std::string::npos);
}

// The line parser alone: address, type letter, name (module suffix kept); other shapes refused.
TEST(Kallsyms, LineParser) {
  std::optional<KallsymsLine> l = ParseKallsymsLine("ffffffff81000000 T _text");
  ASSERT_TRUE(l);
  EXPECT_EQ(l->addr, 0xffffffff81000000u);
  EXPECT_EQ(l->type, 'T');
  EXPECT_EQ(l->name, "_text");
  l = ParseKallsymsLine("ffffffffc0a01000 t veth_open\t[veth]");
  ASSERT_TRUE(l);
  EXPECT_EQ(l->name, "veth_open\t[veth]");
  l = ParseKallsymsLine("0 b ");  // an empty name is a line (LoadKallsyms skips it)
  ASSERT_TRUE(l);
  EXPECT_EQ(l->name, "");
  for (const char* bad : {"", "ffffffff81000000", "ffffffff81000000 T", "ffffffff81000000 TT x",
                          "xyz T _text", " T _text", "1ffffffff81000000 T _text",
                          "-1 T _text", "ffffffff81000000\tT _text"}) {
    EXPECT_FALSE(ParseKallsymsLine(bad)) << bad;
  }
}

// Finalize sorts only when an Add/AddView went below the symbol before it (tracked as they
// come, not tested by a pass): views out of order, and a table finalized once then given a
// symbol below its last, come out in order.
TEST(SymbolTable, SortsWhenAViewComesOutOfOrder) {
  SymbolTable t;
  t.AddView(0x300, 0x10, "c", Binding::kGlobal, false);
  t.AddView(0x100, 0x10, "a", Binding::kGlobal, false);
  t.AddView(0x400, 0x10, "d", Binding::kGlobal, false);
  t.Finalize(false);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t.symbols()[0].name, "a");
  EXPECT_EQ(t.symbols()[1].name, "c");
  t.AddView(0x200, 0x10, "b", Binding::kGlobal, false);
  t.Finalize(false);
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t.symbols()[1].name, "b");
  EXPECT_EQ(t.Find(0x205)->name, "b");
  EXPECT_EQ(t.Find(0x405)->name, "d");
}

// Tables of 1024+ symbols sort by radix: the same order and alias choices as the small path
// (equal starts in insertion order, then perf's alias rules), here 3000 symbols added from
// the top down with an alias pair at every 8th start.
TEST(SymbolTable, LargeTablesSortAsSmallOnes) {
  SymbolTable t;
  std::vector<std::string> names;
  for (int i = 2999; i >= 0; --i) {
    uint64_t start = 0x400000 + static_cast<uint64_t>(i) * 0x40;
    t.Add(start, 0x20, "f" + std::to_string(i), Binding::kLocal);
    if (i % 8 == 0) t.Add(start, 0x20, "g" + std::to_string(i), Binding::kGlobal);
  }
  t.Finalize(false);
  ASSERT_EQ(t.size(), 3000u);
  for (int i = 0; i < 3000; ++i) {
    const Symbol* s = t.Find(0x400000 + static_cast<uint64_t>(i) * 0x40 + 4);
    ASSERT_NE(s, nullptr) << i;
    EXPECT_EQ(s->name, (i % 8 == 0 ? "g" : "f") + std::to_string(i));  // global beats local
  }
  EXPECT_EQ(t.Find(0x400000 + 0x30), nullptr);  // the gap after a sized symbol
}

// The sort moves each symbol to its place along the permutation's cycles: symbols added in
// a shuffled order (cycles of every length), pairs at one start among them, come out as a
// stable sort puts them, and of each tied pair the first added is kept.
TEST(SymbolTable, ShuffledTablesSortStably) {
  constexpr int kN = 5000;
  std::vector<int> order(kN);
  for (int i = 0; i < kN; ++i) order[i] = i;
  uint64_t r = 12345;
  for (int i = kN - 1; i > 0; --i) {  // Fisher-Yates with a fixed LCG
    r = r * 6364136223846793005ULL + 1442695040888963407ULL;
    std::swap(order[i], order[static_cast<int>((r >> 33) % static_cast<uint64_t>(i + 1))]);
  }
  SymbolTable t;
  std::vector<int> first_added(kN / 2, -1);
  std::vector<std::string> names(kN);
  for (int k = 0; k < kN; ++k) {
    const int i = order[k];
    const int slot = i / 2;  // two symbols a start: a tie in every alias rule
    names[i] = std::to_string(10000 + slot);
    names[i].insert(names[i].begin(), i % 2 ? 'b' : 'a');
    if (first_added[slot] < 0) first_added[slot] = i;
    t.AddView(0x10000 + static_cast<uint64_t>(slot) * 0x100, 0x80, names[i], Binding::kGlobal,
              false);
  }
  t.Finalize(false);
  ASSERT_EQ(t.size(), static_cast<size_t>(kN / 2));
  for (int slot = 0; slot < kN / 2; ++slot) {
    const Symbol& s = t.symbols()[static_cast<size_t>(slot)];
    EXPECT_EQ(s.start, 0x10000 + static_cast<uint64_t>(slot) * 0x100);
    EXPECT_EQ(s.name, names[static_cast<size_t>(first_added[slot])]) << slot;
  }
}

// perf's synthesized PLT entries are named on first use: demangled, then "@plt".
TEST(SymbolTable, PltNamesOnFirstUse) {
  SymbolTable t;
  t.Add(0x1000, 0x100, "text", Binding::kGlobal);
  t.Finalize(false);
  t.AddPlt(0x20, 16, "_ZN2ns3fooEi");
  t.AddPlt(0x30, 16, "free");
  t.AddPlt(0x40, 16, "");
  t.SortAdded();
  EXPECT_EQ(t.NameOf(*t.Find(0x28)), "ns::foo@plt");
  EXPECT_EQ(t.NameOf(*t.Find(0x30)), "free@plt");
  EXPECT_EQ(t.NameOf(*t.Find(0x4f)), "@plt");
  EXPECT_EQ(t.NameOf(*t.Find(0x1010)), "text");
}

// The one-pass line parser and the general one give the same symbols: 16-digit lines, short
// addresses and upper-case hex (which only the general parser reads).
TEST(Kallsyms, FastAndGeneralLinesAgree) {
  absl::StatusOr<KernelSymbols> ks = ParseKallsyms(
      "ffffffff81000000 T _text\n"
      "ffffffff81000100 t short_one\n"
      "FFFFFFFF81000200 T upper_hex\n"
      "ffffffff81000300 D data_sym\n"
      "ffffffff8100g400 T bad_digit\n"
      "81000500 T eight_digits\n"
      "ffffffffc0001000 t mod_fn\t[veth]\n",
      nullptr, "test");
  ASSERT_TRUE(ks.ok()) << ks.status();
  auto name = [&](uint64_t a) {
    const Symbol* s = ks->kernel.Find(a);
    return s ? std::string(s->name) : std::string("-");
  };
  EXPECT_EQ(name(0xffffffff81000000), "_text");
  EXPECT_EQ(name(0xffffffff81000150), "short_one");
  EXPECT_EQ(name(0xffffffff81000250), "upper_hex");
  EXPECT_EQ(name(0xffffffff81000350), "data_sym");
  EXPECT_EQ(name(0x81000500), "eight_digits");
  ASSERT_TRUE(ks->modules.contains("veth"));
  EXPECT_EQ(ks->modules.at("veth").Find(0xffffffffc0001000)->name, "mod_fn");
  EXPECT_EQ(ks->ref_symbols.at("_text"), 0xffffffff81000000u);
}

// perf's cache copy of this host's kallsyms stands for /proc/kallsyms only while it is
// current: a fresh copy is, one with another first page or written before this boot is not.
// This host's /proc (skipped with loadable modules); kallsyms_test.cc checks every rule on a
// fake /proc on any host.
TEST(Kallsyms, CurrentHostCopy) {
  std::ifstream live("/proc/kallsyms");
  std::string text((std::istreambuf_iterator<char>(live)), std::istreambuf_iterator<char>());
  std::ifstream modules("/proc/modules");
  if (text.empty() || text.starts_with("0000000000000000") || modules.peek() != EOF) {
    GTEST_SKIP() << "needs a readable /proc/kallsyms and no loadable modules";
  }
  const std::string copy = ::testing::TempDir() + "/tk-kallsyms-copy";
  std::ofstream(copy) << text;
  EXPECT_TRUE(IsCurrentKallsymsCopy(copy));
  std::string other = text;
  other[other.find(' ') + 3] ^= 1;  // a name in the first page
  std::ofstream(copy) << other;
  EXPECT_FALSE(IsCurrentKallsymsCopy(copy));
  std::ofstream(copy) << text;
  struct timespec old[2] = {{1, 0}, {1, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, copy.c_str(), old, 0), 0);
  EXPECT_FALSE(IsCurrentKallsymsCopy(copy));
  EXPECT_FALSE(IsCurrentKallsymsCopy(copy + ".missing"));
  std::remove(copy.c_str());
}

TEST(Elf, FixtureBinarySymbolsInFileOffsetSpace) {
  std::string bin = SourcePath("testdata/perf_data/symfs/tmp/tk-perf-fixture/workload");
  std::optional<ElfImage> img = LoadElf({bin}, "");
  ASSERT_TRUE(img.has_value());
  EXPECT_EQ(img->build_id.size(), 40u);
  bool saw_main = false;
  for (const Symbol& s : img->symbols.symbols()) saw_main |= s.name == "main";
  EXPECT_TRUE(saw_main);
  EXPECT_FALSE(LoadElf({bin}, "00").has_value());  // another build: not used
  EXPECT_EQ(ReadElfBuildId(bin), img->build_id);
}

// Every name LoadElf keeps is a whole name of the file's string table, as libelf gives it
// (elf_strptr): 64-bit tables are read in place and names' ends found 16 bytes at a time,
// 32-bit ones through gelf_getsym; names longer than 64 bytes and at the table's end too.
TEST(Elf, NamesAreTheStringTablesWholeNames) {
  constexpr const char kLibcDebug[] =
      "testdata/dwarf/home/.debug/usr/lib/x86_64-linux-gnu/libc.so.6/"
      "93ac61ec5a8eb1396f9fbd350e3169a558528a40/debug";
  const char* const files[] = {
      kLibcDebug,
      "testdata/dwarf/home/.debug/usr/lib32/libc.so.6/edc10157ce09e1a8e6937b4a7ab908f786bc02e6/elf",
      "testdata/perf_data/symfs/tmp/tk-perf-fixture/workload",
      "/proc/self/exe"};  // this test: C++ names of 100+ bytes
  elf_version(EV_CURRENT);
  for (const char* rel : files) {
    const std::string path = rel[0] == '/' ? std::string(rel) : SourcePath(rel);
    std::optional<ElfImage> img = LoadElf({path}, "");
    ASSERT_TRUE(img.has_value()) << rel;
    // The names of the table LoadElf reads (.symtab, else .dynsym), independently.
    absl::flat_hash_set<std::string> names;
    size_t longest = 0;
    int fd = open(path.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
    ASSERT_NE(elf, nullptr);
    for (uint32_t want : {uint32_t{SHT_SYMTAB}, uint32_t{SHT_DYNSYM}}) {
      Elf_Scn* scn = nullptr;
      GElf_Shdr sh;
      while ((scn = elf_nextscn(elf, scn)) != nullptr) {
        if (gelf_getshdr(scn, &sh) && sh.sh_type == want) break;
      }
      if (!scn) continue;
      Elf_Data* data = elf_getdata(scn, nullptr);
      for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; ++i) {
        GElf_Sym sym;
        if (!gelf_getsym(data, static_cast<int>(i), &sym)) break;
        const char* n = elf_strptr(elf, sh.sh_link, sym.st_name);
        if (n) names.insert(n);
      }
      break;
    }
    elf_end(elf);
    close(fd);
    ASSERT_FALSE(names.empty()) << rel;
    size_t checked = 0;
    for (const Symbol& s : img->symbols.symbols()) {
      if (s.plt) continue;  // synthesized "NAME@plt"
      EXPECT_TRUE(names.contains(std::string(s.name))) << rel << ": " << s.name;
      longest = std::max(longest, s.name.size());
      ++checked;
    }
    EXPECT_GT(checked, 20u) << rel;
    if (rel[0] == '/') {
      EXPECT_GT(longest, 100u) << rel;  // past the 64-byte fast path
    }
  }
}

TEST(JitMap, PerfMapLines) {
  std::string path = ::testing::TempDir() + "/perf-123.map";
  std::ofstream(path) << "7f0000001000 40 LazyCompile:~main /app/index.js:1\n0x7f0000001040 0x10 stub\nbad line\n";
  std::optional<SymbolTable> t = LoadPerfMap(path);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->Find(0x7f0000001010)->name, "LazyCompile:~main /app/index.js:1");
  EXPECT_EQ(t->Find(0x7f0000001045)->name, "stub");
}

TEST(Machine, MapsForkCommAndUnknowns) {
  SymbolizeOptions o;
  o.symfs = SourcePath("testdata/perf_data/symfs");
  o.use_buildid_cache = false;
  o.use_host_kallsyms = false;
  Machine m(o);
  EXPECT_EQ(m.Comm(0, 0), "swapper");
  EXPECT_EQ(m.Comm(7, 7), ":7");
  m.OnComm(10, 10, "parent");
  m.OnMmap(10, 0x400000, 0x1000, 0x1000, "/tmp/tk-perf-fixture/workload", false, "");
  m.OnMmap(10, 0x7f0000000000, 0x1000, 0, "//anon", false, "");
  m.OnFork(11, 11, 10, 10, false);
  EXPECT_EQ(m.Comm(11, 11), "parent");
  Frame f = m.Resolve(11, false, 0x400010);  // inherited map
  EXPECT_EQ(f.dso, "/tmp/tk-perf-fixture/workload");
  EXPECT_EQ(f.ip, 0x1010u);  // printed DSO-relative, as perf script does
  EXPECT_EQ(m.Resolve(10, false, 0x7f0000000010).dso, "/tmp/perf-10.map");
  Frame u = m.Resolve(10, false, 0x10);
  EXPECT_EQ(u.symbol, "[unknown]");
  EXPECT_EQ(u.dso, "[unknown]");
  Frame k = m.Resolve(10, true, 0xffffffff81000000);
  EXPECT_EQ(k.dso, "[unknown]");  // no kernel map recorded
  // A new mmap over part of an old one splits it.
  m.OnMmap(10, 0x400800, 0x100, 0, "/other", false, "");
  EXPECT_EQ(m.Resolve(10, false, 0x400810).dso, "/other");
  EXPECT_EQ(m.Resolve(10, false, 0x400910).dso, "/tmp/tk-perf-fixture/workload");
  EXPECT_EQ(m.Resolve(10, false, 0x400910).ip, 0x1910u);
}

}  // namespace
}  // namespace tk::testing
