// perf report --stdio's layout (perf 6.1, ui/stdio/hist.c and util/sort.c):
//
//   # Overhead       Samples        Period  Command   Shared Object         Symbol
//   # ........  ............  ............  ........  ....................  ..............
//   #
//       29.40%           117      29250000  workload  [kernel.kallsyms]     [k] do_syscall_64
//
// Every column is preceded by two spaces (the header row by "# "). Percentages are 8 wide,
// Samples and Period 12; Command is as wide as the longest comm (at least "Command"),
// "Pid:Command" 8 more, Shared Object the longest short DSO name (at least 13), Symbol four more
// than the longest name ("[k] "; an unresolved address counts as 4 + 18). Widths span every
// row the filters keep, including rows --percent-limit hides. Every cell is padded to its
// width except a Symbol in the last column.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <thread>

#include "analyses/report/report.h"
#include "nlohmann/json.hpp"

namespace tk::analyses::report {
namespace {

constexpr size_t kUnresolvedWidth = 4 + 2 + 16;
// A formatted percentage's most bytes (std::to_chars of a double up to 1e308, "%").
constexpr size_t kMaxPercent = 328;

// perf's convert_unit: 199945 -> "199K", 842 -> "842 ".
std::string ScaledCount(uint64_t n) {
  char unit = ' ';
  const char* units = "KMG";
  for (int i = 0; i < 3 && n > 1000; ++i) {
    n /= 1000;
    unit = units[i];
  }
  return std::to_string(n) + unit;
}

}  // namespace

// p * 100 is within an ulp of the exact product, so it decides the two decimals unless it
// lies within 1e-6 of a rounding boundary (.5); those, and values past 1e9 (where an ulp nears
// 1e-7), go through std::to_chars, which rounds the double exactly as printf does. Most cells
// take the integer path (to_chars was most of the text's cost).
char* FormatPercent(uint64_t v, uint64_t total, char* out) {
  const double p = total ? 100.0 * static_cast<double>(v) / static_cast<double>(total) : 0.0;
  const double x = p * 100.0;
  if (x >= 0 && x < 1e9 && std::abs(x - std::floor(x) - 0.5) > 1e-6) {
    const uint64_t n = static_cast<uint64_t>(x + 0.5);  // x's two decimals, rounded
    out = std::to_chars(out, out + 24, n / 100).ptr;
    *out++ = '.';
    *out++ = static_cast<char>('0' + n / 10 % 10);
    *out++ = static_cast<char>('0' + n % 10);
  } else {
    out = std::to_chars(out, out + kMaxPercent - 1, p, std::chars_format::fixed, 2).ptr;
  }
  *out++ = '%';
  return out;
}

void AppendPercent(uint64_t v, uint64_t total, std::string* out) {
  char buf[kMaxPercent];
  out->append(buf, FormatPercent(v, total, buf));
}

namespace {

struct Layout {
  std::vector<Column> cols;
  std::vector<size_t> widths;
};

bool Elided(const ReportOptions& o, const Column& c) {
  if (!c.is_key) return false;
  return (c.key == Key::kComm && o.comms.size() == 1) ||
         (c.key == Key::kDso && o.dsos.size() == 1) ||
         (c.key == Key::kSym && o.symbols.size() == 1);
}

std::vector<Column> Columns(const ReportSink& r) {
  const ReportOptions& o = r.options();
  std::vector<Column> cols;
  if (!o.fields.empty()) {
    cols = o.fields;
  } else {
    if (r.children()) cols.push_back({false, Value::kChildren, Key::kComm});
    cols.push_back({false, Value::kOverhead, Key::kComm});
    if (o.show_nr_samples) cols.push_back({false, Value::kSamples, Key::kComm});
    if (o.show_total_period) cols.push_back({false, Value::kPeriod, Key::kComm});
    for (Key k : r.sort_keys()) cols.push_back({true, Value::kOverhead, k});
  }
  std::vector<Column> shown;
  for (const Column& c : cols)
    if (!Elided(o, c)) shown.push_back(c);
  return shown;
}

std::string HeaderName(const ReportSink& r, const Column& c) {
  if (!c.is_key) {
    switch (c.value) {
      case Value::kOverhead:
        return r.children() ? "Self" : "Overhead";
      case Value::kChildren:
        return "Children";
      case Value::kSamples:
        return "Samples";
      case Value::kPeriod:
        return "Period";
    }
  }
  switch (c.key) {
    case Key::kComm:
      return "Command";
    case Key::kPid:
      return "    Pid:Command";
    case Key::kDso:
      return "Shared Object";
    case Key::kSym:
      return "Symbol";
    case Key::kCpu:
      return "CPU";
  }
  return "";
}

size_t ValueWidth(Value v) { return v == Value::kSamples || v == Value::kPeriod ? 12 : 8; }

size_t CellWidth(const ReportSink& r, const Column& c, const Entry& en) {
  switch (c.key) {
    case Key::kComm:
      return en.comm.size();
    case Key::kPid:
      return r.ThreadComm(en).size() + 8;
    case Key::kDso:
      return en.dso.size();
    case Key::kSym:
      return en.sym.empty() ? kUnresolvedWidth : en.sym.size() + 4;
    case Key::kCpu:
      return 3;
  }
  return 0;
}

// Brings the cache lines of an entry (104 bytes: two or three lines) a few rows ahead.
void PrefetchEntry(const Entry* en) {
  const char* p = reinterpret_cast<const char*>(en);
  __builtin_prefetch(p);
  __builtin_prefetch(p + 64);
  __builtin_prefetch(p + sizeof(Entry) - 1);
}

// Rows come sorted by value, so their entries are read at random: the widths take one pass
// over the rows for every key column at once, and the entries a few rows ahead are prefetched
// (cc20k.data's 134K rows, 14 MB of entries: one pass per key column missed the cache three
// times a row, ~10% of the end phase's samples).
constexpr size_t kPrefetchRows = 8;

Layout MakeLayout(const ReportSink& r, const std::vector<const Entry*>& rows) {
  Layout l;
  l.cols = Columns(r);
  std::vector<size_t> keys;  // the key columns
  for (size_t i = 0; i < l.cols.size(); ++i) {
    const Column& c = l.cols[i];
    l.widths.push_back(c.is_key ? HeaderName(r, c).size() : ValueWidth(c.value));
    if (c.is_key) keys.push_back(i);
  }
  if (keys.empty()) return l;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i + kPrefetchRows < rows.size()) PrefetchEntry(rows[i + kPrefetchRows]);
    for (size_t k : keys) l.widths[k] = std::max(l.widths[k], CellWidth(r, l.cols[k], *rows[i]));
  }
  return l;
}

void Pad(std::string* out, size_t from, size_t width, bool right) {
  size_t n = out->size() - from;
  if (n >= width) return;
  if (right) {
    out->insert(from, width - n, ' ');
  } else {
    out->append(width - n, ' ');
  }
}

// Writes "[k] name", or the address of an unresolved symbol, at `p` (room for the name's
// size + 22 bytes); returns the end.
char* WriteSym(const Entry& en, char* p) {
  p = static_cast<char*>(std::memcpy(p, en.kernel ? "[k] " : "[.] ", 4)) + 4;
  if (!en.sym.empty()) return static_cast<char*>(std::memcpy(p, en.sym.data(), en.sym.size())) +
                              en.sym.size();
  // printf's "%#.16llx": 16 digits, "0x" unless the address is 0, as perf prints it.
  if (en.addr != 0) p = static_cast<char*>(std::memcpy(p, "0x", 2)) + 2;
  for (int i = 0; i < 16; ++i) *p++ = "0123456789abcdef"[(en.addr >> (60 - 4 * i)) & 0xf];
  return p;
}

void AppendSym(const Entry& en, std::string* out) {
  const size_t from = out->size();
  out->resize(from + en.sym.size() + kUnresolvedWidth);
  out->resize(static_cast<size_t>(WriteSym(en, out->data() + from) - out->data()));
}

// Writes `len` bytes of `text` padded with spaces to `width`, on the left when `right`.
char* Cell(const char* text, size_t len, size_t width, bool right, char* p) {
  const size_t pad = len < width ? width - len : 0;
  if (right) p = static_cast<char*>(std::memset(p, ' ', pad)) + pad;
  p = static_cast<char*>(std::memcpy(p, text, len)) + len;
  if (!right) p = static_cast<char*>(std::memset(p, ' ', pad)) + pad;
  return p;
}

// The most bytes any row's cell of column `c` (`width` wide) takes: a value's digits, a
// name's length (the widths span every row the filters keep, so no name is longer than its
// column's width), 32 for a longer tid or cpu than the width assumes.
size_t CellBound(const Column& c, size_t width) {
  if (!c.is_key) return std::max(width, kMaxPercent);
  return width + 32;
}

// Writes a cell at `p` (room for CellBound(c, width) bytes); returns its end.
char* WriteCell(const ReportSink& r, const Column& c, const Entry& en, size_t width,
                uint64_t total, char* p) {
  char buf[kMaxPercent];
  if (!c.is_key) {
    char* end = buf;
    switch (c.value) {
      case Value::kOverhead:
        end = FormatPercent(en.self_period, total, buf);
        break;
      case Value::kChildren:
        end = r.children() ? FormatPercent(en.children_period, total, buf)
                           : std::strcpy(buf, "N/A") + 3;
        break;
      case Value::kSamples:
        end = std::to_chars(buf, buf + sizeof buf, en.self_samples).ptr;
        break;
      case Value::kPeriod:
        end = std::to_chars(buf, buf + sizeof buf, en.self_period).ptr;
        break;
    }
    return Cell(buf, static_cast<size_t>(end - buf), width, true, p);
  }
  switch (c.key) {
    case Key::kComm:
      return Cell(en.comm.data(), en.comm.size(), width, false, p);
    case Key::kPid: {
      const std::string_view comm = r.ThreadComm(en);
      char* from = p;
      p += std::snprintf(p, 16, "%7d:", en.tid);
      p = static_cast<char*>(std::memcpy(p, comm.data(), comm.size())) + comm.size();
      return Cell("", 0, width - std::min(width, static_cast<size_t>(p - from)), false, p);
    }
    case Key::kDso:
      return Cell(en.dso.data(), en.dso.size(), width, false, p);
    case Key::kSym: {
      char* from = p;
      p = WriteSym(en, p);
      return Cell("", 0, width - std::min(width, static_cast<size_t>(p - from)), false, p);
    }
    case Key::kCpu: {
      const int n = std::snprintf(buf, sizeof buf, "%*.*d", static_cast<int>(width),
                                  static_cast<int>(width), en.cpu);
      return Cell(buf, static_cast<size_t>(n), width, false, p);
    }
  }
  return p;
}

// The percent --percent-limit tests: Children% in children mode, else Self%.
double LimitPercent(const ReportSink& r, const Entry& en, uint64_t total) {
  uint64_t v = r.children() ? en.children_period : en.self_period;
  return total ? 100.0 * static_cast<double>(v) / static_cast<double>(total) : 0;
}

// A cell whose bytes follow from one word of its entry, given the column (and the table's
// total and widths, fixed for a FormatRows call): a value, an interned comm or DSO (one view
// per content), a cpu. False for the others (pid prints the thread's comm; a symbol is
// mostly its row's own).
bool CellWord(const Column& c, const Entry& en, uint64_t* word) {
  if (!c.is_key) {
    switch (c.value) {
      case Value::kOverhead:
      case Value::kPeriod:
        *word = en.self_period;
        return true;
      case Value::kChildren:
        *word = en.children_period;
        return true;
      case Value::kSamples:
        *word = en.self_samples;
        return true;
    }
    return false;
  }
  switch (c.key) {
    case Key::kComm:
      *word = reinterpret_cast<uintptr_t>(en.comm.data());
      return true;
    case Key::kDso:
      *word = reinterpret_cast<uintptr_t>(en.dso.data());
      return true;
    case Key::kCpu:
      *word = static_cast<uint32_t>(en.cpu);
      return true;
    default:
      return false;
  }
}

// Formats `rows` (skipping those --percent-limit hides) and hands the text to `flush` in
// chunks. Rows go straight into a chunk through a pointer: each row first makes room for its
// widest form (widths, or longer values and names). Rows come sorted by value, so a column's
// cell often repeats the row above's (most rows of a large table print "0.00%", and one comm
// and DSO fill long runs): such a cell is the previous one's bytes copied.
template <typename Flush>
void FormatRows(const ReportSink& r, const Layout& l, uint64_t total,
                absl::Span<const Entry* const> rows, Flush flush) {
  constexpr size_t kChunk = 1 << 16;
  const ReportOptions& o = r.options();
  // Room for any row, so a row needs one comparison before it is written.
  size_t room = 1;
  for (size_t i = 0; i < l.cols.size(); ++i) room += 2 + CellBound(l.cols[i], l.widths[i]);
  std::string buf(std::max(kChunk, room), '\0');
  struct Last {
    bool valid = false;
    uint64_t word = 0;
    size_t len = 0;
    char bytes[64];
  };
  std::vector<Last> last(l.cols.size());
  size_t used = 0;
  for (size_t row = 0; row < rows.size(); ++row) {
    if (row + kPrefetchRows < rows.size()) PrefetchEntry(rows[row + kPrefetchRows]);
    const Entry* en = rows[row];
    if (o.percent_limit > 0 && LimitPercent(r, *en, total) < o.percent_limit) continue;
    if (used + room > buf.size()) {
      flush(buf.data(), used);
      used = 0;
    }
    char* p = buf.data() + used;
    for (size_t i = 0; i < l.cols.size(); ++i) {
      *p++ = ' ';
      *p++ = ' ';
      uint64_t word = 0;  // (set when CellWord returns true; gcc cannot tell)
      const bool by_word = CellWord(l.cols[i], *en, &word);
      Last& prev = last[i];
      if (by_word && prev.valid && prev.word == word) {
        p = static_cast<char*>(std::memcpy(p, prev.bytes, prev.len)) + prev.len;
        continue;
      }
      bool last_sym = i + 1 == l.cols.size() && l.cols[i].is_key && l.cols[i].key == Key::kSym;
      char* from = p;
      p = WriteCell(r, l.cols[i], *en, last_sym ? 0 : l.widths[i], total, p);
      const size_t len = static_cast<size_t>(p - from);
      prev.valid = by_word && len <= sizeof prev.bytes;
      if (prev.valid) {
        prev.word = word;
        prev.len = len;
        std::memcpy(prev.bytes, from, len);
      }
    }
    *p++ = '\n';
    used = static_cast<size_t>(p - buf.data());
  }
  flush(buf.data(), used);
}

void WriteTable(const ReportSink& r, const Table& t, std::ostream& out) {
  uint64_t total = 0, samples = 0;
  std::vector<const Entry*> rows = SortedRows(r, t, &total, &samples);
  Layout l = MakeLayout(r, rows);
  const ReportOptions& o = r.options();
  std::string buf;
  if (!o.quiet) {
    buf += "# Samples: " + ScaledCount(samples) + " of event '" + t.event + "'\n";
    buf += "# Event count (approx.): " + std::to_string(total) + "\n#\n";
    std::string names = "#", dots = "#";
    for (size_t i = 0; i < l.cols.size(); ++i) {
      names += i == 0 ? " " : "  ";
      dots += i == 0 ? " " : "  ";
      size_t from = names.size();
      names += HeaderName(r, l.cols[i]);
      Pad(&names, from, l.widths[i], !l.cols[i].is_key);
      dots.append(l.widths[i], '.');
    }
    buf += names + "\n" + dots + "\n#\n";
  }
  out << buf;
  // With two threads a second one formats the second half into chunks of its own meanwhile
  // (one string grown by doubling copied and faulted in its ~6 MB again at each step).
  const size_t n = rows.size();
  const size_t mid = o.threads >= 2 && n >= kParallelRows ? n / 2 : n;
  std::vector<std::string> second_text;
  std::thread second;
  if (mid < n) {
    second = std::thread([&] {
      FormatRows(r, l, total, absl::MakeConstSpan(rows).subspan(mid),
                 [&](const char* p, size_t len) { second_text.emplace_back(p, len); });
    });
  }
  FormatRows(r, l, total, absl::MakeConstSpan(rows).first(mid), [&](const char* p, size_t len) {
    out.write(p, static_cast<std::streamsize>(len));
  });
  if (second.joinable()) second.join();
  for (const std::string& chunk : second_text)
    out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
  out << "\n\n";
}

}  // namespace

void ReportSink::WriteText(std::ostream& out) const {
  if (!opt_.quiet) {
    out << "# To display the perf.data header info, please use --header/--header-only options.\n"
           "#\n";
    // A filter with one value drops its column and is named here instead.
    if (opt_.comms.size() == 1) out << "# comm: " << opt_.comms[0] << "\n";
    if (opt_.dsos.size() == 1) out << "# dso: " << opt_.dsos[0] << "\n";
    if (opt_.symbols.size() == 1) out << "# symbol: " << opt_.symbols[0] << "\n";
    out << "#\n# Total Lost Samples: " << lost_samples_ << "\n#\n";
  }
  for (const auto& t : tables_) {
    if (t->samples == 0) continue;
    WriteTable(*this, *t, out);
  }
}

void ReportSink::WriteJson(std::ostream& out) const {
  nlohmann::json events = nlohmann::json::array();
  for (const auto& t : tables_) {
    uint64_t total = 0, samples = 0;
    std::vector<const Entry*> rows = SortedRows(*this, *t, &total, &samples);
    nlohmann::json jr = nlohmann::json::array();
    for (const Entry* en : rows) {
      if (opt_.percent_limit > 0 && LimitPercent(*this, *en, total) < opt_.percent_limit) continue;
      nlohmann::json row = {{"self", en->self_period}, {"samples", en->self_samples}};
      if (children()) row["children"] = en->children_period;
      for (Key k : keys_) {
        switch (k) {
          case Key::kComm:
            row["comm"] = en->comm;
            break;
          case Key::kPid:
            row["pid"] = en->tid;
            row["thread_comm"] = ThreadComm(*en);
            break;
          case Key::kDso:
            row["dso"] = en->dso;
            break;
          case Key::kSym: {
            std::string s;
            AppendSym(*en, &s);
            row["sym"] = s.substr(4);
            row["level"] = en->kernel ? "k" : ".";
            break;
          }
          case Key::kCpu:
            row["cpu"] = en->cpu;
            break;
        }
      }
      jr.push_back(std::move(row));
    }
    events.push_back(
        {{"event", t->event}, {"samples", samples}, {"period", total}, {"rows", std::move(jr)}});
  }
  nlohmann::json j = {
      {"lost_samples", lost_samples_}, {"children", children()}, {"events", std::move(events)}};
  out << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace tk::analyses::report
