// tracefs for the live tests: a fresh machine may have none mounted, and then every live test
// would skip. EnsureTracefs mounts it (as root, under the tracefs lock every recording takes)
// and unmounts it when the test process exits, only if this process mounted it.
#ifndef TK_TESTS_SUPPORT_TRACEFS_H_
#define TK_TESTS_SUPPORT_TRACEFS_H_

#include <string>

namespace tk::testing {

inline constexpr char kTracefsDir[] = "/sys/kernel/tracing";
inline constexpr char kTracefsLock[] = "/tmp/tk-tracefs.lock";

// "" when /sys/kernel/tracing is usable (already, or mounted now), else why not (not root,
// mount failed) for GTEST_SKIP.
std::string EnsureTracefs();

}  // namespace tk::testing

#endif  // TK_TESTS_SUPPORT_TRACEFS_H_
