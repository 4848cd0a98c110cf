// libFuzzer target for the kallsyms parser (a --kallsyms FILE, perf's build-id cache copy,
// trace.dat's saved copy): every input is parsed, each table is looked up around its symbols
// and past them, and the kernel's table is moved as a kallsyms of another boot would be.
// The input is copied into a buffer of its own size so that ASan sees any read past it.
// Seeds: fuzz/corpus/kallsyms/.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>

#include "parsers/symbolize/kallsyms.h"

namespace {

size_t Probe(const tk::parsers::symbolize::SymbolTable& t) {
  size_t n = 0;
  if (t.size() == 0) return 0;
  const uint64_t probes[] = {0, ~uint64_t{0}, t.front().start, t.front().start - 1, t.back().end,
                             t.back().end - 1};
  for (uint64_t a : probes) {
    if (const auto* s = t.Find(a)) n += s->name.size() + (s->end - s->start);
  }
  for (size_t i = 0; i < t.size() && i < 64; ++i) {
    const auto& s = t.symbols()[i];
    for (uint64_t a : {s.start, s.start - 1, s.end}) {
      if (const auto* f = t.Find(a)) n += t.NameOf(*f).size();
    }
  }
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::unique_ptr<char[]> buf(new char[size ? size : 1]);
  if (size) std::memcpy(buf.get(), data, size);
  auto ks = tk::parsers::symbolize::ParseKallsyms(std::string_view(buf.get(), size), nullptr,
                                                  "fuzz");
  if (!ks.ok()) return 0;
  volatile size_t n = Probe(ks->kernel);
  for (const auto& [name, table] : ks->modules) n = n + Probe(table) + name.size();
  ks->kernel.Shift(0x1e00000);
  n = n + Probe(ks->kernel);
  ks->kernel.Shift(~uint64_t{0x7fffffffffffff});
  n = n + Probe(ks->kernel);
  return 0;
}
