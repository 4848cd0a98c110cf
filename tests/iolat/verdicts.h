// The write-sync verdicts issue 6 asks for on a record-iolat.sh recording (shared by the golden
// test on the committed fixture and the live test on a fresh recording).
#ifndef TK_TESTS_IOLAT_VERDICTS_H_
#define TK_TESTS_IOLAT_VERDICTS_H_

#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/golden.h"

namespace tk::testing {

inline const nlohmann::json* Dev(const nlohmann::json& j, const std::string& dev) {
  for (const auto& d : j["devices"])
    if (d["dev"] == dev) return &d;
  return nullptr;
}

// devices.txt: sync_mount=7,0 /dev/loop0 ..., default_mount=7,1 ..., backing=254,0 ...
inline std::string DevOf(const std::string& devices_txt, const std::string& key) {
  size_t p = devices_txt.find(key + "=");
  if (p == std::string::npos) return "";
  p += key.size() + 1;
  return devices_txt.substr(p, devices_txt.find(' ', p) - p);
}

// The verdicts the issue asks for, on one recording in one format (failures are added).
inline void CheckVerdicts(const std::string& dir, const std::string& file) {
  std::string devices = ReadFile(dir + "/devices.txt");
  std::string sync_dev = DevOf(devices, "sync_mount");
  std::string default_dev = DevOf(devices, "default_mount");
  std::string backing = DevOf(devices, "backing");
  RunResult r = RunTk({"iolat", "--json", "--mountinfo", dir + "/mountinfo.txt", dir + "/" + file});
  EXPECT_EQ(r.exit_code, 0) << file << ": " << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << file << ": " << r.out;
  if (j.is_discarded()) return;
  const nlohmann::json* s = Dev(j, sync_dev);
  const nlohmann::json* d = Dev(j, default_dev);
  EXPECT_TRUE(s && d) << file << ": " << r.out;
  if (!s || !d) return;
  // A: mount -o sync → write-sync, cause mount, dd the top writer, sleeping in D.
  EXPECT_EQ((*s)["verdict"], "write-sync") << file;
  EXPECT_EQ((*s)["cause"], "mount") << file;
  EXPECT_EQ((*s)["top_writers"][0]["comm"], "dd") << file;
  EXPECT_GT((*s)["top_writers"][0]["d_sleeps"].get<int>(), 0) << file;
  // B: default mount; the O_DSYNC dd makes it write-sync or mixed, cause application; the mount
  // itself is async (not sync) and the plain dd's data went out asynchronously via a flusher.
  std::string v = (*d)["verdict"];
  EXPECT_TRUE(v == "write-sync" || v == "mixed") << file << ": " << v;
  EXPECT_EQ((*d)["cause"], "application") << file;
  EXPECT_EQ((*d)["mount_sync"], false) << file;
  bool dsync_dd = false, async_flusher = false;
  for (const auto& w : (*d)["top_writers"]) {
    if (w["comm"] == "dd" && w["sync_ratio"].get<double>() == 1.0) dsync_dd = true;
    if (w["issuer"] == "flusher" && w["sync_bytes"].get<uint64_t>() == 0) async_flusher = true;
  }
  EXPECT_TRUE(dsync_dd) << file << ": " << d->dump();
  EXPECT_TRUE(async_flusher) << file << ": " << d->dump();
  // The backing device carries the loops' I/O again: never blamed on a mount or application
  // for that traffic.
  if (const nlohmann::json* b = Dev(j, backing)) {
    EXPECT_NE((*b)["cause"], "mount") << file;
    EXPECT_EQ((*b)["verdict"], "stacked") << file;
    EXPECT_GT((*b)["by_issuer"]["stacked"]["bytes"].get<uint64_t>(), 0u) << file;
  }
}

}  // namespace tk::testing

#endif  // TK_TESTS_IOLAT_VERDICTS_H_
