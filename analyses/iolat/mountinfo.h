// /proc/self/mountinfo (proc(5)), copied from the traced machine, maps devices to mounts:
//
//   27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard
//   1391 27 7:0 / /tmp/tk-mnt-sync rw,relatime shared:640 - ext4 /dev/loop0 rw,sync
//   36 35 98:0 /mnt1 /mnt/my\040disk rw,noatime master:1 - ext3 /dev/root rw,errors=continue
//
// Fields: mount id, parent id, MAJ:MIN, root within the fs, mount point (octal escapes such as
// \040 for a space), per-mount options, optional fields ("shared:N", "master:N", any number),
// "-", fstype, source, super options. `mount -o sync` sets SB_SYNCHRONOUS, which the kernel
// prints among the super options (show_sb_opts: ",sync"); tk accepts it in either list.
#ifndef TK_ANALYSES_IOLAT_MOUNTINFO_H_
#define TK_ANALYSES_IOLAT_MOUNTINFO_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "analyses/iolat/device.h"

namespace tk::iolat {

struct Mount {
  DevId dev = 0;
  std::string root;         // "/" unless a bind mount of a subdirectory
  std::string mount_point;  // unescaped
  std::string mount_options;
  std::string fstype;
  std::string source;
  std::string super_options;
  // `sync` in the per-mount or super options (SB_SYNCHRONOUS): every write is synchronous.
  bool sync() const;
  // "rw,relatime" + "," + "rw,sync" without duplicates: what the user would pass to mount.
  std::string options() const;
};

// One line; nullopt when it is not a mountinfo line.
std::optional<Mount> ParseMountinfoLine(std::string_view line);

class MountTable {
 public:
  // Parses a whole file's text. A line that does not parse is an error naming its number.
  static absl::StatusOr<MountTable> Parse(std::string_view text, std::string_view name);
  // The mount of `dev`: the first whose root is "/", else the first listed; null if none.
  const Mount* Find(DevId dev) const;
  size_t size() const { return mounts_.size(); }

 private:
  std::vector<Mount> mounts_;
  absl::flat_hash_map<DevId, size_t> by_dev_;
};

}  // namespace tk::iolat

#endif  // TK_ANALYSES_IOLAT_MOUNTINFO_H_
