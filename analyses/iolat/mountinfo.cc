#include "analyses/iolat/mountinfo.h"

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/strings.h"

namespace tk::iolat {

namespace {

std::vector<std::string_view> Words(std::string_view line) {
  std::vector<std::string_view> w;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) w.push_back(line.substr(i, j - i));
    i = j;
  }
  return w;
}

// The kernel's seq_escape turns ' ', '\t', '\n', '\\' into \ooo octal.
std::string Unescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      std::string_view oct = s.substr(i + 1, 3);
      bool ok = oct.size() == 3;
      int v = 0;
      for (char c : oct) {
        if (c < '0' || c > '7') ok = false;
        v = v * 8 + (c - '0');
      }
      if (ok && v < 256) {
        out.push_back(static_cast<char>(v));
        i += 3;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

bool HasOption(std::string_view list, std::string_view opt) {
  while (!list.empty()) {
    size_t c = list.find(',');
    if (list.substr(0, c) == opt) return true;
    if (c == std::string_view::npos) break;
    list.remove_prefix(c + 1);
  }
  return false;
}

}  // namespace

bool Mount::sync() const {
  return HasOption(super_options, "sync") || HasOption(mount_options, "sync");
}

std::string Mount::options() const {
  std::string out = mount_options;
  std::string_view rest = super_options;
  while (!rest.empty()) {
    size_t c = rest.find(',');
    std::string_view o = rest.substr(0, c);
    if (!o.empty() && !HasOption(out, o)) absl::StrAppend(&out, out.empty() ? "" : ",", AV(o));
    if (c == std::string_view::npos) break;
    rest.remove_prefix(c + 1);
  }
  return out;
}

std::optional<Mount> ParseMountinfoLine(std::string_view line) {
  std::vector<std::string_view> w = Words(line);
  // At least: id parent maj:min root point options - fstype source [super]
  if (w.size() < 9) return std::nullopt;
  uint32_t id, parent;
  if (!ParseDecimal(w[0], &id) || !ParseDecimal(w[1], &parent)) return std::nullopt;
  size_t colon = w[2].find(':');
  uint32_t major, minor;
  if (colon == std::string_view::npos || !ParseDecimal(w[2].substr(0, colon), &major) ||
      !ParseDecimal(w[2].substr(colon + 1), &minor)) {
    return std::nullopt;
  }
  size_t dash = 6;
  while (dash < w.size() && w[dash] != "-") ++dash;
  if (dash + 1 >= w.size()) return std::nullopt;  // no "-" separator, or no fstype after it
  Mount m;
  m.dev = MakeDev(major, minor);
  m.root = Unescape(w[3]);
  m.mount_point = Unescape(w[4]);
  m.mount_options = std::string(w[5]);
  m.fstype = std::string(w[dash + 1]);
  m.source = dash + 2 < w.size() ? Unescape(w[dash + 2]) : "";
  if (dash + 3 < w.size()) m.super_options = std::string(w[dash + 3]);
  return m;
}

absl::StatusOr<MountTable> MountTable::Parse(std::string_view text, std::string_view name) {
  MountTable t;
  uint64_t line_no = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    std::optional<Mount> m = ParseMountinfoLine(line);
    if (!m) {
      return absl::InvalidArgumentError(absl::StrCat(
          AV(name), ": line ", line_no,
          ": not a mountinfo line (want 'ID PARENT MAJ:MIN ROOT POINT OPTS ... - FS SRC SUPER')"));
    }
    auto it = t.by_dev_.find(m->dev);
    if (it == t.by_dev_.end() || (t.mounts_[it->second].root != "/" && m->root == "/")) {
      t.by_dev_[m->dev] = t.mounts_.size();
    }
    t.mounts_.push_back(std::move(*m));
  }
  return t;
}

const Mount* MountTable::Find(DevId dev) const {
  auto it = by_dev_.find(dev);
  return it == by_dev_.end() ? nullptr : &mounts_[it->second];
}

}  // namespace tk::iolat
