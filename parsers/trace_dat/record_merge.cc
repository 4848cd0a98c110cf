#include "parsers/trace_dat/record_merge.h"

#include "core/run_settings.h"

namespace tk::parsers::trace_dat {

RecordMerger::RecordMerger(Input& in, const TraceDatFile& f, std::string_view data,
                           const Buffer& top, const KernelStacks& stacks)
    : in_(in), stacks_(stacks) {
  for (const CpuData& c : top.cpus) {
    cpus_.push_back(std::make_unique<CpuStream>(data, c, top.page_size, top.compressed,
                                                f.big_endian, f.events->kernel_long_size()));
    start_.push_back(c.offset);
    released_.push_back(c.offset);
  }
  for (size_t i = 0; i < cpus_.size(); ++i) {
    if (cpus_[i]->Next()) heap_.emplace(cpus_[i]->ts(), i);
  }
}

uint32_t RecordMerger::Append(RecordBatch* b, std::string_view raw) {
  uint32_t at = static_cast<uint32_t>(b->bytes.size());
  b->bytes.append(raw);
  return at;
}

bool RecordMerger::Fill(RecordBatch* b) {
  b->records.clear();
  b->bytes.clear();
  while (!heap_.empty() && b->records.size() < kBatchRecords) {
    const size_t i = heap_.top().second;
    heap_.pop();
    CpuStream& s = *cpus_[i];
    MergedRecord r;
    r.ts = s.ts();
    r.missed = s.missed();
    r.page_offset = s.page_offset();
    r.cpu = s.cpu();
    r.stream = static_cast<uint32_t>(i);
    r.len = static_cast<uint32_t>(s.raw().size());
    r.off = Append(b, s.raw());
    bool more = s.Next();
    if (more && stacks_.available() && s.missed() == 0 && stacks_.Is(s.raw())) {
      r.has_stack = true;
      r.stack_len = static_cast<uint32_t>(s.raw().size());
      r.stack_off = Append(b, s.raw());
      more = s.Next();
    }
    b->records.push_back(r);
    if (more) heap_.emplace(s.ts(), i);
    if (++records_ % kReleaseEvery == 0) ReleaseRead();
  }
  return !b->records.empty();
}

void RecordMerger::ReleaseRead() {
  uint64_t done = 0;
  for (size_t i = 0; i < cpus_.size(); ++i) {
    uint64_t at = cpus_[i]->page_offset();
    if (at >= released_[i] + kReleaseBatch) {
      in_.ReleaseRange(released_[i], at);
      released_[i] = at;
    }
    done += released_[i] - start_[i];
  }
  SetProgress(done);
}

}  // namespace tk::parsers::trace_dat
