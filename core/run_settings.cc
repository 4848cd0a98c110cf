#include "core/run_settings.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <streambuf>
#include <string>

namespace tk {
namespace {

std::atomic<int> g_threads{1};
std::atomic<bool> g_progress{false};
std::atomic<uint64_t> g_position{0};

// The terminal's state: whether the progress line is on it. Drawing the line and writing
// output (TerminalGuard) hold g_draw_mu, so they never interleave.
std::mutex g_draw_mu;
bool g_drawn = false;  // guarded by g_draw_mu

// Erases a drawn progress line (g_draw_mu held): the cursor is then at the start of an empty
// line.
void EraseLocked() {
  if (!g_drawn) return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  g_drawn = false;
}

// Whether stdout is a terminal, the one stderr is (so its output shares the progress line's
// screen).
bool StdoutSharesTerminal() {
  struct stat out, err;
  return ::isatty(STDOUT_FILENO) && ::fstat(STDOUT_FILENO, &out) == 0 &&
         ::fstat(STDERR_FILENO, &err) == 0 && out.st_rdev == err.st_rdev;
}

// Only the outermost scope draws (nested parses, e.g. tk diff's two inputs, share the line).
std::atomic<int> g_scopes{0};

// "1.1 GB", "412.0 MB", "812 KB": decimal units, as dd and curl print sizes.
std::string Size(double bytes) {
  char buf[32];
  if (bytes >= 1e9) {
    std::snprintf(buf, sizeof buf, "%.1f GB", bytes / 1e9);
  } else if (bytes >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.1f MB", bytes / 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f KB", bytes / 1e3);
  }
  return buf;
}

}  // namespace

// A stream buffer in front of a terminal stream's own: it collects what is written and passes
// on whole lines only (on a flush, or per 64 KiB), erasing the progress line first, all under
// g_draw_mu. A partial line waits for its newline (or the scope's end), so the progress line's
// "\r" never lands inside an output line.
class TerminalGuard final : public std::streambuf {
 public:
  explicit TerminalGuard(std::streambuf* out) : out_(out) {}
  // Passes on everything, the partial last line too. False on a write error.
  bool FlushAll() { return Forward(buf_.size()); }

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    buf_.push_back(traits_type::to_char_type(c));
    return MaybeForward() ? c : traits_type::eof();
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    buf_.append(s, static_cast<size_t>(n));
    return MaybeForward() ? n : 0;
  }
  int sync() override { return Forward(WholeLines()) ? 0 : -1; }

 private:
  static constexpr size_t kChunk = 64 << 10;
  size_t WholeLines() const {
    size_t nl = buf_.rfind('\n');
    return nl == std::string::npos ? 0 : nl + 1;
  }
  bool MaybeForward() { return buf_.size() < kChunk || Forward(WholeLines()); }
  bool Forward(size_t n) {
    if (n == 0) return true;
    std::lock_guard<std::mutex> lock(g_draw_mu);
    EraseLocked();
    bool ok = out_->sputn(buf_.data(), static_cast<std::streamsize>(n)) ==
                  static_cast<std::streamsize>(n) &&
              out_->pubsync() == 0;
    buf_.erase(0, n);
    return ok;
  }

  std::streambuf* out_;
  std::string buf_;
};

int DefaultThreads() { return g_threads.load(std::memory_order_relaxed); }
void SetDefaultThreads(int n) { g_threads.store(n > 0 ? n : 1, std::memory_order_relaxed); }
int ResolveThreads(int requested) { return requested > 0 ? requested : DefaultThreads(); }

void EnableProgress(bool on) { g_progress.store(on, std::memory_order_relaxed); }
bool ProgressEnabled() { return g_progress.load(std::memory_order_relaxed); }
void SetProgress(uint64_t bytes) { g_position.store(bytes, std::memory_order_relaxed); }

ProgressScope::ProgressScope(uint64_t total) : total_(total) {
  bool outermost = g_scopes.fetch_add(1) == 0;
  if (outermost) g_position.store(0, std::memory_order_relaxed);
  if (!outermost || !ProgressEnabled()) return;
  Guard(std::cerr);
  if (StdoutSharesTerminal()) Guard(std::cout);
  thread_ = std::thread([this] { Run(); });
}

void ProgressScope::Guard(std::ostream& os) {
  Guarded& g = guarded_[n_guarded_++];
  g.os = &os;
  g.original = os.rdbuf();
  g.guard = std::make_unique<TerminalGuard>(g.original);
  std::ios::iostate state = os.rdstate();
  os.rdbuf(g.guard.get());  // (clears the state)
  os.setstate(state);
}

ProgressScope::~ProgressScope() {
  if (thread_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  for (int i = n_guarded_; i-- > 0;) {
    Guarded& g = guarded_[i];
    bool ok = g.guard->FlushAll();
    std::ios::iostate state = g.os->rdstate();
    g.os->rdbuf(g.original);
    g.os->setstate(ok ? state : state | std::ios::badbit);
  }
  g_scopes.fetch_sub(1);
}

void ProgressScope::Run() {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  std::unique_lock<std::mutex> lock(mu_);
  // Nothing for the first 2 s: short runs never show a line. TK_PROGRESS_DELAY_MS changes
  // the delay (tests use 0: then one line is drawn however short the run).
  int delay_ms = 2000;
  if (const char* d = std::getenv("TK_PROGRESS_DELAY_MS"); d && *d) delay_ms = std::atoi(d);
  // TK_PROGRESS_INTERVAL_MS: the redraw period (tests use 1, to redraw between output lines).
  int interval_ms = 250;
  if (const char* d = std::getenv("TK_PROGRESS_INTERVAL_MS"); d && *d) {
    interval_ms = std::max(1, std::atoi(d));
  }
  if (delay_ms > 0 && cv_.wait_until(lock, start + std::chrono::milliseconds(delay_ms),
                                     [&] { return stop_; })) {
    return;
  }
  do {
    double secs = std::chrono::duration<double>(Clock::now() - start).count();
    double pos = static_cast<double>(g_position.load(std::memory_order_relaxed));
    std::string line = "\rtk: " + Size(pos);
    if (total_) line += " / " + Size(static_cast<double>(total_));
    line += ", " + Size(pos / secs) + "/s\033[K";
    std::lock_guard<std::mutex> draw(g_draw_mu);
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
    g_drawn = true;
  } while (!cv_.wait_for(lock, std::chrono::milliseconds(interval_ms), [&] { return stop_; }));
  std::lock_guard<std::mutex> draw(g_draw_mu);
  EraseLocked();  // what follows starts clean
}

}  // namespace tk
