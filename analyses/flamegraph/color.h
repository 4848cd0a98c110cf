// flamegraph.pl's colours.
//
// Default: each name's colour is fixed by the name alone: Perl's srand(S) then rand(1), where
// S is the sum of the name's code points mod 2^32 and rand is drand48:
//   x0 = (S << 16) + 0x330E,  x1 = (x0 * 0x5DEECE66D + 0xB) mod 2^48,  v = x1 / 2^48,
// and v1 = v2 = v3 = v. --hash: v1 = namehash(name), v2 = v3 = namehash(reversed name) (the
// first three characters, weighted, after stripping through the first backtick). --random:
// three successive drand48 values. The palette then maps (v1, v2, v3) to rgb (hot: 205+50v3,
// 230v1, 55v2; ...), the "java", "js", "perl", "wakeup" and "chain" palettes first pick a flat
// palette by the name's shape (annotations _[j] _[i] _[k] _[w], "::", "/", ...).
//
// Differential frames: delta > 0 is red rgb(255,k,k), < 0 blue rgb(k,k,255), with
// k = int(210 (max - |delta|) / max); 0 is white. --negate swaps the sign.
#ifndef TK_ANALYSES_FLAMEGRAPH_COLOR_H_
#define TK_ANALYSES_FLAMEGRAPH_COLOR_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace tk::analyses::flamegraph {

// Perl's drand48 (its rand() since 5.20).
class Drand48 {
 public:
  explicit Drand48(uint32_t seed) : x_((static_cast<uint64_t>(seed) << 16) + 0x330E) {}
  double Next() {
    x_ = (x_ * 0x5DEECE66DULL + 0xB) & ((1ULL << 48) - 1);
    return static_cast<double>(x_) / static_cast<double>(1ULL << 48);
  }

 private:
  uint64_t x_;
};

// flamegraph.pl's namehash(): in [0, 1], from the first three characters.
double NameHash(std::string_view name);

enum class ColorMode { kDefault, kHash, kRandom };

// The fill for a frame named `name` (annotations included) in `palette`, as "rgb(r,g,b)".
// `rng` is used by kRandom only. An unknown palette gives rgb(0,0,0), as flamegraph.pl.
std::string FrameColor(std::string_view palette, ColorMode mode, std::string_view name,
                       Drand48* rng);

// The differential fill for `delta` (already negated for --negate) with scale `max`.
std::string DeltaColor(double delta, double max);

// The background gradient (stop colours) for --bgcolors (empty: the palette's default).
// False for an unknown value.
bool BackgroundColors(std::string_view bgcolors, std::string_view palette, std::string* c1,
                      std::string* c2);

}  // namespace tk::analyses::flamegraph

#endif  // TK_ANALYSES_FLAMEGRAPH_COLOR_H_
