// The unwinder on synthetic samples over the fixture binary (testdata/dwarf): bad registers,
// garbage and looping stacks, a dump size past the copied bytes, corrupt CFI. Nothing may
// crash or read outside the sample; frames stay within max_frames.
#include "parsers/unwind/unwinder.h"

#include <cstring>
#include <fstream>
#include <random>

#include "gtest/gtest.h"
#include "tests/support/golden.h"

namespace tk::parsers::unwind {
namespace {

constexpr uint64_t kBase = 0x555555554000;
constexpr uint64_t kMask = 0xff0fff;  // perf's x86_64 sample_regs_user for --call-graph dwarf
constexpr uint64_t kRecReturn = 0x13a5;  // in rec, after its recursive call
constexpr uint64_t kRecBody = 0x13c0;    // inside rec

std::string Binary() { return testing::SourcePath("testdata/dwarf/symfs/tmp/tk-dwarf/unwind_fixture"); }

class OneModule : public ModuleSource {
 public:
  explicit OneModule(std::string elf) : elf_(std::move(elf)) {}
  std::optional<Module> FindModule(int32_t, uint64_t addr) override {
    if (addr < kBase + 0x1000 || addr >= kBase + 0x2000) return std::nullopt;
    return Module{kBase + 0x1000, kBase + 0x2000, 0x1000, elf_, ""};
  }

 private:
  std::string elf_;
};

// Registers in mask order (AX..SS, R8..R15): 20 values; IP is the 9th, SP the 8th.
std::string Regs(uint64_t ip, uint64_t sp) {
  std::vector<uint64_t> r(static_cast<size_t>(__builtin_popcountll(kMask)), 0);
  r[7] = sp;
  r[8] = ip;
  return std::string(reinterpret_cast<const char*>(r.data()), r.size() * 8);
}

struct Sample {
  std::string regs, stack;
  UserSample Get(uint64_t dyn) const {
    UserSample s;
    s.pid = s.tid = 42;
    s.abi = kAbi64;
    s.regs_mask = kMask;
    s.regs = regs;
    s.stack = stack;
    s.dyn_size = dyn;
    return s;
  }
};

std::string Words(const std::vector<uint64_t>& w) {
  return std::string(reinterpret_cast<const char*>(w.data()), w.size() * 8);
}

TEST(Unwinder, NoRegistersOrTruncatedRegisters) {
  OneModule m(Binary());
  Unwinder u(m);
  std::vector<UnwoundFrame> out;
  Sample s{Regs(kBase + kRecBody, 0x7ffd0000), Words({1, 2, 3})};
  UserSample none = s.Get(24);
  none.abi = kAbiNone;
  EXPECT_EQ(u.Unwind(none, &out), StopReason::kNoRegs);
  UserSample cut = s.Get(24);
  cut.regs = cut.regs.substr(0, 7 * 8 + 3);  // SP and IP missing
  EXPECT_EQ(u.Unwind(cut, &out), StopReason::kNoRegs);
  EXPECT_EQ(u.stats().no_regs, 2u);
}

TEST(Unwinder, RecursionUnwindsUntilTheDumpEnds) {
  OneModule m(Binary());
  Unwinder u(m);
  std::vector<UnwoundFrame> out;
  // rec's frame is one return address (its CFA is rsp + 8 at kRecBody... or deeper): a stack
  // of rec return addresses unwinds frame by frame until the dump's last word.
  Sample s{Regs(kBase + kRecReturn, 0x7ffd0000), Words(std::vector<uint64_t>(64, kBase + kRecReturn))};
  StopReason r = u.Unwind(s.Get(s.stack.size()), &out);
  EXPECT_TRUE(r == StopReason::kDumpEdge || r == StopReason::kMaxDepth) << static_cast<int>(r);
  EXPECT_GT(out.size(), 3u);
  EXPECT_LE(out.size(), 127u);
  EXPECT_TRUE(out[0].exact);
  EXPECT_FALSE(out[1].exact);
}

TEST(Unwinder, DynSizeLargerThanTheDumpIsClamped) {
  OneModule m(Binary());
  Unwinder u(m);
  std::vector<UnwoundFrame> out;
  Sample s{Regs(kBase + kRecReturn, 0x7ffd0000), Words(std::vector<uint64_t>(4, kBase + kRecReturn))};
  u.Unwind(s.Get(1 << 20), &out);  // ASan catches a read past the 32 bytes
  EXPECT_LE(out.size(), 5u);
}

TEST(Unwinder, GarbageStacksAndPcs) {
  OneModule m(Binary());
  Unwinder u(m, 127);
  std::mt19937_64 rng(7);
  std::vector<UnwoundFrame> out;
  for (int i = 0; i < 300; ++i) {
    std::vector<uint64_t> words(static_cast<size_t>(rng() % 200));
    for (uint64_t& w : words) w = rng() % 3 == 0 ? kBase + 0x1000 + rng() % 0x1000 : rng();
    uint64_t sp = rng() % 2 ? 0x7ffd0000 : rng();
    uint64_t ip = rng() % 4 ? kBase + 0x1000 + rng() % 0x1000 : rng();
    Sample s{Regs(ip, sp), Words(words)};
    u.Unwind(s.Get(rng() % 2 ? s.stack.size() : rng()), &out);
    ASSERT_GE(out.size(), 1u);
    EXPECT_LE(out.size(), 127u);
    EXPECT_EQ(out[0].pc, ip);
  }
  EXPECT_EQ(u.stats().total(), 300u);
}

// Where the stack pointer would not grow (the same CFA again) the unwinder stops.
TEST(Unwinder, StopsWhenTheStackPointerDoesNotGrow) {
  OneModule m(Binary());
  Unwinder u(m, 127);
  std::vector<UnwoundFrame> out;
  // The leaf is at _start's first instruction, whose CFI marks the end of the stack; any
  // result is fine as long as it is short and clean.
  Sample s{Regs(kBase + 0x1180, 0x7ffd0000), Words(std::vector<uint64_t>(32, kBase + 0x1180))};
  u.Unwind(s.Get(s.stack.size()), &out);
  EXPECT_LE(out.size(), 127u);
}

TEST(Unwinder, CorruptCfiDoesNotCrash) {
  std::ifstream in(Binary(), std::ios::binary);
  std::string elf((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(elf.size(), 0x2218u);
  std::mt19937 rng(3);
  for (size_t i = 0x2040; i < 0x2218; ++i) elf[i] = static_cast<char>(rng());  // .eh_frame_hdr, .eh_frame
  std::string path = ::testing::TempDir() + "/tk_corrupt_cfi";
  std::ofstream(path, std::ios::binary) << elf;
  OneModule m(path);
  Unwinder u(m);
  std::vector<UnwoundFrame> out;
  for (uint64_t ip = kBase + 0x1090; ip < kBase + 0x14e0; ip += 7) {
    Sample s{Regs(ip, 0x7ffd0000), Words(std::vector<uint64_t>(64, kBase + kRecReturn))};
    u.Unwind(s.Get(s.stack.size()), &out);
    EXPECT_LE(out.size(), 127u);
  }
}

}  // namespace
}  // namespace tk::parsers::unwind
