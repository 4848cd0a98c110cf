#include "analyses/fold/frame_name.h"

#include <algorithm>
#include <array>

namespace tk::analyses::fold {
namespace {

constexpr std::string_view kAnon = "(anonymous namespace)";

// The characters TidyInPlace acts on; the rest (nearly all of a name) it skips.
constexpr std::array<bool, 256> kSpecial = [] {
  std::array<bool, 256> t{};
  for (unsigned char c : std::string_view(";<{[>}])(.\"'")) t[c] = true;
  return t;
}();

bool NeedsTidy(std::string_view s) {
  for (char c : s) {
    if (kSpecial[static_cast<unsigned char>(c)]) return true;
  }
  return false;
}

bool IsVmlinux(std::string_view dso) {
  // "vmlinux", ".../vmlinux-5.4.14-cloudflare-2020.1.11": "vmlinux" then [A-Za-z0-9._-]*.
  size_t at = dso.rfind("vmlinux");
  if (at == std::string_view::npos) return false;
  for (char c : dso.substr(at)) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '.' || c == '_';
    if (!ok) return false;
  }
  return true;
}

void AppendHex(uint64_t v, std::string* out) {
  char buf[16];
  int n = 0;
  do {
    buf[n++] = "0123456789abcdef"[v & 15];
    v >>= 4;
  } while (v);
  while (n) out->push_back(buf[--n]);
}

}  // namespace

bool IsKernelDso(std::string_view dso) {
  if (dso == "[unknown]") return false;
  return (!dso.empty() && dso[0] == '[') || dso.ends_with(".ko") || IsVmlinux(dso);
}

bool IsJitDso(std::string_view dso) {
  return (dso.starts_with("/tmp/perf-") && dso.ends_with(".map")) ||
         (dso.find("/jitted-") != std::string_view::npos && dso.ends_with(".so"));
}

void TidyInPlace(std::string* s, size_t from) {
  char* p = s->data();
  size_t n = s->size();
  int depth = 0;
  size_t last_dot = std::string::npos;  // index just after the last '.'
  size_t cut = n;
  bool quotes = false;
  for (size_t i = from; i < n; ++i) {
    if (!kSpecial[static_cast<unsigned char>(p[i])]) continue;
    switch (p[i]) {
      case ';':
        p[i] = ':';
        break;
      case '<':
      case '{':
      case '[':
        ++depth;
        break;
      case '>':
      case '}':
      case ']':
      case ')':
        --depth;
        break;
      case '(':
        if (depth == 0 && last_dot != i &&
            std::string_view(p + i, n - i).substr(0, kAnon.size()) != kAnon) {
          cut = i;
          i = n;  // done
          break;
        }
        ++depth;
        break;
      case '.':
        last_dot = i + 1;
        break;
      case '"':
      case '\'':
        quotes = true;
        break;
      default:
        break;
    }
  }
  s->resize(cut);
  if (quotes) {
    s->erase(std::remove_if(s->begin() + from, s->end(),
                            [](char c) { return c == '"' || c == '\''; }),
             s->end());
  }
}

int AppendFrame(const Frame& f, const FrameNameOptions& opt, std::string* out) {
  std::string_view sym = f.symbol;
  // Old perf printed "ADDR  (DSO)" for no symbol; stackcollapse names that frame " ".
  if (sym.empty()) sym = " ";
  if (sym[0] == '(') return 0;  // stackcollapse skips these ("process names")
  int n = 0;
  size_t start = 0;
  for (;;) {
    size_t arrow = sym.find("->", start);
    std::string_view part =
        sym.substr(start, arrow == std::string_view::npos ? std::string_view::npos : arrow - start);
    out->push_back(';');
    size_t from = out->size();
    if (part == "[unknown]") {
      // Unknown symbol: the DSO's base name instead, "[unknown]" when that is unknown too.
      std::string_view dso = f.dso;
      out->push_back('[');
      if (dso.empty() || dso == "[unknown]") {
        out->append("unknown");
      } else {
        size_t slash = dso.rfind('/');
        out->append(slash == std::string_view::npos ? dso : dso.substr(slash + 1));
      }
      if (opt.include_addrs) {
        out->append(" <");
        AppendHex(f.ip, out);
        out->push_back('>');
      }
      out->push_back(']');
      TidyInPlace(out, from);
    } else {
      out->append(part);
      if (NeedsTidy(part)) TidyInPlace(out, from);  // most names need nothing
    }
    if (opt.java && out->size() > from && (*out)[from] == 'L' &&
        std::string_view(*out).substr(from).find('/') != std::string_view::npos) {
      out->erase(from, 1);
    }
    std::string_view name = std::string_view(*out).substr(from);
    if (n > 0) {
      if (name.find("_[i]") == std::string_view::npos) out->append("_[i]");  // inlined
    } else if (opt.annotate_kernel && IsKernelDso(f.dso)) {
      out->append("_[k]");
    } else if (opt.annotate_jit && IsJitDso(f.dso) &&
               name.find("_[j]") == std::string_view::npos) {
      out->append("_[j]");
    }
    ++n;
    if (arrow == std::string_view::npos) break;
    start = arrow + 2;
  }
  return n;
}

}  // namespace tk::analyses::fold
