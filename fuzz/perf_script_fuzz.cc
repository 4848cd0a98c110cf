// libFuzzer: arbitrary bytes through the perf script parser into a fold (and its output), as
// `tk fold FILE` runs them. Also streamed in 509-byte reads (lines straddle them), and with
// the events' views marked unstable, so FoldSink folds them by their strings instead of by
// their interned views (stack_folder.h): all three must fold the same.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string_view>

#include "analyses/fold/fold.h"
#include "core/diag.h"
#include "core/input.h"
#include "parsers/perf_script/perf_script_parser.h"

namespace {

// Passes the events on as a text parser without interned names would give them.
class UnstableViews final : public tk::EventSink {
 public:
  explicit UnstableViews(tk::EventSink& next) : next_(next) {}
  tk::EventMask wants() const override { return next_.wants(); }
  absl::Status OnEvent(const tk::Event& e) override {
    tk::Event copy = e;
    copy.stable_views = false;
    return next_.OnEvent(copy);
  }
  absl::Status Finish() override { return next_.Finish(); }

 private:
  tk::EventSink& next_;
};

std::string Fold(std::unique_ptr<tk::Input> in, bool tid, bool unstable = false) {
  tk::analyses::fold::FoldOptions fo;
  fo.include_tid = tid;
  fo.names.annotate_kernel = fo.names.annotate_jit = fo.names.include_addrs = tid;
  tk::analyses::fold::FoldSink sink(fo);
  std::ostringstream err, out;
  tk::Diagnostics diag("fuzz", &err);
  UnstableViews strings(sink);
  auto parser = tk::parsers::perf_script::NewPerfScriptParser(tk::ParseOptions{});
  absl::Status st = parser->Parse(*in, unstable ? static_cast<tk::EventSink&>(strings) : sink, diag);
  diag.PrintSummary();
  if (!st.ok()) return "error";
  sink.Write(out);
  return out.str();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  bool tid = size > 0 && (data[0] & 1);
  std::string mapped = Fold(tk::Input::FromString(text), tid);
  std::string streamed = Fold(tk::Input::StreamFromString(text, 509), tid);
  if (mapped != streamed) std::abort();
  if (Fold(tk::Input::FromString(text), tid, true) != mapped) std::abort();
  return 0;
}
