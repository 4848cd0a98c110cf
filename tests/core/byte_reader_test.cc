// core/byte_reader.h: reads in both byte orders, the exact end, failures past the end (sticky,
// cursor kept, output untouched, nothing read: the buffers are exactly sized heap blocks so ASan
// catches a stray byte), Skip/Seek/pos/offset, C strings and literals, the free Load helpers.
#include "core/byte_reader.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace tk {
namespace {

// A heap block holding exactly `bytes` (no NUL or slack after them).
class Exact {
 public:
  explicit Exact(std::string_view bytes) : size_(bytes.size()), p_(new char[bytes.size()]) {
    std::memcpy(p_.get(), bytes.data(), bytes.size());
  }
  std::string_view view() const { return {p_.get(), size_}; }

 private:
  size_t size_;
  std::unique_ptr<char[]> p_;
};

const bool kLittle = NeedsSwap(false);
const bool kBig = NeedsSwap(true);

TEST(ByteReader, NeedsSwapFollowsTheHost) {
  EXPECT_NE(NeedsSwap(false), NeedsSwap(true));
  EXPECT_EQ(NeedsSwap(true), std::endian::native == std::endian::little);
}

TEST(ByteReader, ReadsLittleEndian) {
  Exact b(std::string_view("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f", 15));
  ByteReader r(b.view(), kLittle);
  uint8_t u8;
  uint16_t u16;
  uint32_t u32;
  uint64_t u64;
  ASSERT_TRUE(r.Read(&u8));
  ASSERT_TRUE(r.Read(&u16));
  ASSERT_TRUE(r.Read(&u32));
  ASSERT_TRUE(r.Read(&u64));
  EXPECT_EQ(u8, 0x01);
  EXPECT_EQ(u16, 0x0302);
  EXPECT_EQ(u32, 0x07060504u);
  EXPECT_EQ(u64, 0x0f0e0d0c0b0a0908u);
  EXPECT_EQ(r.pos(), 15u);
  EXPECT_EQ(r.remaining(), 0u);
  EXPECT_TRUE(r.ok());
}

TEST(ByteReader, ReadsBigEndian) {
  Exact b(std::string_view("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f", 15));
  ByteReader r(b.view(), kBig);
  EXPECT_TRUE(r.swap() == kBig);
  uint8_t u8;
  uint16_t u16;
  uint32_t u32;
  uint64_t u64;
  ASSERT_TRUE(r.Read(&u8) && r.Read(&u16) && r.Read(&u32) && r.Read(&u64));
  EXPECT_EQ(u8, 0x01);
  EXPECT_EQ(u16, 0x0203);
  EXPECT_EQ(u32, 0x04050607u);
  EXPECT_EQ(u64, 0x08090a0b0c0d0e0fu);
}

TEST(ByteReader, ReadsSignedInBothOrders) {
  Exact le(std::string_view("\xfe\xff\xff\xff\x00\x80", 6));
  ByteReader r(le.view(), kLittle);
  int32_t i32;
  int16_t i16;
  ASSERT_TRUE(r.Read(&i32) && r.Read(&i16));
  EXPECT_EQ(i32, -2);
  EXPECT_EQ(i16, std::numeric_limits<int16_t>::min());
  Exact be(std::string_view("\xff\xff\xff\xfe\x80\x00", 6));
  ByteReader s(be.view(), kBig);
  ASSERT_TRUE(s.Read(&i32) && s.Read(&i16));
  EXPECT_EQ(i32, -2);
  EXPECT_EQ(i16, std::numeric_limits<int16_t>::min());
}

TEST(ByteReader, ReadEndingExactlyAtTheEnd) {
  Exact b(std::string_view("\xaa\x00\x00\x00\x00\x00\x00\x00\x2a", 9));
  ByteReader r(b.view(), kBig);
  ASSERT_TRUE(r.Skip(1));
  uint64_t v = 0;
  ASSERT_TRUE(r.Read(&v));  // bytes 1..8, the last byte of the block
  EXPECT_EQ(v, 42u);
  EXPECT_EQ(r.remaining(), 0u);
  std::string_view empty("x");
  EXPECT_TRUE(r.Bytes(0, &empty));  // zero bytes at the end are fine
  EXPECT_TRUE(empty.empty());
  EXPECT_TRUE(r.Skip(0));
  EXPECT_TRUE(r.ok());
}

TEST(ByteReader, ReadPastTheEndFailsAndTouchesNothing) {
  for (size_t size : {0u, 1u, 3u, 7u}) {
    Exact b(std::string(size, '\x11'));
    ByteReader r(b.view(), kLittle, 100);
    if (size > 0) {
      ASSERT_TRUE(r.Skip(size - 1));
    }
    const size_t pos = r.pos();
    uint64_t v = 0x5555;
    EXPECT_FALSE(r.Read(&v)) << size;
    EXPECT_EQ(v, 0x5555u) << "output written on failure, size " << size;
    EXPECT_EQ(r.pos(), pos) << "cursor moved on failure";
    EXPECT_EQ(r.offset(), 100 + pos) << "error position lost";
    EXPECT_FALSE(r.ok());
  }
}

TEST(ByteReader, ReadPastAViewEndDoesNotSeeTheBytesAfterIt) {
  // The view stops before bytes that are readable memory: the reader must still refuse them.
  std::string buf("\x01\x02\x03\x04\x05\x06\x07\x08", 8);
  ByteReader r(std::string_view(buf).substr(0, 3), kLittle);
  uint32_t v = 7;
  EXPECT_FALSE(r.Read(&v));
  EXPECT_EQ(v, 7u);
  std::string_view s("keep");
  ByteReader t(std::string_view(buf).substr(0, 3), kLittle);
  EXPECT_FALSE(t.Bytes(4, &s));
  EXPECT_EQ(s, "keep");
}

TEST(ByteReader, FailureIsSticky) {
  Exact b(std::string_view("\x01\x02\x03\x04\x05", 5));
  ByteReader r(b.view(), kBig);
  uint32_t v;
  ASSERT_TRUE(r.Read(&v));
  EXPECT_EQ(v, 0x01020304u);
  uint16_t w = 9;
  EXPECT_FALSE(r.Read(&w));
  EXPECT_EQ(w, 9);
  EXPECT_FALSE(r.ok());
  // One byte is still there, but nothing succeeds after a failure, not even empty steps.
  uint8_t c = 0;
  EXPECT_FALSE(r.Read(&c));
  EXPECT_EQ(c, 0);
  EXPECT_FALSE(r.Skip(0));
  EXPECT_FALSE(r.Seek(0));
  std::string_view s;
  EXPECT_FALSE(r.Bytes(0, &s));
  EXPECT_FALSE(r.CString(&s));
  EXPECT_FALSE(r.Expect(""));
  EXPECT_EQ(r.pos(), 4u);
}

TEST(ByteReader, SkipSeekAndPositions) {
  Exact b(std::string_view("abcdefgh", 8));
  ByteReader r(b.view(), kLittle, 4096);
  EXPECT_EQ(r.size(), 8u);
  EXPECT_EQ(r.base(), 4096u);
  ASSERT_TRUE(r.Skip(3));
  EXPECT_EQ(r.pos(), 3u);
  EXPECT_EQ(r.offset(), 4099u);
  EXPECT_EQ(r.remaining(), 5u);
  std::string_view s;
  ASSERT_TRUE(r.Bytes(2, &s));
  EXPECT_EQ(s, "de");
  EXPECT_EQ(s.data(), b.view().data() + 3);  // a view, not a copy
  ASSERT_TRUE(r.Seek(1));
  EXPECT_EQ(r.pos(), 1u);
  ASSERT_TRUE(r.Seek(8));  // the end itself is a valid position
  EXPECT_EQ(r.remaining(), 0u);
  ASSERT_TRUE(r.Seek(0));
  EXPECT_EQ(r.data(), b.view());
  EXPECT_TRUE(r.ok());

  ByteReader big_skip(b.view(), kLittle);
  ASSERT_TRUE(big_skip.Skip(2));
  EXPECT_FALSE(big_skip.Skip(std::numeric_limits<size_t>::max()));  // no wrap-around
  EXPECT_EQ(big_skip.pos(), 2u);
  ByteReader past(b.view(), kLittle);
  EXPECT_FALSE(past.Seek(9));
  EXPECT_EQ(past.pos(), 0u);
  ByteReader over(b.view(), kLittle);
  ASSERT_TRUE(over.Skip(5));
  EXPECT_FALSE(over.Skip(4));
  EXPECT_EQ(over.pos(), 5u);
  EXPECT_FALSE(over.ok());
}

TEST(ByteReader, SetSwapChangesLaterReads) {
  // trace.dat: the byte-order flag comes after the magic, then the reader switches.
  Exact b(std::string_view("\x01\x00\x00\x00\x01\x00\x00\x00\x01", 9));
  ByteReader r(b.view(), kLittle);
  uint8_t endian;
  ASSERT_TRUE(r.Read(&endian));
  r.set_swap(NeedsSwap(endian != 0));
  uint32_t v;
  ASSERT_TRUE(r.Read(&v));
  EXPECT_EQ(v, 0x00000001u);
  r.set_swap(kLittle);
  ASSERT_TRUE(r.Read(&v));
  EXPECT_EQ(v, 0x01000000u);
}

TEST(ByteReader, CStrings) {
  Exact b(std::string_view("6\0\0abc\0tail", 11));
  ByteReader r(b.view(), kLittle);
  std::string_view s;
  ASSERT_TRUE(r.CString(&s));
  EXPECT_EQ(s, "6");
  EXPECT_EQ(r.pos(), 2u);
  ASSERT_TRUE(r.CString(&s));  // an empty string is just its NUL
  EXPECT_EQ(s, "");
  ASSERT_TRUE(r.CString(&s));
  EXPECT_EQ(s, "abc");
  EXPECT_EQ(r.pos(), 7u);
  s = "keep";
  EXPECT_FALSE(r.CString(&s));  // "tail" has no NUL before the end of the block
  EXPECT_EQ(s, "keep");
  EXPECT_EQ(r.pos(), 7u);
  EXPECT_FALSE(r.ok());

  ByteReader at_end(b.view(), kLittle);
  ASSERT_TRUE(at_end.Seek(11));
  EXPECT_FALSE(at_end.CString(&s));
}

TEST(ByteReader, ExpectLiterals) {
  Exact b(std::string_view("\x17\x08\x44tracing6\0header_page\0", 24));
  ByteReader r(b.view(), kLittle, 10);
  ASSERT_TRUE(r.Expect("\x17\x08\x44tracing"));
  EXPECT_EQ(r.pos(), 10u);
  ASSERT_TRUE(r.Expect(std::string_view("6\0", 2)));
  ASSERT_TRUE(r.Expect(""));
  EXPECT_EQ(r.offset(), 22u);

  ByteReader wrong(b.view(), kLittle);
  EXPECT_FALSE(wrong.Expect("\x17\x08\x45"));
  EXPECT_EQ(wrong.pos(), 0u);
  ByteReader longer(b.view(), kLittle);
  ASSERT_TRUE(longer.Seek(12));
  // The block holds "header_page\0"; the literal is one byte longer than what is left.
  EXPECT_FALSE(longer.Expect(std::string_view("header_page\0x", 13)));
  EXPECT_EQ(longer.pos(), 12u);
  ByteReader exact(b.view(), kLittle);
  ASSERT_TRUE(exact.Seek(12));
  EXPECT_TRUE(exact.Expect(std::string_view("header_page\0", 12)));
  EXPECT_EQ(exact.remaining(), 0u);
}

TEST(ByteReader, DefaultIsEmpty) {
  ByteReader r;
  uint8_t v = 3;
  EXPECT_EQ(r.size(), 0u);
  EXPECT_TRUE(r.Skip(0));
  EXPECT_FALSE(r.Read(&v));
  EXPECT_EQ(v, 3);
}

TEST(Load, BothOrdersAndRuntimeSizes) {
  Exact b(std::string_view("\x01\x02\x03\x04\x05\x06\x07\x08", 8));
  const char* p = b.view().data();
  EXPECT_EQ(Load<uint64_t>(p, kLittle), 0x0807060504030201u);
  EXPECT_EQ(Load<uint64_t>(p, kBig), 0x0102030405060708u);
  EXPECT_EQ(Load<uint16_t>(p + 6, kBig), 0x0708);
  EXPECT_EQ(Load<int8_t>(p, kBig), 1);
  EXPECT_EQ(LoadUnsigned(p, 1, kBig), 0x01u);
  EXPECT_EQ(LoadUnsigned(p, 2, kLittle), 0x0201u);
  EXPECT_EQ(LoadUnsigned(p, 2, kBig), 0x0102u);
  EXPECT_EQ(LoadUnsigned(p + 4, 4, kLittle), 0x08070605u);
  EXPECT_EQ(LoadUnsigned(p + 4, 4, kBig), 0x05060708u);
  EXPECT_EQ(LoadUnsigned(p, 8, kBig), 0x0102030405060708u);
  EXPECT_EQ(LoadUnsigned(p, 8, kLittle), 0x0807060504030201u);
  EXPECT_EQ(LoadUnsigned(p, 3, kLittle), 0u);  // not a scalar size
  // Unaligned: every offset of the block works (memcpy, never a pointer cast).
  Exact odd(std::string_view("\x00\xde\xad\xbe\xef\x00\x00\x00\x01", 9));
  EXPECT_EQ(Load<uint32_t>(odd.view().data() + 1, kBig), 0xdeadbeefu);
  EXPECT_EQ(Load<uint64_t>(odd.view().data() + 1, kBig), 0xdeadbeef00000001u);
}

TEST(Load, ByteSwap) {
  static_assert(ByteSwap<uint16_t>(0x1234) == 0x3412);
  static_assert(ByteSwap<uint32_t>(0x12345678u) == 0x78563412u);
  static_assert(ByteSwap<uint64_t>(0x0102030405060708u) == 0x0807060504030201u);
  static_assert(ByteSwap<uint8_t>(0xab) == 0xab);
  EXPECT_EQ(ByteSwap<int32_t>(-2), static_cast<int32_t>(0xfeffffffu));
  EXPECT_EQ(ByteSwap(ByteSwap<int64_t>(-12345)), -12345);
}

}  // namespace
}  // namespace tk
