// A file-mode perf.data parsed in two parts on two threads (session.h RunSessionParts) gives
// exactly a one-pass parse's events, in its order, and its messages and counters: on every
// committed perf.data fixture, with the cut at every round of small ones, on damaged copies
// (the fallback to one pass), on synthetic files whose cut round reorders records across the
// cut, from a mapped file and from memory.
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "core/input.h"
#include "gtest/gtest.h"
#include "parsers/perf_data/abi.h"
#include "parsers/perf_data/file_header.h"
#include "parsers/perf_data/perf_data_parser.h"
#include "parsers/perf_data/sample.h"
#include "parsers/perf_data/session.h"
#include "parsers/perf_data/tokenizer.h"
#include "tests/perf_data/builder.h"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

using namespace tk::parsers::perf_data;

// Every event as one line of text: what any analysis may read of it (not Event::stack_id, a
// parse's own numbering).
class TextSink final : public EventSink {
 public:
  EventMask wants() const override { return EventMask::All(); }
  absl::Status OnEvent(const Event& e) override {
    absl::StrAppend(&text, static_cast<int>(e.kind()), " ", e.ts_ns, " ", e.cpu, " ", e.pid, " ",
                    e.tid, " [", std::string(e.comm), "] ", std::string(e.name), " ", e.period,
                    " ", e.has_period, e.pid_hidden, e.stack_recorded, e.callchain, " |");
    for (const Frame& f : e.stack) {
      absl::StrAppend(&text, " ", f.ip, ":", std::string(f.symbol), ":", std::string(f.dso), ":",
                      f.sym_offset);
    }
    for (const Frame& f : e.dropped_stack_ip) absl::StrAppend(&text, " dropped ", f.ip, ":", std::string(f.symbol));
    if (const Comm* c = std::get_if<Comm>(&e.body)) {
      absl::StrAppend(&text, " comm ", c->pid, " ", c->tid, " ", std::string(c->comm), " ", c->exec);
    } else if (const Fork* f = std::get_if<Fork>(&e.body)) {
      absl::StrAppend(&text, " fork ", f->pid, " ", f->ppid, " ", f->tid, " ", f->ptid);
    } else if (const Exit* x = std::get_if<Exit>(&e.body)) {
      absl::StrAppend(&text, " exit ", x->pid, " ", x->ppid, " ", x->tid, " ", x->ptid);
    } else if (const Lost* l = std::get_if<Lost>(&e.body)) {
      absl::StrAppend(&text, " lost ", static_cast<int>(l->kind), " ", l->count);
    } else if (const SchedSwitch* w = std::get_if<SchedSwitch>(&e.body)) {
      absl::StrAppend(&text, " switch ", std::string(w->prev_comm), " ", w->prev_pid, " ",
                      w->prev_prio, " ", std::string(w->next_comm), " ", w->next_pid);
    }
    text += "\n";
    ++events;
    return absl::OkStatus();
  }
  absl::Status Finish() override {
    ++finished;
    return absl::OkStatus();
  }
  std::string text;
  uint64_t events = 0;
  int finished = 0;
};

// Parts are TextSinks; merged in order into `merged`.
class TextParts final : public PartitionedSink {
 public:
  EventSink& Whole() override {
    whole_used = true;
    return whole;
  }
  std::unique_ptr<EventSink> NewPart() override { return std::make_unique<TextSink>(); }
  void MergePart(EventSink& part) override {
    auto& p = static_cast<TextSink&>(part);
    EXPECT_EQ(p.finished, 1);
    merged.text += p.text;
    ++merged_parts;
  }
  TextSink whole, merged;
  bool whole_used = false;
  int merged_parts = 0;
  const std::string& text() const { return whole_used ? whole.text : merged.text; }
};

struct Outcome {
  absl::Status status;
  std::string text, err;
  std::vector<uint64_t> counts;
  SplitStats stats;
};

ParseOptions Options(int threads) {
  ParseOptions o;
  o.use_buildid_cache = false;
  o.use_host_kallsyms = false;
  o.threads = threads;
  o.perf_data_split_min_bytes = 0;
  return o;
}

std::vector<uint64_t> Counts(const Diagnostics& d) {
  std::vector<uint64_t> c;
  for (const StatInfo& s : kStats) c.push_back(d.count(s.id));
  return c;
}

std::unique_ptr<Input> OpenInput(const std::string& path_or_bytes, bool is_path) {
  if (!is_path) return Input::FromString(path_or_bytes, "mem.data");
  absl::StatusOr<std::unique_ptr<Input>> in = Input::Open(path_or_bytes);
  EXPECT_TRUE(in.ok()) << path_or_bytes;
  return std::move(*in);
}

Outcome OnePass(const std::string& src, bool is_path) {
  std::unique_ptr<Input> in = OpenInput(src, is_path);
  std::ostringstream err;
  Diagnostics diag(is_path ? in->name() : "mem.data", &err);
  TextSink sink;
  Outcome r;
  r.status = NewPerfDataParser(Options(1))->Parse(*in, sink, diag);
  diag.PrintSummary();
  r.text = sink.text;
  r.err = err.str();
  r.counts = Counts(diag);
  return r;
}

Outcome Split(const std::string& src, bool is_path, uint64_t split_at = 0) {
  std::unique_ptr<Input> in = OpenInput(src, is_path);
  std::ostringstream err;
  Diagnostics diag(is_path ? in->name() : "mem.data", &err);
  TextParts parts;
  ParseOptions o = Options(2);
  o.perf_data_split_at = split_at;
  Outcome r;
  r.status = RunSessionParts(*in, o, parts, diag, &r.stats);
  diag.PrintSummary();
  r.text = parts.text();
  r.err = err.str();
  r.counts = Counts(diag);
  EXPECT_EQ(parts.merged_parts, parts.whole_used ? 0 : 2);
  if (!parts.whole_used) {
    EXPECT_EQ(r.stats.parts, 2);
  }
  return r;
}

void ExpectSame(const Outcome& one, const Outcome& split, const std::string& what) {
  EXPECT_EQ(one.status, split.status) << what;
  EXPECT_EQ(one.err, split.err) << what;
  EXPECT_EQ(one.counts, split.counts) << what;
  EXPECT_TRUE(one.text == split.text) << what << ": events differ ("
                                      << std::count(one.text.begin(), one.text.end(), '\n')
                                      << " one pass, "
                                      << std::count(split.text.begin(), split.text.end(), '\n')
                                      << " split)";
}

std::vector<std::string> Fixtures() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(SourcePath("testdata"))) {
    if (e.is_regular_file() && e.path().extension() == ".data") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The offsets of a file's FINISHED_ROUND records (empty for pipe mode or unreadable data).
std::vector<uint64_t> Rounds(const std::string& bytes) {
  std::vector<uint64_t> out;
  absl::StatusOr<Metadata> m = ReadFileHeader(bytes);
  if (!m.ok() || m->pipe) return out;
  Tokenizer tok(std::string_view(bytes).substr(m->data_offset, m->data_size), m->data_offset,
                m->swap, m->truncated);
  RawRecord rec;
  while (true) {
    absl::StatusOr<bool> got = tok.Next(&rec);
    if (!got.ok() || !*got) break;
    if (rec.type == kFinishedRound) out.push_back(rec.offset);
  }
  return out;
}

TEST(PerfDataSplit, EveryFixtureAsOnePass) {
  int split_clean = 0;
  for (const std::string& f : Fixtures()) {
    Outcome one = OnePass(f, true);
    Outcome split = Split(f, true);
    ExpectSame(one, split, f);
    if (split.stats.parts == 2 && !split.stats.reparsed) ++split_clean;
    // From memory (stdin spooled, a test's bytes): the same.
    const std::string bytes = ReadFile(f);
    ExpectSame(OnePass(bytes, false), Split(bytes, false), f + " in memory");
  }
  // The fixtures include plain -g recordings the split takes (not only fallbacks).
  EXPECT_GE(split_clean, 3);
}

// Synthetic files: records of the cut's round older than the round before it, side-band
// records of the same time as samples on either side of the cut, an MMAP after the cut that
// samples before it must not see and samples after it must.
constexpr uint64_t kSampleIdAll = 1ULL << 18;
constexpr uint64_t kBasic = kSampleIdentifier | kSampleIp | kSampleTid | kSampleTime | kSampleCpu |
                            kSamplePeriod | kSampleCallchain;

std::string Trailer(uint32_t pid, uint32_t tid, uint64_t time) {
  return Bytes().U32(pid).U32(tid).U64(time).U32(0).U32(0).U64(1).str();
}
std::string SampleAt(uint32_t pid, uint64_t time, uint64_t ip) {
  Bytes b;
  b.U64(1).U64(ip).U32(pid).U32(pid).U64(time).U32(0).U32(0).U64(1000).U64(2);
  b.U64(kContextUser).U64(ip);
  return Record(false, kSample, kMiscUser, b.str());
}
std::string CommAt(uint32_t pid, const std::string& comm, uint64_t time) {
  Bytes b;
  b.U32(pid).U32(pid).Str(comm).U8(0).Pad8();
  return Record(false, kComm, 0, b.str() + Trailer(pid, pid, time));
}
std::string JitMmapAt(uint32_t pid, uint64_t start, uint64_t time) {
  // An anonymous executable map: its symbols would come from /tmp/perf-PID.map (absent), so
  // its frames print "[unknown]" in DSO "/tmp/perf-PID.map"; outside any map "[unknown]".
  Bytes b;
  b.U32(pid).U32(pid).U64(start).U64(0x1000).U64(0).Str("//anon").U8(0).Pad8();
  return Record(false, kMmap, kMiscUser, b.str() + Trailer(pid, pid, time));
}
std::string RoundRec() { return Record(false, kFinishedRound, 0, ""); }

uint64_t U64At(const std::string& b, size_t at) {
  uint64_t v;
  std::memcpy(&v, b.data() + at, 8);
  return v;
}
void SetU64(std::string* b, size_t at, uint64_t v) { std::memcpy(b->data() + at, &v, 8); }

// A copy of a (little-endian, file-mode) recording with its FINISHED_ROUNDs moved: one after
// every `every` records or more, where perf's guarantee holds (no record after a round is
// older than the newest one before the round preceding it, so nothing is out of order): more
// places to cut than perf's few rounds in a small file.
std::string WithRounds(const std::string& file, int every) {
  absl::StatusOr<Metadata> m = ReadFileHeader(file);
  EXPECT_TRUE(m.ok() && !m->swap && !m->pipe);
  const uint64_t begin = m->data_offset, end = m->data_offset + m->data_size;
  EventTable table;
  table.Build(*m);
  std::vector<std::string_view> recs;
  std::vector<uint64_t> times;
  Tokenizer tok(std::string_view(file).substr(begin, m->data_size), begin, false, false);
  RawRecord rec;
  while (tok.Next(&rec).value_or(false)) {
    if (rec.type == kFinishedRound) continue;
    recs.push_back(rec.bytes);
    times.push_back(rec.type >= kUserTypeStart ? 0 : table.TimeOf(rec.type, rec.bytes.substr(8)));
  }
  std::vector<uint64_t> suffix_min(recs.size() + 1, UINT64_MAX);
  for (size_t i = recs.size(); i-- > 0;) {
    suffix_min[i] = std::min(suffix_min[i + 1], times[i] ? times[i] : UINT64_MAX);
  }
  std::string data;
  uint64_t max_now = 0, max_at_last_round = 0;
  size_t since = 0;
  for (size_t i = 0; i < recs.size(); ++i) {
    data.append(recs[i]);
    max_now = std::max(max_now, times[i]);
    if (++since >= static_cast<size_t>(every) && suffix_min[i + 1] >= max_at_last_round) {
      data += RoundRec();
      max_at_last_round = max_now;
      since = 0;
    }
  }
  const uint64_t added = data.size() - m->data_size;  // modulo 2^64 when fewer
  std::string out = file.substr(0, begin) + data + file.substr(end);
  SetU64(&out, 48, data.size());  // perf_file_header.data.size
  // The feature sections' table follows the data: its offsets past the data move too.
  const size_t table_at = begin + data.size();
  for (size_t i = 0; i < m->features.size(); ++i) {
    const uint64_t off = U64At(out, table_at + 16 * i);
    if (off >= end) SetU64(&out, table_at + 16 * i, off + added);
  }
  return out;
}

TEST(PerfDataSplit, CutAtEveryRound) {
  for (const char* rel : {"testdata/perf_data/a.data", "testdata/perf_data/g.data",
                          "testdata/perf_data/multi.data", "testdata/report/cxx.data",
                          "testdata/recorded/sched/sched.perf.data",
                          "testdata/offcpu/offcpu.data"}) {
    const std::string bytes = WithRounds(ReadFile(SourcePath(rel)), 40);
    const std::vector<uint64_t> rounds = Rounds(bytes);
    Outcome one = OnePass(bytes, false);
    ASSERT_TRUE(one.status.ok()) << rel << ": " << one.status;
    int clean = 0;
    for (uint64_t r : rounds) {
      Outcome split = Split(bytes, false, r);
      ExpectSame(one, split, absl::StrCat(rel, " cut at ", r));
      if (split.stats.parts == 2 && !split.stats.reparsed) ++clean;
    }
    EXPECT_GT(clean, 0) << rel << ": " << rounds.size() << " rounds";
    std::cerr << rel << ": " << rounds.size() << " rounds, " << clean << " clean cuts\n";
  }
}

// A copy with `bytes` at `offset` overwritten.
std::string Patched(std::string file, uint64_t offset, const std::string& bytes) {
  file.replace(offset, bytes.size(), bytes);
  return file;
}

TEST(PerfDataSplit, DamagedCopiesFallBackWithOnePassMessages) {
  const std::string bytes = WithRounds(ReadFile(SourcePath("testdata/perf_data/a.data")), 40);
  absl::StatusOr<Metadata> m = ReadFileHeader(bytes);
  ASSERT_TRUE(m.ok());
  // The samples of the second half, and their offsets.
  Tokenizer tok(std::string_view(bytes).substr(m->data_offset, m->data_size), m->data_offset,
                m->swap, false);
  std::vector<std::pair<uint64_t, uint16_t>> samples, first_half, second_half;
  RawRecord rec;
  while (tok.Next(&rec).value_or(false)) {
    if (rec.type == kSample) samples.emplace_back(rec.offset, rec.size);
  }
  ASSERT_GT(samples.size(), 10u);
  // The cut: the first round after the middle sample.
  const uint64_t mid = samples[samples.size() / 2].first;
  for (const auto& s : samples) (s.first < mid ? first_half : second_half).push_back(s);
  ASSERT_FALSE(first_half.empty());
  ASSERT_FALSE(second_half.empty());
  std::vector<std::pair<std::string, std::string>> cases;
  // A sample id no attr has (PERF_SAMPLE_IDENTIFIER first: the sample's first u64), either half.
  const std::string bad_id(8, '\x7f');
  for (auto* half : {&first_half, &second_half}) {
    cases.emplace_back("unknown id", Patched(bytes, (*half)[half->size() / 2].first + 8, bad_id));
  }
  // A sample shortened to its header: malformed.
  std::string shortened = bytes;
  {
    const uint64_t at = second_half[second_half.size() / 3].first;
    const uint16_t size = second_half[second_half.size() / 3].second;
    // Its header says 8 bytes, the rest becomes an unknown record type (skipped).
    uint16_t eight = 8;
    shortened.replace(at + 6, 2, reinterpret_cast<const char*>(&eight), 2);
    uint32_t junk_type = 60;
    uint16_t rest = size - 8;
    shortened.replace(at + 8, 4, reinterpret_cast<const char*>(&junk_type), 4);
    shortened.replace(at + 14, 2, reinterpret_cast<const char*>(&rest), 2);
  }
  cases.emplace_back("short sample", shortened);
  // A record of size 0 in the second half: a fatal framing error there.
  {
    std::string zero = bytes;
    const uint64_t at = second_half[second_half.size() / 2].first;
    zero.replace(at + 6, 2, std::string(2, '\0'));
    cases.emplace_back("size 0", zero);
  }
  // Data cut short three quarters in: the header's data size past the end of the file.
  cases.emplace_back("cut", bytes.substr(0, m->data_offset + m->data_size * 3 / 4));
  for (const auto& [what, b] : cases) {
    Outcome one = OnePass(b, false);
    Outcome split = Split(b, false, mid);
    ExpectSame(one, split, what);
    if (what != "cut") {  // a header whose data runs past the file's end is not split
      EXPECT_EQ(split.stats.parts, 2) << what;
      EXPECT_TRUE(split.stats.reparsed) << what;
    }
    EXPECT_TRUE(!one.err.empty() || !one.status.ok()) << what << ": the damage shows";
  }
}

// 40 rounds of two "CPUs" each written in turn, so each round holds records older than the
// previous round's newest; COMMs and MMAPs of the same times as samples. `extra(round)` adds
// records at the end of a round.
std::string Synthetic(const std::function<std::string(int round, uint64_t t)>& extra = nullptr) {
  FileSpec spec;
  spec.events.push_back({1, 0, kBasic, kSampleIdAll, 0, {1}});
  std::string d;
  uint64_t t = 1000;
  // Rounds of two "CPUs" each written in turn, so each round holds records older than the
  // previous round's newest; COMMs and MMAPs of the same times as samples.
  for (int round = 0; round < 40; ++round) {
    for (int cpu = 0; cpu < 2; ++cpu) {
      for (int i = 0; i < 5; ++i) {
        const uint64_t ts = t + static_cast<uint64_t>(i * 10 + cpu * 3);
        const uint32_t pid = 100 + static_cast<uint32_t>((round + i) % 3);
        if (i == 2) d += CommAt(pid, absl::StrCat("c", round, "_", cpu), ts);
        if (i == 3 && round % 4 == cpu) {
          d += JitMmapAt(pid, 0x400000 + static_cast<uint64_t>(round) * 0x1000, ts);
        }
        d += SampleAt(pid, ts, 0x400010 + static_cast<uint64_t>(round % 8) * 0x1000);
      }
    }
    if (extra) d += extra(round, t + 30);
    d += RoundRec();
    t += 40;  // overlapping the next round
  }
  spec.data = d;
  return File(spec);
}

TEST(PerfDataSplit, RoundsAcrossTheCut) {
  const std::string file = Synthetic();
  const std::vector<uint64_t> rounds = Rounds(file);
  ASSERT_EQ(rounds.size(), 40u);
  Outcome one = OnePass(file, false);
  ASSERT_TRUE(one.status.ok());
  int clean = 0;
  for (uint64_t r : rounds) {
    Outcome split = Split(file, false, r);
    ExpectSame(one, split, absl::StrCat("cut at ", r));
    if (split.stats.parts == 2 && !split.stats.reparsed) ++clean;
  }
  // The last round ends the data: the second part delivers what the first part's queue kept.
  EXPECT_EQ(clean, 40);
  // No round after the offset: the first part is all of it, the second (replaying to the end)
  // delivers nothing.
  Outcome none = Split(file, false, file.size());
  ExpectSame(one, none, "no round after the cut's offset");
  EXPECT_FALSE(none.stats.reparsed);
}

// What a Machine loads lazily may depend on when: kernel maps changed after the first sample
// (KSYMBOL, a module MMAP) and build ids in MMAP2 records make the split parse again in one
// pass (the same events either way).
TEST(PerfDataSplit, LateKernelMapsAndBuildIdsFallBack) {
  auto ksymbol = [](uint64_t time) {
    Bytes b;
    b.U64(0xffffffffc0001000ull).U32(0x100).U16(1).U16(0).Str("bpf_prog_x").U8(0).Pad8();
    return Record(false, kKsymbol, kMiscKernel, b.str() + Trailer(0, 0, time));
  };
  auto module_mmap = [](uint64_t time) {
    Bytes b;
    b.U32(static_cast<uint32_t>(-1)).U32(0).U64(0xffffffffc0100000ull).U64(0x2000).U64(0);
    b.Str("/lib/modules/x/veth.ko").U8(0).Pad8();
    return Record(false, kMmap, kMiscKernel, b.str() + Trailer(0, 0, time));
  };
  auto buildid_mmap2 = [](uint64_t time) {
    Bytes b;
    b.U32(100).U32(100).U64(0x900000).U64(0x1000).U64(0);
    b.U8(20).U8(0).U16(0).Str(std::string(20, '\x11'));  // build id size, pad, 20 bytes
    b.U32(5).U32(0);  // prot, flags
    b.Str("/bin/x").U8(0).Pad8();
    return Record(false, kMmap2, kMiscUser | kMiscMmapBuildId, b.str() + Trailer(100, 100, time));
  };
  for (const auto& c : std::vector<std::pair<std::string, std::function<std::string(uint64_t)>>>{
           {"ksymbol", ksymbol}, {"module mmap", module_mmap}, {"build id", buildid_mmap2}}) {
    const std::string& what = c.first;
    const std::function<std::string(uint64_t)>& rec = c.second;  // (clang: no captured bindings)
    for (int at : {5, 30}) {  // before the cut (after samples), after it
      const std::string file = Synthetic([&, at](int round, uint64_t t) {
        return round == at ? rec(t) : std::string();
      });
      const std::vector<uint64_t> rounds = Rounds(file);
      Outcome one = OnePass(file, false);
      Outcome split = Split(file, false, rounds[20]);
      ExpectSame(one, split, absl::StrCat(what, " in round ", at));
      EXPECT_EQ(split.stats.parts, 2) << what;
      EXPECT_TRUE(split.stats.reparsed) << what << " in round " << at;
    }
  }
}

TEST(PerfDataSplit, SmallOrOneThreadIsOnePass) {
  const std::string path = SourcePath("testdata/perf_data/a.data");
  std::unique_ptr<Input> in = OpenInput(path, true);
  std::ostringstream err;
  Diagnostics diag(in->name(), &err);
  TextParts parts;
  ParseOptions o = Options(2);
  o.perf_data_split_min_bytes = 1 << 30;
  SplitStats stats;
  ASSERT_TRUE(RunSessionParts(*in, o, parts, diag, &stats).ok());
  EXPECT_TRUE(parts.whole_used);
  EXPECT_EQ(stats.parts, 1);
  o = Options(1);
  TextParts one;
  ASSERT_TRUE(RunSessionParts(*in, o, one, diag, &stats).ok());
  EXPECT_TRUE(one.whole_used);
  EXPECT_EQ(stats.parts, 1);
}

}  // namespace
}  // namespace tk::testing
