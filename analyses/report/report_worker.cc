// ReportSink's accumulation on a second thread (ReportOptions::threads >= 2).
//
// perf.data's decoding thread decodes and symbolizes; the entry lookups of a sample (a hash
// probe per frame, the entries made) are a quarter of its time. With a worker, OnEvent only
// copies what Accumulate reads (comm's view, tid, cpu, period, stack_id and the frames, whose
// views stay valid: Event::stable_views) into a batch, and the worker adds the batches in
// order, so the tables are those one thread makes. The calling thread keeps what the output
// needs besides the tables (thread comms, lost samples, the table list; tables are made there
// and never move), the worker everything Accumulate touches. A sample without stable views
// (text inputs) waits for the worker's queue to empty and is added on the calling thread.
// BatchPipe bounds the queue: at most 4 batches wait, so memory stays bounded.
#include "analyses/report/report.h"

namespace tk::analyses::report {
namespace {

constexpr size_t kBatchSamples = 2048;

}  // namespace

void ReportSink::Send(Table& t, const Event& e) {
  if (!pipe_) {
    pipe_ = std::make_unique<BatchPipe<Batch>>();
    worker_ = std::thread([this] { WorkerLoop(); });
  }
  if (!batch_) {
    batch_ = pipe_->Get();
    batch_->samples.clear();
    batch_->frames.clear();
  }
  Batch& b = *batch_;
  b.samples.push_back(QueuedSample{&t, e.comm, e.tid, e.cpu, e.period, e.stack_id, e.has_period,
                                   static_cast<uint32_t>(b.frames.size()),
                                   static_cast<uint32_t>(e.stack.size()),
                                   static_cast<uint32_t>(e.dropped_stack_ip.size())});
  b.frames.insert(b.frames.end(), e.stack.begin(), e.stack.end());
  if (!e.dropped_stack_ip.empty())  // rare: a second insert's cost on every sample otherwise
    b.frames.insert(b.frames.end(), e.dropped_stack_ip.begin(), e.dropped_stack_ip.end());
  if (b.samples.size() >= kBatchSamples) pipe_->Put(std::move(batch_));
}

void ReportSink::WorkerLoop() {
  Event e;
  e.stable_views = true;
  e.body = tk::Sample{};
  while (std::unique_ptr<Batch> b = pipe_->Take()) {
    for (const QueuedSample& q : b->samples) {
      e.comm = q.comm;
      e.pid = e.tid = q.tid;
      e.cpu = q.cpu;
      e.period = q.period;
      e.has_period = q.has_period;
      e.stack_id = q.stack_id;
      const Frame* f = b->frames.data() + q.frames;
      e.stack = absl::MakeConstSpan(f, q.stack_n);
      e.dropped_stack_ip = absl::MakeConstSpan(f + q.stack_n, q.dropped_n);
      Accumulate(*q.table, e);
    }
    pipe_->Done(std::move(b));
  }
}

void ReportSink::Drain() {
  if (batch_) pipe_->Put(std::move(batch_));
  pipe_->Barrier();
}

void ReportSink::StopWorker() {
  if (!pipe_) return;
  if (batch_) pipe_->Put(std::move(batch_));
  pipe_->Close();
  worker_.join();
  pipe_.reset();
}

absl::Status ReportSink::Finish() {
  StopWorker();
  return absl::OkStatus();
}

}  // namespace tk::analyses::report
