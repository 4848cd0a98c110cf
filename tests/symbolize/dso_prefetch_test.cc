// DsoPrefetch (symbolize/dso_prefetch.h): each listed DSO is loaded once, by one of its threads
// or by the caller that asks first; a prefetched DSO symbolizes as one loaded on first use.
#include "parsers/symbolize/dso_prefetch.h"

#include <algorithm>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "parsers/symbolize/machine.h"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

using namespace tk::parsers::symbolize;

// A load that records what it loaded and names the image after it.
struct Loads {
  std::mutex mu;
  std::vector<std::string> names;
  bool Started(const std::string& name) {
    std::lock_guard<std::mutex> lock(mu);
    return std::find(names.begin(), names.end(), name) != names.end();
  }
  DsoPrefetch::LoadFn Fn() {
    return [this](const std::string& name, const std::string& id, ElfFiles*) {
      std::lock_guard<std::mutex> lock(mu);
      names.push_back(name);
      ElfImage img;
      img.build_id = id;
      img.path = name;
      return std::optional<ElfImage>(std::move(img));
    };
  }
};

TEST(DsoPrefetch, HandsOverWhatItLoaded) {
  Loads loads;
  DsoPrefetch p({{"/a", "11"}, {"/b", "22"}, {"/a", "33"}}, loads.Fn());
  std::optional<ElfImage> img;
  EXPECT_FALSE(p.Take("/unlisted", "11", &img));
  // Once the thread has started "/a" (Take then waits for it), its image is the caller's,
  // once. (Before that, Take would claim it.)
  while (!loads.Started("/a")) std::this_thread::yield();
  ASSERT_TRUE(p.Take("/a", "11", &img));  // the first listing of a name counts
  ASSERT_TRUE(img.has_value());
  EXPECT_EQ(img->path, "/a");
  EXPECT_EQ(img->build_id, "11");
  std::optional<ElfImage> again;
  EXPECT_FALSE(p.Take("/a", "11", &again));
  EXPECT_FALSE(again.has_value());
}

TEST(DsoPrefetch, AnotherBuildIdIsNotHandedOver) {
  Loads loads;
  DsoPrefetch p({{"/a", "11"}}, loads.Fn());
  std::optional<ElfImage> img;
  EXPECT_FALSE(p.Take("/a", "99", &img));  // a later record named another build
  EXPECT_FALSE(img.has_value());
}

// Both loading threads are held inside their first loads (which also shows there are two,
// loading at once); a DSO neither has started is the caller's, and they skip it.
TEST(DsoPrefetch, WhatTheCallerClaimsTheThreadsSkip) {
  Loads loads;
  std::promise<void> release, entered_first, entered_second;
  std::shared_future<void> gate = release.get_future().share();
  auto load = loads.Fn();
  DsoPrefetch::LoadFn gated = [&, gate](const std::string& name, const std::string& id,
                                        ElfFiles* files) {
    if (name == "/first") entered_first.set_value();
    if (name == "/second") entered_second.set_value();
    gate.wait();
    return load(name, id, files);
  };
  {
    DsoPrefetch p({{"/first", "1"}, {"/second", "2"}, {"/third", "3"}}, gated);
    entered_first.get_future().wait();
    entered_second.get_future().wait();
    std::optional<ElfImage> img;
    EXPECT_FALSE(p.Take("/third", "3", &img));  // not started: the caller loads it itself
    release.set_value();
    EXPECT_TRUE(p.Take("/first", "1", &img));
    EXPECT_TRUE(p.Take("/second", "2", &img));
  }
  std::sort(loads.names.begin(), loads.names.end());
  EXPECT_EQ(loads.names, (std::vector<std::string>{"/first", "/second"}));
}

TEST(DsoPrefetch, StopsWithoutTakers) {
  Loads loads;
  { DsoPrefetch p({{"/a", "1"}, {"/b", "2"}}, loads.Fn()); }
  EXPECT_LE(loads.names.size(), 2u);
}

TEST(Machine, PrefetchedDsoSymbolizesAsLoadedOnFirstUse) {
  const std::string name = "/tmp/tk-perf-fixture/workload";
  std::optional<std::string> id =
      ReadElfBuildId(SourcePath("testdata/perf_data/symfs") + name);
  ASSERT_TRUE(id.has_value());
  SymbolizeOptions o;
  o.symfs = SourcePath("testdata/perf_data/symfs");
  o.use_buildid_cache = false;
  o.use_host_kallsyms = false;
  std::vector<Frame> frames[2];
  std::unique_ptr<Machine> machines[2];  // frames view their names
  for (int prefetch : {0, 1}) {
    machines[prefetch] = std::make_unique<Machine>(o);
    Machine& m = *machines[prefetch];
    m.AddBuildId(name, *id, false);
    if (prefetch) m.PrefetchDsos({name, "/not/recorded", "[vdso]"});
    m.OnMmap(10, 0x400000, 0x1000, 0x1000, name, false, "");
    for (uint64_t ip = 0x400000; ip < 0x401000; ip += 0x10) {
      frames[prefetch].push_back(m.Resolve(10, false, ip));
    }
    EXPECT_EQ(m.dsos_loaded(), 1u);
  }
  ASSERT_EQ(frames[0].size(), frames[1].size());
  size_t named = 0;
  for (size_t i = 0; i < frames[0].size(); ++i) {
    const Frame& a = frames[0][i];
    const Frame& b = frames[1][i];
    EXPECT_EQ(a.ip, b.ip);
    EXPECT_EQ(a.symbol, b.symbol);
    EXPECT_EQ(a.dso, b.dso);
    EXPECT_EQ(a.sym_offset, b.sym_offset);
    named += a.symbol != "[unknown]";
  }
  EXPECT_GT(named, 0u);  // the fixture's symbols were found, not two empty tables compared
}

}  // namespace
}  // namespace tk::testing
