// Framing: splits the data section (file mode) or the stream after the 16-byte pipe header
// into records, in file order. Handles what is framing rather than content:
//   - `perf record -z`: COMPRESSED (81) {hdr, zstd bytes} and COMPRESSED2 (83) {hdr, u64
//     data_size, zstd bytes, padding} go through one persistent zstd stream; the records
//     inside are returned in turn, and a record cut at the end of one COMPRESSED record is
//     completed by the next;
//   - bytes that follow a record without being counted in its header.size: the tracing data
//     after a pipe-mode HEADER_TRACING_DATA (66) {hdr, u32 size, u32 pad}, the trace after
//     AUXTRACE (71) {hdr, u64 size, u64 offset, u64 reference, u32 idx, tid, cpu, pad};
//   - a file from a perf killed with -9 (data.size 0): records up to the last whole one.
// Time ordering is not done here (reorder_queue.h), nor decoding (decoder.h).
#ifndef TK_PARSERS_PERF_DATA_TOKENIZER_H_
#define TK_PARSERS_PERF_DATA_TOKENIZER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "core/input.h"
#include "parsers/perf_data/metadata.h"

namespace tk::parsers::perf_data {

struct RawRecord {
  uint32_t type = 0;
  uint16_t misc = 0;
  uint16_t size = 0;
  std::string_view bytes;  // the whole record, header included
  std::string_view extra;  // uncounted bytes after it (HEADER_TRACING_DATA payload)
  uint64_t offset = 0;     // where it is in the input (for compressed records: the COMPRESSED one's)
  bool stable = false;     // `bytes` stays valid after the next call (a mapped, uncompressed file)
  bool compressed = false; // came out of a COMPRESSED record
};

class Tokenizer {
 public:
  // File mode over the mapped data section, which starts at `base_offset` in the file.
  Tokenizer(std::string_view data, uint64_t base_offset, bool swap, bool truncated);
  // Pipe mode: reads `in` after the 16-byte header has been consumed; holds at most one
  // record (plus a read chunk) at a time.
  Tokenizer(Input& in, bool swap);
  ~Tokenizer();

  // The next record; false at the end of the data. Views are valid until the next call
  // unless `stable`. Errors (a record header that cannot be framed) carry "offset N: ".
  absl::StatusOr<bool> Next(RawRecord* rec);

  // Set when the data ended inside a record (killed perf, cut pipe): where the last whole
  // record ended.
  bool ended_early() const { return ended_early_; }
  uint64_t end_offset() const { return end_offset_; }
  uint64_t compressed_records() const { return compressed_records_; }
  uint64_t decompressed_bytes() const { return decompressed_bytes_; }

 private:
  struct Zstd;
  absl::StatusOr<bool> NextOuter(RawRecord* rec);
  absl::StatusOr<bool> NextFromDecompressed(RawRecord* rec);
  absl::Status Decompress(const RawRecord& rec);
  // Pipe mode: makes at least `n` unread bytes available in buf_; false at EOF.
  absl::StatusOr<bool> Fill(size_t n);
  absl::Status SkipStream(uint64_t n);

  bool swap_;
  bool truncated_ = false;
  // File mode.
  std::string_view data_;
  uint64_t base_ = 0;
  size_t pos_ = 0;
  // Pipe mode.
  Input* in_ = nullptr;
  std::string buf_;
  size_t buf_pos_ = 0;
  uint64_t stream_off_ = 16;  // offset of buf_[buf_pos_] in the input
  bool eof_ = false;
  std::string extra_;
  // Compression.
  std::unique_ptr<Zstd> zstd_;
  std::string dbuf_;
  size_t dpos_ = 0;
  uint64_t doffset_ = 0;
  uint64_t compressed_records_ = 0;
  uint64_t decompressed_bytes_ = 0;
  bool ended_early_ = false;
  uint64_t end_offset_ = 0;
};

}  // namespace tk::parsers::perf_data

#endif  // TK_PARSERS_PERF_DATA_TOKENIZER_H_
