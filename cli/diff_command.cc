// tk diff [-n] [-s] BEFORE AFTER
//
// difffolded.pl: "STACK COUNT1 COUNT2" for every stack of either profile, for
// `tk flamegraph` (red: grew, blue: shrank). BEFORE and AFTER are folded stacks or traces
// (folded first, with tk fold's flags).
#include <iostream>

#include "analyses/flamegraph/diff.h"
#include "analyses/flamegraph/text.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/flamegraph_command.h"
#include "core/diag.h"

namespace tk::cli {
namespace fg = analyses::flamegraph;

namespace {

// {"before_total", "after_total", "stacks": [{"stack", "before", "after"}, ...]}
std::string ToJson(const fg::FoldedDiff& d, std::string_view lines) {
  std::string out = "{\"before_total\": ";
  fg::AppendCount(&out, d.total(0));
  out.append(", \"after_total\": ");
  fg::AppendCount(&out, d.total(1));
  out.append(", \"stacks\": [");
  bool first = true;
  while (!lines.empty()) {
    size_t nl = lines.find('\n');
    std::string_view line = lines.substr(0, nl);
    lines.remove_prefix(nl + 1);
    size_t b = line.rfind(' '), a = line.rfind(' ', b - 1);
    out.append(first ? "\n{\"stack\": " : ",\n{\"stack\": ");
    first = false;
    fg::AppendJsonString(&out, line.substr(0, a));
    out.append(", \"before\": ");
    out.append(line.substr(a + 1, b - a - 1));
    out.append(", \"after\": ");
    out.append(line.substr(b + 1));
    out.append("}");
  }
  out.append("\n]}\n");
  return out;
}

}  // namespace

int RunDiff(int argc, char** argv) {
  CLI::App app(
      "tk diff: difffolded.pl. Prints \"STACK COUNT1 COUNT2\" for every stack of BEFORE or\n"
      "AFTER (0 where missing), sorted, for `tk flamegraph` (red: grew, blue: shrank; widths\n"
      "from AFTER). BEFORE and AFTER are folded stacks or traces (folded with tk fold's flags).",
      "tk diff");
  std::string before, after;
  fg::DiffOptions d;
  bool json = false, force_folded = false;
  FoldArgs fold;
  app.add_option("before", before, "The profile before")->required();
  app.add_option("after", after, "The profile after")->required();
  app.add_flag("-n,--normalize", d.normalize,
               "Normalize: scale BEFORE's counts to AFTER's total (truncated)");
  app.add_flag("-s,--strip-hex", d.strip_hex, "Strip hex numbers (addresses): 0x... ");
  app.add_flag("--folded", force_folded, "The inputs are folded stacks (skip detection)");
  app.add_flag("--json", json,
               "One JSON object: {before_total, after_total, stacks: [{stack, before, after}]}");
  AddFoldArgs(app, &fold);
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  if (before == "-" && after == "-") return Fail("diff: only one input can be stdin", kExitUsage);

  fg::FoldedDiff diff(d);
  const std::string* paths[2] = {&before, &after};
  for (int side = 0; side < 2; ++side) {
    FoldedInput in;
    if (int rc = LoadFolded(*paths[side], force_folded, fold, &in); rc != kExitOk) return rc;
    uint64_t malformed = 0, first = 0;
    diff.AddText(side, in.text, &malformed, &first);
    if (malformed) {
      std::cerr << "tk: " << in.name << ": " << malformed
                << " malformed line(s) skipped (not \"STACK COUNT\"; first at line " << first
                << ")\n";
    }
  }
  std::string out = diff.Output();
  if (json) out = ToJson(diff, out);
  std::cout.write(out.data(), out.size());
  return FinishOutput(std::cout);
}

}  // namespace tk::cli
