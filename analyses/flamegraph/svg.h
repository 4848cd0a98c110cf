// The SVG flamegraph.pl draws, byte for byte apart from frame order and the <script> body:
// the same header, background, fixed texts (title, subtitle, details, "Reset Zoom", "Search",
// "ic", matched) and one <g> per frame:
//
//   <g >
//   <title>vfs_write (10,101,010 samples, 10.00%)</title><rect x="1072.0" y="85"
//   width="118.0" height="15.0" fill="rgb(250,209,50)" rx="2" ry="2" />
//   <text  x="1075.00" y="95.5" >vfs_write</text>
//   </g>
//
// (the <title> and <rect> share one line). Deliberate differences: the title, subtitle,
// countname, font and notes are escaped (flamegraph.pl pastes them raw), characters XML does
// not allow are dropped from every text, and the script is tk's own (script.h).
#ifndef TK_ANALYSES_FLAMEGRAPH_SVG_H_
#define TK_ANALYSES_FLAMEGRAPH_SVG_H_

#include <string>

#include "analyses/flamegraph/layout.h"
#include "analyses/flamegraph/options.h"

namespace tk::analyses::flamegraph {

// Appends the whole SVG for `layout` to `out`.
void WriteSvg(const Layout& layout, const FlameOptions& opt, std::string* out);

// The same picture as JSON: {"width", "height", "total", "timemax", "maxdelta",
// "frames": [{"name", "depth", "start", "end", "x", "y", "w", "fill", "title", "label",
// "delta"?}, ...]} with frames in drawing order; names unescaped.
void WriteJson(const Layout& layout, const FlameOptions& opt, std::string* out);

}  // namespace tk::analyses::flamegraph

#endif  // TK_ANALYSES_FLAMEGRAPH_SVG_H_
