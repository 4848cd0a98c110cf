// tk pprof [--event-filter EV] [--kernel] [--jit] [--all] [--addrs] FILE -o OUT.pb.gz
// tk pprof --off-cpu [--state S,D,R] [--min-us N] [--max-us N] FILE -o OUT.pb.gz
//
// The samples of one event type as a gzipped pprof profile.proto, for go tool pprof,
// Pyroscope, Parca, speedscope. Frames are symbolized and named as `tk fold` names them.
// The output is written to a temporary file next to OUT and renamed, so a failed run leaves
// nothing behind; "-o -" writes to stdout. With --off-cpu the profile is `tk fold --off-cpu`'s
// stacks (analyses/pprof/folded_profile.h): off-CPU time, sample type offcpu/microseconds.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>

#include "analyses/pprof/folded_profile.h"
#include "analyses/pprof/profile_builder.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/fold_offcpu.h"
#include "core/absl_compat.h"
#include "core/diag.h"
#include "core/input.h"
#include "nlohmann/json.hpp"

namespace tk::cli {
namespace {

// perf.data header facts (the registry's DescribeInput): perf version, command line, build
// ids.
void ReadMeta(const InputFacts& facts, analyses::pprof::ProfileMeta* meta) {
  if (facts.format != Format::kPerfData && facts.format != Format::kPerfDataPipe) return;
  absl::StatusOr<nlohmann::json> d = nlohmann::json::parse(facts.facts);
  meta->perf_version = d->value("perf_version", "");
  meta->cmdline = d->value("cmdline", "");
  if (d->contains("build_ids")) {
    for (const auto& b : (*d)["build_ids"])
      meta->build_ids[b.value("filename", "")] = b.value("build_id", "");
  }
}

int WriteOutput(const std::string& out_path, const std::string& bytes) {
  if (out_path == "-") {
    std::cout.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return FinishOutput(std::cout);
  }
  // A device or FIFO (-o /dev/null, a named pipe) is written as it is: renaming a temporary
  // file over it would replace the device node with a regular file.
  struct stat st;
  if (stat(out_path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    std::ofstream f(out_path, std::ios::binary);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.close();
    return f ? kExitOk : Fail("pprof: cannot write " + out_path, kExitUsage);
  }
  std::string tmp = out_path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.close();
    if (!f) {
      std::remove(tmp.c_str());
      return Fail("pprof: cannot write " + out_path, kExitUsage);
    }
  }
  if (std::rename(tmp.c_str(), out_path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Fail("pprof: cannot write " + out_path, kExitUsage);
  }
  return kExitOk;
}

}  // namespace

int RunPprof(int argc, char** argv) {
  CLI::App app(
      "tk pprof: the samples of one event type as a gzipped pprof profile (profile.proto) for\n"
      "go tool pprof, Pyroscope, Parca, speedscope. Reads perf.data or `perf script` text;\n"
      "frames symbolized and named as tk fold names them.",
      "tk pprof");
  std::string path = "perf.data", out_path;
  bool json = false;
  analyses::pprof::PprofOptions po;
  ParseOptions popts;
  app.add_option("file", path, "Input file (default perf.data), - for stdin");
  app.add_option("-o,--output", out_path, "Output file (.pb.gz); - for stdout")->required();
  FoldNameFlags names;
  AddFoldNameFlags(app, &names,
                   "Export only events of this type (default: the first event type seen)");
  app.add_flag("--json", json, "Print a JSON summary {output, event, samples, bytes} to stdout");
  AddSymbolOptions(app, &popts);
  OffCpuFlags offcpu;
  AddOffCpuFlags(app, &offcpu);
  // tk fold's --wakeup appends the waker's stack after "--": no call stack a pprof reader can
  // show, so tk pprof has no such option (and its help does not list it).
  app.remove_option(app.get_option("--wakeup"));
  for (const char* o : {"--state", "--min-us", "--max-us"}) {
    std::string d = app.get_option(o)->get_description();
    if (d.starts_with("--off-cpu/--wakeup:")) d.replace(0, 19, "--off-cpu:");
    app.get_option(o)->description(d);
  }
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  if (int rc = CheckOffCpuFlags(app, offcpu); rc >= 0) return rc;
  names.Apply();
  // An inline chain's own function is a Location in its binary's mapping even where DWARF
  // names it otherwise than the ELF symbol (tk script prints that name "(inlined)", as perf).
  popts.inline_outermost_keeps_dso = true;
  po.names = names.names;
  po.event_filter = names.event_filter;
  if (json && out_path == "-") return Fail("pprof: --json needs -o FILE", kExitUsage);

  absl::StatusOr<std::unique_ptr<Input>> in = Input::Open(path);
  if (!in.ok()) return Fail(SV(in.status().message()), kExitUsage);
  absl::StatusOr<std::string_view> head = (*in)->Peek(8192);
  if (!head.ok()) return Fail(SV(head.status().message()), kExitUsage);
  absl::StatusOr<InputFacts> facts = DescribeInput(**in, popts);  // the one detection
  if (!facts.ok()) return Fail(SV(facts.status().message()), kExitData);
  analyses::pprof::ProfileMeta meta;
  ReadMeta(*facts, &meta);
  struct stat sb;
  if (path != "-" && stat(path.c_str(), &sb) == 0)
    meta.time_nanos = static_cast<int64_t>(sb.st_mtim.tv_sec) * 1000000000 + sb.st_mtim.tv_nsec;

  Diagnostics diag((*in)->name());
  std::string profile, event;
  uint64_t samples = 0;
  if (offcpu.off_cpu) {
    analyses::fold::FoldOptions fo;
    fo.names = po.names;
    std::unique_ptr<analyses::offcpu::OffCpuSink> sink;
    if (int rc = FoldOffCpu(**in, *facts->parser, offcpu, fo, FilterOptions{}, diag, &sink);
        rc != kExitOk)
      return rc;
    profile = analyses::pprof::SerializeFolded(sink->stacks(), {}, meta);
    event = "offcpu";
    samples = sink->stacks().size();
  } else {
    analyses::pprof::ProfileBuilder builder(po);
    absl::Status st = facts->parser->Parse(**in, builder, diag);
    diag.PrintSummary();
    if (!st.ok()) return Fail(SV(st.message()), kExitData);
    if (builder.samples() == 0)
      return Fail((*in)->name() + ": no samples with stacks", kExitData);
    profile = builder.Serialize(meta);
    event = builder.event_type();
    samples = builder.samples();
  }
  std::string gz;
  if (!analyses::pprof::Gzip(profile, &gz)) return Fail("pprof: gzip failed", kExitUsage);
  int rc = WriteOutput(out_path, gz);
  if (rc == kExitOk && json) {
    nlohmann::json j = {{"output", out_path},
                        {"event", event},
                        {"samples", samples},
                        {"bytes", gz.size()}};
    std::cout << j.dump() << "\n";
    rc = FinishOutput(std::cout);
  }
  return rc;
}

}  // namespace tk::cli
