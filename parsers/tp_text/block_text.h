// block:* tracepoint text → BlockRq. Pure functions; views in the result borrow `text`.
#ifndef TK_PARSERS_TP_TEXT_BLOCK_TEXT_H_
#define TK_PARSERS_TP_TEXT_BLOCK_TEXT_H_

#include <optional>
#include <string_view>

#include "core/event.h"

namespace tk::parsers::tp_text {

// Parses the text of the block event for `stage` (every kernel's format, see block_text.cc).
// nullopt when it does not parse.
std::optional<BlockRq> ParseBlock(BlockStage stage, std::string_view text);

// The 6.11+ ioprio triple "be,0,4" (kernel) or "0x2,0,4" (libtraceevent cannot resolve the
// IOPRIO_CLASS_* names) → the kernel's u16 (class << 13 | hint << 3 | level).
std::optional<int32_t> ParseIoprio(std::string_view s);

}  // namespace tk::parsers::tp_text

#endif  // TK_PARSERS_TP_TEXT_BLOCK_TEXT_H_
