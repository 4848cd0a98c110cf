// Unit tests of the perf.data reader on synthetic inputs: byte reader, attrs of every size,
// SAMPLE field order, reorder rounds, pipe streams in small chunks, zstd records straddling
// COMPRESSED boundaries, byte-swapped files, killed recordings, bad records.
#include <zstd.h>

#include <random>
#include <sstream>

#include "core/byte_reader.h"
#include "gtest/gtest.h"
#include "parsers/perf_data/abi.h"
#include "parsers/perf_data/attr.h"
#include "parsers/perf_data/perf_data_parser.h"
#include "parsers/perf_data/reorder_queue.h"
#include "parsers/perf_data/sample.h"
#include "tests/perf_data/builder.h"
#include "tests/perf_data/collect_sink.h"

namespace tk::testing {
namespace {

using namespace tk::parsers::perf_data;

constexpr uint64_t kSampleIdAll = 1ULL << 18;
constexpr uint64_t kBasic = kSampleIdentifier | kSampleIp | kSampleTid | kSampleTime | kSampleCpu |
                            kSamplePeriod | kSampleCallchain;

// A SAMPLE for sample_type kBasic.
std::string Sample(bool swap, uint64_t id, uint64_t ip, uint32_t pid, uint32_t tid, uint64_t time,
                   std::vector<uint64_t> chain = {}, uint16_t misc = kMiscUser) {
  Bytes b(swap);
  b.U64(id).U64(ip).U32(pid).U32(tid).U64(time).U32(0).U32(0).U64(1000).U64(chain.size());
  for (uint64_t c : chain) b.U64(c);
  return Record(swap, kSample, misc, b.str());
}

// The sample_id_all trailer for kBasic: TID, TIME, CPU, IDENTIFIER.
std::string Trailer(bool swap, uint32_t pid, uint32_t tid, uint64_t time, uint64_t id) {
  return Bytes(swap).U32(pid).U32(tid).U64(time).U32(0).U32(0).U64(id).str();
}

std::string Comm(bool swap, uint32_t pid, uint32_t tid, const std::string& comm, uint64_t time) {
  Bytes b(swap);
  b.U32(pid).U32(tid).Str(comm).U8(0).Pad8();
  return Record(swap, kComm, 0, b.str() + Trailer(swap, pid, tid, time, 1));
}

std::string Fork(bool swap, uint32_t pid, uint32_t ppid, uint64_t time) {
  Bytes b(swap);
  b.U32(pid).U32(ppid).U32(pid).U32(ppid).U64(time);
  return Record(swap, kFork, 0, b.str() + Trailer(swap, pid, pid, time, 1));
}

std::string Round(bool swap) { return Record(swap, kFinishedRound, 0, ""); }

FileSpec OneEvent(bool swap) {
  FileSpec f;
  f.swap = swap;
  f.events.push_back({1, 0, kBasic, kSampleIdAll, 0, {1}});
  return f;
}

struct Result {
  absl::Status status;
  CollectSink sink;
  std::string err;
};

void RunParser(std::unique_ptr<Input> in, Result* r, EventMask mask = EventMask::All()) {
  r->sink = CollectSink(mask);
  std::ostringstream err;
  Diagnostics diag(in->name(), &err);
  ParseOptions opts;
  opts.use_buildid_cache = false;
  opts.use_host_kallsyms = false;
  r->status = NewPerfDataParser(opts)->Parse(*in, r->sink, diag);
  diag.PrintSummary();
  r->err = err.str();
}

std::vector<int64_t> Times(const CollectSink& s, EventKind kind = EventKind::kSample) {
  std::vector<int64_t> t;
  for (const Got& g : s.events)
    if (g.kind == kind) t.push_back(g.ts);
  return t;
}

TEST(ByteReader, SwapsAndStopsAtTheEnd) {
  std::string s("\x01\x02\x03\x04\x05", 5);
  ByteReader r(s, true);
  uint32_t v;
  ASSERT_TRUE(r.Read(&v));
  EXPECT_EQ(v, 0x01020304u);
  uint16_t w;
  EXPECT_FALSE(r.Read(&w));
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.Skip(0));  // sticky
}

TEST(Attr, EverySizeBothByteOrders) {
  for (bool swap : {false, true}) {
    for (uint32_t size : {64u, 72u, 112u, 120u, 128u, 136u, 152u}) {
      std::string a = Attr(swap, size, kTypeHardware, 0, kBasic, kSampleIdAll | (3ULL << 15));
      absl::StatusOr<EventAttr> p = ParseAttr(a, swap);
      ASSERT_TRUE(p.ok()) << size;
      EXPECT_EQ(p->sample_type, kBasic) << size;
      EXPECT_TRUE(p->sample_id_all()) << size << swap;
      EXPECT_EQ(p->precise_ip(), 3);
      EXPECT_EQ(DefaultEventName(*p), "cycles:ppp");
    }
  }
  EXPECT_FALSE(ParseAttr(std::string(40, '\0'), false).ok());
}

TEST(Sample, EveryFieldInKernelOrder) {
  EventAttr a;
  a.sample_type = kSampleIdentifier | kSampleIp | kSampleTid | kSampleTime | kSampleAddr | kSampleId |
                  kSampleStreamId | kSampleCpu | kSamplePeriod | kSampleRead | kSampleCallchain |
                  kSampleRaw | kSampleBranchStack | kSampleRegsUser | kSampleStackUser |
                  kSampleWeight | kSampleDataSrc | kSampleTransaction | kSampleRegsIntr |
                  kSamplePhysAddr | kSampleCgroup | kSampleDataPageSize | kSampleCodePageSize;
  a.read_format = kReadGroup | kReadId | kReadLost | kReadTotalTimeEnabled;
  a.branch_sample_type = kBranchHwIndex;
  a.sample_regs_user = 0b111;
  a.sample_regs_intr = 0b1;
  Bytes b;
  b.U64(7).U64(0x1234).U32(10).U32(11).U64(5000).U64(0xadd).U64(7).U64(8).U32(1).U32(0).U64(99);
  b.U64(2).U64(1).U64(100).U64(7).U64(0).U64(200).U64(8).U64(0);  // READ group of 2
  b.U64(2).U64(0xaaaa).U64(0xbbbb);                                // CALLCHAIN
  b.U32(4).Str("abcd");                                            // RAW: 4+4 aligned
  b.U64(1).U64(0).U64(1).U64(2).U64(3);                            // BRANCH_STACK with hw_idx
  b.U64(2).U64(1).U64(2).U64(3);                                   // REGS_USER abi + 3 regs
  b.U64(16).Str(std::string(16, 's')).U64(16);                     // STACK_USER
  b.U64(33).U64(1).U64(2).U64(1).U64(9).U64(0xf).U64(0xc).U64(4096).U64(4096);
  ParsedSample s;
  EXPECT_TRUE(ParseSample(b.str(), a, false, &s).ok());
  EXPECT_EQ(s.ip, 0x1234u);
  EXPECT_EQ(s.pid, 10);
  EXPECT_EQ(s.tid, 11);
  EXPECT_EQ(s.time, 5000u);
  EXPECT_EQ(s.cpu, 1);
  EXPECT_EQ(s.period, 99u);
  EXPECT_EQ(s.callchain_nr, 2u);
  EXPECT_EQ(s.raw, "abcd");
  EXPECT_EQ(s.user_stack_size, 16u);
  EXPECT_EQ(s.weight, 33u);
  // Cut anywhere: an error, never a read past the end.
  for (size_t n = 0; n < b.size(); n += 8) {
    ParsedSample t;
    EXPECT_FALSE(ParseSample(b.str().substr(0, n), a, false, &t).ok()) << n;
  }
}

TEST(ReorderQueue, FlushesUpToThePreviousRoundsMaximum) {
  ReorderQueue q;
  std::vector<ReorderQueue::Entry> out;
  std::string rec(8, '\0');
  q.Push(30, rec, true, 0);
  q.Push(10, rec, true, 1);
  q.Round(&out);  // limit 0: nothing yet
  EXPECT_TRUE(out.empty());
  q.Push(20, rec, false, 2);
  q.Push(40, rec, false, 3);
  q.Round(&out);  // limit 30 (max before the previous round)
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].time, 10u);
  EXPECT_EQ(out[1].time, 20u);
  EXPECT_EQ(out[2].time, 30u);
  q.Release(out);
  out.clear();
  q.Push(35, rec, false, 4);  // older than delivered 30? no; but below limit 30? no
  q.FlushAll(&out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].time, 35u);
  EXPECT_EQ(out[1].time, 40u);
}

// Against a model (everything queued, delivered per round in (time, arrival) order): inputs
// made of a few sorted per-CPU runs (merged) and scrambled ones (over 64 runs: sorted), with
// ties between runs.
TEST(ReorderQueue, MatchesASortedModelForRunsAndScrambledInput) {
  std::mt19937_64 rng(7);
  std::string rec(8, '\0');
  for (int trial = 0; trial < 200; ++trial) {
    ReorderQueue q;
    std::vector<std::pair<uint64_t, uint64_t>> pending;  // model: (time, seq)
    uint64_t seq = 0, max_time = 0, next_flush = 0;
    bool scrambled = trial % 4 == 3;
    std::vector<ReorderQueue::Entry> out;
    std::vector<std::pair<uint64_t, uint64_t>> got, want;
    auto deliver = [&](uint64_t limit, bool all) {
      std::vector<std::pair<uint64_t, uint64_t>> ready, rest;
      for (auto& p : pending) ((all || p.first <= limit) ? ready : rest).push_back(p);
      std::sort(ready.begin(), ready.end());
      want.insert(want.end(), ready.begin(), ready.end());
      pending = rest;
    };
    uint64_t base = 0;
    for (int round = 0; round < 6; ++round) {
      int cpus = 1 + static_cast<int>(rng() % 8);
      for (int cpu = 0; cpu < cpus; ++cpu) {
        uint64_t t = base + rng() % 50;
        int n = static_cast<int>(rng() % 40);
        for (int i = 0; i < n; ++i) {
          t = scrambled ? base + rng() % 400 : t + rng() % 5;  // repeats: ties
          q.Push(t, rec, true, seq);
          pending.emplace_back(t, seq++);
          max_time = std::max(max_time, t);
        }
      }
      q.Round(&out);
      deliver(next_flush, false);
      next_flush = max_time;
      base += 100;
    }
    q.FlushAll(&out);
    deliver(0, true);
    for (const auto& e : out) got.emplace_back(e.time, e.offset);
    ASSERT_EQ(got, want) << "trial " << trial;
  }
}

// Records in per-CPU batches: FINISHED_ROUND ordering puts them in time order.
std::string BatchedData(bool swap) {
  return Comm(swap, 10, 10, "work", 1) + Sample(swap, 1, 0x10, 10, 10, 300) +
         Sample(swap, 1, 0x11, 10, 10, 100) + Round(swap) + Sample(swap, 1, 0x12, 10, 10, 200) +
         Fork(swap, 11, 10, 250) + Sample(swap, 1, 0x13, 11, 11, 400) + Round(swap) +
         Sample(swap, 1, 0x14, 10, 10, 350);
}

TEST(PerfData, FileModeTimeOrderCommAndForkBothByteOrders) {
  for (bool swap : {false, true}) {
    FileSpec f = OneEvent(swap);
    f.data = BatchedData(swap);
    std::string file = File(f);
    Result r;
    RunParser(Input::FromString(file), &r);
    ASSERT_TRUE(r.status.ok()) << r.status;
    EXPECT_EQ(Times(r.sink), (std::vector<int64_t>{100, 200, 300, 350, 400})) << swap;
    EXPECT_EQ(r.sink.finished, 1);
    for (const Got& g : r.sink.events) {
      if (g.kind != EventKind::kSample) continue;
      EXPECT_EQ(g.comm, "work");  // the child inherits its parent's comm on FORK
      EXPECT_EQ(g.name, "cpu-clock:HG");  // no EVENT_DESC: perf's default name and modifiers
      EXPECT_EQ(g.period, 1000u);
      EXPECT_TRUE(g.syms.empty());  // an empty callchain is an empty stack
    }
  }
}

TEST(PerfData, PipeModeInTinyChunksMatchesMapped) {
  bool swap = false;
  Bytes head;
  head.Str("PERFILE2").U64(16);
  std::string attr = Attr(swap, 128, 1, 0, kBasic, kSampleIdAll);
  std::string stream = head.str() + Record(swap, kHeaderAttr, 0, attr + Bytes().U64(1).str()) +
                       Record(swap, kFinishedInit, 0, "") + BatchedData(swap);
  for (size_t chunk : {1, 7, 64, 100000}) {
    Result r;
    RunParser(Input::StreamFromString(stream, chunk), &r);
    ASSERT_TRUE(r.status.ok()) << r.status;
    EXPECT_EQ(Times(r.sink), (std::vector<int64_t>{100, 200, 300, 350, 400})) << chunk;
  }
  Result m;
  RunParser(Input::FromString(stream), &m);
  EXPECT_EQ(Times(m.sink).size(), 5u);
}

std::string Compress(ZSTD_CCtx* c, const std::string& in) {
  std::string out(ZSTD_compressBound(in.size()) + 64, '\0');
  ZSTD_inBuffer ib{in.data(), in.size(), 0};
  ZSTD_outBuffer ob{out.data(), out.size(), 0};
  ZSTD_compressStream2(c, &ob, &ib, ZSTD_e_end);
  out.resize(ob.pos);
  return out;
}

TEST(PerfData, CompressedRecordsStraddlingChunks) {
  bool swap = false;
  std::string raw = BatchedData(swap);
  for (size_t cut : {size_t{5}, raw.size() / 2, raw.size() - 3}) {
    for (uint32_t type : {kCompressed, kCompressed2}) {
      ZSTD_CCtx* c = ZSTD_createCCtx();
      std::string data;
      for (const std::string& part : {raw.substr(0, cut), raw.substr(cut)}) {
        std::string z = Compress(c, part);
        // COMPRESSED is not padded (header.size = 8 + compressed bytes); COMPRESSED2 is.
        data += type == kCompressed
                    ? Bytes().U32(type).U16(0).U16(static_cast<uint16_t>(8 + z.size())).str() + z
                    : Record(swap, type, 0, Bytes().U64(z.size()).str() + z);
      }
      ZSTD_freeCCtx(c);
      FileSpec f = OneEvent(swap);
      f.data = data;
      std::string file = File(f);
      Result r;
      RunParser(Input::FromString(file), &r);
      ASSERT_TRUE(r.status.ok()) << r.status;
      EXPECT_EQ(Times(r.sink), (std::vector<int64_t>{100, 200, 300, 350, 400})) << cut << " " << type;
    }
  }
}

TEST(PerfData, KilledRecordingReadsToTheLastWholeRecord) {
  FileSpec f = OneEvent(false);
  f.data = BatchedData(false);
  f.data.resize(f.data.size() - 5);  // the last sample is cut
  f.zero_data_size = true;
  std::string file = File(f);
  Result r;
  RunParser(Input::FromString(file), &r);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(Times(r.sink), (std::vector<int64_t>{100, 200, 300, 400}));
  EXPECT_NE(r.err.find("data size 0 in the header"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("data ends inside a record"), std::string::npos) << r.err;
  // Zeros after the last record (never written): the data ends there too.
  f.data = BatchedData(false) + std::string(64, '\0');
  std::string zeros = File(f);
  Result z;
  RunParser(Input::FromString(zeros), &z);
  ASSERT_TRUE(z.status.ok()) << z.status;
  EXPECT_EQ(Times(z.sink).size(), 5u);
}

TEST(PerfData, SeveralEventsByIdentifierAndLostRecords) {
  FileSpec f;
  f.events.push_back({1, 0, kBasic, kSampleIdAll, 0, {1, 2}});
  f.events.push_back({1, 1, kBasic, kSampleIdAll, 0, {3}});
  Bytes lost;
  lost.U64(1).U64(42);
  f.data = Sample(false, 2, 1, 5, 5, 10) + Sample(false, 3, 1, 5, 5, 20) +
           Record(false, kLost, 0, lost.str() + Trailer(false, 5, 5, 30, 1)) +
           Sample(false, 9, 1, 5, 5, 40);  // unknown id: counted, skipped
  std::string file = File(f);
  Result r;
  RunParser(Input::FromString(file), &r);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_GE(r.sink.events.size(), 3u);
  EXPECT_EQ(r.sink.events[0].name, "cpu-clock:HG");
  EXPECT_EQ(r.sink.events[1].name, "task-clock:HG");
  EXPECT_EQ(r.sink.events[2].kind, EventKind::kLost);
  EXPECT_EQ(r.sink.events[2].lost, 42u);
  EXPECT_NE(r.err.find("42 events lost"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("SAMPLE with an id no event attr has"), std::string::npos) << r.err;
}

TEST(PerfData, CallchainMarkersAndInvalidContext) {
  FileSpec f = OneEvent(false);
  f.data = Sample(false, 1, 0x10, 5, 5, 10, {kContextKernel, 0xffffffff81000010, kContextUser, 0x400, 0}) +
           Sample(false, 1, 0x10, 5, 5, 20, {kContextUser, 0x400, ~0ULL});
  std::string file = File(f);
  Result r;
  RunParser(Input::FromString(file), &r);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.sink.events.size(), 2u);
  EXPECT_EQ(r.sink.events[0].frames.size(), 3u);  // markers are not frames
  EXPECT_EQ(r.sink.events[0].dsos[0], "[unknown]");
  EXPECT_TRUE(r.sink.events[1].frames.empty());  // perf drops stacks with an unknown marker
}

TEST(PerfData, DwarfCallchainKeepsKernelPartAndUserIp) {
  constexpr uint64_t kExcludeCallchainUser = 1ULL << 22;
  FileSpec f;
  uint64_t st = kBasic | kSampleRegsUser | kSampleStackUser;
  f.events.push_back({1, 0, st, kSampleIdAll | kExcludeCallchainUser, 0, {1}});
  // A kernel-mode sample: callchain = kernel part only; REGS_USER {abi 2, regs[ip-bit mask]}.
  Bytes b;
  b.U64(1).U64(0xffffffff81000010).U32(5).U32(5).U64(10).U32(0).U32(0).U64(1000);
  b.U64(2).U64(kContextKernel).U64(0xffffffff81000010);
  b.U64(2).U64(0x4005);                           // REGS_USER: abi, IP (only reg in mask)
  b.U64(8).Str(std::string(8, 'x')).U64(8);       // STACK_USER
  f.data = Record(false, kSample, kMiscKernel, b.str());
  std::string file = File(f);
  // sample_regs_user is not in the builder's attr: patch the mask (attr offset 80) to bit 8.
  size_t attr_off = 104;
  uint64_t mask = 1ULL << 8;
  file.replace(attr_off + 80, 8, std::string(reinterpret_cast<const char*>(&mask), 8));
  Result r;
  RunParser(Input::FromString(file), &r);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.sink.events.size(), 1u);
  ASSERT_EQ(r.sink.events[0].frames.size(), 2u);
  EXPECT_EQ(r.sink.events[0].frames[1].ip, 0x4005u);  // unresolved: no maps, raw address
  // No SP in REGS_USER: nothing to unwind from, counted.
  EXPECT_NE(r.err.find("1 without user registers"), std::string::npos) << r.err;
}

TEST(PerfData, BadInputIsAnErrorWithAnOffsetNeverACrash) {
  FileSpec f = OneEvent(false);
  f.data = Sample(false, 1, 1, 1, 1, 1) + Bytes().U32(kSample).U16(0).U16(4).str();
  std::string file = File(f);
  Result r;
  RunParser(Input::FromString(file), &r);
  EXPECT_FALSE(r.status.ok());
  EXPECT_NE(std::string(r.status.message()).find(": offset "), std::string::npos) << r.status;
  // Every prefix of a valid file: an error or a clean end, no crash (ASan checks reads).
  FileSpec g = OneEvent(true);
  g.data = BatchedData(true);
  std::string whole = File(g);
  for (size_t n = 0; n < whole.size(); n += 3) {
    Result p;
    std::string cut = whole.substr(0, n);
    RunParser(Input::FromString(cut), &p);
  }
}

}  // namespace
}  // namespace tk::testing
