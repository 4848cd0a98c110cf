#include "analyses/iolat/mountinfo.h"

#include "gtest/gtest.h"

namespace tk::iolat {
namespace {

TEST(Mountinfo, ParsesFieldsOptionalFieldsAndEscapes) {
  auto m = ParseMountinfoLine(
      "36 35 98:0 /mnt1 /mnt/my\\040disk rw,noatime master:1 shared:2 - ext3 /dev/root "
      "rw,errors=continue");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->dev, MakeDev(98, 0));
  EXPECT_EQ(m->root, "/mnt1");
  EXPECT_EQ(m->mount_point, "/mnt/my disk");
  EXPECT_EQ(m->fstype, "ext3");
  EXPECT_EQ(m->source, "/dev/root");
  EXPECT_EQ(m->super_options, "rw,errors=continue");
  EXPECT_FALSE(m->sync());
  EXPECT_EQ(m->options(), "rw,noatime,errors=continue");
  EXPECT_FALSE(ParseMountinfoLine("36 35 98:0 / /mnt rw"));
  EXPECT_FALSE(ParseMountinfoLine("x 35 98:0 / /mnt rw - ext4 /dev/sda rw"));
  EXPECT_FALSE(ParseMountinfoLine("36 35 98:0 / /mnt rw shared:1 -"));
}

TEST(Mountinfo, SyncIsASuperOptionAndDirsyncIsNot) {
  auto t = MountTable::Parse(
      "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard\n"
      "44 27 7:0 / /tmp/tk-mnt-sync rw,relatime - ext4 /dev/loop0 rw,sync\n"
      "45 27 7:1 / /tmp/tk-mnt-async rw,relatime - ext4 /dev/loop1 rw,dirsync\n"
      "46 27 7:0 /sub /bind rw,relatime - ext4 /dev/loop0 rw,sync\n",
      "mountinfo.txt");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->size(), 4u);
  ASSERT_TRUE(t->Find(MakeDev(7, 0)));
  EXPECT_TRUE(t->Find(MakeDev(7, 0))->sync());
  EXPECT_EQ(t->Find(MakeDev(7, 0))->mount_point, "/tmp/tk-mnt-sync");
  EXPECT_FALSE(t->Find(MakeDev(7, 1))->sync());
  EXPECT_EQ(t->Find(MakeDev(8, 0)), nullptr);
}

TEST(Mountinfo, BadLineIsAnErrorWithItsNumber) {
  auto t = MountTable::Parse("27 1 254:0 / / rw - ext4 /dev/vda rw\nhello\n", "m.txt");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(std::string(t.status().message()).find("m.txt: line 2:"), std::string::npos);
}

}  // namespace
}  // namespace tk::iolat
