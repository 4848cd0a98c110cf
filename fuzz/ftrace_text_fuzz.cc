// libFuzzer target for the ftrace text reader and the tracepoint text decoder (tp_text), with
// tk script's text and JSON writers on top: any input ends in events or a clean Status — no
// crash, hang or out-of-bounds read. Two ways in, chosen by the first byte:
//   even: the input is an ftrace / trace-cmd report text file, printed by tk script as text
//         (mapped input) and as JSON (a stream in small chunks: lines straddle reads);
//   odd:  byte 1 picks a known event name, the rest is that event's text, decoded directly
//         (reaches the sched/block/plugin/raw forms without a valid line header).
// Seeds: fuzz/corpus/ftrace_text/ (real lines of every form).
//
//   CC=clang CXX=clang++ cmake -S . -B build-fuzz -DTK_FUZZ=ON -DTK_TESTS=OFF -DTK_BENCH=OFF
//   cmake --build build-fuzz --target ftrace_text_fuzz
//   build-fuzz/fuzz/ftrace_text_fuzz -max_total_time=30 fuzz/corpus/ftrace_text
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <sstream>
#include <streambuf>
#include <string_view>

#include "analyses/script/script.h"
#include "core/input.h"
#include "parsers/ftrace_text/ftrace_text_parser.h"
#include "parsers/tp_text/tp_text.h"

namespace {

constexpr std::string_view kNames[] = {
    "sched_switch",        "sched_wakeup",       "sched_waking",       "sched_wakeup_new",
    "sched_migrate_task",  "sched_stat_runtime", "sched_stat_iowait",  "sched_process_fork",
    "sched_process_exit",  "block_bio_queue",    "block_rq_issue",     "block_rq_complete",
    "block_bio_remap",     "block_rq_remap",     "block_split",        "block_plug",
    "block_unplug",        "block_dirty_buffer", "block_bio_complete", "cpu_idle",
    "my_event",            "block:block_rq_insert",
};

class NullBuf : public std::streambuf {
 protected:
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
  int overflow(int c) override { return c; }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  NullBuf nb;
  std::ostream out(&nb);
  if (data[0] & 1) {
    tk::parsers::tp_text::TracepointTextDecoder d;
    tk::Event e;
    std::string_view name = kNames[static_cast<uint8_t>(in[0]) % std::size(kNames)];
    d.Decode(name, in.substr(1), e);
    tk::analyses::script::ScriptSink json({true, 9, false}, out);
    (void)json.OnEvent(e);
    tk::analyses::script::ScriptSink text({false, 6, false}, out);
    (void)text.OnEvent(e);
    (void)json.Finish();
    (void)text.Finish();
    return 0;
  }
  for (bool json : {false, true}) {
    // Text over the mapped input; JSON over a stream whose small reads split lines (small
    // inputs only: LineReader grows its buffer by 1 MiB per read, too slow for fuzzing).
    auto input = !json               ? tk::Input::FromString(in)
                 : in.size() <= 512  ? tk::Input::StreamFromString(in, 1 + data[0] % 61)
                                     : tk::Input::StreamFromString(in, 65536);
    std::ostringstream err;
    tk::Diagnostics diag("<fuzz>", &err);
    tk::analyses::script::Options opts;
    opts.json = json;
    tk::analyses::script::ScriptSink sink(opts, out);
    (void)tk::parsers::ftrace_text::NewFtraceTextParser({})->Parse(*input, sink, diag);
  }
  return 0;
}
