// Input bytes: a memory-mapped file, or a stream (stdin, pipes) read in chunks.
//
// Formats that need random access (perf.data file mode, trace.dat) call EnsureMapped(), which
// spools a stream into an unlinked temporary file and maps it: memory stays flat either way.
// Streamed formats (text, perf.data pipe mode) call Read() and never hold the whole input.
#ifndef TK_CORE_INPUT_H_
#define TK_CORE_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tk {

// Drops this process's whole pages inside [begin, end) of a private read-only file mapping
// (MADV_DONTNEED: they are read back from the page cache if touched again). Returns the end of
// the last page dropped, `begin` rounded up to a page when none was.
const char* ReleasePages(const char* begin, const char* end);

class Input {
 public:
  // "-" is stdin. Regular files are mmapped; anything else is streamed. A directory is an
  // error (the CLI's exit 2, as every I/O error).
  static absl::StatusOr<std::unique_ptr<Input>> Open(const std::string& path);
  // For tests and fuzzers: an in-memory input (not copied; `data` must outlive the Input).
  static std::unique_ptr<Input> FromString(std::string_view data, std::string name = "<mem>");
  // For tests: a stream over `data` that hands out at most `chunk` bytes per Read, to exercise
  // records and lines straddling chunk boundaries.
  static std::unique_ptr<Input> StreamFromString(std::string_view data, size_t chunk,
                                                 std::string name = "<stream>");

  ~Input();
  Input(const Input&) = delete;
  Input& operator=(const Input&) = delete;

  // The name used in messages: the path, or "<stdin>".
  const std::string& name() const { return name_; }

  // Up to `n` first bytes without consuming them (for format detection).
  absl::StatusOr<std::string_view> Peek(size_t n = 4096);

  // The whole input when it is mapped (or in memory); nullopt for streams.
  std::optional<std::string_view> mapped() const;

  // The mapping is a read-only private file mapping (a regular file, or a spooled stream):
  // pages may be dropped from the process and are read back from the page cache.
  bool file_mapped() const { return munmap_ && map_ != nullptr; }

  // Makes the input mapped, spooling a stream into a temporary file first. Idempotent.
  absl::Status EnsureMapped();

  // Streaming read (works for mapped inputs too): copies up to `n` bytes into `buf`, returns
  // the count; 0 means end of input. Peeked bytes are returned first.
  absl::StatusOr<size_t> Read(char* buf, size_t n);

  // Drops this process's pages of a mapped file below `offset` (a parser is done with them),
  // so resident memory stays flat however large the file: a private read-only file mapping
  // reads them back from the page cache if they are touched again. Batched per 8 MiB; a no-op
  // for memory not mapped from a file.
  void ReleaseBelow(uint64_t offset);
  // The same for [begin, end) (whole pages inside it), unbatched: for readers that walk
  // several regions at once (trace.dat's per-CPU streams).
  void ReleaseRange(uint64_t begin, uint64_t end);

  // Bytes handed out by Read so far (the stream offset, for error messages).
  uint64_t offset() const { return offset_; }

 private:
  Input() = default;
  absl::StatusOr<size_t> RawRead(char* buf, size_t n);

  std::string name_;
  int fd_ = -1;
  bool owns_fd_ = false;
  // Mapped view (mmap'd or borrowed memory).
  const char* map_ = nullptr;
  size_t map_size_ = 0;
  bool munmap_ = false;
  uint64_t released_ = 0;  // ReleaseBelow's progress
  // Stream state.
  std::string peeked_;
  size_t peek_pos_ = 0;
  std::string_view mem_stream_;  // StreamFromString
  size_t chunk_ = 0;
  bool is_mem_stream_ = false;
  uint64_t offset_ = 0;
};

}  // namespace tk

#endif  // TK_CORE_INPUT_H_
