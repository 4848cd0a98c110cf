#include "analyses/sql/sql_sink.h"

#include <sqlite3.h>

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
)sql";

constexpr const char* kIndices = R"sql(
CREATE INDEX events_ts ON events(ts);
CREATE INDEX events_tid ON events(tid);
)sql";

constexpr const char* kInserts[] = {
    "INSERT INTO events VALUES(?,?,?,?,?,?,?)",
    "INSERT INTO sched_switch VALUES(?,?,?,?,?,?,?,?,?,?)",
    "INSERT INTO sched_wakeup VALUES(?,?,?,?,?,?,?,?,?)",
    "INSERT INTO block_rq VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
    "INSERT INTO samples VALUES(?,?,?,?,?)",
    "INSERT INTO frames VALUES(?,?,?,?)",
    "INSERT INTO stacks VALUES(?,?,?,?)",
    "INSERT INTO sched_delay VALUES(?,?,?,?,?,?,?,?,?,?,?)",
    "INSERT INTO io_request VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
};

static_assert(std::size(kInserts) == 9);  // SqlSink::kNumStmts

constexpr const char* kKindNames[] = {
    "sample", "sched_switch", "sched_wakeup", "sched_migrate", "sched_stat", "sched_fork",
    "sched_exit", "block_rq", "comm", "fork", "exit", "lost", "generic", "irq", "softirq",
    "syscall", "page",
};
static_assert(std::size(kKindNames) == kNumEventKinds);

absl::Status SqlError(sqlite3* db, std::string_view what) {
  return absl::InternalError(absl::StrCat("sqlite: ", AV(what), ": ", sqlite3_errmsg(db)));
}

absl::Status Exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    absl::Status st = absl::InternalError(absl::StrCat("sqlite: ", err ? err : "error"));
    sqlite3_free(err);
    return st;
  }
  return absl::OkStatus();
}

// Binds helpers: values of -1 in the event model mean "unknown" and become NULL.
void BindInt(sqlite3_stmt* s, int i, int64_t v) { sqlite3_bind_int64(s, i, v); }
void BindOpt(sqlite3_stmt* s, int i, int64_t v) {
  if (v < 0) {
    sqlite3_bind_null(s, i);
  } else {
    sqlite3_bind_int64(s, i, v);
  }
}
// The view is valid during the step (SQLITE_STATIC: not copied at bind time).
void BindText(sqlite3_stmt* s, int i, std::string_view v) {
  sqlite3_bind_text(s, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
}

std::string_view WakeupKind(SchedWakeup::Kind k) {
  switch (k) {
    case SchedWakeup::Kind::kWakeup: return "wakeup";
    case SchedWakeup::Kind::kWaking: return "waking";
    case SchedWakeup::Kind::kWakeupNew: return "wakeup_new";
  }
  return "";
}

// Prepares `sql` once and inserts one row per element of `rows`, bound by bind(stmt, row).
template <typename Rows, typename Bind>
absl::Status InsertAll(sqlite3* db, const char* sql, const Rows& rows, Bind bind) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) != SQLITE_OK) return SqlError(db, sql);
  absl::Status st;
  for (const auto& row : rows) {
    bind(s, row);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) {
      st = SqlError(db, sql);
      break;
    }
  }
  sqlite3_finalize(s);
  return st;
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
  if (absl::Status st = Exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                                 "PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-65536;");
      !st.ok()) {
    return st;
  }
  return Exec(db, kSchema);
}

SqlSink::SqlSink(sqlite3* db, std::map<std::string, std::string> meta)
    : db_(db), meta_(std::move(meta)) {}

SqlSink::~SqlSink() {
  for (sqlite3_stmt* s : stmts_) sqlite3_finalize(s);
}

absl::Status SqlSink::Begin() {
  for (int i = 0; i < kNumStmts; ++i) {
    if (sqlite3_prepare_v3(db_, kInserts[i], -1, SQLITE_PREPARE_PERSISTENT, &stmts_[i],
                           nullptr) != SQLITE_OK) {
      return SqlError(db_, kInserts[i]);
    }
  }
  return Exec(db_, "BEGIN");
}

absl::Status SqlSink::Step(Stmt s) {
  int rc = sqlite3_step(stmts_[s]);
  sqlite3_reset(stmts_[s]);
  if (rc != SQLITE_DONE) return SqlError(db_, kInserts[s]);
  return absl::OkStatus();
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
  sqlite3_stmt* s = stmts_[kFrame];
  BindInt(s, 1, it->second);
  BindText(s, 2, f.symbol);
  BindText(s, 3, f.dso);
  BindText(s, 4, name);
  if (absl::Status st = Step(kFrame); !st.ok()) return st;
  return it->second;
}

absl::StatusOr<int64_t> SqlSink::StackId(absl::Span<const Frame> stack) {
  int64_t parent = 0;
  for (size_t i = stack.size(), depth = 0; i-- > 0; ++depth) {  // root (last) to leaf
    absl::StatusOr<int64_t> frame = FrameId(stack[i]);
    if (!frame.ok()) return frame.status();
    auto [it, inserted] = site_ids_.try_emplace({parent, *frame}, site_ids_.size() + 1);
    if (inserted) {
      sqlite3_stmt* s = stmts_[kSite];
      BindInt(s, 1, it->second);
      BindOpt(s, 2, parent == 0 ? -1 : parent);
      BindInt(s, 3, *frame);
      BindInt(s, 4, static_cast<int64_t>(depth));
      if (absl::Status st = Step(kSite); !st.ok()) return st;
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
  sqlite3_stmt* s = stmts_[kEvents];
  BindInt(s, 1, id);
  BindOpt(s, 2, e.ts_ns);
  BindOpt(s, 3, e.cpu);
  BindOpt(s, 4, e.pid);
  BindOpt(s, 5, e.tid);
  BindText(s, 6, kKindNames[static_cast<int>(e.kind())]);
  BindText(s, 7, e.name);
  if (absl::Status st = Step(kEvents); !st.ok()) return st;
  SeeTask(e);
  if (sched::DelayTracker::Wants().Has(e.kind())) {
    delays_.OnEvent(e, [this](const sched::Delay& d) {
      if (derived_status_.ok()) derived_status_ = InsertDelay(d);
    });
  }
  if (const auto* b = std::get_if<BlockRq>(&e.body)) requests_.OnBlock(e, *b);
  if (e.kind() == EventKind::kLost) requests_.OnLost();
  if (!derived_status_.ok()) return derived_status_;
  return InsertTyped(e, id);
}

absl::Status SqlSink::InsertDelay(const sched::Delay& d) {
  sqlite3_stmt* s = stmts_[kDelay];
  BindInt(s, 1, d.tid);
  BindOpt(s, 2, d.pid);
  BindText(s, 3, d.comm);
  BindOpt(s, 4, d.prio);
  BindOpt(s, 5, d.cpu);
  BindInt(s, 6, d.ready_ns);
  BindInt(s, 7, d.run_ns);
  BindInt(s, 8, static_cast<int64_t>(d.delay_ns()));
  BindOpt(s, 9, d.waker_tid);
  BindText(s, 10, d.waker_comm);
  BindInt(s, 11, d.preempted);
  return Step(kDelay);
}

void SqlSink::OnDone(const iolat::IoRecord& r) {
  if (!derived_status_.ok()) return;
  sqlite3_stmt* s = stmts_[kIo];
  std::string rwbs = r.rwbs.ToString();
  BindInt(s, 1, iolat::DevMajor(r.stat_dev));
  BindInt(s, 2, iolat::DevMinor(r.stat_dev));
  BindInt(s, 3, iolat::DevMajor(r.dev));
  BindInt(s, 4, iolat::DevMinor(r.dev));
  BindOpt(s, 5, r.from_dev ? int64_t{iolat::DevMajor(r.from_dev)} : -1);
  BindOpt(s, 6, r.from_dev ? int64_t{iolat::DevMinor(r.from_dev)} : -1);
  BindInt(s, 7, static_cast<int64_t>(r.sector));
  BindInt(s, 8, r.nr_sector);
  BindInt(s, 9, static_cast<int64_t>(r.bytes()));
  BindText(s, 10, rwbs);
  int i = 11;
  for (int64_t t : {r.q, r.g, r.i, r.d, r.c}) BindOpt(s, i++, t);
  BindText(s, 16, r.comm);
  BindOpt(s, 17, r.pid);
  BindOpt(s, 18, r.tid);
  BindInt(s, 19, r.error);
  derived_status_ = Step(kIo);
}

absl::Status SqlSink::InsertTyped(const Event& e, int64_t id) {
  Stmt which;
  sqlite3_stmt* s;
  std::string state;  // outlives the step
  if (const auto* sw = std::get_if<SchedSwitch>(&e.body)) {
    which = kSwitch;
    s = stmts_[which];
    state = sw->prev_state.ToString();
    BindText(s, 4, sw->prev_comm);
    BindOpt(s, 5, sw->prev_pid);
    BindOpt(s, 6, sw->prev_prio);
    BindText(s, 7, state);
    BindText(s, 8, sw->next_comm);
    BindOpt(s, 9, sw->next_pid);
    BindOpt(s, 10, sw->next_prio);
  } else if (const auto* w = std::get_if<SchedWakeup>(&e.body)) {
    which = kWakeup;
    s = stmts_[which];
    BindText(s, 4, WakeupKind(w->kind));
    BindText(s, 5, w->comm);
    BindOpt(s, 6, w->pid);
    BindOpt(s, 7, w->prio);
    BindOpt(s, 8, w->target_cpu);
    BindInt(s, 9, w->success);
  } else if (const auto* b = std::get_if<BlockRq>(&e.body)) {
    which = kBlock;
    s = stmts_[which];
    state = b->rwbs.ToString();
    BindText(s, 4, BlockStageName(b->stage));
    BindInt(s, 5, b->major);
    BindInt(s, 6, b->minor);
    BindInt(s, 7, static_cast<int64_t>(b->sector));
    BindInt(s, 8, b->nr_sector);
    BindInt(s, 9, b->bytes);
    BindText(s, 10, state);
    BindInt(s, 11, b->error);
    BindText(s, 12, b->comm);
  } else if (HasStack(e)) {
    which = kSample;
    s = stmts_[which];
    BindText(s, 3, e.comm);
    if (e.has_period) {
      BindInt(s, 4, static_cast<int64_t>(e.period));
    } else {
      sqlite3_bind_null(s, 4);
    }
  } else {
    return absl::OkStatus();
  }
  BindInt(s, 1, id);
  BindOpt(s, 2, e.ts_ns);
  if (which != kSample) {
    BindOpt(s, 3, e.cpu);
    return Step(which);
  }
  if (e.stack.empty()) {
    sqlite3_bind_null(s, 5);
  } else {
    absl::StatusOr<int64_t> stack = StackId(e.stack);
    if (!stack.ok()) return stack.status();
    BindInt(s, 5, *stack);
  }
  return Step(which);
}

absl::Status SqlSink::WriteTasks() {
  return InsertAll(db_, "INSERT INTO tasks VALUES(?,?,?,?,?,?)", tasks_,
                   [](sqlite3_stmt* s, const auto& row) {
                     const Task& t = row.second;
                     BindInt(s, 1, row.first);
                     BindOpt(s, 2, t.pid);
                     BindText(s, 3, t.comm);
                     BindOpt(s, 4, t.first);
                     BindOpt(s, 5, t.last);
                     BindInt(s, 6, static_cast<int64_t>(t.events));
                   });
}

absl::Status SqlSink::WriteMeta() {
  meta_["schema_version"] = std::to_string(kSchemaVersion);
  meta_["events"] = std::to_string(events());
  return InsertAll(db_, "INSERT INTO meta VALUES(?,?)", meta_,
                   [](sqlite3_stmt* s, const auto& row) {
                     BindText(s, 1, row.first);
                     BindText(s, 2, row.second);
                   });
}

absl::Status SqlSink::Finish() {
  requests_.Finish();
  if (!derived_status_.ok()) return derived_status_;
  if (absl::Status st = WriteTasks(); !st.ok()) return st;
  if (absl::Status st = WriteMeta(); !st.ok()) return st;
  if (absl::Status st = Exec(db_, kIndices); !st.ok()) return st;
  return Exec(db_, "COMMIT");
}

}  // namespace tk::analyses::sql
