// One CPU's ring-buffer pages of a trace.dat, as a stream of (timestamp, raw record).
//
// A page (the kernel's buffer_data_page; header format in the file's header_page):
//   u64 timestamp            time of the page's first event
//   long commit              bytes of event data; bit 31 MISSING_EVENTS (events were lost
//                            before this page), bit 30 MISSING_STORED (their count follows the
//                            data as a long); bits 0-26 the size
//   events ...               {u32 type_len:5, time_delta:27; ...}
//     type_len 1-28   data of type_len*4 bytes follows
//     type_len 0      u32 length+4, then the data (big events)
//     29 PADDING      u32 length of the padding
//     30 TIME_EXTEND  u32 upper bits of the delta (delta = upper << 27 | time_delta)
//     31 TIME_STAMP   absolute timestamp, same encoding
//
// libtraceevent's kbuffer decodes pages but trusts them: a zero or negative length makes it
// loop forever or read past the page. So each page is first walked here with bounds checks
// (CheckPage); a bad page is cut at its first bad record (its commit rewritten in a private,
// zero-padded copy) and counted, and only then handed to kbuffer.
#ifndef TK_PARSERS_TRACE_DAT_CPU_STREAM_H_
#define TK_PARSERS_TRACE_DAT_CPU_STREAM_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "core/byte_reader.h"
#include "parsers/trace_dat/trace_dat_file.h"

struct kbuffer;

namespace tk::parsers::trace_dat {

struct PageCheck {
  uint32_t commit = 0;     // data bytes claimed by the header (flags removed)
  uint32_t valid = 0;      // data bytes that walk cleanly (== commit when the page is good)
  int64_t missed = 0;      // 0 none, N lost events, -1 lost but count not stored
  std::string problem;     // why valid < commit
};

// Walks one page (`page` is exactly one page) without trusting any length in it.
PageCheck CheckPage(std::string_view page, bool big_endian, int long_size);

class CpuStream {
 public:
  // `file` is the whole mapped trace.dat; `long_size` the kernel long (header_page commit).
  CpuStream(std::string_view file, const CpuData& cpu, uint32_t page_size, bool compressed,
            bool big_endian, int long_size);
  ~CpuStream();
  CpuStream(const CpuStream&) = delete;
  CpuStream& operator=(const CpuStream&) = delete;

  // Advances to the next event. False at the end of the data or at an error (status()).
  bool Next();

  int cpu() const { return cpu_.cpu; }
  uint64_t ts() const { return ts_; }                 // raw ring-buffer clock
  std::string_view raw() const { return raw_; }       // the record: common_type first
  // Events lost right before this one (page MISSING_EVENTS): N, -1 = unknown count, 0 none.
  int64_t missed() const { return missed_; }
  // File offset of the current page (of its zstd chunk when compressed), for messages.
  uint64_t page_offset() const { return page_file_off_; }
  // Pages cut short by CheckPage, and the first reason.
  uint64_t bad_pages() const { return bad_pages_; }
  uint64_t first_bad_page_offset() const { return first_bad_off_; }
  const std::string& first_bad_page_problem() const { return first_bad_problem_; }
  // Non-OK when the data ended early (truncated file, corrupt chunk): "offset N: what".
  const absl::Status& status() const { return status_; }
  uint64_t pages_read() const { return pages_read_; }
  // Missed events flagged on pages after the last event (no event to attach them to).
  int64_t trailing_missed() const { return done_ ? pending_missed_ : 0; }

 private:
  bool LoadNextPage();
  bool NextChunk();
  void Fail(uint64_t offset, std::string what);

  std::string_view file_;
  CpuData cpu_;
  uint32_t page_size_;
  bool compressed_;
  bool big_endian_;
  int long_size_;
  struct kbuffer* kbuf_ = nullptr;

  // The bytes pages are cut from: the file itself, or the current inflated chunk.
  std::string_view pages_;
  size_t page_pos_ = 0;
  uint64_t pages_file_off_ = 0;  // file offset of pages_[0] (uncompressed) or of the chunk
  std::string chunk_;
  uint32_t chunks_left_ = 0;
  uint64_t chunk_cursor_ = 0;    // file offset of the next chunk header
  uint64_t cpu_end_ = 0;         // file offset where this CPU's data ends

  std::string page_;  // private copy of the current page, zero-padded
  bool page_loaded_ = false;
  bool first_in_page_ = false;
  int64_t pending_missed_ = 0;
  uint64_t page_file_off_ = 0;

  uint64_t ts_ = 0;
  std::string_view raw_;
  int64_t missed_ = 0;
  uint64_t bad_pages_ = 0;
  uint64_t first_bad_off_ = 0;
  std::string first_bad_problem_;
  uint64_t pages_read_ = 0;
  absl::Status status_;
  bool done_ = false;
};

}  // namespace tk::parsers::trace_dat

#endif  // TK_PARSERS_TRACE_DAT_CPU_STREAM_H_
