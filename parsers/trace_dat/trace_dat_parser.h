// trace.dat (trace-cmd's file, versions 6 and 7, uncompressed or zstd) → tk events.
//
// Reads the top ring buffer: each CPU's pages through CpuStream, merged by timestamp (lowest
// first, ties to the lower CPU, as tracecmd_iterate_events does), records decoded with
// libtraceevent via TepDecoder (formats parsed lazily, only for events that occur). With
// ParseOptions::threads >= 2 the merge runs on a reader thread, a batch ahead of the decoding
// (record_merge.h); the events are the same for any number of threads.
//
// Event fields a trace.dat has no source for:
//   comm  from the saved cmdlines (pid → comm, as `trace-cmd report` prints it); for pids
//         not in it, the last comm seen for that pid in sched_switch/wakeup/fork events;
//         "swapper" for pid 0 (perf's name; trace-cmd prints "<idle>")
//   tid   common_pid;  pid: -1 (trace.dat records no thread-group ids)
//   ts    the ring-buffer clock (trace_clock "local" = ns) with the TSC2NSEC, OFFSET and DATE
//         options applied as trace-cmd does; TIME_SHIFT (guest/host sync) is not applied
// Pages flagged with missed events become Lost{kOverrun, count} (count 0 when the kernel
// did not store it) before the page's first event, and one stderr note per CPU.
#ifndef TK_PARSERS_TRACE_DAT_TRACE_DAT_PARSER_H_
#define TK_PARSERS_TRACE_DAT_TRACE_DAT_PARSER_H_

#include <memory>

#include <string>
#include <string_view>

#include "parsers/parser.h"

namespace tk::parsers::trace_dat {

std::unique_ptr<Parser> NewTraceDatParser(const ParseOptions& opts);

// The sniffer the registry asks (DetectFormat): the magic "\x17\x08\x44tracing".
bool SniffTraceDat(std::string_view head);

// Header facts for `tk info` (version, host, features, CPUs, compression, ...), read without
// decoding the events: one JSON object, as text, whose keys `tk info` prints as they are.
absl::StatusOr<std::string> DescribeTraceDat(Input& in);

}  // namespace tk::parsers::trace_dat

#endif  // TK_PARSERS_TRACE_DAT_TRACE_DAT_PARSER_H_
