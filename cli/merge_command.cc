// tk merge [--normalize] [--json] FILE... (- is stdin)
//
// The exact sum of folded-stack files (analyses/merge/folded_merge.h), sorted as tk fold
// prints them: `tk fold` per host or per part, then `tk merge` = `tk fold` of the whole.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "analyses/fold/fold.h"
#include "analyses/merge/folded_merge.h"
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

}  // namespace

int RunMerge(int argc, char** argv) {
  CLI::App app(
      "tk merge: the exact sum of folded stack files (\"root;...;leaf COUNT\" lines, as tk fold\n"
      "and stackcollapse-*.pl write them), sorted bytewise as tk fold sorts. The output does not\n"
      "depend on the order of the inputs (except with --normalize).",
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

  analyses::merge::FoldedMerge merge(normalize);
  for (const std::string& path : paths) {
    absl::StatusOr<std::unique_ptr<Input>> in = Input::Open(path);
    if (!in.ok()) return Fail(SV(in.status().message()), kExitUsage);
    Diagnostics diag((*in)->name());
    absl::Status st = merge.Add(std::move(*in), diag);
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
