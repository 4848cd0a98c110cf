// ParseKallsyms keeps the kernel's symbols as an index (kallsyms.cc KallsymsIndex: Symbols
// made when looked up). It must be the table the lines make when each becomes a Symbol and
// the table is finalized (what ParseKallsyms did before, and still does when the index does
// not apply): the same symbols, the same Find for every address that matters (each start,
// the byte before it, the last byte of each symbol, its end, far below and above), also after
// Shift (a kallsyms of another boot, relocated by _text), checked on the shipped kallsyms
// files (one of 122k lines), synthetic edge cases and this host's /proc/kallsyms.
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "parsers/symbolize/kallsyms.h"
#include "parsers/symbolize/symbol_table.h"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

using tk::parsers::symbolize::Binding;
using tk::parsers::symbolize::IsModuleSymbol;
using tk::parsers::symbolize::KallsymsLine;
using tk::parsers::symbolize::KernelSymbols;
using tk::parsers::symbolize::ParseKallsyms;
using tk::parsers::symbolize::ParseKallsymsLine;
using tk::parsers::symbolize::Symbol;
using tk::parsers::symbolize::SymbolTable;

// The kernel's table made the plain way, line by line: perf's kept types, a name, not "$x",
// not a module's; all Symbols, then Finalize.
SymbolTable Reference(const std::string& text) {
  SymbolTable t;
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    std::optional<KallsymsLine> l = ParseKallsymsLine(std::string_view(text).substr(at, nl - at));
    at = nl + 1;
    if (!l || l->name.empty() || l->name[0] == '$' || IsModuleSymbol(l->name)) continue;
    const char up = static_cast<char>(l->type & ~0x20);
    if (up != 'T' && up != 'W' && up != 'D' && up != 'B') continue;
    const Binding b = l->type == 'W'   ? Binding::kWeak
                      : l->type == 'w' ? Binding::kLocal
                      : l->type >= 'A' && l->type <= 'Z' ? Binding::kGlobal
                                                           : Binding::kLocal;
    t.AddView(l->addr, 0, l->name, b, false);
  }
  t.Finalize(false);
  return t;
}

std::string Show(const Symbol* s) {
  return s ? std::string(s->name) + "@" + std::to_string(s->start) + "-" + std::to_string(s->end)
           : "-";
}

// The same Find as `want` at the addresses around every symbol of `want`.
void ExpectSameFind(const SymbolTable& got, const SymbolTable& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  if (want.size() == 0) return;
  std::vector<uint64_t> probes = {0, 1, ~uint64_t{0}, want.front().start - 1, want.back().end,
                                  want.back().end - 1};
  for (const Symbol& s : want.symbols()) {
    for (uint64_t a : {s.start - 1, s.start, s.start + 1, s.end - 1, s.end}) probes.push_back(a);
  }
  for (uint64_t a : probes) {
    ASSERT_EQ(Show(got.Find(a)), Show(want.Find(a))) << what << " at " << a;
  }
}

void ExpectSameTable(const SymbolTable& got, const SymbolTable& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  if (want.size() == 0) return;
  EXPECT_EQ(got.front().start, want.front().start) << what;
  EXPECT_EQ(got.back().end, want.back().end) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    const Symbol &x = got.symbols()[i], &y = want.symbols()[i];
    ASSERT_TRUE(x.start == y.start && x.end == y.end && x.name == y.name && x.binding == y.binding)
        << what << " #" << i << ": " << Show(&x) << " vs " << Show(&y);
  }
}

std::vector<std::pair<std::string, std::string>> Inputs() {
  std::vector<std::pair<std::string, std::string>> in;
  for (const char* f : {"testdata/perf_data/kallsyms", "testdata/report/kallsyms",
                        "testdata/sched/chain.kallsyms", "testdata/offcpu/kallsyms",
                        "testdata/dwarf/kallsyms",
                        "testdata/dwarf/home/.debug/[kernel.kallsyms]/"
                        "a3e4cd60a8ec14f02aa41b41d5b5846d3d9f1dd8/kallsyms"}) {
    std::string text = ReadFile(SourcePath(f));
    EXPECT_FALSE(text.empty()) << f;
    in.emplace_back(f, std::move(text));
  }
  // Aliases (the last kept), a last line without newline, types that are not kept in
  // between, an alias at the last address, weak and local bindings.
  in.emplace_back("aliases",
                  "ffffffff81000000 T _text\nffffffff81000000 T _stext\n"
                  "ffffffff81000000 t startup_64\nffffffff81000010 r rodata_x\n"
                  "ffffffff81000020 W weak_fn\nffffffff81000020 w weak_local\n"
                  "ffffffff81000030 $x\nffffffff81000040 d data_obj\n"
                  "ffffffff81001000 T last\nffffffff81001000 b last_alias");
  // Not in address order, a short address, upper-case digits: the whole-table path.
  in.emplace_back("unsorted",
                  "ffffffff81000000 T _text\nffffffff81000300 T b\n81000500 T short\n"
                  "FFFFFFFF81000200 T upper\n");
  // Spanning more than 4 GiB: the whole-table path.
  in.emplace_back("wide", "0000000000001000 T low\nffffffff81000000 T _text\n");
  // Near the top of the address space: the last symbol's end wraps past 2^64.
  in.emplace_back("top", "fffffffffffff000 T a\nfffffffffffffff0 T b\n");
  // Modules above the kernel (their tables are not the index's).
  in.emplace_back("modules", "ffffffff81000000 T _text\nffffffff81000100 t k2\n"
                             "ffffffffc0001000 t m1\t[veth]\nffffffffc0001100 t m2\t[veth]\n");
  std::ifstream live("/proc/kallsyms");
  std::string host((std::istreambuf_iterator<char>(live)), std::istreambuf_iterator<char>());
  if (!host.empty() && !host.starts_with("0000000000000000 ")) in.emplace_back("host", host);
  return in;
}

TEST(KallsymsIndex, SameTableAndFindAsEverySymbolFinalized) {
  for (const auto& [what, text] : Inputs()) {
    absl::StatusOr<KernelSymbols> ks = ParseKallsyms(text, nullptr, what);
    ASSERT_TRUE(ks.ok()) << what << ": " << ks.status();
    const SymbolTable want = Reference(text);
    ExpectSameFind(ks->kernel, want, what);  // before symbols() makes them all
    ExpectSameTable(ks->kernel, want, what);
  }
}

// Another boot's kallsyms is moved by the difference of the two _text addresses, either way;
// a delta that carries the table across 2^64 leaves the index (the table is made whole and
// moved as before).
TEST(KallsymsIndex, ShiftedAsTheFinalizedTable) {
  for (const auto& [what, text] : Inputs()) {
    for (uint64_t delta : {uint64_t{0x1e00000}, ~uint64_t{0x33ffff}, uint64_t{0xffffffff81000000},
                           uint64_t{0x7e00000000000000}}) {
      absl::StatusOr<KernelSymbols> ks = ParseKallsyms(text, nullptr, what);
      ASSERT_TRUE(ks.ok()) << what;
      SymbolTable want = Reference(text);
      const std::string name = what + " shifted by " + std::to_string(delta);
      if (want.size() > 0) ks->kernel.Find(want.front().start);  // made before the move, too
      ks->kernel.Shift(delta);
      want.Shift(delta);
      ExpectSameFind(ks->kernel, want, name);
      ExpectSameTable(ks->kernel, want, name);
    }
  }
}

// What Find hands out stays in place: later lookups make other symbols without moving it.
TEST(KallsymsIndex, SymbolsStayInPlace) {
  const std::string text = ReadFile(SourcePath("testdata/perf_data/kallsyms"));
  absl::StatusOr<KernelSymbols> ks = ParseKallsyms(text, nullptr, "perf_data/kallsyms");
  ASSERT_TRUE(ks.ok());
  const SymbolTable want = Reference(text);
  ASSERT_GT(want.size(), 100u);
  const Symbol* first = ks->kernel.Find(want.symbols()[3].start);
  ASSERT_NE(first, nullptr);
  const std::string name(first->name);
  for (const Symbol& s : want.symbols()) ks->kernel.Find(s.start);
  EXPECT_EQ(first, ks->kernel.Find(want.symbols()[3].start));
  EXPECT_EQ(first->name, name);
}

}  // namespace
}  // namespace tk::testing
