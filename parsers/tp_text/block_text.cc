// Block tracepoint text, kernels 2.6.3x to 6.11+. Fields are found by their anchors ("+",
// "<-", "(", "[") rather than by position, because each kernel adds or drops one:
//
//   8,0 WS 0 () 7827752 + 8 [loop1]                          rq_insert/issue, 3.x – 6.10
//   254,0 DS 262144 () 33851392 + 512 be,0,4 [kworker/0:1H]   rq_insert/issue, 6.11+ (tracefs)
//   254,0 RM 4096 () 20377144 + 8 0x2,0,4 [perf-exec]        same, libtraceevent (perf script)
//   8,0 WS () 7827752 + 8 [0]                                rq_complete/requeue, 3.x – 6.10
//   254,0 RA () 12654408 + 32 0x2,0,4 [0]                    rq_complete, 6.11+
//   252,2 WS 488 + 8 [dd]                                    bio_queue/getrq/merges/bounce
//   7,1 WS 2536 + 8 <- (252,2) 488                           bio_remap
//   8,0 W 2536 + 8 <- (8,2) 488 1                            rq_remap (nr_bios since 3.x)
//   8,0 W 1000 / 1008 [dd]                                   split
//   [loop1]   /   [loop1] 1                                  plug / unplug (nr_rq)
//   254,0 sector=18446744073709486080 size=4096              dirty_buffer / touch_buffer
// and `trace-cmd report -R` raw fields ("dev=265289728 sector=488 nr_sector=8 ... rwbs=WS").
#include "parsers/tp_text/block_text.h"

#include "parsers/tp_text/text_fields.h"

namespace tk::parsers::tp_text {
namespace {

// Reads an unsigned decimal at `*pos`, moving past it.
std::optional<uint64_t> Number(std::string_view s, size_t* pos) {
  size_t start = *pos;
  while (*pos < s.size() && IsDigit(s[*pos])) ++*pos;
  if (*pos == start) return std::nullopt;
  return ParseUint(s.substr(start, *pos - start));
}

bool Literal(std::string_view s, size_t* pos, std::string_view lit) {
  if (*pos > s.size() || s.compare(*pos, lit.size(), lit) != 0) return false;
  *pos += lit.size();
  return true;
}

// "MAJ,MIN" at `*pos`.
bool Dev(std::string_view s, size_t* pos, uint32_t* major, uint32_t* minor) {
  auto ma = Number(s, pos);
  if (!ma || !Literal(s, pos, ",")) return false;
  auto mi = Number(s, pos);
  if (!mi || *ma > 0xfff || *mi > 0xfffff) return false;
  *major = static_cast<uint32_t>(*ma);
  *minor = static_cast<uint32_t>(*mi);
  return true;
}

// "[comm] N" (unplug) and "[comm]" (plug); the comm may hold "] ", so the count is after the
// last one.
std::optional<BlockRq> ParsePlug(BlockStage stage, std::string_view text) {
  BlockRq b;
  b.stage = stage;
  if (text.empty() || text[0] != '[') return std::nullopt;
  if (stage == BlockStage::kUnplug) {
    size_t close = text.rfind("] ");
    if (close == std::string_view::npos) return std::nullopt;
    auto n = ParseUint(text.substr(close + 2));
    if (!n || *n > UINT32_MAX) return std::nullopt;
    b.nr_rq = static_cast<uint32_t>(*n);
    b.comm = text.substr(1, close - 1);
    return b;
  }
  if (text.back() != ']') return std::nullopt;
  b.comm = text.substr(1, text.size() - 2);
  return b;
}

// `trace-cmd report -R`: every field as name=value in format order; dev is the kernel's
// dev_t (major << 20 | minor).
std::optional<BlockRq> ParseRaw(BlockStage stage, std::string_view text) {
  BlockRq b;
  b.stage = stage;
  auto num = [&](std::string_view key) -> std::optional<uint64_t> {
    size_t p = FindKey(text, key);
    if (p == std::string_view::npos) return std::nullopt;
    size_t e = text.find(' ', p);
    return ParseUint(text.substr(p, e == std::string_view::npos ? e : e - p));
  };
  auto dev = num("dev");
  if (!dev) return std::nullopt;
  b.major = static_cast<uint32_t>(*dev >> 20);
  b.minor = static_cast<uint32_t>(*dev & 0xfffff);
  if (auto v = num("sector")) b.sector = *v;
  if (auto v = num("nr_sector")) b.nr_sector = static_cast<uint32_t>(*v);
  if (auto v = num("bytes")) b.bytes = static_cast<uint32_t>(*v);
  if (auto v = num("size")) b.bytes = static_cast<uint32_t>(*v);
  if (auto v = num("ioprio")) b.ioprio = static_cast<int32_t>(*v & 0xffff);
  if (auto v = num("error")) b.error = static_cast<int32_t>(*v);
  if (auto v = num("nr_rq")) b.nr_rq = static_cast<uint32_t>(*v);
  if (auto v = num("old_dev")) {
    b.old_major = static_cast<uint32_t>(*v >> 20);
    b.old_minor = static_cast<uint32_t>(*v & 0xfffff);
  }
  if (auto v = num("old_sector")) b.old_sector = *v;
  if (auto v = num("new_sector")) b.old_sector = *v;
  if (size_t p = FindKey(text, "rwbs"); p != std::string_view::npos) {
    size_t e = text.find(' ', p);
    b.rwbs = Rwbs::Parse(text.substr(p, e == std::string_view::npos ? e : e - p));
  }
  if (size_t p = FindKey(text, "comm"); p != std::string_view::npos) {
    size_t e = text.find(" cmd=", p);  // comm precedes cmd in every raw block format
    b.comm = text.substr(p, e == std::string_view::npos ? e : e - p);
  }
  return b;
}

bool BracketIsError(BlockStage s) {
  return s == BlockStage::kComplete || s == BlockStage::kRequeue ||
         s == BlockStage::kBioComplete;
}

}  // namespace

std::optional<int32_t> ParseIoprio(std::string_view s) {
  size_t c1 = s.find(',');
  if (c1 == std::string_view::npos) return std::nullopt;
  size_t c2 = s.find(',', c1 + 1);
  if (c2 == std::string_view::npos) return std::nullopt;
  std::string_view cls = s.substr(0, c1);
  int64_t klass;
  if (cls == "none") klass = 0;
  else if (cls == "rt") klass = 1;
  else if (cls == "be") klass = 2;
  else if (cls == "idle") klass = 3;
  else if (cls == "invalid") klass = 7;
  else if (auto v = ParseUint(cls)) klass = static_cast<int64_t>(*v);
  else return std::nullopt;
  auto hint = ParseUint(s.substr(c1 + 1, c2 - c1 - 1));
  auto level = ParseUint(s.substr(c2 + 1));
  if (!hint || !level || klass > 7 || *hint > 1023 || *level > 7) return std::nullopt;
  return static_cast<int32_t>(klass << 13 | *hint << 3 | *level);
}

std::optional<BlockRq> ParseBlock(BlockStage stage, std::string_view text) {
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  if (stage == BlockStage::kPlug || stage == BlockStage::kUnplug) {
    if (text.compare(0, 5, "comm=") == 0) return ParseRaw(stage, text);
    return ParsePlug(stage, text);
  }
  if (text.compare(0, 4, "dev=") == 0) return ParseRaw(stage, text);
  BlockRq b;
  b.stage = stage;
  size_t pos = 0;
  if (!Dev(text, &pos, &b.major, &b.minor) || !Literal(text, &pos, " ")) return std::nullopt;
  if (stage == BlockStage::kDirtyBuffer) {
    // "254,0 sector=N size=N": no rwbs; the buffer size goes to `bytes`.
    KvCursor c(text.substr(pos));
    auto sector = c.Uint("sector");
    auto size = c.Uint("size");
    if (!sector || !size) return std::nullopt;
    b.sector = *sector;
    b.bytes = static_cast<uint32_t>(*size);
    return b;
  }
  size_t rw_end = text.find(' ', pos);
  if (rw_end == std::string_view::npos) return std::nullopt;
  b.rwbs = Rwbs::Parse(text.substr(pos, rw_end - pos));
  pos = rw_end + 1;
  // "[BYTES ](CMD) SECTOR", "(CMD) SECTOR" or "SECTOR".
  if (pos < text.size() && text[pos] != '(') {
    auto n = Number(text, &pos);
    if (!n) return std::nullopt;
    if (Literal(text, &pos, " (")) {
      b.bytes = static_cast<uint32_t>(*n);
      --pos;
    } else {
      b.sector = *n;
    }
  }
  if (pos < text.size() && text[pos] == '(') {
    // The cmd: empty on 5.x+, SCSI CDB bytes with spaces on 3.x ("(12 00 00 00 24 00)").
    size_t close = text.find(") ", pos);
    if (close == std::string_view::npos) return std::nullopt;
    pos = close + 2;
    auto n = Number(text, &pos);
    if (!n) return std::nullopt;
    b.sector = *n;
  }
  if (stage == BlockStage::kSplit) {
    // "SECTOR / NEW_SECTOR [comm]": the new sector goes to old_sector.
    if (!Literal(text, &pos, " / ")) return std::nullopt;
    auto n = Number(text, &pos);
    if (!n) return std::nullopt;
    b.old_sector = *n;
  } else {
    if (!Literal(text, &pos, " + ")) return std::nullopt;
    auto n = Number(text, &pos);
    if (!n || *n > UINT32_MAX) return std::nullopt;
    b.nr_sector = static_cast<uint32_t>(*n);
  }
  if (Literal(text, &pos, " <- (")) {
    // Remaps: "<- (MAJ,MIN) OLD_SECTOR[ NR_BIOS]".
    if (!Dev(text, &pos, &b.old_major, &b.old_minor) || !Literal(text, &pos, ") ")) {
      return std::nullopt;
    }
    auto n = Number(text, &pos);
    if (!n) return std::nullopt;
    b.old_sector = *n;
    if (Literal(text, &pos, " ") && !Number(text, &pos)) return std::nullopt;
    return pos == text.size() ? std::optional<BlockRq>(b) : std::nullopt;
  }
  if (pos == text.size()) return b;  // getrq/sleeprq of some kernels end at the count
  if (!Literal(text, &pos, " ")) return std::nullopt;
  if (text[pos] != '[') {
    // 6.11+ ioprio "be,0,4" / "0x2,0,4".
    size_t sp = text.find(' ', pos);
    std::string_view tok = text.substr(pos, sp == std::string_view::npos ? sp : sp - pos);
    auto io = ParseIoprio(tok);
    if (!io) return std::nullopt;
    b.ioprio = *io;
    if (sp == std::string_view::npos) return b;
    pos = sp + 1;
  }
  if (pos >= text.size() || text[pos] != '[' || text.back() != ']') return std::nullopt;
  std::string_view inner = text.substr(pos + 1, text.size() - pos - 2);
  if (BracketIsError(stage)) {
    auto err = ParseInt32(inner);
    if (!err) return std::nullopt;
    b.error = *err;
  } else {
    b.comm = inner;
  }
  return b;
}

}  // namespace tk::parsers::tp_text
