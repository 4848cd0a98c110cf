// The reading side of the trace.dat reader: each CPU's page stream (cpu_stream.h) merged by
// timestamp (lowest first, ties to the lower CPU, as tracecmd_iterate_events picks) into
// batches of copied records. Copies let the merge run ahead on a thread of its own while the
// caller's thread decodes and analyses earlier batches (core/batch_pipe.h); with one thread
// the same batches are filled and consumed in turn, so the records, and everything decoded
// from them, are the same for any number of threads.
//
// A record that tracefs' stacktrace option (or a stacktrace trigger) followed with a
// kernel_stack record on its CPU carries that record too (MergedRecord::stack): the decoder
// uses it as the record's stack or drops it (a kernel_stack record alone produces nothing).
// A kernel_stack record on a page that lost events before it is not attached: it goes
// through the merge as a record of its own, so the lost events are reported.
#ifndef TK_PARSERS_TRACE_DAT_RECORD_MERGE_H_
#define TK_PARSERS_TRACE_DAT_RECORD_MERGE_H_

#include <cstdint>
#include <memory>
#include <queue>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/input.h"
#include "parsers/trace_dat/cpu_stream.h"
#include "parsers/trace_dat/kernel_stack.h"
#include "parsers/trace_dat/trace_dat_file.h"

namespace tk::parsers::trace_dat {

struct MergedRecord {
  uint64_t ts = 0;           // raw ring-buffer clock
  int64_t missed = 0;        // events lost right before it (CpuStream::missed)
  uint64_t page_offset = 0;  // file offset of its page, for messages
  int32_t cpu = -1;
  uint32_t stream = 0;       // its CPU's index in the top buffer
  uint32_t off = 0, len = 0;              // the record in RecordBatch::bytes
  uint32_t stack_off = 0, stack_len = 0;  // the kernel_stack record after it
  bool has_stack = false;
};

struct RecordBatch {
  std::vector<MergedRecord> records;
  std::string bytes;
  std::string_view Raw(const MergedRecord& r) const { return {bytes.data() + r.off, r.len}; }
  std::string_view Stack(const MergedRecord& r) const {
    return {bytes.data() + r.stack_off, r.stack_len};
  }
};

class RecordMerger {
 public:
  // `stacks` (must outlive this): kernel_stack records are attached when it is available().
  RecordMerger(Input& in, const TraceDatFile& f, std::string_view data, const Buffer& top,
               const KernelStacks& stacks);

  // Fills `b` (emptied first) with the next records in time order; false when none is left.
  bool Fill(RecordBatch* b);

  // The streams, for their end-of-data reports (after the last Fill).
  size_t streams() const { return cpus_.size(); }
  const CpuStream& stream(size_t i) const { return *cpus_[i]; }

 private:
  static constexpr size_t kBatchRecords = 4096;
  // The mapped file behind every stream's current page is done with (pages are copied out
  // first): let go per 8 MiB, so resident memory does not grow with the file, and the bytes
  // read so far are the progress line's position.
  static constexpr uint64_t kReleaseEvery = 1 << 14;  // records between checks
  static constexpr uint64_t kReleaseBatch = 8 << 20;
  void ReleaseRead();
  uint32_t Append(RecordBatch* b, std::string_view raw);

  Input& in_;
  const KernelStacks& stacks_;
  std::vector<std::unique_ptr<CpuStream>> cpus_;
  std::vector<uint64_t> start_;     // per stream: file offset of its data
  std::vector<uint64_t> released_;  // per stream: file offset released up to
  uint64_t records_ = 0;
  // Min-heap of (timestamp, stream index).
  using Item = std::pair<uint64_t, size_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap_;
};

}  // namespace tk::parsers::trace_dat

#endif  // TK_PARSERS_TRACE_DAT_RECORD_MERGE_H_
