#include "core/input.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"

namespace tk {
namespace {

absl::Status Errno(std::string_view name, std::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(AV(name), ": ", AV(what), ": ", std::strerror(errno)));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Input>> Input::Open(const std::string& path) {
  std::unique_ptr<Input> in(new Input);
  if (path == "-") {
    in->name_ = "<stdin>";
    in->fd_ = 0;
  } else {
    in->name_ = path;
    in->fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (in->fd_ < 0) return Errno(path, "cannot open");
    in->owns_fd_ = true;
  }
  struct stat st;
  if (::fstat(in->fd_, &st) != 0) return in;  // streamed
  if (S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(in->name_, ": is a directory, not a trace file"));
  }
  // A regular file of size 0 is streamed: procfs and sysfs files (/proc/self/mountinfo) say
  // 0 and still have content; a truly empty file reads as 0 bytes either way.
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    void* p = ::mmap(nullptr, st.st_size, PROT_READ, MAP_PRIVATE, in->fd_, 0);
    if (p == MAP_FAILED) return Errno(in->name_, "cannot mmap");
    ::madvise(p, st.st_size, MADV_SEQUENTIAL);
    in->map_ = static_cast<const char*>(p);
    in->map_size_ = st.st_size;
    in->munmap_ = true;
  }
  return in;
}

std::unique_ptr<Input> Input::FromString(std::string_view data, std::string name) {
  std::unique_ptr<Input> in(new Input);
  in->name_ = std::move(name);
  in->map_ = data.data() ? data.data() : "";
  in->map_size_ = data.size();
  return in;
}

std::unique_ptr<Input> Input::StreamFromString(std::string_view data, size_t chunk,
                                               std::string name) {
  std::unique_ptr<Input> in(new Input);
  in->name_ = std::move(name);
  in->mem_stream_ = data;
  in->chunk_ = chunk ? chunk : 1;
  in->is_mem_stream_ = true;
  return in;
}

Input::~Input() {
  if (munmap_ && map_) ::munmap(const_cast<char*>(map_), map_size_);
  if (owns_fd_ && fd_ >= 0) ::close(fd_);
}

std::optional<std::string_view> Input::mapped() const {
  if (map_) return std::string_view(map_, map_size_);
  return std::nullopt;
}

absl::StatusOr<size_t> Input::RawRead(char* buf, size_t n) {
  if (is_mem_stream_) {
    size_t k = std::min({n, chunk_, mem_stream_.size()});
    std::memcpy(buf, mem_stream_.data(), k);
    mem_stream_.remove_prefix(k);
    return k;
  }
  for (;;) {
    ssize_t r = ::read(fd_, buf, n);
    if (r >= 0) return static_cast<size_t>(r);
    if (errno == EINTR) continue;
    return Errno(name_, "read error");
  }
}

absl::StatusOr<std::string_view> Input::Peek(size_t n) {
  if (map_) return std::string_view(map_, std::min(n, map_size_));
  while (peeked_.size() < n) {
    size_t old = peeked_.size();
    peeked_.resize(n);
    absl::StatusOr<size_t> r = RawRead(peeked_.data() + old, n - old);
    if (!r.ok()) return r.status();
    peeked_.resize(old + *r);
    if (*r == 0) break;
  }
  return std::string_view(peeked_).substr(peek_pos_, std::min(n, peeked_.size() - peek_pos_));
}

absl::StatusOr<size_t> Input::Read(char* buf, size_t n) {
  if (map_) {
    size_t k = std::min<uint64_t>(n, map_size_ - offset_);
    std::memcpy(buf, map_ + offset_, k);
    offset_ += k;
    return k;
  }
  if (peek_pos_ < peeked_.size()) {
    size_t k = std::min(n, peeked_.size() - peek_pos_);
    std::memcpy(buf, peeked_.data() + peek_pos_, k);
    peek_pos_ += k;
    offset_ += k;
    if (peek_pos_ == peeked_.size()) {
      peeked_.clear();
      peeked_.shrink_to_fit();
      peek_pos_ = 0;
    }
    return k;
  }
  absl::StatusOr<size_t> r = RawRead(buf, n);
  if (r.ok()) offset_ += *r;
  return r;
}

absl::Status Input::EnsureMapped() {
  if (map_) return absl::OkStatus();
  // Spool into an unlinked temporary file, then map it. Memory stays flat for large inputs.
  FILE* tmp = std::tmpfile();
  if (!tmp) return Errno(name_, "cannot create temporary file for stdin");
  int tfd = ::dup(fileno(tmp));
  std::fclose(tmp);
  if (tfd < 0) return Errno(name_, "dup");
  std::string buf(1 << 20, '\0');
  size_t total = 0;
  for (;;) {
    absl::StatusOr<size_t> r = Read(buf.data(), buf.size());
    if (!r.ok()) {
      ::close(tfd);
      return r.status();
    }
    if (*r == 0) break;
    size_t done = 0;
    while (done < *r) {
      ssize_t w = ::write(tfd, buf.data() + done, *r - done);
      if (w < 0) {
        if (errno == EINTR) continue;
        ::close(tfd);
        return Errno(name_, "cannot spool to temporary file");
      }
      done += w;
    }
    total += *r;
  }
  if (owns_fd_) ::close(fd_);
  fd_ = tfd;
  owns_fd_ = true;
  is_mem_stream_ = false;
  offset_ = 0;
  if (total == 0) {
    map_ = "";
    map_size_ = 0;
    return absl::OkStatus();
  }
  void* p = ::mmap(nullptr, total, PROT_READ, MAP_PRIVATE, fd_, 0);
  if (p == MAP_FAILED) return Errno(name_, "cannot mmap spooled input");
  map_ = static_cast<const char*>(p);
  map_size_ = total;
  munmap_ = true;
  return absl::OkStatus();
}

const char* ReleasePages(const char* begin, const char* end) {
  static const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  uintptr_t lo = (reinterpret_cast<uintptr_t>(begin) + page - 1) & ~(page - 1);
  uintptr_t hi = reinterpret_cast<uintptr_t>(end) & ~(page - 1);
  if (hi <= lo) return reinterpret_cast<const char*>(lo);
  ::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_DONTNEED);
  return reinterpret_cast<const char*>(hi);
}

void Input::ReleaseBelow(uint64_t offset) {
  constexpr uint64_t kBatch = 8 << 20;
  if (!munmap_ || !map_) return;
  static const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  uint64_t upto = std::min<uint64_t>(offset, map_size_) & ~(page - 1);  // map_ is page-aligned
  if (upto < released_ + kBatch) return;
  ReleasePages(map_ + released_, map_ + upto);
  released_ = upto;
}

void Input::ReleaseRange(uint64_t begin, uint64_t end) {
  if (!munmap_ || !map_) return;
  static const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  begin = (begin + page - 1) & ~(page - 1);
  end = std::min<uint64_t>(end, map_size_) & ~(page - 1);
  if (end > begin) ::madvise(const_cast<char*>(map_) + begin, end - begin, MADV_DONTNEED);
}

}  // namespace tk
