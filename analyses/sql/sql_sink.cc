#include "analyses/sql/sql_sink.h"

#include <sqlite3.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "analyses/fold/frame_name.h"
#include "core/absl_compat.h"

namespace tk::analyses::sql {
namespace {

constexpr const char* kKindNames[] = {
    "sample", "sched_switch", "sched_wakeup", "sched_migrate", "sched_stat", "sched_fork",
    "sched_exit", "block_rq", "comm", "fork", "exit", "lost", "generic", "irq", "softirq",
    "syscall", "page",
};
static_assert(std::size(kKindNames) == kNumEventKinds);

// Samples have a samples row; other events when recorded with a callchain (not for the
// one-frame IP stack perf.data gives events recorded without -g).
bool HasSamplesRow(const Event& e) { return e.kind() == EventKind::kSample || e.callchain; }

// An analysis' default options (its command's defaults) with one callback set: the rows it
// hands out. (A designated initializer would leave the other members uninitialized in
// -Wmissing-field-initializers' eyes.)
template <typename Options, typename Member, typename F>
Options With(Member Options::*member, F f) {
  Options o;
  o.*member = std::move(f);
  return o;
}

}  // namespace

SqlSink::SqlSink(sqlite3* db, std::map<std::string, std::string> meta)
    : db_(db),
      meta_(std::move(meta)),
      irq_(With(&irq::IrqOptions::on_interrupt,
                [this](const irq::Interrupt& i) { InsertIrq(i); }),
           null_out_),
      syscalls_(With(&syscalls::SyscallsOptions::on_call,
                     [this](const syscalls::CallRecord& c) { InsertCall(c); })),
      offcpu_(With(&offcpu::OffCpuOptions::on_interval,
                   [this](const offcpu::OffCpuInterval& iv) { InsertInterval(iv); })) {}

SqlSink::~SqlSink() = default;

absl::Status SqlSink::Begin(bool thread) {
  if (absl::Status st = Exec(db_, "BEGIN"); !st.ok()) return st;
  return loader_.Start(db_, TableDefs(), thread);
}

absl::StatusOr<int64_t> SqlSink::TypeId(const Event& e) {
  const int kind = static_cast<int>(e.kind());
  LastType& last = last_type_[kind];
  if (last.id > 0 && last.name == e.name) return last.id;
  type_key_.assign(1, static_cast<char>(kind));
  type_key_.append(e.name);
  auto [it, inserted] = type_ids_.try_emplace(type_key_, type_ids_.size() + 1);
  last.name.assign(e.name);
  last.id = it->second;
  if (inserted) {
    RowWriter& r = Row(kEventTypes);
    r.Int(it->second);
    r.Text(kKindNames[kind]);
    r.Text(e.name);
    if (absl::Status st = r.EndRow(); !st.ok()) return st;
  }
  return it->second;
}

absl::StatusOr<int64_t> SqlSink::FrameId(const Frame& f) {
  frame_key_.assign(f.symbol);
  frame_key_.push_back('\0');
  frame_key_.append(f.dso);
  auto [it, inserted] = frame_ids_.try_emplace(frame_key_, frame_ids_.size() + 1);
  if (!inserted) return it->second;
  frame_name_.clear();
  fold::AppendFrame(f, fold::FrameNameOptions(), &frame_name_);
  std::string_view name = frame_name_;
  if (!name.empty()) name.remove_prefix(1);  // AppendFrame writes ";NAME"
  RowWriter& r = Row(kFrames);
  r.Int(it->second);
  r.Text(f.symbol);
  r.Text(f.dso);
  r.Text(name);
  if (absl::Status st = r.EndRow(); !st.ok()) return st;
  return it->second;
}

absl::StatusOr<int64_t> SqlSink::StackId(absl::Span<const Frame> stack) {
  int64_t parent = 0;
  for (size_t i = stack.size(), depth = 0; i-- > 0; ++depth) {  // root (last) to leaf
    absl::StatusOr<int64_t> frame = FrameId(stack[i]);
    if (!frame.ok()) return frame.status();
    auto [it, inserted] = site_ids_.try_emplace({parent, *frame}, site_ids_.size() + 1);
    if (inserted) {
      RowWriter& r = Row(kStacks);
      r.Int(it->second);
      r.Opt(parent == 0 ? -1 : parent);
      r.Int(*frame);
      r.Int(static_cast<int64_t>(depth));
      if (absl::Status st = r.EndRow(); !st.ok()) return st;
    }
    parent = it->second;
  }
  return parent;
}

void SqlSink::SeeTask(const Event& e) {
  int32_t tid = e.tid;
  std::string_view comm = e.comm;
  if (const Comm* c = std::get_if<Comm>(&e.body)) {
    tid = c->tid;
    comm = c->comm;
  }
  if (tid < 0) return;
  Task& t = tasks_[tid];
  if (e.pid >= 0) t.pid = e.pid;
  if (!comm.empty() && comm != t.comm) t.comm.assign(comm);
  if (e.ts_ns > 0) {  // perf.data's synthesized COMM/MMAP records carry time 0
    if (t.first < 0) t.first = e.ts_ns;
    t.last = e.ts_ns;
  }
  ++t.events;
}

absl::Status SqlSink::OnEvent(const Event& e) {
  int64_t id = next_event_id_++;
  SeeTask(e);
  if (sched::DelayTracker::Wants().Has(e.kind())) {
    delays_.OnEvent(e, [this](const sched::Delay& d) {
      if (derived_status_.ok()) derived_status_ = InsertDelay(d);
    });
  }
  if (const auto* b = std::get_if<BlockRq>(&e.body)) requests_.OnBlock(e, *b);
  if (e.kind() == EventKind::kLost) requests_.OnLost();
  if (absl::Status st = derived_.OnEvent(e); !st.ok()) return st;
  if (!derived_status_.ok()) return derived_status_;
  return InsertEvent(e, id);
}

absl::Status SqlSink::InsertDelay(const sched::Delay& d) {
  RowWriter& r = Row(kDelays);
  r.Int(d.tid);
  r.Opt(d.pid);
  r.Text(d.comm);
  r.Opt(d.prio);
  r.Opt(d.cpu);
  r.Int(d.ready_ns);
  r.Int(d.run_ns);
  r.Int(static_cast<int64_t>(d.delay_ns()));
  r.Opt(d.waker_tid);
  r.Text(d.waker_comm);
  r.Int(d.preempted);
  return r.EndRow();
}

void SqlSink::OnDone(const iolat::IoRecord& q) {
  if (!derived_status_.ok()) return;
  RowWriter& r = Row(kIo);
  r.Int(iolat::DevMajor(q.stat_dev));
  r.Int(iolat::DevMinor(q.stat_dev));
  r.Int(iolat::DevMajor(q.dev));
  r.Int(iolat::DevMinor(q.dev));
  r.Opt(q.from_dev ? int64_t{iolat::DevMajor(q.from_dev)} : -1);
  r.Opt(q.from_dev ? int64_t{iolat::DevMinor(q.from_dev)} : -1);
  r.Int(static_cast<int64_t>(q.sector));
  r.Int(q.nr_sector);
  r.Int(static_cast<int64_t>(q.bytes()));
  r.Text(q.rwbs.ToString());
  for (int64_t t : {q.q, q.g, q.i, q.d, q.c}) r.Opt(t);
  r.Text(q.comm);
  r.Opt(q.pid);
  r.Opt(q.tid);
  r.Int(q.error);
  derived_status_ = r.EndRow();
}

void SqlSink::InsertIrq(const irq::Interrupt& i) {
  if (!derived_status_.ok()) return;
  RowWriter& r = Row(kIrq);
  r.Text(i.soft ? "softirq" : "irq");
  r.Int(i.number);
  r.Text(i.name);
  r.Opt(i.cpu);
  r.Int(i.begin_ns);
  r.Int(i.end_ns);
  r.Int(i.end_ns - i.begin_ns);
  if (i.soft) {
    r.Opt(i.raise_ns > 0 ? i.raise_ns : -1);
    r.Null();
  } else {
    r.Null();
    r.Opt(i.ret < 0 ? -1 : i.ret != 0);
  }
  derived_status_ = r.EndRow();
}

void SqlSink::InsertCall(const syscalls::CallRecord& c) {
  if (!derived_status_.ok()) return;
  RowWriter& r = Row(kSyscalls);
  const bool error = c.ret >= -4095 && c.ret < 0;  // the kernel's errno range, as tk syscalls
  r.Int(c.tid);
  r.Opt(c.pid);
  r.Text(c.comm);
  r.Opt(c.nr);
  r.Text(c.name);
  r.Int(c.enter_ns);
  r.Int(c.exit_ns);
  r.Int(c.exit_ns - c.enter_ns);
  r.Int(c.ret);
  r.Int(error);
  r.Opt(error ? -c.ret : -1);
  derived_status_ = r.EndRow();
}

// One row per off-CPU interval, with the switch-out that began it (its sched_switch row and
// stack, which SqlSink notes after the OffCpuSink has seen the event: the entry for `tid` is
// still the interval's own when it closes).
void SqlSink::InsertInterval(const offcpu::OffCpuInterval& iv) {
  if (!derived_status_.ok()) return;
  SwitchOut out;
  if (auto it = switch_out_.find(iv.tid); it != switch_out_.end()) out = it->second;
  RowWriter& r = Row(kOffCpuIntervals);
  r.Int(iv.tid);
  r.Opt(iv.pid);
  r.Text(std::string_view(&iv.state, 1));
  r.Int(iv.out_ns);
  r.Int(iv.in_ns);
  r.Int(iv.in_ns - iv.out_ns);
  r.Opt(iv.waker_tid);
  r.Opt(out.event_id);
  r.Opt(out.stack_id);
  derived_status_ = r.EndRow();
}

// One row per folded off-CPU stack: the lines `tk fold --off-cpu` prints for this input.
absl::Status SqlSink::WriteOffCpu() {
  if (absl::Status st = offcpu_.Finish(); !st.ok()) return st;
  RowWriter& r = Row(kOffCpu);
  for (const auto& [stack, us] : offcpu_.stacks()) {
    r.Text(stack);
    r.Int(static_cast<int64_t>(us));
    if (absl::Status st = r.EndRow(); !st.ok()) return st;
  }
  return absl::OkStatus();
}

RowWriter& SqlSink::EventRow(Table t, int64_t id, const Event& e) {
  RowWriter& r = Row(t);
  r.Int(id);
  r.Opt(e.ts_ns);
  r.Opt(e.cpu);
  r.Opt(e.pid);
  r.Opt(e.tid);
  r.Int(type_id_);
  return r;
}

// The event's row (its typed table, samples or generic_events), and a samples row for a
// callchain of a non-sample event.
absl::Status SqlSink::InsertEvent(const Event& e, int64_t id) {
  absl::StatusOr<int64_t> type = TypeId(e);
  if (!type.ok()) return type.status();
  type_id_ = *type;
  stack_id_ = -1;
  const bool sample_row = HasSamplesRow(e);
  if (sample_row && !e.stack.empty()) {
    absl::StatusOr<int64_t> s = StackId(e.stack);
    if (!s.ok()) return s.status();
    stack_id_ = *s;
  }
  if (absl::Status st = InsertTyped(e, id); !st.ok()) return st;
  if (!sample_row) return absl::OkStatus();
  RowWriter& r = EventRow(kSamples, id, e);
  r.Text(e.comm);
  if (e.has_period) {
    r.Int(static_cast<int64_t>(e.period));
  } else {
    r.Null();
  }
  r.Opt(stack_id_);
  return r.EndRow();
}

// The row of `e` in its typed table, or in generic_events; none for a sample (its samples row
// is its row).
absl::Status SqlSink::InsertTyped(const Event& e, int64_t id) {
  if (const auto* sw = std::get_if<SchedSwitch>(&e.body)) {
    if (sw->prev_pid > 0) switch_out_[sw->prev_pid] = {id, stack_id_};
    RowWriter& r = EventRow(kSwitch, id, e);
    r.Text(sw->prev_comm);
    r.Opt(sw->prev_pid);
    r.Opt(sw->prev_prio);
    r.Text(sw->prev_state.ToString());
    r.Text(sw->next_comm);
    r.Opt(sw->next_pid);
    r.Opt(sw->next_prio);
    return r.EndRow();
  }
  if (const auto* w = std::get_if<SchedWakeup>(&e.body)) {
    RowWriter& r = EventRow(kWakeup, id, e);
    r.Text(w->comm);
    r.Opt(w->pid);
    r.Opt(w->prio);
    r.Opt(w->target_cpu);
    r.Int(w->success);
    return r.EndRow();
  }
  if (const auto* b = std::get_if<BlockRq>(&e.body)) {
    RowWriter& r = EventRow(kBlock, id, e);
    r.Text(BlockStageName(b->stage));
    r.Int(b->major);
    r.Int(b->minor);
    r.Int(static_cast<int64_t>(b->sector));
    r.Int(b->nr_sector);
    r.Int(b->bytes);
    r.Text(b->rwbs.ToString());
    r.Int(b->error);
    r.Text(b->comm);
    return r.EndRow();
  }
  if (e.kind() == EventKind::kSample) return absl::OkStatus();
  return EventRow(kGenericEvents, id, e).EndRow();
}

absl::Status SqlSink::WriteTasks() {
  RowWriter& r = Row(kTasks);
  for (const auto& [tid, t] : tasks_) {
    r.Int(tid);
    r.Opt(t.pid);
    r.Text(t.comm);
    r.Opt(t.first);
    r.Opt(t.last);
    r.Int(static_cast<int64_t>(t.events));
    if (absl::Status st = r.EndRow(); !st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status SqlSink::WriteMeta() {
  meta_["schema_version"] = std::to_string(kSchemaVersion);
  meta_["events"] = std::to_string(events());
  RowWriter& r = Row(kMeta);
  for (const auto& [key, value] : meta_) {
    r.Text(key);
    r.Text(value);
    if (absl::Status st = r.EndRow(); !st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status SqlSink::Finish() {
  requests_.Finish();
  if (absl::Status st = irq_.Finish(); !st.ok()) return st;
  if (absl::Status st = syscalls_.Finish(); !st.ok()) return st;
  if (!derived_status_.ok()) return derived_status_;
  if (absl::Status st = WriteTasks(); !st.ok()) return st;
  if (absl::Status st = WriteOffCpu(); !st.ok()) return st;
  if (absl::Status st = WriteMeta(); !st.ok()) return st;
  if (absl::Status st = loader_.Finish(); !st.ok()) return st;
  return Exec(db_, "COMMIT");
}

}  // namespace tk::analyses::sql
