// flamegraph.pl's options, with its names and defaults.
#ifndef TK_ANALYSES_FLAMEGRAPH_OPTIONS_H_
#define TK_ANALYSES_FLAMEGRAPH_OPTIONS_H_

#include <map>
#include <string>

namespace tk::analyses::flamegraph {

struct FlameOptions {
  std::string title;     // empty: "Flame Graph", "Icicle Graph" (--inverted), "Flame Chart"
  std::string subtitle;  // adds 2*fontsize to the height
  int width = 1200;
  int frame_height = 16;     // --height: one frame's height
  std::string minwidth = "0.1";  // pixels, or "N%" of the total
  std::string fonttype = "Verdana";
  double fontsize = 12;
  double fontwidth = 0.59;
  std::string countname = "samples";
  std::string nametype = "Function:";
  std::string colors = "hot";
  std::string bgcolors;  // empty: by palette (yellow, green for mem, blue for io/wakeup/chain,
                         // grey for the flat palettes)
  bool hash = false;
  bool random = false;
  bool reverse = false;
  bool inverted = false;
  bool flamechart = false;
  bool negate = false;
  std::string notes;
  double total = 0;   // --total: the scale's total (ignored when below the real total)
  double factor = 1;  // --factor: scales the displayed counts only
  // --cp: colours by name from this map first (palette.map: "name->rgb(r,g,b)"); names not in
  // it are added. Null: no consistent palette.
  std::map<std::string, std::string>* palette = nullptr;
  // --encoding: named in the XML declaration (the text stays UTF-8, as flamegraph.pl's).
  std::string encoding;
  // --nameattr FILE: extra attributes per function name (raw name, annotations included):
  // title (replaces the tooltip), id, class, g_extra (raw attribute text), and href (the frame
  // becomes an <a>, with target (default _top) and a_extra).
  const std::map<std::string, std::map<std::string, std::string>>* nameattr = nullptr;
  // --random: the drand48 seed (tk's addition, for repeatable tests); 0 picks one.
  unsigned long seed = 0;
};

// Checks option values as flamegraph.pl does; returns an error message or "".
std::string ValidateOptions(const FlameOptions& opt);

}  // namespace tk::analyses::flamegraph

#endif  // TK_ANALYSES_FLAMEGRAPH_OPTIONS_H_
