// The sniffer the registry asks (DetectFormat): the shape of a `perf script` event header.
#include "parsers/perf_script/perf_script_parser.h"
#include "core/strings.h"

namespace tk::parsers::perf_script {

// "PID[/TID] [CPU] SECONDS.FRACTION:" after the comm (a line cut by the peek size still shows
// it before its event name).
bool SniffHeaderLine(std::string_view line) {
  size_t br = line.find(" [");
  while (br != std::string_view::npos) {
    size_t close = line.find(']', br);
    if (close == std::string_view::npos) return false;
    if (close > br + 2 && AllDigits(line.substr(br + 2, close - br - 2))) {
      std::string_view before = TrimRight(line.substr(0, br), " \t");
      size_t sp = before.find_last_of(" \t");
      if (sp == std::string_view::npos) return false;
      std::string_view pid = before.substr(sp + 1);
      size_t slash = pid.find('/');
      bool pid_ok = slash == std::string_view::npos
                        ? AllDigits(pid) || pid == "-1"
                        : AllDigits(pid.substr(0, slash)) && AllDigits(pid.substr(slash + 1));
      if (!pid_ok || pid.empty()) return false;
      std::string_view rest = Trim(line.substr(close + 1));
      size_t colon = rest.find(':');
      if (colon == std::string_view::npos) return false;
      std::string_view ts = rest.substr(0, colon);
      size_t dot = ts.find('.');
      return dot != std::string_view::npos && dot > 0 && AllDigits(ts.substr(0, dot)) &&
             AllDigits(ts.substr(dot + 1));
    }
    br = line.find(" [", br + 1);
  }
  return false;
}

}  // namespace tk::parsers::perf_script
