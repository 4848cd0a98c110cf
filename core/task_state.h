// A task's state at sched_switch, normalised across kernels and formats.
//
// Text formats print letters: "R" "R+" (preempted, 4.14+) "S" "D" "T" "t" "X" "Z" "P" "I",
// combinations joined by '|' ("D|K", "S|W" on 3.x). Binary formats carry a number whose bits
// differ by kernel; the trace decoder maps them to letters with the event's own print format
// and then calls FromLetters, so both paths meet here.
#ifndef TK_CORE_TASK_STATE_H_
#define TK_CORE_TASK_STATE_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace tk {

struct TaskState {
  // Bits in the order of the kernel's TASK_REPORT letters, then older kernels' extras.
  enum Bit : uint16_t {
    kS = 1 << 0,   // interruptible sleep
    kD = 1 << 1,   // uninterruptible (disk) sleep
    kT = 1 << 2,   // stopped
    kt = 1 << 3,   // traced
    kX = 1 << 4,   // dead
    kZ = 1 << 5,   // zombie
    kP = 1 << 6,   // parked
    kI = 1 << 7,   // idle kernel thread
    kK = 1 << 8,   // wakekill (3.x)
    kW = 1 << 9,   // waking (3.x)
    kx = 1 << 10,  // dead task (3.x)
    kN = 1 << 11,  // noload (3.x)
    kOther = 1 << 15,  // a letter tk does not know
  };
  uint16_t bits = 0;       // 0 = R (runnable)
  bool preempted = false;  // "R+": switched out while runnable by preemption

  bool runnable() const { return bits == 0; }
  bool disk_sleep() const { return bits & kD; }

  // "R", "R+", "S", "D|K" ... Unknown letters set kOther.
  static TaskState FromLetters(std::string_view s);
  // The letters perf sched / trace-cmd print: "R", "R+", "S", "D", "D|K".
  std::string ToString() const;
  // The single letter perf sched timehist/latency use for the state (first set letter).
  char Letter() const;

  bool operator==(const TaskState&) const = default;
};

}  // namespace tk

#endif  // TK_CORE_TASK_STATE_H_
