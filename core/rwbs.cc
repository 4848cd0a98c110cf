#include "core/rwbs.h"

namespace tk {
namespace {

bool IsOpStart(char c) {
  return c == 'W' || c == 'R' || c == 'D' || c == 'F' || c == 'N' || c == 'Z';
}

}  // namespace

Rwbs Rwbs::Parse(std::string_view s) {
  Rwbs r;
  size_t i = 0;
  // A leading F is the preflush flag when an operation letter follows it ("FWFS", "FWS");
  // alone ("F") or before a suffix ("FS"?) it is the flush operation itself.
  if (s.size() >= 2 && s[0] == 'F' && IsOpStart(s[1])) {
    r.flags |= kPreflush;
    i = 1;
  }
  if (i < s.size()) {
    char c = s[i++];
    switch (c) {
      case 'R': r.op = Op::kRead; break;
      case 'W':
        r.op = Op::kWrite;
        if (i < s.size() && s[i] == 'Z') { r.op = Op::kWriteZeroes; ++i; }
        break;
      case 'D':
        r.op = Op::kDiscard;
        if (i < s.size() && s[i] == 'E') { r.op = Op::kSecureErase; ++i; }
        break;
      case 'F': r.op = Op::kFlush; break;
      case 'N': r.op = Op::kOther; break;
      case 'Z':
        if (i < s.size()) {
          switch (s[i]) {
            case 'A': r.op = Op::kZoneAppend; break;
            case 'R': r.op = Op::kZoneReset; break;
            case 'F': r.op = Op::kZoneFinish; break;
            case 'O': r.op = Op::kZoneOpen; break;
            case 'C': r.op = Op::kZoneClose; break;
            default: r.op = Op::kOther; r.flags |= kUnknown; break;
          }
          ++i;
        } else {
          r.op = Op::kOther;
          r.flags |= kUnknown;
        }
        break;
      default:
        // No operation letter: suffixes only (should not happen), keep parsing them.
        --i;
        break;
    }
  }
  for (; i < s.size(); ++i) {
    switch (s[i]) {
      case 'F': r.flags |= kFua; break;
      case 'A': r.flags |= kReadahead; break;
      case 'S': r.flags |= kSync; break;
      case 'M': r.flags |= kMeta; break;
      case 'U': r.flags |= kAtomic; break;
      case 'E': r.flags |= kSecure; break;
      default: r.flags |= kUnknown; break;
    }
  }
  return r;
}

std::string Rwbs::ToString() const {
  std::string s;
  if (flags & kPreflush) s += 'F';
  switch (op) {
    case Op::kNone: break;
    case Op::kRead: s += 'R'; break;
    case Op::kWrite: s += 'W'; break;
    case Op::kDiscard: s += 'D'; break;
    case Op::kSecureErase: s += "DE"; break;
    case Op::kFlush: s += 'F'; break;
    case Op::kOther: s += 'N'; break;
    case Op::kWriteZeroes: s += "WZ"; break;
    case Op::kZoneAppend: s += "ZA"; break;
    case Op::kZoneReset: s += "ZR"; break;
    case Op::kZoneFinish: s += "ZF"; break;
    case Op::kZoneOpen: s += "ZO"; break;
    case Op::kZoneClose: s += "ZC"; break;
  }
  if (flags & kFua) s += 'F';
  if (flags & kReadahead) s += 'A';
  if (flags & kSync) s += 'S';
  if (flags & kMeta) s += 'M';
  if (flags & kAtomic) s += 'U';
  if (flags & kSecure) s += 'E';
  return s;
}

}  // namespace tk
