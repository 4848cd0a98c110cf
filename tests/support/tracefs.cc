#include "tests/support/tracefs.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace tk::testing {
namespace {

bool Usable() { return std::filesystem::exists(std::string(kTracefsDir) + "/events/enable"); }

// atexit: unmount what EnsureTracefs mounted. Under the lock, so no recording of another
// process is using it; a busy tracefs (a reader still has a file open) stays mounted.
void Unmount() {
  std::string cmd = std::string("flock ") + kTracefsLock + " umount " + kTracefsDir +
                    " 2>/dev/null";
  (void)!std::system(cmd.c_str());
}

}  // namespace

std::string EnsureTracefs() {
  static std::string why = [] {
    if (Usable()) return std::string();
    if (geteuid() != 0) return std::string("no tracefs at /sys/kernel/tracing, and not root to mount it");
    std::string cmd = std::string("flock ") + kTracefsLock + " sh -c '[ -e " + kTracefsDir +
                      "/events/enable ] || mount -t tracefs nodev " + kTracefsDir + "'";
    if (std::system(cmd.c_str()) != 0 || !Usable()) {
      return std::string("mount -t tracefs nodev /sys/kernel/tracing failed");
    }
    std::atexit(Unmount);
    return std::string();
  }();
  return why;
}

}  // namespace tk::testing
