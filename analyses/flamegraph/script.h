// The SVG's interactive part: tk's own JavaScript (not flamegraph.pl's), with the element ids
// and URL protocol flamegraph.pl's users and scripts rely on:
//   click a frame: zoom it to full width (its ancestors dimmed, class "parent"; frames outside
//     hidden, class "hide"); "Reset Zoom" (#unzoom) or a click on the root undoes it;
//   hover: #details shows "NAMETYPE TITLE";
//   Ctrl-F or F3 (or a click on #search): a regex prompt; matching frames (their whole title,
//     counts included) are filled rgb(230,0,230) and #matched shows "Matched: P%" (the union of
//     the matching frames' widths over the root's); Ctrl-F again resets. Ctrl-I (#ignorecase)
//     toggles case-insensitive matching;
//   the URL keeps the state: ?s=REGEX (search) and ?x=X&y=Y (the zoomed frame's unzoomed rect
//     x and y), restored on load.
// Labels are refitted on zoom by the same character-count rule the SVG was written with.
#ifndef TK_ANALYSES_FLAMEGRAPH_SCRIPT_H_
#define TK_ANALYSES_FLAMEGRAPH_SCRIPT_H_

#include <string>

#include "analyses/flamegraph/options.h"

namespace tk::analyses::flamegraph {

// The script body (inside <![CDATA[ ... ]]>), configured for `opt`.
std::string Script(const FlameOptions& opt);

}  // namespace tk::analyses::flamegraph

#endif  // TK_ANALYSES_FLAMEGRAPH_SCRIPT_H_
