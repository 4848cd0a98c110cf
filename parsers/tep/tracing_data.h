// Loading the kernel's event formats into libtraceevent, for perf.data's HEADER_TRACING_DATA
// feature section and trace.dat's format sections (the same layout: trace.dat v6 *is* this
// layout with "6" as version string and more sections after it).
//
// Layout (all integers in the file's byte order, which the endian byte gives):
//
//   "\x17\x08\x44tracing"  10 bytes magic
//   "0.6\0"                 version string (perf "0.5"/"0.6"; trace.dat "6"/"7")
//   u8 endian (0 little, 1 big), u8 long size, u32 page size
//   "header_page\0"  u64 size, text      ring-buffer page header format (commit size = long)
//   "header_event\0" u64 size, text      (obsolete, informational)
//   u32 n, n × {u64 size, text}          ftrace's own events (function, print, ...): "ftrace"
//   u32 systems, systems × {"sched\0", u32 n, n × {u64 size, text}}    the event formats
//   u32 size, kallsyms text;  u32 size, printk formats text
//   u64 size, saved cmdlines text ("1234 bash\n")                  (not in version 0.5)
//
// Formats are parsed lazily: TraceEvents keeps each format's text by its "ID: N" line and calls
// tep_parse_event the first time Find(N) is asked, so a file with 2,000 formats and 5 event
// types in use parses 5 (libtracecmd parses all: 170–270 ms). No plugins are loaded.
#ifndef TK_PARSERS_TEP_TRACING_DATA_H_
#define TK_PARSERS_TEP_TRACING_DATA_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/byte_reader.h"

struct tep_handle;
struct tep_event;

namespace tk::parsers::tep {

// Owns a tep_handle and the text of every format seen; parses formats on first use.
class TraceEvents {
 public:
  // `big_endian`: the recording's byte order; `long_size`: its user-space long (4/8);
  // `page_size`: ring-buffer page size.
  TraceEvents(bool big_endian, int long_size, uint32_t page_size);
  ~TraceEvents();
  TraceEvents(const TraceEvents&) = delete;
  TraceEvents& operator=(const TraceEvents&) = delete;

  struct tep_handle* tep() const { return tep_; }
  bool big_endian() const { return big_endian_; }
  uint32_t page_size() const { return page_size_; }

  // Parses the header_page text (tep_parse_header_page) and then sets the tep long size to
  // the size of its `commit` field — the kernel's long, which is what ring-buffer pages use
  // (a 32-bit perf on a 64-bit kernel records user long 4, commit 8).
  absl::Status LoadHeaderPage(std::string_view text);
  // The kernel long size from header_page (4 or 8); 0 before LoadHeaderPage.
  int kernel_long_size() const { return kernel_long_size_; }

  // Remembers one format text ("name: sched_switch\nID: 372\nformat:..."). Formats without an
  // ID line are ignored (counted in format_count but never findable).
  void AddFormat(std::string_view system, std::string_view text);
  size_t format_count() const { return formats_added_; }

  // The event with this id, parsing its format on first use; nullptr when unknown or when
  // the format text is rejected. libtraceevent gets the fields only (print fmt replaced by
  // `print fmt: ""`) and only when the field lines are sound: its parser crashes on corrupt
  // formats (NUL bytes, cut or odd print expressions — found by fuzzing). tk decodes fields
  // itself and reads what it needs of a print fmt from FormatText (state_layout.h).
  struct tep_event* Find(int id);
  // The format text as recorded (with its print fmt); empty when the id is unknown.
  std::string_view FormatText(int id) const;
  // Parses every remaining format (tests, `tk info`). Returns how many failed to parse.
  int ParseAll();

 private:
  struct Pending {
    std::string system;
    std::string text;
    bool tried = false;
  };
  struct tep_handle* tep_;
  bool big_endian_;
  uint32_t page_size_;
  int kernel_long_size_ = 0;
  size_t formats_added_ = 0;
  absl::flat_hash_map<int, Pending> pending_;
};

// What ParseTracingData found besides the formats. Views borrow the input bytes.
struct TracingDataInfo {
  std::string version;     // "0.6", "6"
  bool big_endian = false;
  int long_size = 8;
  uint32_t page_size = 4096;
  uint32_t ftrace_formats = 0;
  uint32_t event_formats = 0;
  std::string_view kallsyms;
  std::string_view printk;
  std::string_view cmdlines;  // "PID COMM\n" lines; empty for version 0.5
  size_t end = 0;             // bytes consumed from the start of the input
};

// Parses a whole tracing-data block (from the magic through cmdlines), e.g. the bytes of perf's
// HEADER_TRACING_DATA feature section. `base_offset` is the file offset of data[0]; error
// messages are "offset N: what" with N a file offset (callers prefix the file name).
absl::StatusOr<std::unique_ptr<TraceEvents>> ParseTracingData(std::string_view data,
                                                              uint64_t base_offset = 0,
                                                              TracingDataInfo* info = nullptr);

// The pieces, for trace.dat v7 where they come as separate (maybe compressed) sections. Each
// reads from `r`'s cursor and fails with "offset N: what".
//   "header_page\0" u64 size text "header_event\0" u64 size text
absl::Status ReadHeaderInfo(ByteReader& r, TraceEvents& ev);
//   u32 n, n × {u64 size, text}
absl::Status ReadFtraceFormats(ByteReader& r, TraceEvents& ev, uint32_t* count = nullptr);
//   u32 systems, systems × {name\0, u32 n, n × {u64 size, text}}
absl::Status ReadEventFormats(ByteReader& r, TraceEvents& ev, uint32_t* count = nullptr);


}  // namespace tk::parsers::tep

#endif  // TK_PARSERS_TEP_TRACING_DATA_H_
