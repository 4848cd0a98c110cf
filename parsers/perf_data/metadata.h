// What perf.data says about itself, gathered from the file header (file mode) or from the
// HEADER_ATTR / HEADER_FEATURE / EVENT_UPDATE records that open a pipe-mode stream.
#ifndef TK_PARSERS_PERF_DATA_METADATA_H_
#define TK_PARSERS_PERF_DATA_METADATA_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "parsers/perf_data/attr.h"

namespace tk::parsers::perf_data {

// One event (evsel): its attr, the sample ids that map records to it, its name.
struct EventInfo {
  EventAttr attr;
  std::vector<uint64_t> ids;
  std::string name;  // from EVENT_DESC / EVENT_UPDATE, else DefaultEventName
  bool named = false;
};

// One BUILD_ID feature entry: which file had which build id when it was recorded.
struct BuildIdEntry {
  int32_t pid = -1;
  uint16_t cpumode = 0;  // header.misc & 7: 1 kernel, 2 user
  std::string build_id;  // lowercase hex
  std::string filename;
};

struct Metadata {
  bool swap = false;
  bool pipe = false;
  uint64_t header_size = 0;
  uint64_t attr_size = 0;
  uint64_t data_offset = 0;
  uint64_t data_size = 0;
  bool truncated = false;  // data.size == 0: perf was killed before writing the header

  std::vector<EventInfo> events;
  std::vector<int> features;  // feature bits present, ascending

  // Decoded features (empty when absent).
  std::string hostname, os_release, perf_version, arch, cpu_desc, cpu_id, cmdline;
  uint32_t nr_cpus_available = 0, nr_cpus_online = 0;
  uint64_t total_mem_kb = 0;
  std::vector<BuildIdEntry> build_ids;
  std::string tracing_data;  // raw TRACING_DATA bytes (owned: pipe mode reads them inline)
  bool has_compression = false;
  uint32_t comp_version = 0, comp_type = 0, comp_level = 0, comp_ratio = 0, comp_mmap_len = 0;
  uint64_t first_sample_time = 0, last_sample_time = 0;
  uint64_t clockid = 0;
  bool has_clockid = false;

  // Names recorded for events by index, kept until attrs are all known (EVENT_DESC).
  std::vector<std::pair<std::vector<uint64_t>, std::string>> desc_names;

  // Feature sections that could not be read, one message each ("malformed cpudesc feature
  // section (0 bytes); ignored"): perf warns and reads such a file, so does tk. The session
  // moves them into its Diagnostics as notes.
  std::vector<std::string> warnings;

  // Adds a feature's payload (file section or HEADER_FEATURE record body). Unknown features
  // are only listed; a malformed payload of a descriptive one (hostname, cpudesc, cmdline,
  // build ids, event names, ...) adds to `warnings`; only a malformed COMPRESSED section, which
  // the data cannot be decoded without, returns an error.
  absl::Status AddFeature(int bit, std::string_view bytes);
  // Gives every event its recorded name (EVENT_DESC matched by id, else by position) or the
  // default one. Call once attrs and features are in.
  void ResolveNames();
  // Applies a pipe-mode EVENT_UPDATE record body (after the 8-byte header).
  void ApplyEventUpdate(std::string_view body);
};

}  // namespace tk::parsers::perf_data

#endif  // TK_PARSERS_PERF_DATA_METADATA_H_
