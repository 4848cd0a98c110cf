// trace-cmd's compressed blocks: {u32 csize, u32 usize} followed by csize bytes holding one
// zstd frame (ZSTD_compress2 per block). Used by v7 metadata sections and, per chunk, by the
// compressed CPU data.
#ifndef TK_PARSERS_TRACE_DAT_ZSTD_BLOCK_H_
#define TK_PARSERS_TRACE_DAT_ZSTD_BLOCK_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace tk::parsers::trace_dat {

// No block inflates beyond this (trace-cmd's chunks are ~10 pages; sections a few MB): a
// corrupt usize must not drive a giant allocation.
inline constexpr uint32_t kMaxBlockSize = 256u << 20;

// Decompresses `src` (one or more zstd frames) into `out`, which must come out exactly
// `usize` bytes. Errors name no offset (callers add it).
absl::Status ZstdDecompress(std::string_view src, uint32_t usize, std::string* out);

}  // namespace tk::parsers::trace_dat

#endif  // TK_PARSERS_TRACE_DAT_ZSTD_BLOCK_H_
