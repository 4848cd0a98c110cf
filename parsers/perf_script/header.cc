#include "parsers/perf_script/header.h"

#include "core/strings.h"
#include "core/timestamp.h"

namespace tk::parsers::perf_script {
namespace {

// "PID", "PID/TID", "-1", "-1/-1" → pid, tid (pid = -1 when only one number is printed).
bool ParsePidTid(std::string_view w, int32_t* pid, int32_t* tid) {
  size_t slash = w.find('/');
  if (slash == std::string_view::npos) {
    *pid = -1;
    return ParseDecimal(w, tid);
  }
  return ParseDecimal(w.substr(0, slash), pid) && ParseDecimal(w.substr(slash + 1), tid);
}

// "[003]"
bool ParseCpu(std::string_view w, int32_t* cpu) {
  if (w.size() < 3 || w.front() != '[' || w.back() != ']') return false;
  return ParseDecimal(w.substr(1, w.size() - 2), cpu) && *cpu >= 0;
}

// The side-band records perf script prints in place of an event name:
//   PERF_RECORD_COMM exec: sh:9292/9292        PERF_RECORD_COMM: perf-exec:9292/9292
//   PERF_RECORD_FORK(9294:9294):(9292:9292)    PERF_RECORD_EXIT(9294:9294):(9292:9292)
//   PERF_RECORD_LOST lost 25                   PERF_RECORD_LOST_SAMPLES lost 3
//   PERF_RECORD_MMAP2 9292/9292: [0x564e22fb4000(0x13000) @ 0x4000 fe:00 247230 0]: r-xp ...
void ParseSideBand(std::string_view s, Header* h) {
  h->side = SideBand::kOther;
  auto pair = [](std::string_view p, int32_t* a, int32_t* b) {
    // "(9294:9294)"
    if (p.size() < 5 || p.front() != '(' || p.back() != ')') return false;
    p = p.substr(1, p.size() - 2);
    size_t colon = p.find(':');
    return colon != std::string_view::npos && ParseDecimal(p.substr(0, colon), a) &&
           ParseDecimal(p.substr(colon + 1), b);
  };
  bool fork = s.starts_with("PERF_RECORD_FORK(");
  if (fork || s.starts_with("PERF_RECORD_EXIT(")) {
    std::string_view p = s.substr(16);  // "(9294:9294):(9292:9292)"
    size_t mid = p.find("):(");
    if (mid != std::string_view::npos &&
        pair(p.substr(0, mid + 1), &h->pid, &h->tid) &&
        pair(p.substr(mid + 2), &h->other_pid, &h->other_tid)) {
      h->side = fork ? SideBand::kFork : SideBand::kExit;
    }
    return;
  }
  if (s.starts_with("PERF_RECORD_COMM")) {
    std::string_view p = s.substr(16);
    h->exec = p.starts_with(" exec:");
    size_t colon = p.find(':');
    if (colon == std::string_view::npos) return;
    p = Trim(p.substr(colon + 1));  // "sh:9292/9292"; a comm may hold ':'
    size_t last = p.rfind(':');
    if (last == std::string_view::npos) return;
    if (ParsePidTid(p.substr(last + 1), &h->other_pid, &h->other_tid) && h->other_pid >= 0) {
      h->side_comm = p.substr(0, last);
      h->side = SideBand::kComm;
    }
    return;
  }
  bool samples = s.starts_with("PERF_RECORD_LOST_SAMPLES");
  if (samples || s.starts_with("PERF_RECORD_LOST")) {
    size_t at = s.find(" lost ");
    if (at == std::string_view::npos) return;
    std::string_view n = NextWord(s.substr(at + 6), nullptr);
    if (ParseDecimal(n, &h->lost)) h->side = samples ? SideBand::kLostSamples : SideBand::kLost;
  }
}

// Everything after the PID word: "[000] 267.436250:      50000 cpu-clock:pppH: REST".
// Each part is optional but the order is perf's; a header needs a time or an event.
bool ParseTail(std::string_view s, Header* h) {
  std::string_view rest;
  std::string_view w = NextWord(s, &rest);
  if (ParseCpu(w, &h->cpu)) w = NextWord(rest, &rest);
  bool have_time = false;
  if (w.size() >= 2 && w.back() == ':' && IsDigit(w[0])) {
    std::optional<int64_t> ts = ParseTimestampNs(w.substr(0, w.size() - 1));
    if (!ts) return false;
    h->ts_ns = *ts;
    have_time = true;
    w = NextWord(rest, &rest);
  }
  if (w.empty()) return have_time;  // "comm 123 [000] 1.000000:" (-F without event)
  if (w.starts_with("PERF_RECORD_")) {
    ParseSideBand(Trim(std::string_view(w.data(), rest.data() + rest.size() - w.data())), h);
    return true;
  }
  if (IsDigit(w[0])) {
    if (!ParseDecimal(w, &h->period)) return false;
    h->has_period = true;
    w = NextWord(rest, &rest);
  }
  if (w.size() < 2 || w.back() != ':') return false;
  h->event = w.substr(0, w.size() - 1);
  h->rest = Trim(rest);
  return true;
}

// "CPU 3: 12 events lost"
bool ParseCpuLost(std::string_view line, Header* h) {
  if (!line.starts_with("CPU ") || !line.ends_with(" events lost")) return false;
  std::string_view rest;
  std::string_view cpu = NextWord(line.substr(4), &rest);
  if (cpu.size() < 2 || cpu.back() != ':' || !ParseDecimal(cpu.substr(0, cpu.size() - 1), &h->cpu))
    return false;
  std::string_view n = NextWord(rest, &rest);
  if (!ParseDecimal(n, &h->lost) || Trim(rest) != "events lost") return false;
  h->side = SideBand::kLost;
  return true;
}

}  // namespace

std::optional<Header> ParseHeader(std::string_view line) {
  Header h;
  if (!ParseHeaderInto(line, &h)) return std::nullopt;
  return h;
}

bool ParseHeaderInto(std::string_view line, Header* out) {
  line = Trim(line);
  if (line.empty() || line[0] == '#') return false;
  *out = Header{};
  if (line[0] == 'C' && ParseCpuLost(line, out)) return true;
  // (A failed ParseCpuLost may have set the CPU: kept, as the fields a failed ParseTail set
  // are not.)
  const int32_t base_cpu = out->cpu;
  const uint64_t base_lost = out->lost;
  // The first word is always (part of) the comm; try each later PID-shaped word.
  std::string_view rest;
  NextWord(line, &rest);
  for (;;) {
    std::string_view after;
    std::string_view w = NextWord(rest, &after);
    if (w.empty()) return false;
    int32_t pid, tid;
    if ((IsDigit(w[0]) || (w[0] == '-' && w.size() > 1)) && ParsePidTid(w, &pid, &tid)) {
      out->pid = pid;
      out->tid = tid;
      if (ParseTail(after, out)) {
        out->comm = Trim(line.substr(0, w.data() - line.data()));
        return true;
      }
      *out = Header{};  // ParseTail may have set some fields
      out->cpu = base_cpu;
      out->lost = base_lost;
    }
    rest = after;
  }
}

void RebaseHeader(const char* from, const char* to, Header* h) {
  auto move = [&](std::string_view* v) {
    if (!v->empty()) *v = std::string_view(to + (v->data() - from), v->size());
  };
  move(&h->comm);
  move(&h->event);
  move(&h->rest);
  move(&h->side_comm);
}

}  // namespace tk::parsers::perf_script
