#include "analyses/flamegraph/color.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "analyses/flamegraph/text.h"

namespace tk::analyses::flamegraph {
namespace {

std::vector<uint32_t> CodePoints(std::string_view s) {
  std::vector<uint32_t> cps;
  for (size_t i = 0; i < s.size();) cps.push_back(NextCodePoint(s, &i));
  return cps;
}

double NameHashOf(const std::vector<uint32_t>& cps, size_t from) {
  double vector = 0, weight = 1, max = 1;
  int mod = 10;
  for (size_t k = from; k < cps.size(); ++k) {
    int i = static_cast<int>(cps[k] % mod);
    vector += (static_cast<double>(i) / (mod++ - 1)) * weight;
    max += weight;
    weight *= 0.70;
    if (mod > 12) break;
  }
  return 1 - vector / max;
}

// namehash strips s/.(.*?)`// : the first character through the first later backtick.
size_t AfterModule(const std::vector<uint32_t>& cps) {
  for (size_t k = 1; k < cps.size(); ++k)
    if (cps[k] == '`') return k + 1;
  return 0;
}

std::string Rgb(int r, int g, int b) { return absl::StrCat("rgb(", r, ",", g, ",", b, ")"); }

bool EndsWith(std::string_view s, std::string_view t) { return s.ends_with(t); }
bool Has(std::string_view s, std::string_view t) { return s.find(t) != std::string_view::npos; }

// The flat palette a multi palette picks for `name`.
std::string_view PickPalette(std::string_view type, std::string_view name) {
  if (type == "java") {
    if (EndsWith(name, "_[j]")) return "green";
    if (EndsWith(name, "_[i]")) return "aqua";
    std::string_view n = name.starts_with('L') ? name.substr(1) : name;
    for (std::string_view p : {"java/", "javax/", "jdk/", "net/", "org/", "com/", "io/", "sun/"})
      if (n.starts_with(p)) return "green";
    if (Has(name, ":::")) return "green";
    if (Has(name, "::")) return "yellow";
    if (EndsWith(name, "_[k]")) return "orange";
    return "red";
  }
  if (type == "perl") {
    if (Has(name, "::")) return "yellow";
    if (Has(name, "Perl") || Has(name, ".pl")) return "green";
    if (EndsWith(name, "_[k]")) return "orange";
    return "red";
  }
  if (type == "js") {
    if (EndsWith(name, "_[j]")) return Has(name, "/") ? "green" : "aqua";
    if (Has(name, "::")) return "yellow";
    size_t slash = name.find('/');
    if (slash != std::string_view::npos && name.find(".js", slash + 1) != std::string_view::npos)
      return "green";
    if (Has(name, ":")) return "aqua";
    if (name == " ") return "green";
    if (Has(name, "_[k]")) return "orange";
    return "red";
  }
  if (type == "wakeup") return "aqua";
  if (type == "chain") return Has(name, "_[w]") ? "aqua" : "blue";
  return type;
}

}  // namespace

double NameHash(std::string_view name) {
  std::vector<uint32_t> cps = CodePoints(name);
  return NameHashOf(cps, AfterModule(cps));
}

std::string FrameColor(std::string_view palette, ColorMode mode, std::string_view name,
                       Drand48* rng) {
  double v1, v2, v3;
  if (mode == ColorMode::kHash) {
    std::vector<uint32_t> cps = CodePoints(name);
    v1 = NameHashOf(cps, AfterModule(cps));
    std::vector<uint32_t> rev(cps.rbegin(), cps.rend());
    v2 = v3 = NameHashOf(rev, AfterModule(rev));
  } else if (mode == ColorMode::kRandom) {
    v1 = rng->Next();
    v2 = rng->Next();
    v3 = rng->Next();
  } else {
    uint32_t sum = 0;  // unpack("%32W*", name): code points summed mod 2^32
    for (size_t i = 0; i < name.size();) sum += NextCodePoint(name, &i);
    v1 = v2 = v3 = Drand48(sum).Next();
  }
  auto I = [](double x) { return static_cast<int>(x); };  // Perl's int(): toward zero
  if (palette == "hot") return Rgb(205 + I(50 * v3), I(230 * v1), I(55 * v2));
  if (palette == "mem") return Rgb(0, 190 + I(50 * v2), I(210 * v1));
  if (palette == "io") return Rgb(80 + I(60 * v1), 80 + I(60 * v1), 190 + I(55 * v2));
  std::string_view type = PickPalette(palette, name);
  double v = v1;
  if (type == "red") return Rgb(200 + I(55 * v), 50 + I(80 * v), 50 + I(80 * v));
  if (type == "green") return Rgb(50 + I(60 * v), 200 + I(55 * v), 50 + I(60 * v));
  if (type == "blue") return Rgb(80 + I(60 * v), 80 + I(60 * v), 205 + I(50 * v));
  if (type == "yellow") return Rgb(175 + I(55 * v), 175 + I(55 * v), 50 + I(20 * v));
  if (type == "purple") return Rgb(190 + I(65 * v), 80 + I(60 * v), 190 + I(65 * v));
  if (type == "aqua") return Rgb(50 + I(60 * v), 165 + I(55 * v), 165 + I(55 * v));
  if (type == "orange") return Rgb(190 + I(65 * v), 90 + I(65 * v), 0);
  return "rgb(0,0,0)";
}

std::string DeltaColor(double delta, double max) {
  int r = 255, g = 255, b = 255;
  if (delta > 0) {
    g = b = static_cast<int>(210 * (max - delta) / max);
  } else if (delta < 0) {
    r = g = static_cast<int>(210 * (max + delta) / max);
  }
  return Rgb(r, g, b);
}

bool BackgroundColors(std::string_view bg, std::string_view palette, std::string* c1,
                      std::string* c2) {
  std::string_view pick = bg;
  if (pick.empty()) {
    if (palette == "mem") {
      pick = "green";
    } else if (palette == "io" || palette == "wakeup" || palette == "chain") {
      pick = "blue";
    } else if (palette == "red" || palette == "green" || palette == "blue" ||
               palette == "aqua" || palette == "yellow" || palette == "purple" ||
               palette == "orange") {
      pick = "grey";
    } else {
      pick = "yellow";
    }
  }
  if (pick == "yellow") {
    *c1 = "#eeeeee", *c2 = "#eeeeb0";
  } else if (pick == "blue") {
    *c1 = "#eeeeee", *c2 = "#e0e0ff";
  } else if (pick == "green") {
    *c1 = "#eef2ee", *c2 = "#e0ffe0";
  } else if (pick == "grey") {
    *c1 = "#f8f8f8", *c2 = "#e8e8e8";
  } else if (pick.size() == 7 && pick[0] == '#') {
    *c1 = *c2 = std::string(pick);
  } else {
    return false;
  }
  return true;
}

}  // namespace tk::analyses::flamegraph
