#include "parsers/perf_data/abi.h"

namespace tk::parsers::perf_data {

std::string_view FeatureName(int bit) {
  static constexpr std::string_view kNames[] = {
      "reserved",      "tracing_data",  "build_id",      "hostname",     "osrelease",
      "version",       "arch",          "nrcpus",        "cpudesc",      "cpuid",
      "total_mem",     "cmdline",       "event_desc",    "cpu_topology", "numa_topology",
      "branch_stack",  "pmu_mappings",  "group_desc",    "auxtrace",     "stat",
      "cache",         "sample_time",   "mem_topology",  "clockid",      "dir_format",
      "bpf_prog_info", "bpf_btf",       "compressed",    "cpu_pmu_caps", "clock_data",
      "hybrid_topology", "pmu_caps",    "cpu_domain_info",
  };
  if (bit >= 0 && bit < static_cast<int>(std::size(kNames))) return kNames[bit];
  return "unknown_feature";
}

std::string_view RecordTypeName(uint32_t type) {
  switch (type) {
    case kMmap: return "MMAP";
    case kLost: return "LOST";
    case kComm: return "COMM";
    case kExit: return "EXIT";
    case kThrottle: return "THROTTLE";
    case kUnthrottle: return "UNTHROTTLE";
    case kFork: return "FORK";
    case kRead: return "READ";
    case kSample: return "SAMPLE";
    case kMmap2: return "MMAP2";
    case kAux: return "AUX";
    case kItraceStart: return "ITRACE_START";
    case kLostSamples: return "LOST_SAMPLES";
    case kSwitch: return "SWITCH";
    case kSwitchCpuWide: return "SWITCH_CPU_WIDE";
    case kNamespaces: return "NAMESPACES";
    case kKsymbol: return "KSYMBOL";
    case kBpfEvent: return "BPF_EVENT";
    case kCgroup: return "CGROUP";
    case kTextPoke: return "TEXT_POKE";
    case kHeaderAttr: return "HEADER_ATTR";
    case kHeaderTracingData: return "HEADER_TRACING_DATA";
    case kHeaderBuildId: return "HEADER_BUILD_ID";
    case kFinishedRound: return "FINISHED_ROUND";
    case kIdIndex: return "ID_INDEX";
    case kAuxtraceInfo: return "AUXTRACE_INFO";
    case kAuxtrace: return "AUXTRACE";
    case kAuxtraceError: return "AUXTRACE_ERROR";
    case kThreadMap: return "THREAD_MAP";
    case kCpuMap: return "CPU_MAP";
    case kEventUpdate: return "EVENT_UPDATE";
    case kTimeConv: return "TIME_CONV";
    case kHeaderFeature: return "HEADER_FEATURE";
    case kCompressed: return "COMPRESSED";
    case kFinishedInit: return "FINISHED_INIT";
    case kCompressed2: return "COMPRESSED2";
    default: return "unknown";
  }
}

}  // namespace tk::parsers::perf_data
