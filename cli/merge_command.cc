// tk merge [--normalize] [--json] FILE... (- is stdin)
//
// The exact sum of folded-stack files (analyses/merge/folded_merge.h), sorted as tk fold
// prints them: `tk fold` per host or per part, then `tk merge` = `tk fold` of the whole.
// Inputs that are JSON documents are reports (tk sched/iolat/irq hist --json, tk irq --json),
// merged into one report (analyses/merge/report_merge.h, stats_merge.h).
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "analyses/fold/fold.h"
#include "analyses/merge/folded_merge.h"
#include "analyses/merge/report_merge.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "core/absl_compat.h"
#include "core/diag.h"
#include "core/input.h"

namespace tk::cli {
namespace {

nlohmann::json InputsJson(const analyses::merge::FoldedMerge& merge) {
  nlohmann::json inputs = nlohmann::json::array();
  for (const auto& s : merge.stats()) {
    inputs.push_back({{"file", s.name},
                      {"lines", s.lines},
                      {"total", s.total},
                      {"malformed_lines", s.malformed},
                      {"sorted", s.sorted}});
  }
  return inputs;
}

// The inputs' text (all mapped; stdin spooled by Input).
absl::StatusOr<std::string_view> Text(Input& in) {
  if (absl::Status st = in.EnsureMapped(); !st.ok()) return st;
  return *in.mapped();
}

// Merges `inputs` as --json reports and prints the merged report.
int MergeReports(std::vector<std::unique_ptr<Input>> inputs) {
  analyses::merge::ReportMerge merge;
  for (auto& in : inputs) {
    absl::StatusOr<std::string_view> text = Text(*in);
    if (!text.ok()) return Fail(SV(text.status().message()), kExitUsage);
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(*text, nullptr, false);
    if (j.is_discarded()) return Fail(in->name() + ": not valid JSON", kExitData);
    if (absl::Status st = merge.Add(j); !st.ok()) {
      return Fail(in->name() + ": " + std::string(st.message()), kExitData);
    }
  }
  std::cout << merge.Dump();
  return FinishOutput(std::cout);
}

}  // namespace

int RunMerge(int argc, char** argv) {
  CLI::App app(
      "tk merge: the exact sum of folded stack files (\"root;...;leaf COUNT\" lines, as tk fold\n"
      "and stackcollapse-*.pl write them), sorted bytewise as tk fold sorts. The output does not\n"
      "depend on the order of the inputs (except with --normalize).\n"
      "Inputs that are JSON (tk sched hist, tk iolat hist, tk irq hist --json, tk irq --json,\n"
      "e.g. one per host) are merged into one report of the same shape: log2 buckets, counts,\n"
      "totals, min, max and time range exactly; sched hist's percentiles from the merged buckets\n"
      "(bucket midpoint, marked \"percentiles_exact\": false) and tk irq's avg and stdev\n"
      "recomputed (\"avg_stdev_exact\": false) unless a single input had values. tk iolat\n"
      "--json and tk sched latency --json are refused: no merge of them is exact.",
      "tk merge");
  std::vector<std::string> paths;
  bool normalize = false;
  bool json = false;
  app.add_option("files", paths, "Folded files; - for stdin")->required();
  app.add_flag("--normalize", normalize,
               "Scale each input to the first input's total (count * total1 / total, truncated "
               "as difffolded.pl -n does) before adding");
  app.add_flag("--json", json,
               "One JSON object: {total, stacks: [{frames, count}], inputs: [{file, lines, "
               "total, malformed_lines, sorted}], normalized}");
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  if (std::count(paths.begin(), paths.end(), "-") > 1) {
    return Fail("merge: stdin (-) can be given once", kExitUsage);
  }

  std::vector<std::unique_ptr<Input>> inputs;
  for (const std::string& path : paths) {
    absl::StatusOr<std::unique_ptr<Input>> in = Input::Open(path);
    if (!in.ok()) return Fail(SV(in.status().message()), kExitUsage);
    inputs.push_back(std::move(*in));
  }
  absl::StatusOr<std::string_view> first = Text(*inputs[0]);
  if (!first.ok()) return Fail(SV(first.status().message()), kExitUsage);
  if (analyses::merge::LooksLikeJson(*first)) {
    if (normalize) return Fail("merge: --normalize applies to folded stacks only", kExitUsage);
    return MergeReports(std::move(inputs));
  }
  analyses::merge::FoldedMerge merge(normalize);
  for (auto& in : inputs) {
    Diagnostics diag(in->name());
    absl::Status st = merge.Add(std::move(in), diag);
    diag.PrintSummary();
    if (!st.ok()) return Fail(SV(st.message()), kExitData);
  }

  absl::Status st;
  if (json) {
    analyses::fold::StackCounts stacks;
    st = merge.Run([&](std::string_view stack, uint64_t n) { stacks.emplace(stack, n); });
    if (!st.ok()) return Fail(SV(st.message()), kExitData);
    nlohmann::json j = analyses::fold::FoldedJson(stacks, "");
    j.erase("event");  // folded text does not name its event
    j["inputs"] = InputsJson(merge);
    j["normalized"] = normalize;
    std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return FinishOutput(std::cout);
  }
  std::string buf;
  buf.reserve(1 << 16);
  st = merge.Run([&](std::string_view stack, uint64_t n) {
    buf.append(stack);
    buf.push_back(' ');
    buf.append(std::to_string(n));
    buf.push_back('\n');
    if (buf.size() >= (1 << 16)) {
      std::cout.write(buf.data(), static_cast<std::streamsize>(buf.size()));
      buf.clear();
    }
  });
  std::cout.write(buf.data(), static_cast<std::streamsize>(buf.size()));
  if (!st.ok()) return Fail(SV(st.message()), kExitData);
  return FinishOutput(std::cout);
}

}  // namespace tk::cli
