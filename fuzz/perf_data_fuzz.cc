// libFuzzer target for the perf.data reader: every input is parsed as a mapped file (also
// folded, as `tk fold` does) and as a stream read in small chunks, with stacks symbolized
// (against nothing on the host, and against testdata/dwarf's build-id cache: DWARF unwinding),
// and described for `tk info`. Seeds: fuzz/corpus/perf_data/ (dwarf-*.data: testdata/dwarf,
// dwarf-m32.data from its record32.sh: the i386 ABI).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string_view>

#include "core/diag.h"
#include "core/input.h"
#include "analyses/fold/fold.h"
#include "core/sink.h"
#include "parsers/perf_data/perf_data_parser.h"

namespace {

class NullSink final : public tk::EventSink {
 public:
  // AllTyped: the event families (irq, syscalls, pages) are decoded too.
  tk::EventMask wants() const override { return tk::EventMask::AllTyped(); }
  absl::Status OnEvent(const tk::Event& e) override {
    n_ += e.stack.size() + e.comm.size() + e.name.size();
    return absl::OkStatus();
  }
  size_t n_ = 0;
};

// `fold`: the events also go to `tk fold`'s sink with its worker thread (the stacks' views
// are kept past OnEvent there).
// `cache`: ELF files from testdata/dwarf's build-id cache (HOME is set to it), so that
// --call-graph dwarf samples are unwound and their inline frames looked up.
void RunOnce(std::unique_ptr<tk::Input> in, bool fold, bool cache = false) {
  tk::ParseOptions opts;
  opts.symfs = "/nonexistent-symfs";
  opts.use_buildid_cache = cache;
  opts.use_host_kallsyms = false;
  NullSink sink;
  tk::analyses::fold::FoldOptions fo;
  fo.worker_thread = true;
  tk::analyses::fold::FoldSink folder(fo);
  tk::Fanout both({&sink, &folder});
  std::ostringstream err;
  tk::Diagnostics diag("fuzz", &err);
  absl::Status st = tk::parsers::perf_data::NewPerfDataParser(opts)->Parse(
      *in, fold ? static_cast<tk::EventSink&>(both) : sink, diag);
  if (fold && st.ok()) {
    std::ostringstream out;
    folder.Write(out);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("HOME", TK_SOURCE_DIR "/testdata/dwarf/home", 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  RunOnce(tk::Input::FromString(bytes), /*fold=*/true);
  RunOnce(tk::Input::FromString(bytes), /*fold=*/false, /*cache=*/true);
  RunOnce(tk::Input::StreamFromString(bytes, 61), /*fold=*/false);
  auto in = tk::Input::FromString(bytes);
  (void)tk::parsers::perf_data::DescribePerfData(*in);
  return 0;
}
