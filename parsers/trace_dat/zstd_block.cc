#include "parsers/trace_dat/zstd_block.h"

#include <zstd.h>

#include <memory>

#include "absl/strings/str_cat.h"

namespace tk::parsers::trace_dat {

absl::Status ZstdDecompress(std::string_view src, uint32_t usize, std::string* out) {
  if (usize > kMaxBlockSize) {
    return absl::InvalidArgumentError(absl::StrCat("compressed block claims ", usize, " bytes"));
  }
  // One context per thread, reused: creating one costs more than a small chunk's inflate.
  struct Free {
    void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
  };
  thread_local std::unique_ptr<ZSTD_DCtx, Free> dctx(ZSTD_createDCtx());
  out->resize(usize);
  size_t n = ZSTD_decompressDCtx(dctx.get(), out->data(), out->size(), src.data(), src.size());
  if (ZSTD_isError(n)) {
    return absl::InvalidArgumentError(
        absl::StrCat("zstd: ", ZSTD_getErrorName(n)));
  }
  if (n != usize) {
    return absl::InvalidArgumentError(
        absl::StrCat("zstd block inflates to ", n, " bytes, header says ", usize));
  }
  return absl::OkStatus();
}

}  // namespace tk::parsers::trace_dat
