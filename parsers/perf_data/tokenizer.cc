#include "parsers/perf_data/tokenizer.h"

#include <zstd.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/diag.h"
#include "core/byte_reader.h"
#include "parsers/perf_data/abi.h"

namespace tk::parsers::perf_data {
namespace {

// Pipe reads: 1 MiB at a time.
constexpr size_t kReadChunk = 1 << 20;
// How far ahead of the record being framed a mapped file is prefetched.
constexpr size_t kPrefetchAhead = 2048;

struct Header {
  uint32_t type;
  uint16_t misc;
  uint16_t size;
};

Header ReadHeader(const char* p, bool swap) {
  Header h;
  ByteReader r(std::string_view(p, 8), swap);
  r.Read(&h.type);
  r.Read(&h.misc);
  r.Read(&h.size);
  return h;
}

// Uncounted bytes that follow a record: AUXTRACE's trace, pipe-mode TRACING_DATA's payload.
uint64_t TrailingBytes(const Header& h, std::string_view rec, bool swap) {
  ByteReader r(rec.substr(8), swap);
  if (h.type == kAuxtrace) {
    uint64_t n = 0;
    r.Read(&n);
    return n;
  }
  if (h.type == kHeaderTracingData) {
    uint32_t n = 0;
    r.Read(&n);
    return n;
  }
  return 0;
}

}  // namespace

struct Tokenizer::Zstd {
  ZSTD_DStream* ds = ZSTD_createDStream();
  Zstd() { ZSTD_initDStream(ds); }
  ~Zstd() { ZSTD_freeDStream(ds); }
};

Tokenizer::Tokenizer(std::string_view data, uint64_t base_offset, bool swap, bool truncated)
    : swap_(swap), truncated_(truncated), data_(data), base_(base_offset) {}

Tokenizer::Tokenizer(Input& in, bool swap) : swap_(swap), truncated_(true), in_(&in) {}

Tokenizer::~Tokenizer() = default;

absl::StatusOr<bool> Tokenizer::Fill(size_t n) {
  while (buf_.size() - buf_pos_ < n && !eof_) {
    if (buf_pos_ > 0) {
      buf_.erase(0, buf_pos_);
      buf_pos_ = 0;
    }
    size_t have = buf_.size();
    buf_.resize(have + std::max(n, kReadChunk));
    absl::StatusOr<size_t> got = in_->Read(buf_.data() + have, buf_.size() - have);
    if (!got.ok()) return got.status();
    buf_.resize(have + *got);
    if (*got == 0) eof_ = true;
  }
  return buf_.size() - buf_pos_ >= n;
}

absl::Status Tokenizer::SkipStream(uint64_t n) {
  while (n > 0) {
    absl::StatusOr<bool> ok = Fill(1);
    if (!ok.ok()) return ok.status();
    if (!*ok) break;
    size_t step = std::min<uint64_t>(n, buf_.size() - buf_pos_);
    buf_pos_ += step;
    stream_off_ += step;
    n -= step;
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> Tokenizer::NextOuter(RawRecord* rec) {
  std::string_view avail;
  uint64_t off;
  if (in_) {
    absl::StatusOr<bool> ok = Fill(8);
    if (!ok.ok()) return ok.status();
    avail = std::string_view(buf_).substr(buf_pos_);
    off = stream_off_;
  } else {
    avail = data_.substr(pos_);
    off = base_ + pos_;
  }
  if (avail.empty()) return false;
  auto cut = [&](std::string_view what) -> absl::StatusOr<bool> {
    if (truncated_) {
      ended_early_ = true;
      end_offset_ = off;
      return false;
    }
    return ErrorAt(off, what);
  };
  if (avail.size() < 8) return cut("record header cut by the end of the data section");
  Header h = ReadHeader(avail.data(), swap_);
  if (h.size < 8) {
    // A killed perf can leave zeros after its last record: the data ends there.
    if (truncated_) return cut("");
    return ErrorAt(off, absl::StrCat("record of type ", h.type, " with size ", h.size,
                                     " (at least 8): cannot find the next record"));
  }
  if (in_) {
    absl::StatusOr<bool> ok = Fill(h.size);
    if (!ok.ok()) return ok.status();
    avail = std::string_view(buf_).substr(buf_pos_);
  }
  if (avail.size() < h.size) return cut(absl::StrCat(AV(RecordTypeName(h.type)), " record of ", h.size, " bytes cut by the end of the data section"));
  *rec = RawRecord{};
  rec->type = h.type;
  rec->misc = h.misc;
  rec->size = h.size;
  rec->offset = off;
  rec->stable = in_ == nullptr;
  uint64_t extra = TrailingBytes(h, avail.substr(0, h.size), swap_);
  if (in_) {
    // Copy out: the buffer may move when the trailing bytes are read.
    rec->bytes = avail.substr(0, h.size);
    buf_pos_ += h.size;
    stream_off_ += h.size;
    if (extra) {
      extra_.assign(rec->bytes);  // keep the record itself valid across the reads below
      rec->bytes = extra_;
    }
    if (h.type == kHeaderTracingData) {
      absl::StatusOr<bool> ok = Fill(extra);
      if (!ok.ok()) return ok.status();
      if (!*ok) return cut("tracing data cut by the end of the stream");
      rec->extra = std::string_view(buf_).substr(buf_pos_, extra);
      buf_pos_ += extra;
      stream_off_ += extra;
    } else if (extra) {
      if (absl::Status st = SkipStream(extra); !st.ok()) return st;
    }
    return true;
  }
  rec->bytes = avail.substr(0, h.size);
  if (extra > avail.size() - h.size) return cut("AUXTRACE data cut by the end of the data section");
  if (h.type == kHeaderTracingData) rec->extra = avail.substr(h.size, extra);
  pos_ += h.size + extra;
  return true;
}

absl::StatusOr<bool> Tokenizer::NextFromDecompressed(RawRecord* rec) {
  size_t avail = dbuf_.size() - dpos_;
  if (avail < 8) return false;
  Header h = ReadHeader(dbuf_.data() + dpos_, swap_);
  if (h.size < 8) {
    return ErrorAt(doffset_, absl::StrCat("record of size ", h.size,
                                          " inside compressed data: cannot continue"));
  }
  if (h.size > avail) return false;  // the rest comes with the next COMPRESSED record
  *rec = RawRecord{};
  rec->type = h.type;
  rec->misc = h.misc;
  rec->size = h.size;
  rec->bytes = std::string_view(dbuf_).substr(dpos_, h.size);
  rec->offset = doffset_;
  rec->compressed = true;
  dpos_ += h.size;
  return true;
}

absl::Status Tokenizer::Decompress(const RawRecord& rec) {
  std::string_view payload = rec.bytes.substr(8);
  if (rec.type == kCompressed2) {
    ByteReader r(payload, swap_);
    uint64_t n = 0;
    if (!r.Read(&n) || n > r.remaining()) {
      return ErrorAt(rec.offset, absl::StrCat("COMPRESSED2 data_size ", n, " exceeds the record"));
    }
    payload = payload.substr(8, n);
  }
  if (!zstd_) zstd_ = std::make_unique<Zstd>();
  ++compressed_records_;
  dbuf_.erase(0, dpos_);
  dpos_ = 0;
  doffset_ = rec.offset;
  size_t used = dbuf_.size();
  ZSTD_inBuffer in{payload.data(), payload.size(), 0};
  while (true) {
    if (dbuf_.size() - used < (64 << 10)) dbuf_.resize(std::max<size_t>(used + (256 << 10), 2 * used));
    ZSTD_outBuffer out{dbuf_.data(), dbuf_.size(), used};
    size_t ret = ZSTD_decompressStream(zstd_->ds, &out, &in);
    if (ZSTD_isError(ret)) {
      dbuf_.resize(used);
      return ErrorAt(rec.offset, absl::StrCat("zstd: ", ZSTD_getErrorName(ret)));
    }
    decompressed_bytes_ += out.pos - used;
    used = out.pos;
    if (in.pos == in.size && out.pos < out.size) break;
  }
  dbuf_.resize(used);
  return absl::OkStatus();
}

absl::StatusOr<bool> Tokenizer::Next(RawRecord* rec) {
  // A mapped file's ordinary record, whole: no framing work (NextOuter does the same).
  if (!in_ && !zstd_ && data_.size() - pos_ >= 8) {
    Header h = ReadHeader(data_.data() + pos_, swap_);
    if (h.size >= 8 && h.size <= data_.size() - pos_ && h.type != kAuxtrace &&
        h.type != kHeaderTracingData && h.type != kCompressed && h.type != kCompressed2) {
      rec->type = h.type;
      rec->misc = h.misc;
      rec->size = h.size;
      rec->bytes = data_.substr(pos_, h.size);
      rec->extra = {};
      rec->offset = base_ + pos_;
      rec->stable = true;
      rec->compressed = false;
      pos_ += h.size;
      // The hardware prefetcher stops at page boundaries: ask for the data 2 KiB ahead, so
      // the first touch of each record (its header here) does not wait for memory.
      if (data_.size() - pos_ > kPrefetchAhead) __builtin_prefetch(data_.data() + pos_ + kPrefetchAhead);
      return true;
    }
  }
  while (true) {
    if (zstd_) {
      absl::StatusOr<bool> got = NextFromDecompressed(rec);
      if (!got.ok() || *got) return got;
    }
    absl::StatusOr<bool> got = NextOuter(rec);
    if (!got.ok() || !*got) {
      if (got.ok() && zstd_ && dbuf_.size() > dpos_) {
        ended_early_ = true;
        end_offset_ = doffset_;
      }
      return got;
    }
    if (rec->type != kCompressed && rec->type != kCompressed2) return true;
    if (absl::Status st = Decompress(*rec); !st.ok()) return st;
  }
}

}  // namespace tk::parsers::perf_data
