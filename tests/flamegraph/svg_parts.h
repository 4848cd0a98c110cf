// Comparing flame graph SVGs as flamegraph.pl compatibility is defined: the header up to the
// <script> body, the fixed texts after it, and the multiset of per-frame <g> blocks (frame
// order is Perl hash order upstream).
#ifndef TK_TESTS_FLAMEGRAPH_SVG_PARTS_H_
#define TK_TESTS_FLAMEGRAPH_SVG_PARTS_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tk::testing {

struct SvgParts {
  std::string header;  // up to <script type="text/ecmascript">
  std::string fixed;   // from "]]>" to <g id="frames">
  std::map<std::string, int> blocks;
};

// Splits an SVG; nullopt when it is not shaped like flamegraph.pl's.
std::optional<SvgParts> SplitSvg(const std::string& svg);

// The blocks of `a` missing from `b` (with multiplicity).
std::vector<std::string> Missing(const SvgParts& a, const SvgParts& b);

// Deletes the characters XML 1.0 does not allow (tk drops them; flamegraph.pl writes them).
std::string DropXmlInvalid(std::string s);

// ../shared/conformance/flamegraph (SharedDir(): $TK_SHARED_DIR when set), or nullopt (tests skip; under CI=true they fail).
std::optional<std::string> FlamegraphCorpus();

// The tk arguments for a corpus file name's options part ("minwidth_2--width_800").
std::vector<std::string> CorpusArgs(const std::string& opts);

}  // namespace tk::testing

#endif  // TK_TESTS_FLAMEGRAPH_SVG_PARTS_H_
