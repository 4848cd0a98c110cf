#include "core/run_settings.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace tk {
namespace {

std::atomic<int> g_threads{1};
std::atomic<bool> g_progress{false};
std::atomic<uint64_t> g_position{0};

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

int DefaultThreads() { return g_threads.load(std::memory_order_relaxed); }
void SetDefaultThreads(int n) { g_threads.store(n > 0 ? n : 1, std::memory_order_relaxed); }
int ResolveThreads(int requested) { return requested > 0 ? requested : DefaultThreads(); }

void EnableProgress(bool on) { g_progress.store(on, std::memory_order_relaxed); }
bool ProgressEnabled() { return g_progress.load(std::memory_order_relaxed); }
void SetProgress(uint64_t bytes) { g_position.store(bytes, std::memory_order_relaxed); }

ProgressScope::ProgressScope(uint64_t total) : total_(total) {
  bool outermost = g_scopes.fetch_add(1) == 0;
  if (outermost) g_position.store(0, std::memory_order_relaxed);
  if (outermost && ProgressEnabled()) thread_ = std::thread([this] { Run(); });
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
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
    drawn_ = true;
  } while (!cv_.wait_for(lock, std::chrono::milliseconds(250), [&] { return stop_; }));
  if (drawn_) {
    std::fputs("\r\033[K", stderr);  // erase the line: what follows starts clean
    std::fflush(stderr);
  }
}

}  // namespace tk
