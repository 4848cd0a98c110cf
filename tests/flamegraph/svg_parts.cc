#include "tests/flamegraph/svg_parts.h"

#include <cstdlib>

#include "tests/support/golden.h"

namespace tk::testing {

std::optional<SvgParts> SplitSvg(const std::string& svg) {
  size_t script = svg.find("<script type=\"text/ecmascript\">");
  size_t end = svg.find("]]>\n</script>");
  size_t frames = svg.find("<g id=\"frames\">\n");
  if (script == std::string::npos || end == std::string::npos || frames == std::string::npos ||
      frames < end) {
    return std::nullopt;
  }
  SvgParts p;
  p.header = svg.substr(0, script);
  p.fixed = svg.substr(end, frames - end);
  // Each frame is four lines: <g ...> (or <a ...> with --nameattr), title and rect, text,
  // </g> (</a>); the frames' own </g> and </svg> end the file.
  for (size_t pos = frames + 16;;) {
    if (svg.compare(pos, std::string::npos, "</g>\n</svg>\n") == 0) return p;
    size_t end = pos;
    for (int line = 0; line < 4; ++line) {
      end = svg.find('\n', end);
      if (end == std::string::npos) return std::nullopt;
      ++end;
    }
    ++p.blocks[svg.substr(pos, end - pos)];
    pos = end;
  }
}

std::vector<std::string> Missing(const SvgParts& a, const SvgParts& b) {
  std::vector<std::string> out;
  for (const auto& [block, n] : a.blocks) {
    auto it = b.blocks.find(block);
    int have = it == b.blocks.end() ? 0 : it->second;
    for (int i = have; i < n; ++i) out.push_back(block);
  }
  return out;
}

std::string DropXmlInvalid(std::string s) {
  std::string out;
  for (char c : s) {
    unsigned char u = c;
    if (u < 0x20 && u != '\t' && u != '\n' && u != '\r') continue;
    out.push_back(c);
  }
  return out;
}

std::optional<std::string> FlamegraphCorpus() {
  std::optional<std::string> shared = SharedDir();  // ../shared or $TK_SHARED_DIR
  if (!shared) return std::nullopt;
  std::string dir = *shared + "/conformance/flamegraph";
  if (!FileExists(dir + "/expected")) return std::nullopt;
  return dir;
}

std::vector<std::string> CorpusArgs(const std::string& opts) {
  std::vector<std::string> args;
  if (opts == "default") return args;
  for (size_t pos = 0; pos <= opts.size();) {
    size_t sep = opts.find("--", pos);
    if (sep == std::string::npos) sep = opts.size();
    std::string o = opts.substr(pos, sep - pos);
    size_t us = o.find('_');
    args.push_back("--" + o.substr(0, us));
    if (us != std::string::npos) args.push_back(o.substr(us + 1));
    pos = sep + 2;
  }
  return args;
}

}  // namespace tk::testing
