// libFuzzer target for the trace.dat reader (and through it TepDecoder, kbuffer, zstd):
// any input must end in events or a clean Status — no crash, hang, leak or out-of-bounds read.
// Every view of every event is read, so a dangling or overlong view trips ASan.
// Seeds: fuzz/corpus/trace_dat/ (tiny v6 / v7 / v7+zstd files and cut copies, make_seeds.py).
//
//   CC=clang CXX=clang++ cmake -S . -B build-fuzz -DTK_FUZZ=ON -DTK_TESTS=OFF -DTK_BENCH=OFF
//   cmake --build build-fuzz --target trace_dat_fuzz
//   build-fuzz/fuzz/trace_dat_fuzz -max_total_time=60 fuzz/corpus/trace_dat
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string_view>

#include "core/input.h"
#include "core/sink.h"
#include "parsers/trace_dat/trace_dat_parser.h"

namespace {

class TouchSink final : public tk::EventSink {
 public:
  // AllTyped: the event families (irq, syscalls, pages) are decoded too.
  tk::EventMask wants() const override { return tk::EventMask::AllTyped(); }
  absl::Status OnEvent(const tk::Event& e) override {
    Touch(e.comm);
    Touch(e.name);
    std::visit([this](const auto& b) { TouchBody(b); }, e.body);
    return absl::OkStatus();
  }
  uint64_t sum = 0;

 private:
  void Touch(std::string_view s) {
    for (char c : s) sum += static_cast<unsigned char>(c);
  }
  void TouchBody(const tk::SchedSwitch& s) {
    Touch(s.prev_comm);
    Touch(s.next_comm);
    sum += s.prev_state.bits;
  }
  void TouchBody(const tk::SchedWakeup& s) { Touch(s.comm); }
  void TouchBody(const tk::SchedMigrate& s) { Touch(s.comm); }
  void TouchBody(const tk::SchedStat& s) { Touch(s.comm); }
  void TouchBody(const tk::SchedFork& s) {
    Touch(s.parent_comm);
    Touch(s.child_comm);
  }
  void TouchBody(const tk::SchedExit& s) { Touch(s.comm); }
  void TouchBody(const tk::BlockRq& b) { Touch(b.comm); }
  void TouchBody(const tk::Generic& g) {
    for (const tk::Field& f : g.fields) {
      Touch(f.name);
      Touch(f.value);
    }
    Touch(g.text);
  }
  template <typename T>
  void TouchBody(const T&) {}
};

}  // namespace

// libtraceevent 1.7 leaks a few bytes inside tep_parse_event when it rejects a mangled format
// text (its own error paths, all frames in libtraceevent.so): not tk's leak, suppressed so the
// fuzzer keeps looking for real ones.
extern "C" const char* __lsan_default_suppressions() { return "leak:libtraceevent.so\n"; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  {
    auto in = tk::Input::FromString(bytes, "fuzz.dat");
    std::ostringstream err;
    tk::Diagnostics diag("fuzz.dat", &err);
    TouchSink sink;
    (void)tk::parsers::trace_dat::NewTraceDatParser({})->Parse(*in, sink, diag);
    diag.PrintSummary();
  }
  {
    auto in = tk::Input::FromString(bytes, "fuzz.dat");
    (void)tk::parsers::trace_dat::DescribeTraceDat(*in);
  }
  return 0;
}
