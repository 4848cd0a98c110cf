#include "analyses/flamegraph/layout.h"

#include <cmath>
#include <cstdlib>

namespace tk::analyses::flamegraph {
namespace {

// Perl's split with a literal separator: trailing empty fields are removed.
std::vector<std::string_view> PerlSplit(std::string_view s, std::string_view sep) {
  std::vector<std::string_view> out;
  if (s.empty()) return out;
  for (size_t pos = 0;;) {
    size_t at = s.find(sep, pos);
    if (at == std::string_view::npos) {
      out.push_back(s.substr(pos));
      break;
    }
    out.push_back(s.substr(pos, at - pos));
    pos = at + sep.size();
  }
  while (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

class Flow {
 public:
  // Frames narrower than `drop_below` are not kept (they cannot survive pruning).
  Flow(Layout* out, double drop_below) : out_(out), drop_below_(drop_below) {}

  // One line: `path` is root..leaf.
  void Line(const std::vector<uint32_t>& path, bool two, double delta, double time) {
    size_t same = 0;
    while (same < open_.size() && same < path.size() && open_[same].node == path[same]) ++same;
    CloseTo(same, time);
    for (size_t i = same; i < path.size(); ++i) {
      open_.push_back({path[i], static_cast<uint32_t>(i), time,
                       two && i + 1 == path.size() ? delta : 0, two});
    }
  }
  void CloseTo(size_t keep, double time) {
    while (open_.size() > keep) {
      Frame f = open_.back();
      open_.pop_back();
      f.etime = time;
      ++out_->frames_before_pruning;
      double w = f.etime - f.stime;
      if (w > 0 && w >= drop_below_) out_->frames.push_back(f);
    }
  }

 private:
  struct Open {
    uint32_t node, depth;
    double stime, delta;
    bool has_delta;
    operator Frame() const { return {node, depth, stime, 0, delta, has_delta}; }
  };
  Layout* out_;
  double drop_below_;
  std::vector<Open> open_;
};

// flamegraph.pl's $minwidth_time: --minwidth pixels at (width - 2 xpad) / timemax pixels per
// count, or N% of timemax.
double MinwidthTime(const FlameOptions& opt, double timemax) {
  bool pct = !opt.minwidth.empty() && opt.minwidth.back() == '%';
  double mw = std::strtod(opt.minwidth.c_str(), nullptr);
  if (pct) return timemax * mw / 100;
  return mw / ((opt.width - 2 * 10) / timemax);
}

}  // namespace

std::string ChainStack(std::string_view stack) {
  if (stack.find(";--;") == std::string_view::npos) return std::string(stack);
  std::vector<std::string_view> parts = PerlSplit(stack, ";--;");
  std::string out(parts.empty() ? std::string_view() : parts[0]);
  out.append(";--;");
  for (size_t i = 1; i < parts.size(); ++i) {
    if (i > 1) out.append(";--;");
    for (char c : parts[i]) {
      if (c == ';') out.append("_[w]");
      out.push_back(c);
    }
    out.append("_[w]");
  }
  return out;
}

Layout LayOut(const FoldedProfile& profile, const FlameOptions& opt) {
  Layout l;
  const FrameTree& in = profile.tree();
  bool chain = opt.colors == "chain";
  if (chain) l.own_tree = std::make_unique<FrameTree>();
  l.tree = chain ? l.own_tree.get() : &in;
  // Pruning needs the total, known exactly only at the end; frames below the threshold for
  // the estimated total (a little lower, for rounding) are dropped as they close, so memory
  // grows with what can be drawn.
  Flow flow(&l, MinwidthTime(opt, profile.estimated_total()) * (1 - 1e-6));
  std::vector<uint32_t> path;
  std::string raw;
  profile.ForEachLine([&](const Tail& t) {
    in.Path(t.leaf, &path);
    if (chain) {
      raw.clear();
      for (size_t i = 1; i < path.size(); ++i) {
        if (i > 1) raw.push_back(';');
        raw.append(in.node(path[i]).name);
      }
      std::string renamed = ChainStack(raw);
      uint32_t node = FrameTree::kRoot;
      path.assign(1, node);
      for (std::string_view f : PerlSplit(renamed, ";")) path.push_back(node = l.own_tree->Child(node, f));
    } else {
      // split(";") drops trailing empty frames: "a;b;" is a;b (it sorts as written, though).
      while (path.size() > 1 && in.node(path.back()).name.empty()) path.pop_back();
    }
    double delta = t.two ? t.c2 - t.c1 : 0;
    if (t.two && std::fabs(delta) > l.maxdelta) l.maxdelta = std::fabs(delta);
    flow.Line(path, t.two, delta, l.time);
    double c = t.two ? t.c2 : t.c1;
    for (uint32_t k = 0; k < t.mult; ++k) l.time += c;  // Perl's summation order
  });
  flow.CloseTo(0, l.time);

  l.timemax = l.time;
  if (opt.total > 0) {
    if (opt.total < l.time) {
      l.total_ignored = opt.total / l.time > 0.02;  // flamegraph.pl only warns when significant
    } else {
      l.timemax = opt.total;
    }
  }
  if (l.time <= 0) return l;
  l.widthpertime = (opt.width - 2 * 10) / l.timemax;
  double minwidth_time = MinwidthTime(opt, l.timemax);
  size_t kept = 0;
  for (const Frame& f : l.frames) {
    double w = f.etime - f.stime;
    if (w < minwidth_time || w <= 0) continue;
    if (f.depth > l.depthmax) l.depthmax = f.depth;
    l.frames[kept++] = f;
  }
  l.frames.resize(kept);
  return l;
}

}  // namespace tk::analyses::flamegraph
