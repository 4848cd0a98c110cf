#include "parsers/tep/tracing_data.h"

#include <bit>
#include <algorithm>
#include <cctype>
#include <charconv>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/diag.h"
#include "core/strings.h"

extern "C" {
#include <traceevent/event-parse.h>
}

namespace tk::parsers::tep {
namespace {

// Format texts larger than this are not formats (the largest real one, a few KB; guards
// against a corrupt u64 size driving a huge copy).
constexpr uint64_t kMaxFormatSize = 1 << 20;
// More formats or systems than this in one file means a corrupt count.
constexpr uint32_t kMaxCount = 1 << 20;

// The "ID: 372" line of a format text, or -1.
//   name: sched_switch
//   ID: 372
//   format:
int FormatId(std::string_view text) {
  size_t p = 0;
  while (p < text.size()) {
    size_t eol = text.find('\n', p);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(p, eol - p);
    if (line.substr(0, 4) == "ID: ") {
      int id = -1;
      std::string_view num = line.substr(4);
      auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), id);
      return ec == std::errc() && id >= 0 ? id : -1;
    }
    if (line.substr(0, 7) == "format:") return -1;  // the ID comes before the fields
    p = eol + 1;
  }
  return -1;
}

// {u64 size, text}: one format.
absl::Status ReadSizedText(ByteReader& r, std::string_view what, std::string_view* out) {
  uint64_t at = r.offset();
  uint64_t size = 0;
  if (!r.Read(&size)) return ErrorAt(at, absl::StrCat("truncated ", AV(what), " size"));
  if (size > kMaxFormatSize || size > r.remaining()) {
    return ErrorAt(at, absl::StrCat(AV(what), " size ", size, " exceeds the data"));
  }
  r.Bytes(size, out);
  return absl::OkStatus();
}

// Structural check of a field declaration ("char prev_comm[16]", "__data_loc char[] name"):
// quotes closed, (), {} and [] balanced and nested, no operator directly before ')' ',' '}'
// or the end.
bool LooksLikeExpression(std::string_view s) {
  std::string closers;  // expected closing brackets, innermost last
  bool in_string = false, escape = false, after_op = false;
  for (char c : s) {
    if (in_string) {
      if (escape) {
        escape = false;
      } else if (c == '\\') {
        escape = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == ' ' || c == '\t') continue;
    if (c == '\n' || c == '\0') return false;
    if (std::string_view("+-*/%&|^<>=!?:~").find(c) != std::string_view::npos) {
      after_op = true;  // runs like "<<", "->", "& -" are fine
      continue;
    }
    if (c == ')' || c == '}' || c == ']' || c == ',') {
      if (after_op) return false;
      if (c != ',') {
        if (closers.empty() || closers.back() != c) return false;
        closers.pop_back();
      }
    } else if (c == '(' || c == '{' || c == '[') {
      closers.push_back(c == '(' ? ')' : c == '{' ? '}' : ']');
    } else if (c == '"') {
      in_string = true;
    }
    after_op = false;
  }
  return !in_string && closers.empty() && !after_op;
}

bool IsIdent(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The part of a format before its print fmt, checked line by line before libtraceevent sees
// it (its tokenizer stops at a NUL and then dereferences NULL — fuzzing again):
//   name: sched_switch
//   ID: 372
//   format:
//   	field:char prev_comm[16];	offset:8;	size:16;	signed:0;
// Only printable ASCII, tabs and newlines; each field line "field:DECL;" with DECL ending
// in a name, brackets balanced, then "offset:N;" "size:N;" and optionally "signed:N;".
bool FieldsLookSane(std::string_view text) {
  for (char c : text) {
    if ((c < 0x20 || c > 0x7e) && c != '\t' && c != '\n') return false;
  }
  for (std::string_view lines = text; !lines.empty();) {
    std::string_view line = NextPiece(&lines, "\n");
    size_t f = line.find("field:");
    if (f == std::string_view::npos) continue;
    std::string_view rest = line.substr(f + 6);
    size_t semi = rest.find(';');
    if (semi == std::string_view::npos) return false;
    std::string_view decl = rest.substr(0, semi);
    if (!LooksLikeExpression(decl)) return false;
    int depth = 0;
    for (char c : decl) {
      depth += c == '[' ? 1 : c == ']' ? -1 : 0;
      if (depth < 0 || depth > 1) return false;
    }
    if (depth != 0) return false;
    std::string_view base = TrimRight(decl.substr(0, decl.find('[')), " ");
    if (base.empty() || !IsIdent(base.back())) return false;
    for (std::string_view key : {"offset:", "size:"}) {
      size_t k = rest.find(key, semi);
      if (k == std::string_view::npos) return false;
      size_t d = k + key.size();
      if (d >= rest.size() || !std::isdigit(static_cast<unsigned char>(rest[d]))) return false;
    }
  }
  return true;
}

// `text` with its print fmt line replaced by `print fmt: ""`.
std::string WithoutPrintFormat(std::string_view text) {
  size_t at = text.find("\nprint fmt:");
  if (at == std::string_view::npos) return std::string(text);
  return absl::StrCat(AV(text.substr(0, at)), "\nprint fmt: \"\"\n");
}

}  // namespace

TraceEvents::TraceEvents(bool big_endian, int long_size, uint32_t page_size)
    : tep_(tep_alloc()), big_endian_(big_endian), page_size_(page_size) {
  tep_set_file_bigendian(tep_, big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
  tep_set_local_bigendian(tep_, std::endian::native == std::endian::big ? TEP_BIG_ENDIAN
                                                                         : TEP_LITTLE_ENDIAN);
  tep_set_long_size(tep_, long_size == 4 ? 4 : 8);
  tep_set_page_size(tep_, static_cast<int>(page_size));
}

TraceEvents::~TraceEvents() { tep_free(tep_); }

absl::Status TraceEvents::LoadHeaderPage(std::string_view text) {
  std::string copy(text);  // tep_parse_header_page takes a char*
  tep_parse_header_page(tep_, copy.data(), copy.size(), tep_get_long_size(tep_));
  int commit = tep_get_header_page_size(tep_);
  if (commit != 4 && commit != 8) {
    return absl::InvalidArgumentError(
        absl::StrCat("header_page: commit field size ", commit, " is not 4 or 8"));
  }
  kernel_long_size_ = commit;
  tep_set_long_size(tep_, commit);
  return absl::OkStatus();
}

void TraceEvents::AddFormat(std::string_view system, std::string_view text) {
  ++formats_added_;
  int id = FormatId(text);
  if (id < 0) return;
  Pending& p = pending_[id];  // a duplicate id: the last format wins, as in libtraceevent
  p.system.assign(system);
  p.text.assign(text);
  p.tried = false;
}

struct tep_event* TraceEvents::Find(int id) {
  auto it = pending_.find(id);
  if (it == pending_.end()) return nullptr;
  if (!it->second.tried) {
    Pending& p = it->second;
    p.tried = true;
    size_t print = p.text.find("\nprint fmt:");
    if (FieldsLookSane(std::string_view(p.text).substr(0, print))) {
      std::string text = WithoutPrintFormat(p.text);
      tep_parse_event(tep_, text.data(), text.size(), p.system.c_str());
    }
  }
  struct tep_event* e = tep_find_event(tep_, id);
  return e;
}

std::string_view TraceEvents::FormatText(int id) const {
  auto it = pending_.find(id);
  return it == pending_.end() ? std::string_view() : std::string_view(it->second.text);
}

int TraceEvents::ParseAll() {
  int failed = 0;
  for (auto& [id, p] : pending_) {
    if (!Find(id)) ++failed;
  }
  return failed;
}

absl::Status ReadHeaderInfo(ByteReader& r, TraceEvents& ev) {
  uint64_t at = r.offset();
  if (!r.Expect(std::string_view("header_page\0", 12))) {
    return ErrorAt(at, "expected \"header_page\"");
  }
  std::string_view page;
  if (absl::Status st = ReadSizedText(r, "header_page", &page); !st.ok()) return st;
  if (absl::Status st = ev.LoadHeaderPage(page); !st.ok()) {
    return ErrorAt(at, SV(st.message()));
  }
  at = r.offset();
  if (!r.Expect(std::string_view("header_event\0", 13))) {
    return ErrorAt(at, "expected \"header_event\"");
  }
  std::string_view header_event;
  return ReadSizedText(r, "header_event", &header_event);
}

absl::Status ReadFtraceFormats(ByteReader& r, TraceEvents& ev, uint32_t* count) {
  uint64_t at = r.offset();
  uint32_t n = 0;
  if (!r.Read(&n)) return ErrorAt(at, "truncated ftrace format count");
  if (n > kMaxCount) return ErrorAt(at, absl::StrCat("implausible ftrace format count ", n));
  for (uint32_t i = 0; i < n; ++i) {
    std::string_view text;
    if (absl::Status st = ReadSizedText(r, "ftrace format", &text); !st.ok()) return st;
    ev.AddFormat("ftrace", text);
  }
  if (count) *count = n;
  return absl::OkStatus();
}

absl::Status ReadEventFormats(ByteReader& r, TraceEvents& ev, uint32_t* count) {
  uint64_t at = r.offset();
  uint32_t systems = 0;
  if (!r.Read(&systems)) return ErrorAt(at, "truncated event system count");
  if (systems > kMaxCount) {
    return ErrorAt(at, absl::StrCat("implausible event system count ", systems));
  }
  uint32_t total = 0;
  for (uint32_t s = 0; s < systems; ++s) {
    at = r.offset();
    std::string_view system;
    uint32_t n = 0;
    if (!r.CString(&system) || !r.Read(&n)) return ErrorAt(at, "truncated event system");
    if (n > kMaxCount) return ErrorAt(at, absl::StrCat("implausible format count ", n));
    for (uint32_t i = 0; i < n; ++i) {
      std::string_view text;
      if (absl::Status st = ReadSizedText(r, "event format", &text); !st.ok()) return st;
      ev.AddFormat(system, text);
      ++total;
    }
  }
  if (count) *count = total;
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<TraceEvents>> ParseTracingData(std::string_view data,
                                                              uint64_t base_offset,
                                                              TracingDataInfo* info) {
  TracingDataInfo local;
  if (!info) info = &local;
  ByteReader r(data, NeedsSwap(false), base_offset);
  if (!r.Expect("\x17\x08\x44tracing")) return ErrorAt(base_offset, "no tracing data magic");
  std::string_view version;
  uint8_t endian = 0, long_size = 0;
  uint32_t page_size = 0;
  uint64_t at = r.offset();
  if (!r.CString(&version) || !r.Read(&endian) || !r.Read(&long_size)) {
    return ErrorAt(at, "truncated tracing data header");
  }
  r.set_swap(NeedsSwap(endian != 0));
  if (!r.Read(&page_size)) return ErrorAt(at, "truncated tracing data header");
  if (long_size != 4 && long_size != 8) {
    return ErrorAt(at, absl::StrCat("long size ", long_size, " is not 4 or 8"));
  }
  info->version.assign(version);
  info->big_endian = endian != 0;
  info->long_size = long_size;
  info->page_size = page_size;
  auto ev = std::make_unique<TraceEvents>(endian != 0, long_size, page_size);
  if (absl::Status st = ReadHeaderInfo(r, *ev); !st.ok()) return st;
  if (absl::Status st = ReadFtraceFormats(r, *ev, &info->ftrace_formats); !st.ok()) return st;
  if (absl::Status st = ReadEventFormats(r, *ev, &info->event_formats); !st.ok()) return st;
  uint32_t size32 = 0;
  at = r.offset();
  if (!r.Read(&size32) || !r.Bytes(size32, &info->kallsyms)) {
    return ErrorAt(at, "truncated kallsyms");
  }
  at = r.offset();
  if (!r.Read(&size32) || !r.Bytes(size32, &info->printk)) {
    return ErrorAt(at, "truncated printk formats");
  }
  if (version != "0.5") {
    at = r.offset();
    uint64_t size64 = 0;
    if (!r.Read(&size64) || size64 > r.remaining() || !r.Bytes(size64, &info->cmdlines)) {
      return ErrorAt(at, "truncated saved cmdlines");
    }
  }
  info->end = r.pos();
  return ev;
}

}  // namespace tk::parsers::tep
