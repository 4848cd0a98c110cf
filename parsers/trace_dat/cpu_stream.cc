#include "parsers/trace_dat/cpu_stream.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/diag.h"
#include "parsers/trace_dat/zstd_block.h"

extern "C" {
#include <traceevent/kbuffer.h>
}

namespace tk::parsers::trace_dat {
namespace {

constexpr uint64_t kMissingEvents = uint64_t{1} << 31;
constexpr uint64_t kMissingStored = uint64_t{1} << 30;
constexpr uint64_t kCommitMask = (uint64_t{1} << 27) - 1;
constexpr uint32_t kPadding = 29, kTimeExtend = 30, kTimeStamp = 31;
constexpr size_t kPageSlack = 16;  // zeroed bytes after the page copy

}  // namespace

PageCheck CheckPage(std::string_view page, bool big_endian, int long_size) {
  PageCheck c;
  const size_t hdr = 8 + long_size;
  if (page.size() < hdr) {
    c.problem = "page smaller than its header";
    return c;
  }
  const bool swap = NeedsSwap(big_endian);
  const uint64_t flags = LoadUnsigned(page.data() + 8, long_size, swap);
  const size_t cap = page.size() - hdr;
  c.commit = static_cast<uint32_t>(flags & kCommitMask);
  const char* d = page.data() + hdr;
  if (flags & kMissingEvents) {
    c.missed = -1;
    if ((flags & kMissingStored) && c.commit + long_size <= cap) {
      c.missed = static_cast<int64_t>(LoadUnsigned(d + c.commit, long_size, swap));
      if (c.missed <= 0) c.missed = -1;
    }
  }
  size_t end = c.commit;
  if (end > cap) {
    c.problem = absl::StrCat("commit ", c.commit, " exceeds the page's ", cap, " data bytes");
    end = cap;
  }
  size_t pos = 0;
  while (pos < end) {
    if (pos + 4 > end) {
      c.problem = absl::StrCat("record header at data offset ", pos, " crosses the commit");
      break;
    }
    const uint32_t w = static_cast<uint32_t>(LoadUnsigned(d + pos, 4, swap));
    const uint32_t type_len = big_endian ? w >> 27 : w & 31;
    size_t next = 0;
    if (type_len >= 1 && type_len <= 28) {
      next = pos + 4 + 4 * type_len;
    } else {
      if (pos + 8 > end) {
        c.problem = absl::StrCat("record at data offset ", pos, " crosses the commit");
        break;
      }
      const uint32_t arg = static_cast<uint32_t>(LoadUnsigned(d + pos + 4, 4, swap));
      if (type_len == kTimeExtend || type_len == kTimeStamp) {
        next = pos + 8;
      } else if (type_len == kPadding) {
        if (arg > cap) {
          c.problem = absl::StrCat("padding of ", arg, " bytes at data offset ", pos);
          break;
        }
        next = pos + 4 + arg;
        if (next >= end) break;  // padding to the end of the data: done
      } else {  // type_len 0: {u32 length + 4} then the data, 4-aligned
        if (arg < 4 || arg > cap) {
          c.problem = absl::StrCat("record length ", arg, " at data offset ", pos);
          break;
        }
        next = pos + 8 + ((arg - 4 + 3) & ~size_t{3});
      }
    }
    if (next > end) {
      c.problem = absl::StrCat("record at data offset ", pos, " runs past the commit");
      break;
    }
    pos = next;
  }
  c.valid = static_cast<uint32_t>(c.problem.empty() ? end : pos);
  return c;
}

CpuStream::CpuStream(std::string_view file, const CpuData& cpu, uint32_t page_size,
                     bool compressed, bool big_endian, int long_size)
    : file_(file),
      cpu_(cpu),
      page_size_(page_size),
      compressed_(compressed),
      big_endian_(big_endian),
      long_size_(long_size) {
  kbuf_ = kbuffer_alloc(long_size == 4 ? KBUFFER_LSIZE_4 : KBUFFER_LSIZE_8,
                        big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
  cpu_end_ = cpu.offset + cpu.size;
  if (cpu_end_ < cpu.offset) cpu_end_ = UINT64_MAX;  // overflowing size: truncated below
  if (compressed_) {
    chunk_cursor_ = cpu.offset;
    if (cpu.size == 0) return;
    if (cpu.offset + 4 > file.size()) {
      Fail(cpu.offset, absl::StrCat("CPU ", cpu.cpu, " data is missing (file truncated)"));
      return;
    }
    chunks_left_ =
        static_cast<uint32_t>(LoadUnsigned(file.data() + cpu.offset, 4, NeedsSwap(big_endian)));
    chunk_cursor_ = cpu.offset + 4;
  } else {
    uint64_t start = std::min<uint64_t>(cpu.offset, file.size());
    uint64_t end = std::min<uint64_t>(cpu_end_, file.size());
    pages_ = file.substr(start, end - start);
    pages_file_off_ = start;
  }
}

CpuStream::~CpuStream() { kbuffer_free(kbuf_); }

void CpuStream::Fail(uint64_t offset, std::string what) {
  if (status_.ok()) status_ = ErrorAt(offset, what);
  done_ = true;
}

bool CpuStream::NextChunk() {
  if (chunks_left_ == 0) return false;
  const uint64_t at = chunk_cursor_;
  if (at + 8 > file_.size() || at + 8 > cpu_end_) {
    Fail(at, absl::StrCat("CPU ", cpu_.cpu, ": zstd chunk header truncated (", chunks_left_,
                          " chunks missing)"));
    return false;
  }
  const uint32_t csize =
      static_cast<uint32_t>(LoadUnsigned(file_.data() + at, 4, NeedsSwap(big_endian_)));
  const uint32_t usize =
      static_cast<uint32_t>(LoadUnsigned(file_.data() + at + 4, 4, NeedsSwap(big_endian_)));
  if (at + 8 + csize > file_.size()) {
    Fail(at, absl::StrCat("CPU ", cpu_.cpu, ": zstd chunk of ", csize,
                          " bytes truncated (file ends at ", file_.size(), ")"));
    return false;
  }
  absl::Status st = ZstdDecompress(file_.substr(at + 8, csize), usize, &chunk_);
  if (!st.ok()) {
    Fail(at, absl::StrCat("CPU ", cpu_.cpu, ": ", AV(SV(st.message()))));
    return false;
  }
  pages_ = chunk_;
  page_pos_ = 0;
  pages_file_off_ = at;
  chunk_cursor_ = at + 8 + csize;
  --chunks_left_;
  return true;
}

bool CpuStream::LoadNextPage() {
  for (;;) {
    if (page_size_ > 0 && page_pos_ + page_size_ <= pages_.size()) {
      page_file_off_ = compressed_ ? pages_file_off_ : pages_file_off_ + page_pos_;
      page_.assign(pages_.data() + page_pos_, page_size_);
      page_.append(kPageSlack, '\0');
      page_pos_ += page_size_;
      PageCheck c = CheckPage(std::string_view(page_.data(), page_size_), big_endian_,
                              long_size_);
      if (!c.problem.empty()) {
        if (bad_pages_++ == 0) {
          first_bad_off_ = page_file_off_;
          first_bad_problem_ = absl::StrCat("CPU ", cpu_.cpu, ": ", c.problem);
        }
      }
      if (c.missed != 0) {
        if (c.missed < 0) {
          if (pending_missed_ == 0) pending_missed_ = -1;
        } else {
          pending_missed_ = (pending_missed_ < 0 ? 0 : pending_missed_) + c.missed;
        }
      }
      // kbuffer sees only the part that walked cleanly, and no missed-event flags.
      char commit[8] = {};
      uint64_t v = c.valid;
      for (int i = 0; i < long_size_; ++i) {
        int shift = big_endian_ ? (long_size_ - 1 - i) * 8 : i * 8;
        commit[i] = static_cast<char>((v >> shift) & 0xff);
      }
      std::memcpy(page_.data() + 8, commit, long_size_);
      kbuffer_load_subbuffer(kbuf_, page_.data());
      page_loaded_ = true;
      first_in_page_ = true;
      ++pages_read_;
      return true;
    }
    const size_t left = pages_.size() - page_pos_;
    if (!compressed_) {
      if (pages_file_off_ + pages_.size() < cpu_end_) {
        uint64_t present = pages_file_off_ + pages_.size() - cpu_.offset;
        Fail(pages_file_off_ + page_pos_,
             absl::StrCat("CPU ", cpu_.cpu, " data truncated: ", present, " of ", cpu_.size,
                          " bytes present"));
      } else if (left > 0 && bad_pages_++ == 0) {
        first_bad_off_ = pages_file_off_ + page_pos_;
        first_bad_problem_ = absl::StrCat("CPU ", cpu_.cpu, ": partial page of ", left, " bytes");
      }
      return false;
    }
    if (left > 0 && bad_pages_++ == 0) {
      first_bad_off_ = pages_file_off_;
      first_bad_problem_ =
          absl::StrCat("CPU ", cpu_.cpu, ": zstd chunk ends with a partial page of ", left,
                       " bytes");
    }
    pages_ = {};
    page_pos_ = 0;
    if (!NextChunk()) return false;
  }
}

bool CpuStream::Next() {
  if (done_ || !kbuf_) return false;
  for (;;) {
    if (page_loaded_) {
      unsigned long long ts = 0;
      void* d = first_in_page_ ? kbuffer_read_event(kbuf_, &ts) : kbuffer_next_event(kbuf_, &ts);
      first_in_page_ = false;
      if (d) {
        int size = kbuffer_event_size(kbuf_);
        raw_ = std::string_view(static_cast<const char*>(d), size > 0 ? size : 0);
        ts_ = ts;
        missed_ = pending_missed_;
        pending_missed_ = 0;
        return true;
      }
      page_loaded_ = false;
    }
    if (!LoadNextPage()) {
      done_ = true;
      return false;
    }
  }
}

}  // namespace tk::parsers::trace_dat
