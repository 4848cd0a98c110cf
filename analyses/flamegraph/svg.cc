#include "analyses/flamegraph/svg.h"

#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analyses/flamegraph/color.h"
#include "analyses/flamegraph/script.h"
#include "analyses/flamegraph/text.h"

namespace tk::analyses::flamegraph {
namespace {

constexpr double kXpad = 10;
constexpr double kFramePad = 1;

// flamegraph.pl's derived sizes.
struct Geometry {
  double ypad1, ypad2, ypad3, height;
  explicit Geometry(const Layout& l, const FlameOptions& o)
      : ypad1(o.fontsize * 3), ypad2(o.fontsize * 2 + 10), ypad3(o.fontsize * 2) {
    height = (l.depthmax + 1) * o.frame_height + ypad1 + ypad2;
    if (!o.subtitle.empty()) height += ypad3;
  }
};

std::string Num(double v) {
  std::string s;
  AppendPerlNumber(&s, v);
  return s;
}
std::string Fixed(double v, int d) {
  std::string s;
  AppendFixed(&s, v, d);
  return s;
}

// " _[k]" and the other annotations are not shown (they only steer the colour).
std::string_view StripAnnotation(std::string_view f) {
  if (f.size() >= 4 && f[f.size() - 4] == '_' && f[f.size() - 3] == '[' && f.back() == ']') {
    char c = f[f.size() - 2];
    if (c == 'k' || c == 'w' || c == 'i' || c == 'j') return f.substr(0, f.size() - 4);
  }
  return f;
}

// What one frame looks like: texts unescaped, numbers formatted as flamegraph.pl does.
struct FrameView {
  std::string title, label, fill;
  std::string x, y, w, h, tx, ty;
  double x1, x2;
};

class Painter {
 public:
  Painter(const Layout& l, const FlameOptions& o) : l_(l), o_(o), g_(l, o) {
    mode_ = o.hash ? ColorMode::kHash : o.random ? ColorMode::kRandom : ColorMode::kDefault;
    uint32_t seed = o.seed ? static_cast<uint32_t>(o.seed) : std::random_device()();
    rng_ = std::make_unique<Drand48>(seed);
  }
  const Geometry& geometry() const { return g_; }

  FrameView View(const Frame& f) {
    FrameView v;
    std::string_view func = l_.tree->node(f.node).name;
    bool root = f.depth == 0;
    double etime = root ? l_.timemax : f.etime;
    v.x1 = kXpad + f.stime * l_.widthpertime;
    v.x2 = kXpad + etime * l_.widthpertime;
    double y1, y2;
    if (!o_.inverted) {
      y1 = g_.height - g_.ypad2 - (f.depth + 1) * o_.frame_height + kFramePad;
      y2 = g_.height - g_.ypad2 - f.depth * o_.frame_height;
    } else {
      y1 = g_.ypad1 + f.depth * o_.frame_height;
      y2 = g_.ypad1 + (f.depth + 1) * o_.frame_height - kFramePad;
    }
    v.x = Fixed(v.x1, 1);
    std::string x2 = Fixed(v.x2, 1);
    v.w = Fixed(std::strtod(x2.c_str(), nullptr) - std::strtod(v.x.c_str(), nullptr), 1);
    v.y = Num(y1);
    v.h = Fixed(y2 - y1, 1);
    v.tx = Fixed(v.x1 + 3, 2);
    v.ty = Num(3 + (y1 + y2) / 2);
    v.title = Title(f, func, root, etime);
    v.fill = Fill(f, func);
    int chars = static_cast<int>((v.x2 - v.x1) / (o_.fontsize * o_.fontwidth));
    if (chars >= 3) {  // room for one character and ".."
      std::string_view name = StripAnnotation(func);
      v.label = std::string(name.substr(0, CodePointPrefix(name, chars)));
      if (static_cast<size_t>(chars) < CodePointCount(name)) {
        v.label.resize(CodePointPrefix(v.label, chars - 2));
        v.label.append("..");
      }
    }
    return v;
  }

 private:
  std::string Title(const Frame& f, std::string_view func, bool root, double etime) {
    std::string samples = Fixed((etime - f.stime) * o_.factor, 0);
    std::string t;
    if (root) {
      t = "all (";
      AppendWithCommas(&t, samples);
      absl::StrAppend(&t, " ", o_.countname, ", 100%)");
      return t;
    }
    double scale = l_.timemax * o_.factor;
    t = std::string(StripAnnotation(func));
    t.append(" (");
    AppendWithCommas(&t, samples);
    absl::StrAppend(&t, " ", o_.countname, ", ",
                    Fixed(100 * std::strtod(samples.c_str(), nullptr) / scale, 2), "%");
    if (f.has_delta) {
      // Perl negates the integer 0 to 0 (not -0.0): "0.00", never "-0.00".
      double d = o_.negate && f.delta != 0 ? -f.delta : f.delta;
      absl::StrAppend(&t, "; ", d > 0 ? "+" : "", Fixed(100 * d / scale, 2), "%");
    }
    t.append(")");
    return t;
  }

  std::string Fill(const Frame& f, std::string_view func) {
    if (func == "--") return "rgb(160,160,160)";
    if (func == "-") return "rgb(200,200,200)";
    if (f.has_delta) return DeltaColor(o_.negate ? -f.delta : f.delta, l_.maxdelta);
    if (o_.palette) {
      auto [it, added] = o_.palette->try_emplace(std::string(func));
      if (added) it->second = FrameColor(o_.colors, mode_, func, rng_.get());
      return it->second;
    }
    return FrameColor(o_.colors, mode_, func, rng_.get());
  }

  const Layout& l_;
  const FlameOptions& o_;
  Geometry g_;
  ColorMode mode_;
  std::unique_ptr<Drand48> rng_;
};

void Text(std::string* out, const std::string& id, double x, double y, std::string_view text,
          const std::string& extra = "") {
  absl::StrAppend(out, "<text ", id.empty() ? "" : absl::StrCat("id=\"", id, "\""), " x=\"",
                  Fixed(x, 2), "\" y=\"", Num(y), "\" ", extra, ">");
  AppendXml(out, text, false);
  out->append("</text>\n");
}

void Header(const FlameOptions& o, const Geometry& g, std::string* out) {
  std::string w = absl::StrCat(o.width), h = Num(g.height);
  std::string encoding;
  if (!o.encoding.empty()) {
    encoding = " encoding=\"";
    AppendXml(&encoding, o.encoding, true);
    encoding.push_back('"');
  }
  std::string notes;
  AppendXml(&notes, o.notes, true);
  for (size_t p; (p = notes.find("--")) != std::string::npos;) notes.replace(p, 2, "- -");
  std::string bg1, bg2, bg1x, bg2x, font;
  BackgroundColors(o.bgcolors, o.colors, &bg1, &bg2);
  AppendXml(&bg1x, bg1, true);
  AppendXml(&bg2x, bg2, true);
  AppendXml(&font, o.fonttype, true);
  absl::StrAppend(
      out, "<?xml version=\"1.0\"", encoding, " standalone=\"no\"?>\n",
      "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
      "\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n",
      "<svg version=\"1.1\" width=\"", w, "\" height=\"", h, "\" onload=\"init(evt)\" viewBox=\"0 0 ",
      w, " ", h,
      "\" xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n"
      "<!-- Flame graph stack visualization. See https://github.com/brendangregg/FlameGraph for "
      "latest version, and http://www.brendangregg.com/flamegraphs.html for examples. -->\n"
      "<!-- NOTES: ",
      notes, " -->\n");
  absl::StrAppend(out, "<defs>\n\t<linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\" >\n",
                  "\t\t<stop stop-color=\"", bg1x, "\" offset=\"5%\" />\n", "\t\t<stop stop-color=\"",
                  bg2x, "\" offset=\"95%\" />\n\t</linearGradient>\n</defs>\n");
  absl::StrAppend(
      out, "<style type=\"text/css\">\n\ttext { font-family:", font,
      "; font-size:", Num(o.fontsize), "px; fill:rgb(0,0,0); }\n",
      "\t#search, #ignorecase { opacity:0.1; cursor:pointer; }\n",
      "\t#search:hover, #search.show, #ignorecase:hover, #ignorecase.show { opacity:1; }\n",
      "\t#subtitle { text-anchor:middle; font-color:rgb(160,160,160); }\n",
      "\t#title { text-anchor:middle; font-size:", Num(o.fontsize + 5), "px}\n",
      "\t#unzoom { cursor:pointer; }\n",
      "\t#frames > *:hover { stroke:black; stroke-width:0.5; cursor:pointer; }\n",
      "\t.hide { display:none; }\n\t.parent { opacity:0.5; }\n</style>\n");
  absl::StrAppend(out, "<script type=\"text/ecmascript\">\n<![CDATA[\n", Script(o), "]]>\n</script>\n");
  absl::StrAppend(out, "<rect x=\"0.0\" y=\"0\" width=\"", Fixed(o.width, 1), "\" height=\"",
                  Fixed(g.height, 1), "\" fill=\"url(#background)\"  />\n");
  double mid = static_cast<int>(o.width / 2);
  std::string title = o.title;
  if (title.empty()) {
    title = o.flamechart ? "Flame Chart" : o.inverted ? "Icicle Graph" : "Flame Graph";
  }
  Text(out, "title", mid, o.fontsize * 2, title);
  if (!o.subtitle.empty()) Text(out, "subtitle", mid, o.fontsize * 4, o.subtitle);
  Text(out, "details", kXpad, g.height - g.ypad2 / 2, " ");
  Text(out, "unzoom", kXpad, o.fontsize * 2, "Reset Zoom", "class=\"hide\"");
  Text(out, "search", o.width - kXpad - 100, o.fontsize * 2, "Search");
  Text(out, "ignorecase", o.width - kXpad - 16, o.fontsize * 2, "ic");
  Text(out, "matched", o.width - kXpad - 100, g.height - g.ypad2 / 2, " ");
}

// Perl truth: "" and "0" are false.
bool Truthy(const std::map<std::string, std::string>& m, const std::string& k) {
  auto it = m.find(k);
  return it != m.end() && !it->second.empty() && it->second != "0";
}

// The opening of a frame's group: "<g >" or, with --nameattr, flamegraph.pl's group_start
// (<a ...> when the function has an href). Returns the closing tag.
std::string OpenGroup(const FlameOptions& o, std::string_view func, const std::string& title,
                      std::string* out) {
  const std::map<std::string, std::string>* attr = nullptr;
  if (o.nameattr) {
    auto it = o.nameattr->find(std::string(func));
    if (it != o.nameattr->end()) attr = &it->second;
  }
  if (!attr) {
    out->append("<g >\n<title>");
    AppendXml(out, title, true);
    out->append("</title>");
    return "</g>\n";
  }
  std::vector<std::string> g_attr, a_attr;
  for (const char* key : {"id", "class"}) {
    if (auto it = attr->find(key); it != attr->end()) {
      std::string a = std::string(key) + "=\"";
      AppendXml(&a, it->second, true);
      g_attr.push_back(a + "\"");
    }
  }
  if (Truthy(*attr, "g_extra")) g_attr.push_back(attr->at("g_extra"));
  bool link = Truthy(*attr, "href");
  if (link) {
    std::string href = "xlink:href=\"", target = "target=\"";
    AppendXml(&href, attr->at("href"), true);
    AppendXml(&target, Truthy(*attr, "target") ? attr->at("target") : "_top", true);
    a_attr = {href + "\"", target + "\""};
    if (Truthy(*attr, "a_extra")) a_attr.push_back(attr->at("a_extra"));
  }
  a_attr.insert(a_attr.end(), g_attr.begin(), g_attr.end());
  out->append(link ? "<a " : "<g ");
  for (size_t i = 0; i < a_attr.size(); ++i) absl::StrAppend(out, i ? " " : "", a_attr[i]);
  out->append(">\n");
  std::string shown = Truthy(*attr, "title") ? attr->at("title") : title;
  out->append("<title>");
  AppendXml(out, shown, true);
  out->append("</title>");
  return link ? "</a>\n" : "</g>\n";
}

}  // namespace

void WriteSvg(const Layout& l, const FlameOptions& o, std::string* out) {
  Painter p(l, o);
  Header(o, p.geometry(), out);
  out->append("<g id=\"frames\">\n");
  for (const Frame& f : l.frames) {
    FrameView v = p.View(f);
    std::string close = OpenGroup(o, l.tree->node(f.node).name, v.title, out);
    absl::StrAppend(out, "<rect x=\"", v.x, "\" y=\"", v.y, "\" width=\"", v.w,
                    "\" height=\"", v.h, "\" fill=\"", v.fill, "\" rx=\"2\" ry=\"2\" />\n",
                    "<text  x=\"", v.tx, "\" y=\"", v.ty, "\" >");
    AppendXml(out, v.label, false);
    out->append("</text>\n");
    out->append(close);
  }
  out->append("</g>\n</svg>\n");
}

void WriteJson(const Layout& l, const FlameOptions& o, std::string* out) {
  Painter p(l, o);
  absl::StrAppend(out, "{\"width\": ", o.width, ", \"height\": ", Num(p.geometry().height),
                  ", \"total\": ", Num(l.time), ", \"timemax\": ", Num(l.timemax),
                  ", \"maxdelta\": ", Num(l.maxdelta), ", \"frames\": [");
  bool first = true;
  for (const Frame& f : l.frames) {
    FrameView v = p.View(f);
    out->append(first ? "\n" : ",\n");
    first = false;
    out->append("{\"name\": ");
    AppendJsonString(out, l.tree->node(f.node).name);
    absl::StrAppend(out, ", \"depth\": ", f.depth, ", \"start\": ", Num(f.stime),
                    ", \"end\": ", Num(f.depth == 0 ? l.timemax : f.etime), ", \"x\": ", v.x,
                    ", \"y\": ", v.y, ", \"w\": ", v.w, ", \"fill\": ");
    AppendJsonString(out, v.fill);
    out->append(", \"title\": ");
    AppendJsonString(out, v.title);
    out->append(", \"label\": ");
    AppendJsonString(out, v.label);
    if (f.has_delta) absl::StrAppend(out, ", \"delta\": ", Num(o.negate ? -f.delta : f.delta));
    out->append("}");
  }
  out->append("\n]}\n");
}

}  // namespace tk::analyses::flamegraph

namespace tk::analyses::flamegraph {

std::string ValidateOptions(const FlameOptions& o) {
  std::string_view mw = o.minwidth;
  if (!mw.empty() && mw.back() == '%') mw.remove_suffix(1);
  if (mw.empty() || mw.find_first_not_of("0123456789.") != std::string_view::npos) {
    return "value '" + o.minwidth + "' is invalid for --minwidth, expected a float (or N%)";
  }
  if (o.notes.find_first_of("<>") != std::string::npos) {
    return "--notes can't contain < or >";
  }
  std::string c1, c2;
  if (!BackgroundColors(o.bgcolors, o.colors, &c1, &c2)) {
    return "unrecognized --bgcolors \"" + o.bgcolors + "\" (yellow, blue, green, grey, #rrggbb)";
  }
  if (o.width <= 20) return "--width must be more than 20";
  if (o.frame_height <= 0 || o.fontsize <= 0 || o.fontwidth <= 0 || o.factor <= 0) {
    return "--height, --fontsize, --fontwidth and --factor must be positive";
  }
  if (o.total < 0) return "--total must not be negative";
  return "";
}

}  // namespace tk::analyses::flamegraph
