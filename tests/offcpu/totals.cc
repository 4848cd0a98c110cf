#include "tests/offcpu/totals.h"

#include <regex>
#include <sstream>

namespace tk::testing {

std::map<int, uint64_t> TkTotals(const std::string& folded, const std::string& prefix) {
  std::map<int, uint64_t> m;
  std::istringstream in(folded);
  std::string line;
  while (std::getline(in, line)) {
    std::string root = line.substr(0, line.find(';'));
    if (!root.starts_with(prefix)) continue;
    int tid = std::stoi(root.substr(root.rfind('/') + 1));
    m[tid] += std::stoull(line.substr(line.rfind(' ') + 1));
  }
  return m;
}

std::map<int, uint64_t> TimehistTotals(const std::string& text, const std::string& prefix) {
  static const std::regex row(
      R"(^\s*\d+\.\d+\s+\[\d+\]\s+(.*?)\[(\d+)(?:/\d+)?\]\s+(\d+)\.(\d{3})\s+\d+\.\d{3}\s+\d+\.\d{3})");
  std::map<int, uint64_t> m;
  std::istringstream in(text);
  std::string line;
  std::smatch g;
  while (std::getline(in, line)) {
    if (!std::regex_search(line, g, row) || !g[1].str().starts_with(prefix)) continue;
    m[std::stoi(g[2])] += std::stoull(g[3]) * 1000 + std::stoull(g[4]);
  }
  return m;
}

}  // namespace tk::testing
