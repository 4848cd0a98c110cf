// Folded stacks (tk flamegraph, tk diff): any bytes must read, lay out and draw without a
// crash or an out-of-bounds read. The first byte picks options: --reverse, --flamechart,
// --colors chain, --minwidth 0, --hash, --inverted, a differential diff of the two halves.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "analyses/flamegraph/diff.h"
#include "analyses/flamegraph/folded.h"
#include "analyses/flamegraph/layout.h"
#include "analyses/flamegraph/svg.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  namespace fg = tk::analyses::flamegraph;
  uint8_t flags = data[0];
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  fg::FlameOptions o;
  o.reverse = flags & 1;
  o.flamechart = flags & 2;
  if (flags & 4) o.colors = "chain";
  if (flags & 8) o.minwidth = "0";
  o.hash = flags & 16;
  o.inverted = flags & 32;
  fg::FoldedProfile p(o.reverse, o.flamechart);
  p.AddText(text);
  fg::Layout l = fg::LayOut(p, o);
  if (l.time > 0) {
    std::string svg;
    fg::WriteSvg(l, o, &svg);
    std::string json;
    fg::WriteJson(l, o, &json);
  }
  if (flags & 64) {
    fg::FoldedDiff d({.normalize = (flags & 128) != 0, .strip_hex = true});
    uint64_t bad = 0, first = 0;
    d.AddText(0, text.substr(0, text.size() / 2), &bad, &first);
    d.AddText(1, text.substr(text.size() / 2), &bad, &first);
    (void)d.Output();
  }
  return 0;
}
