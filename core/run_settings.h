// Process-wide run settings the command line sets once (cli/common.cc ParseArgs) and the
// parsers read: how many threads a parser may use, and whether long runs show progress.
// Library users (tests, benchmarks) get the defaults: one thread, no progress.
//
// Progress: a parser reports how far into its input it is (SetProgress, a relaxed atomic
// store, cheap enough for every batch); a ProgressScope around the parse starts a thread
// that, once the run has taken 2 s, redraws one line on stderr every 250 ms:
//   tk: 412.0 MB / 1.1 GB, 380.2 MB/s
// and erases it at the end. It is only on when stderr is a terminal and --quiet was not given.
//
// Output written while the line is shown never mixes with it: for the scope's life std::cerr,
// and std::cout when stdout is the same terminal (tk script, tk sched timehist streaming to
// it), go through a TerminalGuard that passes on whole lines only and erases the progress line
// before each write (the next redraw puts it back below the output). So the line is only ever
// drawn with the cursor at the start of an empty line, and output lines stay whole.
#ifndef TK_CORE_RUN_SETTINGS_H_
#define TK_CORE_RUN_SETTINGS_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <ostream>
#include <thread>

namespace tk {

// Threads a parser may use when ParseOptions::threads is 0 (default 1; the CLI sets 2 on
// 2+ cores unless --threads says otherwise).
int DefaultThreads();
void SetDefaultThreads(int n);
// `requested` if positive, else DefaultThreads().
int ResolveThreads(int requested);

// Whether a ProgressScope draws anything (default off; the CLI turns it on for a terminal).
void EnableProgress(bool on);
bool ProgressEnabled();
// The parser's position in its input, in bytes.
void SetProgress(uint64_t bytes);

class TerminalGuard;

class ProgressScope {
 public:
  // `total`: the input's size (0 when unknown: only bytes and rate are shown).
  explicit ProgressScope(uint64_t total);
  ~ProgressScope();
  ProgressScope(const ProgressScope&) = delete;
  ProgressScope& operator=(const ProgressScope&) = delete;

 private:
  void Run();
  // Routes `os` through a TerminalGuard until the scope ends.
  void Guard(std::ostream& os);
  const uint64_t total_;
  struct Guarded {
    std::ostream* os;
    std::streambuf* original;
    std::unique_ptr<TerminalGuard> guard;
  };
  Guarded guarded_[2];
  int n_guarded_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;  // last: starts after the members above exist
};

}  // namespace tk

#endif  // TK_CORE_RUN_SETTINGS_H_
