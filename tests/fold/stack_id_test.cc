// Event::stack_id from the perf.data decoder (its stack memo) and FoldSink's use of it:
//   - on every committed perf.data fixture (file, pipe, -z, --call-graph dwarf; 1 and 2
//     threads), events with the same non-zero stack_id carry equal stacks, frame for frame;
//     some ids repeat (the memo is used), and tk fold's output with the memo is the output
//     without it (the same events with stack_id 0, and through the text path's strings);
//   - a process whose maps change (a new MMAP at the same address, an exec) names the same
//     raw callchain anew: the key holds the maps' generation.
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analyses/fold/fold.h"
#include "gtest/gtest.h"
#include "parsers/perf_data/abi.h"
#include "parsers/perf_data/perf_data_parser.h"
#include "tests/perf_data/builder.h"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

namespace fs = std::filesystem;
using analyses::fold::FoldOptions;
using analyses::fold::FoldSink;
using namespace tk::parsers::perf_data;

// A frame with its names copied.
struct SavedFrame {
  uint64_t ip;
  std::string symbol, dso;
  int64_t sym_offset;
  bool operator==(const SavedFrame&) const = default;
};
struct SavedStack {
  std::vector<SavedFrame> frames, dropped;
  bool recorded, callchain;
  bool operator==(const SavedStack&) const = default;
};

SavedStack Save(const Event& e) {
  SavedStack s{{}, {}, e.stack_recorded, e.callchain};
  for (const Frame& f : e.stack) s.frames.push_back({f.ip, std::string(f.symbol), std::string(f.dso), f.sym_offset});
  for (const Frame& f : e.dropped_stack_ip) {
    s.dropped.push_back({f.ip, std::string(f.symbol), std::string(f.dso), f.sym_offset});
  }
  return s;
}

// Checks the stack_id contract and feeds three folds: as the parser gives the events, with
// stack_id 0, and with stack_id 0 through the string path (views not stable).
class CheckSink final : public EventSink {
 public:
  CheckSink(const std::string& name, FoldOptions o)
      : name_(name), memo_(o), plain_(o), text_(o) {}
  EventMask wants() const override { return EventMask::All(); }
  absl::Status OnEvent(const Event& e) override {
    if (e.stack_id != 0) {
      ++with_id_;
      auto [it, inserted] = seen_.try_emplace(e.stack_id, Save(e));
      if (!inserted) {
        ++repeats_;
        EXPECT_TRUE(it->second == Save(e)) << name_ << ": stack_id " << e.stack_id << " differs";
      }
    }
    EXPECT_TRUE(memo_.OnEvent(e).ok());
    Event copy = e;
    copy.stack_id = 0;
    EXPECT_TRUE(plain_.OnEvent(copy).ok());
    copy.stable_views = false;
    EXPECT_TRUE(text_.OnEvent(copy).ok());
    return absl::OkStatus();
  }
  absl::Status Finish() override {
    EXPECT_TRUE(memo_.Finish().ok());
    EXPECT_TRUE(plain_.Finish().ok());
    EXPECT_TRUE(text_.Finish().ok());
    return absl::OkStatus();
  }
  static std::string Out(const FoldSink& s) {
    std::ostringstream o;
    s.Write(o);
    return o.str();
  }
  void ExpectSameFolds() const {
    EXPECT_EQ(Out(memo_), Out(plain_)) << name_;
    EXPECT_EQ(Out(memo_), Out(text_)) << name_;
  }
  bool Folded() const { return !Out(memo_).empty(); }
  uint64_t with_id_ = 0, repeats_ = 0;

 private:
  std::string name_;
  std::map<uint64_t, SavedStack> seen_;
  FoldSink memo_, plain_, text_;
};

std::vector<std::string> PerfDataFixtures() {
  std::vector<std::string> v;
  for (const auto& e : fs::recursive_directory_iterator(SourcePath("testdata"))) {
    if (e.is_regular_file() && e.path().extension() == ".data") v.push_back(e.path().string());
  }
  std::sort(v.begin(), v.end());
  return v;
}

ParseOptions OptionsFor(const std::string& path, int threads) {
  ParseOptions o;
  o.use_buildid_cache = false;
  o.use_host_kallsyms = false;
  o.threads = threads;
  const fs::path dir = fs::path(path).parent_path();
  if (fs::exists(dir / "symfs")) o.symfs = (dir / "symfs").string();
  if (fs::exists(dir / "kallsyms")) o.kallsyms = (dir / "kallsyms").string();
  return o;
}

TEST(StackId, EqualIdsCarryEqualStacksAndFoldTheSameOnEveryFixture) {
  const std::vector<std::string> fixtures = PerfDataFixtures();
  ASSERT_GE(fixtures.size(), 20u);
  uint64_t repeats = 0, dwarf_repeats = 0;
  size_t folded_ok = 0;  // (fixture, threads, options) runs that parsed and folded stacks
  for (const std::string& path : fixtures) {
    for (int threads : {1, 2}) {
      for (int opt = 0; opt < 3; ++opt) {
        FoldOptions fo;
        fo.include_pid = opt == 1;
        fo.include_tid = opt == 2;
        fo.names.include_addrs = opt == 2;
        fo.worker_thread = threads == 2;
        const std::string name = path + " threads " + std::to_string(threads) + " opt " +
                                 std::to_string(opt);
        CheckSink sink(name, fo);
        std::ostringstream err;
        absl::StatusOr<std::unique_ptr<Input>> in = Input::Open(path);
        ASSERT_TRUE(in.ok()) << path;
        Diagnostics diag((*in)->name(), &err);
        absl::Status st = NewPerfDataParser(OptionsFor(path, threads))->Parse(**in, sink, diag);
        // Every committed fixture parses and folds stacks: a parse that failed early would
        // give three empty folds, which agree.
        sink.ExpectSameFolds();
        if (st.ok() && sink.Folded()) ++folded_ok;
        repeats += sink.repeats_;
        if (path.find("/dwarf/") != std::string::npos) dwarf_repeats += sink.repeats_;
      }
    }
    // Pipe mode read as a stream (not mapped): the same.
    if (path.find("pipe") != std::string::npos) {
      const std::string bytes = ReadFile(path);
      std::unique_ptr<Input> in = Input::StreamFromString(bytes, 4096, path);
      CheckSink sink(path + " streamed", FoldOptions{});
      std::ostringstream err;
      Diagnostics diag(in->name(), &err);
      EXPECT_TRUE(NewPerfDataParser(OptionsFor(path, 2))->Parse(*in, sink, diag).ok()) << path;
      sink.ExpectSameFolds();
      EXPECT_GT(sink.with_id_, 0u) << path;
    }
  }
  EXPECT_EQ(folded_ok, fixtures.size() * 6) << "every fixture must parse and fold";
  EXPECT_GT(repeats, 1000u);  // the memo is used, not only filled
  EXPECT_GT(dwarf_repeats, 0u);
}

// A synthetic file: pid 100 maps a JIT map at 0x400000 and samples one user address three
// times; then the same address is mapped from another map and sampled again with the very same
// callchain; then the process execs (COMM with the exec bit), maps a third map there and is
// sampled again. A stack is memoized at its second sight: ids 0, X, X per phase.
constexpr uint64_t kSampleIdAll = 1ULL << 18;
constexpr uint64_t kBasic = kSampleIdentifier | kSampleIp | kSampleTid | kSampleTime | kSampleCpu |
                            kSamplePeriod | kSampleCallchain;

std::string Trailer(uint32_t pid, uint32_t tid, uint64_t time) {
  return Bytes().U32(pid).U32(tid).U64(time).U32(0).U32(0).U64(1).str();
}
std::string Mmap(uint32_t pid, uint64_t start, const std::string& file, uint64_t time) {
  Bytes b;
  b.U32(pid).U32(pid).U64(start).U64(0x1000).U64(0).Str(file).U8(0).Pad8();
  return Record(false, kMmap, kMiscUser, b.str() + Trailer(pid, pid, time));
}
std::string ExecComm(uint32_t pid, const std::string& comm, uint64_t time) {
  Bytes b;
  b.U32(pid).U32(pid).Str(comm).U8(0).Pad8();
  return Record(false, kComm, kMiscCommExec, b.str() + Trailer(pid, pid, time));
}
std::string Sample(uint32_t pid, uint64_t time, std::vector<uint64_t> chain) {
  Bytes b;
  b.U64(1).U64(chain.back()).U32(pid).U32(pid).U64(time).U32(0).U32(0).U64(1000).U64(chain.size());
  for (uint64_t c : chain) b.U64(c);
  return Record(false, kSample, kMiscUser, b.str());
}

class Names final : public EventSink {
 public:
  EventMask wants() const override { return EventMask::All(); }
  absl::Status OnEvent(const Event& e) override {
    if (e.kind() != EventKind::kSample) return absl::OkStatus();
    std::string s;
    for (const Frame& f : e.stack) s += std::string(f.symbol) + "@" + std::string(f.dso) + ";";
    got.push_back({e.stack_id, s});
    return absl::OkStatus();
  }
  std::vector<std::pair<uint64_t, std::string>> got;
};

TEST(StackId, KeyHoldsTheMapsGeneration) {
  const fs::path symfs = fs::path(::testing::TempDir()) / "stack_id_symfs";
  fs::create_directories(symfs / "tmp");
  const std::map<std::string, std::string> maps = {{"perf-7.map", "400000 100 alpha\n"},
                                                   {"perf-8.map", "400000 100 beta\n"},
                                                   {"perf-9.map", "400000 100 gamma\n"}};
  for (const auto& [f, text] : maps) std::ofstream(symfs / "tmp" / f) << text;
  const std::vector<uint64_t> chain = {kContextUser, 0x400010, 0x400020};
  FileSpec spec;
  spec.events.push_back({1, 0, kBasic, kSampleIdAll, 0, {1}});
  auto three = [&](uint64_t t) {
    return Sample(100, t, chain) + Sample(100, t + 1, chain) + Sample(100, t + 2, chain);
  };
  spec.data = Mmap(100, 0x400000, "/tmp/perf-7.map", 1) + three(2) +
              Mmap(100, 0x400000, "/tmp/perf-8.map", 10) + three(11) + ExecComm(100, "other", 20) +
              Mmap(100, 0x400000, "/tmp/perf-9.map", 21) + three(22);
  const std::string file = File(spec);
  for (int threads : {1, 2}) {
    ParseOptions o;
    o.use_buildid_cache = false;
    o.use_host_kallsyms = false;
    o.symfs = symfs.string();
    o.threads = threads;
    Names sink;
    std::ostringstream err;
    std::unique_ptr<Input> in = Input::FromString(file, "maps.data");
    Diagnostics diag("maps.data", &err);
    ASSERT_TRUE(NewPerfDataParser(o)->Parse(*in, sink, diag).ok()) << err.str();
    ASSERT_EQ(sink.got.size(), 9u) << err.str();
    const std::string names[] = {"alpha@/tmp/perf-7.map;alpha@/tmp/perf-7.map;",
                                 "beta@/tmp/perf-8.map;beta@/tmp/perf-8.map;",
                                 "gamma@/tmp/perf-9.map;gamma@/tmp/perf-9.map;"};
    std::set<uint64_t> ids;
    for (int phase = 0; phase < 3; ++phase) {
      for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(sink.got[3 * phase + i].second, names[phase]) << phase << " " << i;
      }
      EXPECT_EQ(sink.got[3 * phase].first, 0u);
      EXPECT_NE(sink.got[3 * phase + 1].first, 0u);
      EXPECT_EQ(sink.got[3 * phase + 1].first, sink.got[3 * phase + 2].first);
      ids.insert(sink.got[3 * phase + 1].first);
    }
    EXPECT_EQ(ids.size(), 3u);
  }
}

}  // namespace
}  // namespace tk::testing
