// libFuzzer target for the perf.data reader: every input is parsed as a mapped file and as a
// stream read in small chunks, with stacks symbolized (against nothing on the host), and
// described for `tk info`. Seeds: fuzz/corpus/perf_data/.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string_view>

#include "core/diag.h"
#include "core/input.h"
#include "core/sink.h"
#include "parsers/perf_data/perf_data_parser.h"

namespace {

class NullSink final : public tk::EventSink {
 public:
  tk::EventMask wants() const override { return tk::EventMask::All(); }
  absl::Status OnEvent(const tk::Event& e) override {
    n_ += e.stack.size() + e.comm.size() + e.name.size();
    return absl::OkStatus();
  }
  size_t n_ = 0;
};

void RunOnce(std::unique_ptr<tk::Input> in) {
  tk::ParseOptions opts;
  opts.symfs = "/nonexistent-symfs";
  opts.use_buildid_cache = false;
  opts.use_host_kallsyms = false;
  NullSink sink;
  std::ostringstream err;
  tk::Diagnostics diag("fuzz", &err);
  (void)tk::parsers::perf_data::NewPerfDataParser(opts)->Parse(*in, sink, diag);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  RunOnce(tk::Input::FromString(bytes));
  RunOnce(tk::Input::StreamFromString(bytes, 61));
  auto in = tk::Input::FromString(bytes);
  (void)tk::parsers::perf_data::DescribePerfData(*in);
  return 0;
}
