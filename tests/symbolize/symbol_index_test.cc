// SymbolTable::Find through its page index against a plain scan of the same symbols (perf's
// rules: the last symbol starting at or before the address that still covers it, among the
// few before it an overlapping longer one), on tables dense, sparse and spread over 2^64.
#include <random>

#include "gtest/gtest.h"
#include "parsers/symbolize/symbol_table.h"

namespace tk::parsers::symbolize {
namespace {

// What Find answered before the index: upper_bound over all symbols, then up to 4 back.
const Symbol* Scan(const SymbolTable& t, uint64_t addr) {
  const std::vector<Symbol>& s = t.symbols();
  auto it = std::upper_bound(s.begin(), s.end(), addr,
                             [](uint64_t a, const Symbol& x) { return a < x.start; });
  for (int back = 0; back < 4 && it != s.begin(); ++back) {
    --it;
    if (addr < it->end || (addr == it->start && it->start == it->end)) return &*it;
  }
  return nullptr;
}

TEST(SymbolIndex, FindAgreesWithAScanOfTheTable) {
  std::mt19937_64 rng(7);
  for (uint64_t spread : {uint64_t{64}, uint64_t{1} << 16, uint64_t{1} << 40, ~uint64_t{0}}) {
    SymbolTable t;
    std::vector<uint64_t> starts;
    for (int i = 0; i < 2000; ++i) {
      uint64_t start = spread == ~uint64_t{0} ? rng() : 0x400000 + rng() % (spread * 2000);
      t.Add(start, rng() % 3 == 0 ? 0 : rng() % (spread * 4), "f" + std::to_string(i),
            Binding::kGlobal);
      starts.push_back(start);
    }
    t.Finalize(false);
    for (int i = 0; i < 20000; ++i) {
      uint64_t base = starts[rng() % starts.size()];
      uint64_t addr = i % 5 == 0 ? rng() : base + rng() % (spread * 2) - spread / 2;
      EXPECT_EQ(t.Find(addr), Scan(t, addr)) << std::hex << addr << " spread " << spread;
    }
    EXPECT_EQ(t.Find(0), Scan(t, 0));
    EXPECT_EQ(t.Find(~uint64_t{0}), Scan(t, ~uint64_t{0}));
  }
}

}  // namespace
}  // namespace tk::parsers::symbolize
