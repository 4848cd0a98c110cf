// flamegraph.pl's layout. Lines come in sorted order (folded.h); each stack, with the root ""
// prepended, is compared with the previous one: frames past the common prefix close (one
// drawn frame: name, depth, start and end time), the new ones open at the current time, and
// the time advances by the line's count (the second count of a differential line). So only
// adjacent equal frames merge. Then frames narrower than --minwidth are dropped and the
// picture's depth is that of the deepest frame left.
//
// Differential lines: a frame's delta is count2 - count1 of the line that opened it when
// that line ends at it (its "self" delta); frames opened on the way to a deeper leaf get 0.
// The colour scale is the largest |delta| of any line (at least 1).
#ifndef TK_ANALYSES_FLAMEGRAPH_LAYOUT_H_
#define TK_ANALYSES_FLAMEGRAPH_LAYOUT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analyses/flamegraph/folded.h"
#include "analyses/flamegraph/frame_tree.h"
#include "analyses/flamegraph/options.h"

namespace tk::analyses::flamegraph {

struct Frame {
  uint32_t node;  // in Layout::tree: the frame's name
  uint32_t depth;
  double stime, etime;
  double delta;
  bool has_delta;
};

struct Layout {
  const FrameTree* tree = nullptr;      // the names of Frame::node
  std::unique_ptr<FrameTree> own_tree;  // --colors chain renames frames into a tree of its own
  std::vector<Frame> frames;            // the frames drawn, in the order they closed
  size_t frames_before_pruning = 0;
  double time = 0;     // the sum of the counts
  double timemax = 0;  // the scale: --total, or time
  bool total_ignored = false;  // --total was below the real total (and not by rounding)
  double maxdelta = 1;
  uint32_t depthmax = 0;
  double widthpertime = 0;
};

// Lays `profile` out. Frames of zero width are never drawn (flamegraph.pl keeps them with
// --minwidth 0). With time <= 0 (no counts: no picture) nothing is laid out.
Layout LayOut(const FoldedProfile& profile, const FlameOptions& opt);

// --colors chain: flamegraph.pl marks the frames after a "--" frame (offwaketime's waker
// stack) with "_[w]". A stack without "--" is left alone (flamegraph.pl appends a "--" frame).
std::string ChainStack(std::string_view stack);

}  // namespace tk::analyses::flamegraph

#endif  // TK_ANALYSES_FLAMEGRAPH_LAYOUT_H_
