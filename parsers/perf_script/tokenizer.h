// Framing of `perf script` text: which lines start an event, which are its stack frames.
//
//   swapper     0 [000]   267.436250:      50000 cpu-clock:pppH:      <- header
//   	ffffffff821f2c2b pv_native_safe_halt+0xb ([kernel.kallsyms])   <- frame (leaf first)
//   	ffffffff81e8c9e5 default_idle+0x5 ([kernel.kallsyms])          <- frame
//                                                                    <- blank: event ends
//   dd 9615 [001] 3378.902792: block:block_bio_queue: 252,2 WS 488 + 8 [dd]   <- header, and
//   dd 9615 [001] 3378.902798: block:block_bio_remap: 7,1 WS 2536 + 8 <- (252,2) 488  <- no
//                                                          blank line between stack-less events
//
// The blank line may be missing (stack-less tracepoints, one-frame stacks printed on the header
// line with -F ip,sym, truncated files): inside an event a line that parses as a header starts
// the next event; other lines are frames (old perf indents them with spaces or not at all:
// "ffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])"). Lines starting with '#' are
// perf's --header comments. Zero-copy over mapped inputs (views into the mapping).
#ifndef TK_PARSERS_PERF_SCRIPT_TOKENIZER_H_
#define TK_PARSERS_PERF_SCRIPT_TOKENIZER_H_

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"
#include "core/input.h"
#include "core/line_reader.h"
#include "parsers/perf_script/header.h"

namespace tk::parsers::perf_script {

enum class LineKind : uint8_t {
  kHeader,   // starts an event
  kFrame,    // a line inside an event (the decoder checks it is a frame)
  kBlank,    // ends the event
  kComment,  // "# ========", "# cmdline : ..."
  kStray,    // neither header nor inside an event: malformed
};

struct Token {
  LineKind kind = LineKind::kBlank;
  std::string_view line;  // without "\n" / "\r\n"; valid until the next Next()
  uint64_t line_no = 0;   // 1-based, counted from PerfScriptOptions::first_line
  Header header;          // kHeader: the parsed line (views into `line`), parsed once
};

class Tokenizer {
 public:
  // `first_line` is the number of the input's first line (parts of a split file).
  explicit Tokenizer(Input& in, uint64_t first_line = 1);

  // The next classified line; false at the end of input or on a read error (see status()).
  bool Next(Token* t);
  const absl::Status& status() const { return lines_.status(); }
  // After a header: the bytes that follow its line (see LineReader::unread).
  std::string_view unread() const { return lines_.unread(); }
  // Consumes the first `bytes` of unread(): `lines` lines of the event, its blank line last
  // (so the event has ended).
  void SkipEventEnd(size_t bytes, uint64_t lines) {
    lines_.Skip(bytes, lines);
    in_event_ = false;
  }
  // Consumes the first `bytes` of unread(): `lines` lines that Next() would have called
  // kFrame (the event goes on).
  void SkipFrames(size_t bytes, uint64_t lines) { lines_.Skip(bytes, lines); }

 private:
  LineReader lines_;
  HeaderParser headers_;
  uint64_t line_offset_;
  bool in_event_ = false;
};

}  // namespace tk::parsers::perf_script

#endif  // TK_PARSERS_PERF_SCRIPT_TOKENIZER_H_
