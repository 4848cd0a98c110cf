// perf.data constants: record types, sample_type / read_format bits, feature bits, callchain
// context markers. Values from include/uapi/linux/perf_event.h and tools/perf/util/header.h
// (see /work/shared/docs/FORMATS.md); kept here so the reader does not depend on the build
// host's kernel headers.
#ifndef TK_PARSERS_PERF_DATA_ABI_H_
#define TK_PARSERS_PERF_DATA_ABI_H_

#include <cstdint>
#include <string_view>

namespace tk::parsers::perf_data {

// "PERFILE2" as a u64 in the file's byte order.
inline constexpr uint64_t kMagic2 = 0x32454c4946524550ULL;
inline constexpr uint64_t kMagic2Swapped = 0x50455246494c4532ULL;

// Every record starts with this 8-byte header: {u32 type; u16 misc; u16 size}.
inline constexpr size_t kRecordHeaderSize = 8;

enum RecordType : uint32_t {
  kMmap = 1,
  kLost = 2,
  kComm = 3,
  kExit = 4,
  kThrottle = 5,
  kUnthrottle = 6,
  kFork = 7,
  kRead = 8,
  kSample = 9,
  kMmap2 = 10,
  kAux = 11,
  kItraceStart = 12,
  kLostSamples = 13,
  kSwitch = 14,
  kSwitchCpuWide = 15,
  kNamespaces = 16,
  kKsymbol = 17,
  kBpfEvent = 18,
  kCgroup = 19,
  kTextPoke = 20,
  kAuxOutputHwId = 21,
  // perf's own (user) records, >= 64: not from the kernel, never time-ordered.
  kUserTypeStart = 64,
  kHeaderAttr = 64,
  kHeaderEventType = 65,
  kHeaderTracingData = 66,
  kHeaderBuildId = 67,
  kFinishedRound = 68,
  kIdIndex = 69,
  kAuxtraceInfo = 70,
  kAuxtrace = 71,
  kAuxtraceError = 72,
  kThreadMap = 73,
  kCpuMap = 74,
  kStatConfig = 75,
  kStat = 76,
  kStatRound = 77,
  kEventUpdate = 78,
  kTimeConv = 79,
  kHeaderFeature = 80,
  kCompressed = 81,
  kFinishedInit = 82,
  kCompressed2 = 83,
};

// perf_event_attr.sample_type bits.
enum SampleBit : uint64_t {
  kSampleIp = 1ULL << 0,
  kSampleTid = 1ULL << 1,
  kSampleTime = 1ULL << 2,
  kSampleAddr = 1ULL << 3,
  kSampleRead = 1ULL << 4,
  kSampleCallchain = 1ULL << 5,
  kSampleId = 1ULL << 6,
  kSampleCpu = 1ULL << 7,
  kSamplePeriod = 1ULL << 8,
  kSampleStreamId = 1ULL << 9,
  kSampleRaw = 1ULL << 10,
  kSampleBranchStack = 1ULL << 11,
  kSampleRegsUser = 1ULL << 12,
  kSampleStackUser = 1ULL << 13,
  kSampleWeight = 1ULL << 14,
  kSampleDataSrc = 1ULL << 15,
  kSampleIdentifier = 1ULL << 16,
  kSampleTransaction = 1ULL << 17,
  kSampleRegsIntr = 1ULL << 18,
  kSamplePhysAddr = 1ULL << 19,
  kSampleAux = 1ULL << 20,
  kSampleCgroup = 1ULL << 21,
  kSampleDataPageSize = 1ULL << 22,
  kSampleCodePageSize = 1ULL << 23,
  kSampleWeightStruct = 1ULL << 24,
};

// perf_event_attr.read_format bits.
enum ReadFormatBit : uint64_t {
  kReadTotalTimeEnabled = 1ULL << 0,
  kReadTotalTimeRunning = 1ULL << 1,
  kReadId = 1ULL << 2,
  kReadGroup = 1ULL << 3,
  kReadLost = 1ULL << 4,
};

// branch_sample_type bit 17: PERF_SAMPLE_BRANCH_HW_INDEX (a u64 hw_idx after nr).
inline constexpr uint64_t kBranchHwIndex = 1ULL << 17;

// perf_event_attr.type
enum AttrType : uint32_t {
  kTypeHardware = 0,
  kTypeSoftware = 1,
  kTypeTracepoint = 2,
  kTypeHwCache = 3,
  kTypeRaw = 4,
  kTypeBreakpoint = 5,
};

// Header misc: cpumode in the low 3 bits; COMM exec bit; MMAP2 build-id bit.
inline constexpr uint16_t kMiscCpumodeMask = 7;
inline constexpr uint16_t kMiscKernel = 1;
inline constexpr uint16_t kMiscUser = 2;
inline constexpr uint16_t kMiscHypervisor = 3;
inline constexpr uint16_t kMiscGuestKernel = 4;
inline constexpr uint16_t kMiscGuestUser = 5;
inline constexpr uint16_t kMiscCommExec = 1 << 13;
inline constexpr uint16_t kMiscMmapBuildId = 1 << 14;

// Callchain context markers (u64 values >= kContextMax switch the mode of what follows).
inline constexpr uint64_t kContextHv = static_cast<uint64_t>(-32);
inline constexpr uint64_t kContextKernel = static_cast<uint64_t>(-128);
inline constexpr uint64_t kContextUser = static_cast<uint64_t>(-512);
inline constexpr uint64_t kContextUserDeferred = static_cast<uint64_t>(-640);
inline constexpr uint64_t kContextGuest = static_cast<uint64_t>(-2048);
inline constexpr uint64_t kContextGuestKernel = static_cast<uint64_t>(-2176);
inline constexpr uint64_t kContextGuestUser = static_cast<uint64_t>(-2560);
inline constexpr uint64_t kContextMax = static_cast<uint64_t>(-4095);

// Feature bits of the header's 256-bit bitmap (file mode) / HEADER_FEATURE ids (pipe mode).
enum Feature : int {
  kFeatTracingData = 1,
  kFeatBuildId = 2,
  kFeatHostname = 3,
  kFeatOsRelease = 4,
  kFeatVersion = 5,
  kFeatArch = 6,
  kFeatNrCpus = 7,
  kFeatCpuDesc = 8,
  kFeatCpuId = 9,
  kFeatTotalMem = 10,
  kFeatCmdline = 11,
  kFeatEventDesc = 12,
  kFeatCpuTopology = 13,
  kFeatNumaTopology = 14,
  kFeatBranchStack = 15,
  kFeatPmuMappings = 16,
  kFeatGroupDesc = 17,
  kFeatAuxtrace = 18,
  kFeatStat = 19,
  kFeatCache = 20,
  kFeatSampleTime = 21,
  kFeatMemTopology = 22,
  kFeatClockId = 23,
  kFeatDirFormat = 24,
  kFeatBpfProgInfo = 25,
  kFeatBpfBtf = 26,
  kFeatCompressed = 27,
  kFeatCpuPmuCaps = 28,
  kFeatClockData = 29,
  kFeatHybridTopology = 30,
  kFeatPmuCaps = 31,
  kFeatCpuDomainInfo = 32,
  kFeatLastKnown = 32,
};

// "hostname", "build_id", ... for `tk info`; "feature_N" for bits we have no name for.
std::string_view FeatureName(int bit);

// A record type's name as perf calls it ("SAMPLE", "MMAP2", "FINISHED_ROUND"), for messages.
std::string_view RecordTypeName(uint32_t type);

}  // namespace tk::parsers::perf_data

#endif  // TK_PARSERS_PERF_DATA_ABI_H_
