// The sniffers the registry asks (DetectFormat): ftrace text's header lines and the shape of
// its event lines.
#include "parsers/ftrace_text/ftrace_text_parser.h"
#include "core/strings.h"

namespace tk::parsers::ftrace_text {

bool SniffHeaderLine(std::string_view line) {
  return line.starts_with("# tracer:") || line.starts_with("cpus=") ||
         line.starts_with("version = ");
}

// "  <idle>-0     [001] d..2.  1234.5: ..." or "bash-1234  (  1234) [000] ...": the text before
// the first " [NNN]" ends in "-PID" (optionally followed by a "(TGID)" column).
bool SniffEventLine(std::string_view line) {
  size_t br = line.find(" [");
  while (br != std::string_view::npos) {
    size_t close = line.find(']', br);
    if (close == std::string_view::npos) return false;
    if (AllDigits(line.substr(br + 2, close - br - 2))) break;
    br = line.find(" [", br + 1);
  }
  if (br == std::string_view::npos) return false;
  std::string_view before = TrimRight(line.substr(0, br), " \t");
  if (!before.empty() && before.back() == ')') {  // tgid column "(  1234)" or "(-------)"
    size_t open = before.rfind('(');
    if (open == std::string_view::npos) return false;
    before = TrimRight(before.substr(0, open), " \t");
  }
  size_t dash = before.rfind('-');
  if (dash == std::string_view::npos) return false;
  return AllDigits(before.substr(dash + 1));
}

}  // namespace tk::parsers::ftrace_text
