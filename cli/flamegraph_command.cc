// tk flamegraph [OPTIONS] [INPUT...|-] > out.svg
//
// flamegraph.pl's picture (same options, defaults and SVG; tk's own JavaScript) from folded
// stacks, differential folded stacks (tk diff), or any trace tk reads, folded first with tk
// fold's flags. See docs/flamegraph.md for every difference from flamegraph.pl.
#include "cli/flamegraph_command.h"

#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "analyses/flamegraph/folded.h"
#include "analyses/flamegraph/layout.h"
#include "analyses/flamegraph/svg.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "core/absl_compat.h"
#include "core/diag.h"
#include "core/format.h"

namespace tk::cli {
namespace fg = analyses::flamegraph;
namespace {

constexpr char kPaletteFile[] = "palette.map";

void ReadPalette(std::map<std::string, std::string>* map) {
  std::ifstream f(kPaletteFile);
  for (std::string line; std::getline(f, line);) {
    size_t arrow = line.find("->");
    if (arrow == std::string::npos) continue;
    std::string value = line.substr(arrow + 2);
    if (size_t more = value.find("->"); more != std::string::npos) value.resize(more);
    (*map)[line.substr(0, arrow)] = value;
  }
}

void WritePalette(const std::map<std::string, std::string>& map) {
  std::ofstream f(kPaletteFile);
  for (const auto& [name, color] : map) f << name << "->" << color << "\n";
}

using NameAttr = std::map<std::string, std::map<std::string, std::string>>;

// flamegraph.pl's --nameattr file: "FUNCTION\tKEY=VALUE\tKEY=VALUE..." per line; the pairs
// are Perl's flat list `map { split /=/, $_, 2 } split /\t/`, paired in order.
bool ReadNameAttr(const std::string& path, NameAttr* out, std::string* error) {
  std::ifstream f(path);
  if (!f) {
    *error = "cannot read " + path;
    return false;
  }
  int line_no = 0;
  for (std::string line; std::getline(f, line);) {
    ++line_no;
    size_t tab = line.find('\t');
    if (tab == std::string::npos) {
      *error = path + ": line " + std::to_string(line_no) + ": invalid format (FUNCTION\tKEY=VALUE...)";
      return false;
    }
    std::vector<std::string> flat;
    for (size_t pos = tab + 1; pos <= line.size();) {
      size_t next = line.find('\t', pos);
      if (next == std::string::npos) next = line.size();
      std::string field = line.substr(pos, next - pos);
      size_t eq = field.find('=');
      flat.push_back(field.substr(0, eq));
      if (eq != std::string::npos) flat.push_back(field.substr(eq + 1));
      pos = next + 1;
    }
    auto& attrs = (*out)[line.substr(0, tab)];
    attrs.clear();
    for (size_t i = 0; i < flat.size(); i += 2) attrs[flat[i]] = i + 1 < flat.size() ? flat[i + 1] : "";
  }
  return true;
}

void AddFlameOptions(CLI::App& app, fg::FlameOptions* o) {
  app.add_option("--title", o->title,
                 "Title (default \"Flame Graph\"; \"Icicle Graph\" inverted, \"Flame Chart\")");
  app.add_option("--subtitle", o->subtitle, "Second title line");
  app.add_option("--width", o->width, "Image width in pixels (default 1200)");
  app.add_option("--height", o->frame_height, "Height of one frame in pixels (default 16)");
  app.add_option("--minwidth", o->minwidth,
                 "Omit frames narrower than this: pixels, or N% of the total (default 0.1)");
  app.add_option("--fonttype", o->fonttype, "Font (default Verdana)");
  app.add_option("--fontsize", o->fontsize, "Font size (default 12)");
  app.add_option("--fontwidth", o->fontwidth,
                 "Average character width relative to the font size (default 0.59)");
  app.add_option("--countname", o->countname, "What the counts are (default samples)");
  app.add_option("--nametype", o->nametype, "What the names are (default Function:)");
  app.add_option("--colors,--color", o->colors,
                 "Palette: hot (default) mem io wakeup chain java js perl red green blue aqua "
                 "yellow purple orange");
  app.add_option("--bgcolors", o->bgcolors,
                 "Background: yellow blue green grey gradients, or a flat #rrggbb");
  app.add_flag("--hash", o->hash, "Colour by a hash of the name (similar names alike)");
  app.add_flag("--random", o->random, "Random colours");
  app.add_option("--seed", o->seed, "Seed of --random (default: a random one)")->group("");
  app.add_flag("--reverse", o->reverse, "Reverse each stack (leaf first), then merge");
  app.add_flag("--inverted", o->inverted, "Icicle graph (root at the top)");
  app.add_flag("--flamechart", o->flamechart, "Flame chart: input order, not sorted");
  app.add_flag("--negate", o->negate, "Swap the differential colours (red/blue)");
  app.add_option("--notes", o->notes, "A note in the SVG (an XML comment)");
  app.add_option("--encoding", o->encoding, "Encoding named in the XML declaration");
  app.add_option("--total", o->total, "The total the widths are scaled to (at least the sum)");
  app.add_option("--factor", o->factor, "Scale the counts shown by this factor (default 1)");
}

// The line tk prints for malformed folded lines: the first with its text, then a summary.
void ReportMalformed(Diagnostics& diag, uint64_t line_no, std::string_view line) {
  std::string shown(line.substr(0, 80));
  diag.Malformed(Stat::kMalformedLines, Diagnostics::Unit::kLine, line_no,
                 "not a folded \"STACK COUNT\" line: \"" + shown + "\"");
}

}  // namespace

void AddFoldArgs(CLI::App& app, FoldArgs* a) {
  for (const char* f : {"--pid", "--tid", "--kernel", "--jit", "--all", "--addrs", "--off-cpu",
                        "--wakeup", "--no-buildid-cache", "--no-host-kallsyms"}) {
    app.add_flag(f, a->flags[f], std::string("tk fold ") + f + " (for a trace input)")
        ->group("tk fold flags (a trace input is folded first)");
  }
  for (const char* o : {"--event-filter", "--symfs", "--kallsyms", "--state", "--min-us",
                        "--max-us", "--threads"}) {
    app.add_option(o, a->values[o], std::string("tk fold ") + o + " (for a trace input)")
        ->group("tk fold flags (a trace input is folded first)");
  }
  // tk fold's filters, under tk fold's names (its --pid/--tid are the root annotations).
  FilterNames names;
  names.pid = "-p,--pids";
  names.tid = "-t,--tids";
  AddFilterOptions(&app, &a->filters, names);
}

std::vector<std::string> FoldArgs::Argv() const {
  std::vector<std::string> argv;
  for (const auto& [f, on] : flags)
    if (on) argv.push_back(f);
  for (const auto& [o, v] : values) {
    if (v.empty()) continue;
    argv.push_back(o);
    argv.push_back(v);
  }
  const std::pair<const char*, const std::vector<std::string>*> filters[] = {
      {"--time", &this->filters.time}, {"--pids", &this->filters.pids},
      {"--tids", &this->filters.tids}, {"--comm", &this->filters.comms},
      {"--cpu", &this->filters.cpus}};
  for (const auto& [name, list] : filters) {
    for (const std::string& v : *list) {
      argv.push_back(name);
      argv.push_back(v);
    }
  }
  return argv;
}

bool LooksFolded(std::string_view head) {
  int lines = 0, folded = 0;
  bool first_ok = false;
  while (lines < 16) {
    size_t nl = head.find('\n');
    if (nl == std::string_view::npos) break;  // a cut last line says nothing
    std::string_view line = head.substr(0, nl);
    head.remove_prefix(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    fg::FoldedLine p;
    bool ok = fg::ParseFoldedLine(line, &p);
    if (lines++ == 0) first_ok = ok;
    folded += ok;
  }
  if (lines == 0) {  // one line without a newline
    fg::FoldedLine p;
    return !head.empty() && fg::ParseFoldedLine(head, &p);
  }
  return first_ok && folded * 2 > lines;
}

int LoadFolded(const std::string& path, bool force_folded, FoldArgs& fold, FoldedInput* out) {
  // The run's one opening and detection of the input (cli/common.h OpenInputOnce): folded
  // stacks are read here, a trace goes through `tk fold` itself (same flags, same messages,
  // its output captured), whose pipeline parses this same Input with the registry's answer.
  absl::StatusOr<OpenedInput*> opened = OpenInputOnce(path);
  if (!opened.ok()) return Fail(SV(opened.status().message()), kExitUsage);
  Input& input = *(*opened)->input;
  out->name = input.name();
  absl::StatusOr<std::string_view> head = input.Peek(8192);
  if (!head.ok()) return Fail(SV(head.status().message()), kExitUsage);
  // Control characters make a text "unknown"; folded stacks may have them.
  const Format format = (*opened)->format;
  bool text = format == Format::kPerfScriptText || format == Format::kFtraceText ||
              format == Format::kUnknown;
  if (force_folded || (text && LooksFolded(*head))) {
    out->input = std::move(TakeOpenedInput(path)->input);
    const FilterFlags& f = fold.filters;
    if (!f.time.empty() || !f.pids.empty() || !f.tids.empty() || !f.comms.empty() ||
        !f.cpus.empty()) {  // folded stacks have no times, ids or CPUs to filter by
      return Fail(path + ": the filter flags apply to a trace input; this is folded stacks",
                  kExitUsage);
    }
    if (absl::Status st = out->input->EnsureMapped(); !st.ok()) {
      return Fail(SV(st.message()), kExitUsage);
    }
    out->text = *out->input->mapped();
    return kExitOk;
  }
  std::vector<std::string> args = {"tk fold"};
  for (std::string& a : fold.Argv()) args.push_back(a);
  args.push_back(path);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  std::ostringstream os;
  std::streambuf* saved = std::cout.rdbuf(os.rdbuf());
  int rc = RunFold(static_cast<int>(argv.size()), argv.data());
  std::cout.rdbuf(saved);
  (void)TakeOpenedInput(path);  // tk fold stopped before its pipeline (a usage error)
  if (rc != kExitOk) return rc;
  out->folded = std::move(os).str();
  out->text = out->folded;
  out->from_trace = true;
  return kExitOk;
}

// Adds the folded lines of `path` to `profile`, reporting malformed and repaired lines.
static int ReadInto(const std::string& path, bool force_folded, FoldArgs& fold,
             fg::FoldedProfile* profile, std::string* name) {
  FoldedInput in;
  if (int rc = LoadFolded(path, force_folded, fold, &in); rc != kExitOk) return rc;
  *name = in.name;
  Diagnostics diag(*name);
  uint64_t repaired = profile->stats().repaired;
  profile->ClearFirstRepaired();
  // Page by page, so the mapped input's pages can be dropped once read: memory then grows
  // with the distinct stacks only.
  uint64_t line_no = 1;
  for (size_t pos = 0; pos < in.text.size();) {
    size_t end = std::min(in.text.size(), pos + (8 << 20));
    if (end < in.text.size()) end = in.text.find('\n', end) + 1;
    if (end == 0) end = in.text.size();
    line_no += profile->AddText(in.text.substr(pos, end - pos), line_no,
                                [&](uint64_t n, std::string_view l) { ReportMalformed(diag, n, l); });
    pos = end;
    if (!in.from_trace) in.input->ReleaseBelow(pos);
  }
  if (uint64_t n = profile->stats().repaired - repaired) {
    diag.Note(Stat::kInvalidUtf8, std::to_string(n) +
                                  " line(s) with invalid UTF-8 kept, with U+FFFD (first at line " +
                                  std::to_string(profile->stats().first_repaired) + ")");
  }
  diag.PrintSummary();
  return kExitOk;
}

int RunFlamegraph(int argc, char** argv) {
  CLI::App app(
      "tk flamegraph: flamegraph.pl's SVG flame graph (same options and defaults) from folded\n"
      "stacks (\"STACK COUNT\" lines, or tk diff's \"STACK COUNT1 COUNT2\"), or from any trace\n"
      "tk reads, folded first as tk fold does (its flags apply). Writes the SVG to stdout.",
      "tk flamegraph");
  std::vector<std::string> paths = {"-"};
  fg::FlameOptions o;
  bool cp = false, json = false, force_folded = false;
  std::string nameattr_file;
  FoldArgs fold;
  app.add_option("input", paths,
                 "Folded stacks or traces, read one after the other as flamegraph.pl reads "
                 "several files (default: stdin)");
  AddFlameOptions(app, &o);
  app.add_flag("--cp", cp, "Consistent palette: colours kept in ./palette.map across graphs");
  app.add_option("--nameattr", nameattr_file,
                 "Extra attributes per function: lines FUNCTION<tab>KEY=VALUE... (title, id, "
                 "class, href, target, g_extra, a_extra)");
  app.add_flag("--folded", force_folded, "The input is folded stacks (skip detection)");
  app.add_flag("--json", json,
               "The layout as JSON: {width, height, total, frames: [{name, depth, start, end, x, "
               "y, w, fill, title, label}]}");
  AddFoldArgs(app, &fold);
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  if (std::string err = fg::ValidateOptions(o); !err.empty()) {
    return Fail("flamegraph: " + err, kExitUsage);
  }

  NameAttr nameattr;
  if (!nameattr_file.empty()) {
    std::string error;
    if (!ReadNameAttr(nameattr_file, &nameattr, &error)) return Fail(error, kExitUsage);
    o.nameattr = &nameattr;
  }
  fg::FoldedProfile profile(o.reverse, o.flamechart);
  std::string names;
  for (const std::string& path : paths) {
    std::string name;
    if (int rc = ReadInto(path, force_folded, fold, &profile, &name); rc != kExitOk) return rc;
    names += (names.empty() ? "" : ", ") + name;
  }

  std::map<std::string, std::string> palette;
  if (cp) {
    ReadPalette(&palette);
    o.palette = &palette;
  }
  fg::Layout layout = fg::LayOut(profile, o);
  if (layout.time <= 0) return Fail(names + ": no stack counts found", kExitData);
  if (layout.total_ignored) {
    std::cerr << "tk: --total " << o.total << " is less than the actual total " << layout.time
              << ", so ignored\n";
  }
  std::string out;
  if (json) {
    fg::WriteJson(layout, o, &out);
  } else {
    fg::WriteSvg(layout, o, &out);
  }
  std::cout.write(out.data(), out.size());
  if (cp) WritePalette(palette);
  return FinishOutput(std::cout);
}

}  // namespace tk::cli
