#include "cli/filter_options.h"

#include "cli/common.h"
#include "core/absl_compat.h"
#include "core/format.h"
#include "core/input.h"
#include "parsers/perf_data/file_header.h"

namespace tk::cli {
namespace {

void Add(CLI::App* app, const std::string& names, std::vector<std::string>* out,
         const std::string& what) {
  if (names.empty()) return;
  app->add_option(names, *out, what)
      ->expected(1)
      ->allow_extra_args(false)  // "--pid 5 FILE": FILE is the input, not a second value
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->group("Filters");
}

// Appends each flag occurrence parsed by `parse` to `out`; false after printing an error.
template <typename T, typename Parse>
bool Collect(const std::vector<std::string>& given, std::string_view flag, std::string_view cmd,
             Parse parse, std::vector<T>* out) {
  for (const std::string& g : given) {
    absl::StatusOr<std::vector<T>> v = parse(g);
    if (!v.ok()) {
      Fail(std::string(cmd) + ": " + std::string(flag) + ": " +
               std::string(SV(v.status().message())),
           kExitUsage);
      return false;
    }
    out->insert(out->end(), v->begin(), v->end());
  }
  return true;
}

// The first and last sample time perf.data's header records (HEADER_SAMPLE_TIME, which perf
// record writes at the end of a file-mode recording), from the run's one opening of the input
// (OpenInputOnce: the pipeline parses the same Input, detected once; stdin is spooled, as the
// parser does for file-mode perf.data). A pipe-mode recording has none: perf fails on it too
// ("no first/last sample time found in perf data").
absl::StatusOr<std::pair<int64_t, int64_t>> SampleSpan(const std::string& path) {
  absl::StatusOr<OpenedInput*> opened = OpenInputOnce(path);
  if (!opened.ok()) return opened.status();
  Input& in = *(*opened)->input;
  if ((*opened)->format == Format::kPerfDataPipe) {
    return absl::InvalidArgumentError(
        "percent ranges need the first and last sample time, which a pipe-mode perf.data "
        "(perf record -o -) does not record");
  }
  if ((*opened)->format != Format::kPerfData) {
    return absl::InvalidArgumentError(
        "percent ranges need a perf.data file (its header has "
        "the first and last sample time)");
  }
  if (absl::Status st = in.EnsureMapped(); !st.ok()) return st;
  absl::StatusOr<parsers::perf_data::Metadata> meta =
      parsers::perf_data::ReadFileHeader(*in.mapped());
  if (!meta.ok()) return meta.status();
  return std::make_pair(static_cast<int64_t>(meta->first_sample_time),
                        static_cast<int64_t>(meta->last_sample_time));
}

}  // namespace

void AddFilterOptions(CLI::App* app, FilterFlags* f, const FilterNames& n) {
  Add(app, n.time, &f->time,
      "Only START,END (trace seconds as printed, either side may be empty; several ranges "
      "separated by spaces; on perf.data also perf's 10%/2, 0%-10%), as perf's --time");
  Add(app, n.pid, &f->pids, "Only these process ids (1,2,5-7)");
  Add(app, n.tid, &f->tids, "Only these thread ids");
  Add(app, n.comm, &f->comms, "Only these thread names (comm[,comm...])");
  Add(app, n.cpu, &f->cpus, "Only these CPUs (0,2-3)");
  Add(app, n.device, &f->devices, "Only these block devices (MAJ:MIN[,MAJ:MIN] or MAJ,MIN)");
}

std::optional<FilterOptions> ResolveFilter(const FilterFlags& f, std::string_view cmd,
                                           const std::string& path) {
  FilterOptions o;
  std::optional<absl::StatusOr<std::pair<int64_t, int64_t>>> span;
  auto time = [&](std::string_view s) -> absl::StatusOr<std::vector<TimeRange>> {
    if (!IsPercentTime(s)) return ParseTimeRanges(s);
    if (!span) span = SampleSpan(path);
    if (!span->ok()) return span->status();
    return ParsePercentRanges(s, (*span)->first, (*span)->second);
  };
  auto comms = [](std::string_view s) -> absl::StatusOr<std::vector<std::string>> {
    std::vector<std::string> v = ParseCommList(s);
    if (v.empty()) return absl::InvalidArgumentError("empty list");
    return v;
  };
  if (!Collect(f.time, "--time", cmd, time, &o.time) ||
      !Collect(f.pids, "--pid", cmd, ParseIdList, &o.pids) ||
      !Collect(f.tids, "--tid", cmd, ParseIdList, &o.tids) ||
      !Collect(f.comms, "--comm", cmd, comms, &o.comms) ||
      !Collect(f.cpus, "--cpu", cmd, ParseIdList, &o.cpus) ||
      !Collect(f.devices, "--device", cmd, ParseDeviceList, &o.devices))
    return std::nullopt;
  return o;
}

}  // namespace tk::cli
