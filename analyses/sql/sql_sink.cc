#include "analyses/sql/sql_sink.h"

#include <sqlite3.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "analyses/fold/frame_name.h"
#include "core/absl_compat.h"

namespace tk::analyses::sql {
namespace {

// The tables, in docs/sql-schema.md's order. Typed tables repeat ts (and cpu) so that common
// queries need no join; event_id joins them to `events` (cpu, pid, tid, name of a sample).
// Only events has secondary indices (ts, tid): each index built costs ~15% of the load, and
// event_id, the typed tables' key, grows with ts (events arrive in time order).
constexpr const char* kSchema = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE tasks(tid INTEGER PRIMARY KEY, pid INTEGER, comm TEXT, first_seen INTEGER,
                   last_seen INTEGER, events INTEGER);
CREATE TABLE events(id INTEGER PRIMARY KEY, ts INTEGER, cpu INTEGER, pid INTEGER, tid INTEGER,
                    kind TEXT, name TEXT);
CREATE TABLE sched_switch(event_id INTEGER PRIMARY KEY, ts INTEGER, cpu INTEGER,
                          prev_comm TEXT, prev_pid INTEGER, prev_prio INTEGER, prev_state TEXT,
                          next_comm TEXT, next_pid INTEGER, next_prio INTEGER);
CREATE TABLE sched_wakeup(event_id INTEGER PRIMARY KEY, ts INTEGER, cpu INTEGER, kind TEXT,
                          comm TEXT, pid INTEGER, prio INTEGER, target_cpu INTEGER,
                          success INTEGER);
CREATE TABLE block_rq(event_id INTEGER PRIMARY KEY, ts INTEGER, cpu INTEGER, stage TEXT,
                      major INTEGER, minor INTEGER, sector INTEGER, nr_sector INTEGER,
                      bytes INTEGER, rwbs TEXT, error INTEGER, comm TEXT);
CREATE TABLE samples(event_id INTEGER PRIMARY KEY, ts INTEGER, comm TEXT, period INTEGER,
                     stack_id INTEGER);
CREATE TABLE stacks(id INTEGER PRIMARY KEY, parent_id INTEGER, frame_id INTEGER,
                    depth INTEGER);
CREATE TABLE frames(id INTEGER PRIMARY KEY, symbol TEXT, dso TEXT, name TEXT);
CREATE TABLE sched_delay(tid INTEGER, pid INTEGER, comm TEXT, prio INTEGER, cpu INTEGER,
                         ready_ts INTEGER, run_ts INTEGER, delay_ns INTEGER, waker_tid INTEGER,
                         waker_comm TEXT, preempted INTEGER);
CREATE TABLE io_request(major INTEGER, minor INTEGER, queue_major INTEGER, queue_minor INTEGER,
                        from_major INTEGER, from_minor INTEGER, sector INTEGER,
                        nr_sector INTEGER, bytes INTEGER, rwbs TEXT, q_ts INTEGER,
                        g_ts INTEGER, i_ts INTEGER, d_ts INTEGER, c_ts INTEGER, comm TEXT,
                        pid INTEGER, tid INTEGER, error INTEGER);
CREATE TABLE irq(type TEXT, number INTEGER, name TEXT, cpu INTEGER, begin_ts INTEGER,
                 end_ts INTEGER, duration_ns INTEGER, raise_ts INTEGER, handled INTEGER);
CREATE TABLE syscalls(tid INTEGER, pid INTEGER, comm TEXT, nr INTEGER, name TEXT,
                      enter_ts INTEGER, exit_ts INTEGER, duration_ns INTEGER, ret INTEGER,
                      error INTEGER, errno INTEGER);
CREATE TABLE off_cpu(stack TEXT PRIMARY KEY, us INTEGER);
)sql";

constexpr const char* kIndices = R"sql(
CREATE INDEX events_ts ON events(ts);
CREATE INDEX events_tid ON events(tid);
)sql";

// The tables SqlSink inserts into per event, in SqlSink::Table's order, with their columns.
constexpr std::pair<const char*, int> kTables[] = {
    {"events", 7},   {"sched_switch", 10}, {"sched_wakeup", 9}, {"block_rq", 12},
    {"samples", 5},  {"frames", 4},        {"stacks", 4},       {"sched_delay", 11},
    {"io_request", 19}, {"irq", 9},          {"syscalls", 11},
};

static_assert(std::size(kTables) == 11);  // SqlSink::kNumTables

constexpr const char* kKindNames[] = {
    "sample", "sched_switch", "sched_wakeup", "sched_migrate", "sched_stat", "sched_fork",
    "sched_exit", "block_rq", "comm", "fork", "exit", "lost", "generic", "irq", "softirq",
    "syscall", "page",
};
static_assert(std::size(kKindNames) == kNumEventKinds);

absl::Status Exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    absl::Status st = absl::InternalError(absl::StrCat("sqlite: ", err ? err : "error"));
    sqlite3_free(err);
    return st;
  }
  return absl::OkStatus();
}

std::string_view WakeupKind(SchedWakeup::Kind k) {
  switch (k) {
    case SchedWakeup::Kind::kWakeup: return "wakeup";
    case SchedWakeup::Kind::kWaking: return "waking";
    case SchedWakeup::Kind::kWakeupNew: return "wakeup_new";
  }
  return "";
}

bool HasStack(const Event& e) {
  return e.kind() == EventKind::kSample || !e.stack.empty();
}

}  // namespace

absl::Status OpenDatabase(const std::string& path, sqlite3** db) {
  static const bool configured = [] {
    sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    return sqlite3_initialize() == SQLITE_OK;
  }();
  if (!configured) return absl::InternalError("sqlite: cannot initialize");
  if (sqlite3_open_v2(path.c_str(), db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    return absl::UnavailableError(absl::StrCat(path, ": ", sqlite3_errmsg(*db)));
  }
  return absl::OkStatus();
}

absl::Status CreateSchema(sqlite3* db) {
  // 64 KiB pages: fewer page splits per row appended (8% of the load against 4 KiB).
  if (absl::Status st = Exec(db, "PRAGMA page_size=65536; PRAGMA journal_mode=OFF;"
                                 "PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE;"
                                 "PRAGMA cache_size=-65536;");
      !st.ok()) {
    return st;
  }
  return Exec(db, kSchema);
}

SqlSink::SqlSink(sqlite3* db, std::map<std::string, std::string> meta)
    : db_(db),
      meta_(std::move(meta)),
      irq_({.on_interrupt = [this](const irq::Interrupt& i) { InsertIrq(i); }}, null_out_),
      syscalls_({.on_call = [this](const syscalls::CallRecord& c) { InsertCall(c); }}) {}

SqlSink::~SqlSink() = default;

absl::Status SqlSink::Begin() {
  for (int i = 0; i < kNumTables; ++i) {
    if (absl::Status st = rows_[i].Prepare(db_, kTables[i].first, kTables[i].second);
        !st.ok()) {
      return st;
    }
  }
  return Exec(db_, "BEGIN");
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
  RowBatch& r = rows_[kFrames];
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
      RowBatch& r = rows_[kStacks];
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
  RowBatch& r = rows_[kEvents];
  r.Int(id);
  r.Opt(e.ts_ns);
  r.Opt(e.cpu);
  r.Opt(e.pid);
  r.Opt(e.tid);
  r.Text(kKindNames[static_cast<int>(e.kind())]);
  r.Text(e.name);
  if (absl::Status st = r.EndRow(); !st.ok()) return st;
  SeeTask(e);
  if (sched::DelayTracker::Wants().Has(e.kind())) {
    delays_.OnEvent(e, [this](const sched::Delay& d) {
      if (derived_status_.ok()) derived_status_ = InsertDelay(d);
    });
  }
  if (const auto* b = std::get_if<BlockRq>(&e.body)) requests_.OnBlock(e, *b);
  if (e.kind() == EventKind::kLost) requests_.OnLost();
  for (EventSink* derived : {static_cast<EventSink*>(&irq_), static_cast<EventSink*>(&syscalls_),
                             static_cast<EventSink*>(&offcpu_)}) {
    if (!derived->wants().Has(e.kind())) continue;
    if (absl::Status st = derived->OnEvent(e); !st.ok()) return st;
  }
  if (!derived_status_.ok()) return derived_status_;
  return InsertTyped(e, id);
}

absl::Status SqlSink::InsertDelay(const sched::Delay& d) {
  RowBatch& r = rows_[kDelays];
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
  RowBatch& r = rows_[kIo];
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
  RowBatch& r = rows_[kIrq];
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
  RowBatch& r = rows_[kSyscalls];
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

// One row per folded off-CPU stack: the lines `tk fold --off-cpu` prints for this input.
absl::Status SqlSink::WriteOffCpu() {
  if (absl::Status st = offcpu_.Finish(); !st.ok()) return st;
  RowBatch r;
  if (absl::Status st = r.Prepare(db_, "off_cpu", 2); !st.ok()) return st;
  for (const auto& [stack, us] : offcpu_.stacks()) {
    r.Text(stack);
    r.Int(static_cast<int64_t>(us));
    if (absl::Status st = r.EndRow(); !st.ok()) return st;
  }
  return r.Flush();
}

// Starts a row of a typed table with its first columns: event_id, ts, cpu.
RowBatch& SqlSink::TypedRow(Table t, int64_t id, const Event& e) {
  RowBatch& r = rows_[t];
  r.Int(id);
  r.Opt(e.ts_ns);
  r.Opt(e.cpu);
  return r;
}

// The typed row of `e` (event_id, ts, cpu or comm first), if its kind has a table.
absl::Status SqlSink::InsertTyped(const Event& e, int64_t id) {
  if (const auto* sw = std::get_if<SchedSwitch>(&e.body)) {
    RowBatch& r = TypedRow(kSwitch, id, e);
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
    RowBatch& r = TypedRow(kWakeup, id, e);
    r.Text(WakeupKind(w->kind));
    r.Text(w->comm);
    r.Opt(w->pid);
    r.Opt(w->prio);
    r.Opt(w->target_cpu);
    r.Int(w->success);
    return r.EndRow();
  }
  if (const auto* b = std::get_if<BlockRq>(&e.body)) {
    RowBatch& r = TypedRow(kBlock, id, e);
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
  if (!HasStack(e)) return absl::OkStatus();
  int64_t stack = -1;
  if (!e.stack.empty()) {
    absl::StatusOr<int64_t> s = StackId(e.stack);
    if (!s.ok()) return s.status();
    stack = *s;
  }
  RowBatch& r = rows_[kSamples];
  r.Int(id);
  r.Opt(e.ts_ns);
  r.Text(e.comm);
  if (e.has_period) {
    r.Int(static_cast<int64_t>(e.period));
  } else {
    r.Null();
  }
  r.Opt(stack);
  return r.EndRow();
}

absl::Status SqlSink::WriteTasks() {
  RowBatch r;
  if (absl::Status st = r.Prepare(db_, "tasks", 6); !st.ok()) return st;
  for (const auto& [tid, t] : tasks_) {
    r.Int(tid);
    r.Opt(t.pid);
    r.Text(t.comm);
    r.Opt(t.first);
    r.Opt(t.last);
    r.Int(static_cast<int64_t>(t.events));
    if (absl::Status st = r.EndRow(); !st.ok()) return st;
  }
  return r.Flush();
}

absl::Status SqlSink::WriteMeta() {
  meta_["schema_version"] = std::to_string(kSchemaVersion);
  meta_["events"] = std::to_string(events());
  RowBatch r;
  if (absl::Status st = r.Prepare(db_, "meta", 2); !st.ok()) return st;
  for (const auto& [key, value] : meta_) {
    r.Text(key);
    r.Text(value);
    if (absl::Status st = r.EndRow(); !st.ok()) return st;
  }
  return r.Flush();
}

absl::Status SqlSink::Finish() {
  requests_.Finish();
  if (absl::Status st = irq_.Finish(); !st.ok()) return st;
  if (absl::Status st = syscalls_.Finish(); !st.ok()) return st;
  if (!derived_status_.ok()) return derived_status_;
  for (RowBatch& r : rows_) {
    if (absl::Status st = r.Flush(); !st.ok()) return st;
  }
  if (absl::Status st = WriteTasks(); !st.ok()) return st;
  if (absl::Status st = WriteOffCpu(); !st.ok()) return st;
  if (absl::Status st = WriteMeta(); !st.ok()) return st;
  if (absl::Status st = Exec(db_, kIndices); !st.ok()) return st;
  return Exec(db_, "COMMIT");
}

}  // namespace tk::analyses::sql
