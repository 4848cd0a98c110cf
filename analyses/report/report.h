// `tk report`: perf report --stdio's table from the same symbolized samples `tk fold` reads.
//
//   # Samples: 398  of event 'cpu-clock:ppp'
//   # Event count (approx.): 99500000
//   #
//   # Children      Self  Command   Shared Object         Symbol
//   # ........  ........  ........  ....................  ...............................
//   #
//       59.05%    29.40%  workload  [kernel.kallsyms]     [k] do_syscall_64
//
// One table per event name. Every sample adds its period to the Self of the entry its leaf
// frame maps to (the entry key is the --sort keys: comm, pid (perf's thread), dso, sym,
// cpu); with callchains, every distinct entry its stack maps to gets the period as Children
// once per sample, so recursion counts once (perf's iter_add_next_cumulative_entry).
// Percentages are period-weighted. Memory grows with the number of distinct entries.
//
// A symbol is its DSO and its start address, as perf's sort__sym_cmp keys it: two static
// functions with one name in one DSO are two rows. (Text inputs carry no offsets: there a
// symbol is its name.) Unresolved frames are keyed by their address.
//
// Speed: a sample's comm/tid/cpu (the per-sample part of the key) becomes a small context id
// once per sample; each frame then finds its entry by {context, DSO view, symbol view, start}
// in one hash probe (perf.data's views are stable: Event::stable_views), and only a miss
// builds the content key. An unresolved frame (keyed by its address when sym is sorted) is
// looked up by its content key alone, which a view key would only repeat. The content index
// holds 8-byte {entry id, hash} slots; a match compares the entry's own fields. A thread's
// next sample mostly repeats its outer frames: those (same views and ip as the thread's
// previous stack of 4 frames or more) take that stack's entries without a probe. Recursion
// is counted once by a per-entry "last sample" stamp.
//
// Repeated stacks: a sample whose parser gives a stack_id (core/event.h: the same id means
// the same frames) is looked up by {context, stack_id} in its table's stack memo. A hit is
// the entry list the first sample of that stack and context made (its Self entry, then every
// entry it added Children to, each once), so the sample costs one probe and a few adds, and
// its frames are not read. The memo holds one list per distinct {context, stack}, at most
// kMaxMemoIds ids per table; past that, new stacks take the frame path.
//
// Output: rows sort by integer words (the values, then the sort keys' strings as ranks among
// the table's strings, packed), ordered by radix passes (the values as ranks among their
// distinct values), so no pass reads an entry or a string; rows are formatted through a
// pointer into a chunk, a cell equal to the row above's (same value, comm or DSO) as its
// bytes copied. With threads >= 2 a table of kParallelRows or more has its rows' words made,
// its values ranked and its rows formatted in two halves on two threads (the worker is done
// by then); the bytes are those of one thread.
//
// Parts (ReportParts, core/part_sink.h): an input a parser cuts is accumulated part by part,
// each into a sink of its own on its own thread, and the parts merge in input order
// (ReportSink::Merge), which makes the tables of one pass: sums, and first-seen order.
#ifndef TK_ANALYSES_REPORT_REPORT_H_
#define TK_ANALYSES_REPORT_REPORT_H_

#include <array>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "core/batch_pipe.h"
#include "core/intern.h"
#include "core/part_sink.h"
#include "core/sink.h"

namespace tk::analyses::report {

// The sort keys (perf's --sort names: comm, pid, dso, sym, cpu).
enum class Key : uint8_t { kComm, kPid, kDso, kSym, kCpu };
// The value columns (-F overhead, overhead_children, sample, period).
enum class Value : uint8_t { kOverhead, kChildren, kSamples, kPeriod };

// One output column: a value or a key.
struct Column {
  bool is_key = false;
  Value value = Value::kOverhead;
  Key key = Key::kComm;
};

struct ReportOptions {
  std::vector<Key> sort = {Key::kComm, Key::kDso, Key::kSym};
  // Children/Self when any sample has a callchain, unless false (--no-children).
  std::optional<bool> children;
  bool show_nr_samples = false;    // -n
  bool show_total_period = false;  // --show-total-period
  double percent_limit = 0;        // rows below this percent (Children% in children mode) hidden
  bool quiet = false;              // -q: no '#' lines
  // --comms / --dsos / --symbols: only entries with these names (dso: short name).
  std::vector<std::string> comms, dsos, symbols;
  bool relative = false;  // --percentage relative: percent of the filtered total
  // -F: exactly these columns (keys in it become the sort keys). Empty: the default layout.
  std::vector<Column> fields;
  // >= 2: samples with stable views (perf.data) are accumulated on a worker thread while the
  // parser decodes the next ones (report_worker.cc); the output is the same.
  int threads = 1;
};

// Parses a --sort / -F list ("comm,dso,sym", "overhead,sample,sym"); false on an unknown name
// (`bad` receives it). `allow_values` accepts the -F value names.
bool ParseColumns(std::string_view list, bool allow_values, std::vector<Column>* out,
                  std::string* bad);

// perf's short DSO name: the basename of a path, "[kernel.kallsyms]" and the like as they are.
std::string_view ShortDso(std::string_view dso);
// perf's [k]/[.] level of a frame: kernel DSOs, and kernel addresses outside any map.
bool IsKernelFrame(const Frame& f);

// The accumulated tables, written by report_text.cc / report_json.cc.
struct Entry {
  std::string_view comm, dso, sym;  // interned; sym empty when unresolved
  uint64_t addr = 0;                // unresolved: the address perf prints; else the symbol's
                                    // start (DSO-relative; 0 for text inputs)
  int32_t tid = -1, cpu = -1;
  bool kernel = false;
  uint64_t self_period = 0, self_samples = 0;
  uint64_t children_period = 0;
  uint64_t last_sample = 0;  // the sample that last added Children (counts once per sample)
};

// A frame's identity by its views' addresses (perf.data: Event::stable_views), so a repeated
// frame finds its entry without hashing its strings. Equal strings at other addresses get
// their own FrameKey but the same entry (the slow path keys by content). `ctx` is the
// sample's context id (comm/tid/cpu, as the sort keys use them) shifted left once, with the
// sample's level in bit 0 for frames outside every map; `addr` the symbol's start, or the ip
// of an unresolved frame.
struct FrameKey {
  uint64_t ctx;
  const char* dso;
  const char* sym;
  uint64_t addr;
  bool operator==(const FrameKey&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const FrameKey& k) {
    // One word for absl to mix (combining four cost a mixing step each, on every frame).
    return H::combine(std::move(h), k.ctx * 0x9e3779b97f4a7c15ull +
                                        reinterpret_cast<uintptr_t>(k.dso) * 0xc2b2ae3d27d4eb4full +
                                        reinterpret_cast<uintptr_t>(k.sym) * 0x165667b19e3779f9ull +
                                        k.addr * 0xd6e8feb86659fd93ull);
  }
};

// The per-sample part of a key: the comm's view, tid and cpu (those the sort keys use).
struct ContextKey {
  const char* comm;
  uint32_t comm_len;
  int32_t tid, cpu;
  bool operator==(const ContextKey&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const ContextKey& k) {
    const uint64_t len_tid = uint64_t{k.comm_len} << 32 | static_cast<uint32_t>(k.tid);
    return H::combine(std::move(h), reinterpret_cast<uintptr_t>(k.comm) * 0x9e3779b97f4a7c15ull +
                                        len_tid * 0xc2b2ae3d27d4eb4full +
                                        static_cast<uint32_t>(k.cpu));
  }
};

// An entry's key by content: the interned (so content-unique) views and numbers of the sort
// keys' parts, zero where a key is not sorted on.
struct EntryKey {
  const char* comm;
  const char* dso;
  const char* sym;  // null for an unresolved frame, which `addr` keys
  uint64_t addr;
  int32_t tid, cpu;
  bool operator==(const EntryKey&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const EntryKey& k) {
    // One word to mix, as FrameKey's.
    return H::combine(std::move(h), reinterpret_cast<uintptr_t>(k.comm) * 0x9e3779b97f4a7c15ull +
                                        reinterpret_cast<uintptr_t>(k.dso) * 0xc2b2ae3d27d4eb4full +
                                        reinterpret_cast<uintptr_t>(k.sym) * 0x165667b19e3779f9ull +
                                        k.addr * 0xd6e8feb86659fd93ull +
                                        (uint64_t{static_cast<uint32_t>(k.tid)} << 32 |
                                         static_cast<uint32_t>(k.cpu)) *
                                            0xff51afd7ed558ccdull);
  }
};

// A stack under a context (comm/tid/cpu as the sort keys use them): Event::stack_id. The
// report's own memo key: a stack's entries depend on the sort keys' context, where fold's
// MemoKey holds what its root prints (comm/pid/tid) and pprof's {stack_id, java} only how
// frames are named; one shared key would split or merge what one of them must not.
struct StackKey {
  uint64_t ctx;
  uint64_t stack_id;
  bool operator==(const StackKey&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const StackKey& k) {
    return H::combine(std::move(h), k.ctx * 0x9e3779b97f4a7c15ull + k.stack_id);
  }
};

class ReportSink;

// The content index's slot: an entry's id and its EntryKey's 32-bit hash, 8 bytes where a map
// of EntryKey -> id took 48 (cc20k.data's 134K entries: 2.3 MB of slots and control bytes
// against 12.5 MB, most of it touched at random as the table grew). A lookup carries its key
// (IndexProbe); a slot whose hash matches compares the key of the entry it names, read from
// the table, so the entry is the key's only copy. Rehashing reads the stored hash only.
struct IndexSlot {
  uint32_t id;
  uint32_t hash;
};
struct IndexProbe {
  EntryKey key;
  uint32_t hash;
  const ReportSink* sink;  // the sort keys: which of an entry's fields its key holds
  const std::vector<Entry>* entries;
};
struct IndexHash {
  using is_transparent = void;
  // The 32 bits spread over the word absl takes its slot (high bits) and tag (low 7) from.
  static size_t Spread(uint32_t h) { return uint64_t{h} * 0x9e3779b97f4a7c15ull; }
  size_t operator()(const IndexSlot& s) const { return Spread(s.hash); }
  size_t operator()(const IndexProbe& p) const { return Spread(p.hash); }
};
struct IndexEq {
  using is_transparent = void;
  bool operator()(const IndexSlot& a, const IndexSlot& b) const { return a.id == b.id; }
  inline bool operator()(const IndexProbe& p, const IndexSlot& s) const;
  bool operator()(const IndexSlot& s, const IndexProbe& p) const { return (*this)(p, s); }
};

struct Table {
  std::string event;
  uint64_t samples = 0, period = 0;
  std::vector<Entry> entries;
  absl::flat_hash_set<IndexSlot, IndexHash, IndexEq> index;  // content key -> entries[i]
  absl::flat_hash_map<FrameKey, uint32_t> fast;      // stable views -> entries[i]
  // The stack memo: {context, stack_id} -> offset in stack_ids of [n, self, n children ids].
  absl::flat_hash_map<StackKey, uint32_t> stacks;
  std::vector<uint32_t> stack_ids;
};

// The stack memo's size limit per table (ids, 4 bytes each).
inline constexpr size_t kMaxMemoIds = size_t{16} << 20;

class ReportSink final : public EventSink {
 public:
  explicit ReportSink(ReportOptions opt);
  ~ReportSink() override;

  EventMask wants() const override {
    return EventMask()
        .Add(EventKind::kSample)
        .Add(EventKind::kLost)
        .Add(EventKind::kComm)
        .WithStacks();
  }
  absl::Status OnEvent(const Event& e) override;
  // Waits for the worker (options().threads >= 2) to add every sample.
  absl::Status Finish() override;

  // Adds the tables of `part` (a sink with these options, fed the input's next events,
  // finished): samples, periods and every entry's values sum, an entry or table new here comes
  // after those already here (first seen in input order, when parts merge in input order; an
  // entry's level is its first part's), a thread's comm becomes the part's last, lost samples
  // sum. A sink that has accumulated nothing takes the part's tables as they are. `part` is
  // left without tables. Neither sink is fed afterwards.
  void Merge(ReportSink& part);

  // Children/Self columns: the option, else whether any sample had a callchain.
  bool children() const;
  // Samples added (every table's).
  uint64_t samples() const;
  uint64_t lost_samples() const { return lost_samples_; }
  const std::vector<std::unique_ptr<Table>>& tables() const { return tables_; }
  const ReportOptions& options() const { return opt_; }
  // The sort keys in effect (--sort, or the keys of -F).
  const std::vector<Key>& sort_keys() const { return keys_; }
  // A thread's last comm (perf's pid key prints the thread's comm at the end).
  std::string_view ThreadComm(const Entry& en) const;
  // Whether an entry passes --comms/--dsos/--symbols.
  bool Kept(const Entry& en) const;

  // perf report --stdio's text (report_text.cc).
  void WriteText(std::ostream& out) const;
  // {"lost_samples": N, "events": [{"event", "samples", "period", "rows": [...]}]}
  void WriteJson(std::ostream& out) const;

 private:
  Table& TableFor(std::string_view name);
  // An entry's content key from its (interned) fields: the sort keys' parts only.
  EntryKey KeyOf(std::string_view comm, std::string_view dso, std::string_view sym,
                 uint64_t addr, int32_t tid, int32_t cpu) const;
  friend struct IndexEq;
  EntryKey KeyOf(const Entry& en) const {
    return KeyOf(en.comm, en.dso, en.sym, en.addr, en.tid, en.cpu);
  }
  // The id of the entry keyed `k` in `t`'s index, else t.entries.size(), added to the index
  // (second: true; the caller appends the entry).
  std::pair<uint32_t, bool> IndexFind(Table& t, const EntryKey& k) const;
  // Adds sample `e` to table `t` (on the worker when there is one).
  void Accumulate(Table& t, const Event& e);

  // The worker (report_worker.cc): samples with their frames copied, in batches.
  struct QueuedSample {
    Table* table;
    std::string_view comm;
    int32_t tid, cpu;
    uint64_t period, stack_id;
    bool has_period;
    uint32_t frames, stack_n, dropped_n;  // at frames: stack_n stack frames, dropped_n dropped
  };
  struct Batch {
    std::vector<QueuedSample> samples;
    std::vector<Frame> frames;
  };
  // Queues `e` for the worker, starting it first.
  void Send(Table& t, const Event& e);
  // Waits until the worker has added every queued sample.
  void Drain();
  // Stops the worker after the queued samples.
  void StopWorker();
  void WorkerLoop();
  // The context id of this sample's comm/tid/cpu (stable views only).
  uint64_t ContextOf(const Event& e);
  // The context id for the stack memo when views are not stable (ContextOf's when they are):
  // by the interned comm (those ids are the memo's own; frames never key by them).
  uint64_t MemoContextOf(const Event& e);
  // The sample of a remembered stack: its Self and Children adds. False when not remembered.
  bool AddRemembered(Table& t, const StackKey& k, uint64_t period);
  // Remembers the entries this sample added to (added_), under its stack_id.
  void RememberStack(Table& t, const StackKey& k, uint32_t self_id);
  // The entry of frame `f` for this sample (context `ctx`), created on first use.
  uint32_t EntryFor(Table& t, uint64_t ctx, const Event& e, const Frame& f, bool kernel);
  uint32_t SlowEntry(Table& t, uint64_t ctx, const Event& e, const Frame& f, bool kernel);
  // How many of the sample's outermost frames repeat the previous sample of its thread (same
  // table, context and level): their entries are the memo's, without a probe.
  size_t SameOuterFrames(const Event& e, const Table& t, uint64_t ctx, bool kernel);
  void Remember(const Event& e, const Table& t, uint64_t ctx, bool kernel, size_t same,
                const std::vector<uint32_t>& ids);

  // A frame by its views' identity (stable views) and ip, and the entry it had.
  struct MemoFrame {
    uint64_t ip;
    const char* dso;
    const char* sym;
    uint32_t dso_len, sym_len;
    uint32_t entry;
    bool operator==(const Frame& f) const {
      return ip == f.ip && dso == f.dso.data() && sym == f.symbol.data() &&
             dso_len == f.dso.size() && sym_len == f.symbol.size();
    }
  };
  // A thread's previous stack, root first.
  struct StackMemo {
    const Table* table = nullptr;
    uint64_t ctx = 0;
    bool kernel = false;
    std::vector<MemoFrame> frames;
  };

  ReportOptions opt_;
  std::vector<Key> keys_;
  bool key_comm_ = false, key_pid_ = false, key_dso_ = false, key_sym_ = false, key_cpu_ = false;
  Interner strings_;
  std::vector<std::unique_ptr<Table>> tables_;
  Table* last_table_ = nullptr;
  uint64_t sample_no_ = 0;
  absl::flat_hash_map<ContextKey, uint32_t> contexts_;
  // A mapped frame's level by its DSO's view (stable views only), direct-mapped by the
  // view's address: -a interleaves the processes' leaves, so one last DSO missed often.
  struct DsoLevel {
    const char* data = nullptr;
    size_t size = 0;
    bool kernel = false;
  };
  std::array<DsoLevel, 64> dso_levels_{};
  // IsKernelFrame(f), through dso_levels_ when `stable`.
  bool LevelOf(const Frame& f, bool stable);
  // A stable DSO view's interned short name, direct-mapped as dso_levels_ (in front of
  // interned_views_: an unresolved frame's key needs its DSO's name on every lookup).
  struct DsoName {
    const char* data = nullptr;
    size_t size = 0;
    std::string_view name;
  };
  std::array<DsoName, 64> dso_names_{};
  std::string_view InternedDso(std::string_view dso);
  // The entry of an unresolved frame (stable views, sym sorted): by its content key alone.
  uint32_t UnresolvedEntry(Table& t, uint64_t ctx, const Event& e, const Frame& f,
                           bool sample_kernel);
  std::vector<std::string_view> context_comm_;  // by context id: the interned comm (key_comm_)
  // A stable view (by address and size; `dso`: its short name is meant) -> its interned copy.
  struct ViewKey {
    const char* data;
    size_t size;
    bool dso = false;
    bool operator==(const ViewKey&) const = default;
    template <typename H>
    friend H AbslHashValue(H h, const ViewKey& k) {
      return H::combine(std::move(h), reinterpret_cast<uintptr_t>(k.data) * 0x9e3779b97f4a7c15ull +
                                          (k.size << 1 | k.dso) * 0xc2b2ae3d27d4eb4full);
    }
  };
  absl::flat_hash_map<ViewKey, std::string_view> interned_views_;
  ContextKey last_context_{};
  uint64_t last_context_id_ = ~0ull;
  // MemoContextOf for non-stable views: by interned comm, ids above every ContextOf id's range.
  absl::flat_hash_map<ContextKey, uint32_t> memo_contexts_;
  ContextKey memo_last_{};  // the last MemoContextOf key (non-stable views) and its id
  uint64_t memo_last_id_ = ~0ull;
  uint64_t lost_samples_ = 0;
  bool saw_callchain_ = false;
  absl::flat_hash_set<std::string_view> comms_, dsos_, symbols_;
  absl::flat_hash_map<int32_t, std::string_view> thread_comm_;
  absl::flat_hash_map<int32_t, StackMemo> memos_;  // by tid
  StackMemo* memo_ = nullptr;                      // this sample's thread's
  std::vector<uint32_t> ids_;                      // this sample's entries, leaf first
  std::vector<uint32_t> added_;                    // the entries it added Children to
  // The calling thread's: thread comms (thread_comm_'s views), the worker's queue.
  Interner thread_strings_;
  std::unique_ptr<BatchPipe<Batch>> pipe_;
  std::unique_ptr<Batch> batch_;
  std::thread worker_;
};

bool IndexEq::operator()(const IndexProbe& p, const IndexSlot& s) const {
  return s.hash == p.hash && p.sink->KeyOf((*p.entries)[s.id]) == p.key;
}

// tk report's sinks for a parser that splits its input (core/part_sink.h): each part
// accumulates into a ReportSink of its own with `out`'s options but no worker thread (the
// part has a thread of its own), and the parts merge into `out` in input order
// (ReportSink::Merge), so the tables are a one-pass run's. Nothing is needed of the input's
// start: a part's entries, tables and counts depend only on its own events.
class ReportParts final : public PartitionedSink {
 public:
  explicit ReportParts(ReportSink& out) : out_(out) {}
  EventSink& Whole() override { return out_; }
  std::unique_ptr<EventSink> NewPart() override;
  void MergePart(EventSink& part) override;

 private:
  ReportSink& out_;
};

// Tables with at least this many rows are sorted and formatted by two threads when
// ReportOptions::threads >= 2 (below it a thread costs more than it saves).
inline constexpr size_t kParallelRows = 8192;

// Appends "%.2f%%" of 100 * v / total (0 when total is 0), as perf prints a percentage.
void AppendPercent(uint64_t v, uint64_t total, std::string* out);

// Rows of a table in perf's order (Children then Self, or Self, descending; ties by the sort
// keys ascending) after the filters; `total` receives the period percentages divide by.
std::vector<const Entry*> SortedRows(const ReportSink& r, const Table& t, uint64_t* total,
                                     uint64_t* samples);

}  // namespace tk::analyses::report

#endif  // TK_ANALYSES_REPORT_REPORT_H_
