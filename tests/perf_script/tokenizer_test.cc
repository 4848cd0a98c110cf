// The framing: which lines are headers, frames, blanks, comments or strays.
#include "parsers/perf_script/tokenizer.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tk::parsers::perf_script {
namespace {

std::string Kinds(Input& in, uint64_t first_line = 1) {
  Tokenizer tok(in, first_line);
  Token t;
  std::string out;
  while (tok.Next(&t)) {
    const char* k = "HFBCS";
    out += k[static_cast<int>(t.kind)];
    out += std::to_string(t.line_no);
    out += ' ';
  }
  return out;
}

constexpr std::string_view kText =
    "# ========\n"
    "# cmdline : /usr/bin/perf record -g\n"
    "sh  9292   762.349906:     250000 cpu-clock:ppp: \n"
    "\t           1469e handle_amd+0x7e (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)\n"
    "\t               0 [unknown] ([unknown])\n"
    "\n"
    "java 19983 cycles:\n"
    "ffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])\n"
    "        7f7241239aec writeBytes (/opt/jdk/lib/libjava.so)\n"
    "dd 9615 [001] 3378.902792: block:block_bio_queue: 252,2 WS 488 + 8 [dd]\n"
    "dd 9615 [001] 3378.902798: block:block_bio_remap: 7,1 WS 2536 + 8 <- (252,2) 488\n"
    "   \n"
    "\t          401b94 main+0x1c (./inline-counter)\n";

TEST(Tokenizer, Kinds) {
  auto in = Input::FromString(kText);
  EXPECT_EQ(Kinds(*in), "C1 C2 H3 F4 F5 B6 H7 F8 F9 H10 H11 B12 S13 ");
}

TEST(Tokenizer, StreamedInSmallChunksIsTheSame) {
  for (size_t chunk : {1, 3, 7, 64}) {
    auto in = Input::StreamFromString(kText, chunk);
    EXPECT_EQ(Kinds(*in), "C1 C2 H3 F4 F5 B6 H7 F8 F9 H10 H11 B12 S13 ") << chunk;
  }
}

TEST(Tokenizer, CrlfAndFirstLine) {
  std::string crlf = "a 1 [000] 1.0: cycles:\r\n\tffff foo ([k])\r\n\r\n";
  auto in = Input::FromString(crlf);
  EXPECT_EQ(Kinds(*in, 100), "H100 F101 B102 ");
}

TEST(Tokenizer, HeadersWithoutBlankLines) {
  // perf script -F ...,ip,sym without -g: every event is one line.
  std::string text =
      "           false 39654 19115.489713:          1 cycles:u:  ffffffff9b201293 [unknown] "
      "([unknown])\n"
      "           false 39654 19115.489719:          1 cycles:      7fa68b1f2d84 _dl_start+0x4 "
      "(/usr/lib/ld-2.31.so)\n";
  auto in = Input::FromString(text);
  EXPECT_EQ(Kinds(*in), "H1 H2 ");
}

}  // namespace
}  // namespace tk::parsers::perf_script
