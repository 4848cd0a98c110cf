// Test helpers for the tep tests: the committed tracefs format files (testdata/tep) loaded into
// a TraceEvents, and payloads built field by field from a format's own offsets.
#ifndef TK_TESTS_TEP_FORMAT_PAYLOAD_H_
#define TK_TESTS_TEP_FORMAT_PAYLOAD_H_

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "parsers/tep/fields.h"
#include "parsers/tep/tracing_data.h"
#include "tests/support/golden.h"

extern "C" {
#include <traceevent/event-parse.h>
}

namespace tk::parsers::tep {

inline std::string Fixture(const std::string& name) {
  return tk::testing::ReadFile(tk::testing::SourcePath("testdata/tep/" + name));
}

// A TraceEvents loaded with the 6.18 header_page and the given formats.
inline std::unique_ptr<TraceEvents> Load(const std::vector<std::pair<std::string, std::string>>& fmts,
                                  bool big_endian = false) {
  auto ev = std::make_unique<TraceEvents>(big_endian, 8, 4096);
  EXPECT_TRUE(ev->LoadHeaderPage(Fixture("header_page")).ok());
  for (const auto& [sys, file] : fmts) ev->AddFormat(sys, Fixture(file));
  return ev;
}

// Builds a payload for `ev` by field name.
class Payload {
 public:
  Payload(TraceEvents& events, int id, bool big_endian = false)
      : ev_(events.Find(id)), big_(big_endian) {
    EXPECT_NE(ev_, nullptr);
    buf_.assign(FixedSize(ev_), '\0');
    Put("common_type", id);
    Put("common_pid", 4242);
  }
  Payload& Put(const char* name, uint64_t v) {
    struct tep_format_field* f = tep_find_any_field(ev_, name);
    EXPECT_NE(f, nullptr) << name;
    for (int i = 0; i < f->size; ++i) {
      int shift = big_ ? (f->size - 1 - i) * 8 : i * 8;
      buf_[f->offset + i] = static_cast<char>((v >> shift) & 0xff);
    }
    return *this;
  }
  Payload& PutStr(const char* name, std::string_view s) {
    struct tep_format_field* f = tep_find_field(ev_, name);
    EXPECT_NE(f, nullptr) << name;
    if (f->flags & TEP_FIELD_IS_DYNAMIC) {
      // __data_loc: append the string (with NUL) and point at it.
      uint32_t off = buf_.size(), len = s.size() + 1;
      buf_.append(s);
      buf_.push_back('\0');
      return Put(name, (uint64_t{len} << 16) | off);
    }
    std::memcpy(buf_.data() + f->offset, s.data(), std::min<size_t>(s.size(), f->size));
    return *this;
  }
  std::string_view raw() const { return buf_; }
  std::string& buf() { return buf_; }

 private:
  struct tep_event* ev_;
  bool big_;
  std::string buf_;
};

// The event id a format file declares ("ID: N").
inline int FormatId(const std::string& file) {
  std::string fmt = Fixture(file);
  return std::stoi(fmt.substr(fmt.find("ID: ") + 4));
}

}  // namespace tk::parsers::tep

#endif  // TK_TESTS_TEP_FORMAT_PAYLOAD_H_
