#include "core/filter.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/absl_compat.h"
#include "core/strings.h"

namespace tk {
namespace {

constexpr int64_t kNsPerSec = 1000000000;

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (absl::string_view part : absl::StrSplit(AV(s), sep)) out.push_back(SV(part));
  return out;
}

// perf's parse_nsec_time: "SEC[.FRAC]" with at most 9 fraction digits; either part may be
// empty ("5." is 5 s, ".5" half a second).
bool ParseSeconds(std::string_view s, int64_t* ns) {
  size_t dot = s.find('.');
  std::string_view sec = s.substr(0, dot);
  std::string_view frac = dot == std::string_view::npos ? "" : s.substr(dot + 1);
  if (sec.empty() && frac.empty()) return false;
  if (frac.size() > 9) return false;
  uint64_t a = 0, b = 0;
  if (!sec.empty() && !ParseDecimal(sec, &a, INT64_MAX / kNsPerSec - 1)) return false;
  if (!frac.empty() && !ParseDecimal(frac, &b, kNsPerSec)) return false;
  for (size_t i = frac.size(); i < 9; ++i) b *= 10;
  *ns = static_cast<int64_t>(a) * kNsPerSec + static_cast<int64_t>(b);
  return true;
}

absl::Status BadTime(std::string_view s, std::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("'", AV(s), "': ", AV(why)));
}

uint64_t DevKey(uint32_t major, uint32_t minor) {
  return (static_cast<uint64_t>(major) << 32) | minor;
}

}  // namespace

absl::StatusOr<std::vector<TimeRange>> ParseTimeRanges(std::string_view s) {
  if (IsPercentTime(s))
    return BadTime(s, "percent ranges need the first and last sample time of a perf.data file");
  std::vector<TimeRange> out;
  for (std::string_view one : Split(s, ' ')) {
    if (one.empty()) continue;
    size_t comma = one.find(',');
    std::string_view a = one.substr(0, comma);
    std::string_view b = comma == std::string_view::npos ? "" : one.substr(comma + 1);
    TimeRange r;
    if ((!a.empty() && !ParseSeconds(a, &r.start_ns)) ||
        (!b.empty() && !ParseSeconds(b, &r.end_ns)))
      return BadTime(s, "want START,END in seconds (either may be empty)");
    if (r.end_ns && r.end_ns < r.start_ns) return BadTime(s, "END is before START");
    // perf_time__parse_strs: each range ends before the next starts (an open end passes).
    if (!out.empty() && out.back().end_ns >= r.start_ns)
      return BadTime(s, "ranges must be in time order and not overlap");
    out.push_back(r);
  }
  if (out.empty()) return BadTime(s, "empty");
  return out;
}

namespace {

// "12.5%" -> 0.125 (perf's parse_percent: strtod must take everything before the '%').
bool ParsePercent(std::string_view s, double* frac) {
  if (s.size() < 2 || s.back() != '%') return false;
  std::string num(s.substr(0, s.size() - 1));
  char* end = nullptr;
  double d = std::strtod(num.c_str(), &end);
  if (end != num.c_str() + num.size()) return false;
  *frac = d / 100.0;
  return true;
}

// perf's set_percent_time.
bool PercentSlice(double from, double to, int64_t first, int64_t last, TimeRange* r) {
  if (from < 0.0 || from > 1.0 || to < 0.0 || to > 1.0) return false;
  const double total = static_cast<double>(last - first);
  r->start_ns = first + static_cast<int64_t>(std::round(from * total));
  r->end_ns = first + static_cast<int64_t>(std::round(to * total));
  if (r->end_ns > r->start_ns && r->end_ns != last) r->end_ns -= 1;
  return true;
}

}  // namespace

absl::StatusOr<std::vector<TimeRange>> ParsePercentRanges(std::string_view s, int64_t first,
                                                          int64_t last) {
  auto bad = [&s] { return BadTime(s, "want P%/N, A%-B% (several separated by ',') or P%"); };
  if (first <= 0 && last <= 0)
    return BadTime(s, "the input records no first/last sample time (perf.data's header has it)");
  std::vector<TimeRange> out;
  const bool slash = s.find('/') != std::string_view::npos;
  const bool dash = !slash && s.find('-') != std::string_view::npos;
  if (!slash && !dash) {  // "P%": the first P percent, one range
    double p = 0;
    TimeRange r;
    if (!ParsePercent(s, &p) || !PercentSlice(0, p, first, last, &r)) return bad();
    return std::vector<TimeRange>{r};
  }
  for (std::string_view piece : Split(s, ',')) {
    double a = 0, b = 0;
    size_t sep = piece.find(slash ? '/' : '-');
    if (sep == std::string_view::npos) return bad();
    if (slash) {
      uint64_t n = 0;
      if (!ParsePercent(piece.substr(0, sep), &a) || a <= 0 ||
          !ParseDecimal(piece.substr(sep + 1), &n, INT32_MAX))
        return bad();
      b = a * static_cast<double>(n);
      a *= static_cast<double>(n) - 1;
    } else if (!ParsePercent(piece.substr(0, sep), &a) ||
               !ParsePercent(piece.substr(sep + 1), &b)) {
      return bad();
    }
    TimeRange r;
    if (!PercentSlice(a, b, first, last, &r)) return bad();
    out.push_back(r);
  }
  return out;
}

absl::StatusOr<std::vector<int32_t>> ParseIdList(std::string_view s) {
  std::vector<int32_t> out;
  for (std::string_view tok : Split(s, ',')) {
    if (tok.empty()) continue;
    size_t dash = tok.find('-', 1);
    uint64_t lo = 0, hi = 0;
    if (dash == std::string_view::npos) {
      if (!ParseDecimal(tok, &lo, INT32_MAX))
        return absl::InvalidArgumentError(absl::StrCat("bad number '", AV(tok), "'"));
      out.push_back(static_cast<int32_t>(lo));
      continue;
    }
    if (!ParseDecimal(tok.substr(0, dash), &lo, INT32_MAX) ||
        !ParseDecimal(tok.substr(dash + 1), &hi, INT32_MAX) || hi < lo || hi - lo > 65536)
      return absl::InvalidArgumentError(absl::StrCat("bad range '", AV(tok), "'"));
    for (uint64_t k = lo; k <= hi; ++k) out.push_back(static_cast<int32_t>(k));
  }
  if (out.empty()) return absl::InvalidArgumentError("empty list");
  return out;
}

std::vector<std::string> ParseCommList(std::string_view s) {
  std::vector<std::string> out;
  for (std::string_view c : Split(s, ','))
    if (!c.empty()) out.emplace_back(c);
  return out;
}

absl::StatusOr<std::vector<BlockDevice>> ParseDeviceList(std::string_view s) {
  auto bad = [&s] {
    return absl::InvalidArgumentError(
        absl::StrCat("bad device '", AV(s), "': want MAJ:MIN[,MAJ:MIN...] or MAJ,MIN"));
  };
  auto one = [](std::string_view maj, std::string_view min, std::vector<BlockDevice>* out) {
    uint64_t a = 0, b = 0;
    if (!ParseDecimal(maj, &a, UINT32_MAX) || !ParseDecimal(min, &b, UINT32_MAX)) return false;
    out->push_back({static_cast<uint32_t>(a), static_cast<uint32_t>(b)});
    return true;
  };
  std::vector<BlockDevice> out;
  if (s.find(':') == std::string_view::npos) {
    std::vector<std::string_view> p = Split(s, ',');
    if (p.size() != 2 || !one(p[0], p[1], &out)) return bad();
    return out;
  }
  for (std::string_view tok : Split(s, ',')) {
    size_t colon = tok.find(':');
    if (colon == std::string_view::npos || !one(tok.substr(0, colon), tok.substr(colon + 1), &out))
      return bad();
  }
  return out;
}

Filter::Filter(FilterOptions opts) : opts_(std::move(opts)) {
  pids_.insert(opts_.pids.begin(), opts_.pids.end());
  tids_.insert(opts_.tids.begin(), opts_.tids.end());
  cpus_.insert(opts_.cpus.begin(), opts_.cpus.end());
  comms_.insert(opts_.comms.begin(), opts_.comms.end());
  for (const BlockDevice& d : opts_.devices) devices_.insert(DevKey(d.major, d.minor));
}

bool Filter::TimeOk(int64_t ts) const {
  if (opts_.time.empty() || ts <= 0) return true;  // perf: a sample without time is kept
  for (const TimeRange& r : opts_.time)
    if ((r.start_ns == 0 || ts >= r.start_ns) && (r.end_ns == 0 || ts <= r.end_ns)) return true;
  return false;
}

uint64_t Filter::TimeOverlapNs(int64_t from, int64_t to) const {
  if (to <= from) return 0;
  if (opts_.time.empty()) return static_cast<uint64_t>(to - from);
  uint64_t n = 0;
  for (const TimeRange& r : opts_.time) {
    int64_t a = std::max(from, r.start_ns);
    int64_t b = r.end_ns == 0 ? to : std::min(to, r.end_ns);
    if (b > a) n += static_cast<uint64_t>(b - a);
  }
  return n;
}

bool Filter::CpuOk(int32_t cpu) const { return cpus_.empty() || cpus_.contains(cpu); }

bool Filter::TaskOk(int32_t pid, int32_t tid, std::string_view comm) const {
  if (!tids_.empty() && !tids_.contains(tid)) return false;
  if (!pids_.empty() && !pids_.contains(pid >= 0 ? pid : tid)) return false;
  return comms_.empty() || comms_.contains(AV(comm));
}

bool Filter::DeviceOk(uint32_t major, uint32_t minor) const {
  return devices_.empty() || devices_.contains(DevKey(major, minor));
}

bool Filter::Accepts(const Event& e) const {
  if (!TimeOk(e.ts_ns) || !CpuOk(e.cpu) || !TaskOk(e.pid, e.tid, e.comm)) return false;
  if (devices_.empty()) return true;
  const auto* b = std::get_if<BlockRq>(&e.body);
  return b && DeviceOk(b->major, b->minor);
}

absl::Status FilterSink::OnEvent(const Event& e) {
  bool ok = side_band_.Has(e.kind()) ? filter_.CpuOk(e.cpu) : filter_.Accepts(e);
  if (!ok) {
    ++dropped_;
    return absl::OkStatus();
  }
  return next_.OnEvent(e);
}

}  // namespace tk
