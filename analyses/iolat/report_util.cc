#include "analyses/iolat/report_util.h"

#include "absl/strings/str_format.h"

namespace tk::iolat {

std::string HumanBytes(uint64_t b) {
  if (b < 1024) return absl::StrFormat("%d B", b);
  static const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(b) / 1024;
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  return absl::StrFormat("%.1f %s", v, kUnits[u]);
}

std::string Percent(uint64_t part, uint64_t whole) {
  if (whole == 0) return "-";
  return absl::StrFormat("%d%%", static_cast<int>(100.0 * part / whole + 0.5));
}

double ThroughputMBs(const DeviceSummary& d) {
  const Mix& m = d.mix;
  if (m.last_ts <= m.first_ts) return 0;
  return static_cast<double>(m.read_bytes + m.write_bytes) / 1e6 /
         ((m.last_ts - m.first_ts) / 1e9);
}

const char* HistSection(HistOptions::By by) {
  switch (by) {
    case HistOptions::By::kDevice: return "disk";
    case HistOptions::By::kFlags: return "flags";
    case HistOptions::By::kProcess: return "process";
    case HistOptions::By::kAll: break;
  }
  return nullptr;
}

}  // namespace tk::iolat
