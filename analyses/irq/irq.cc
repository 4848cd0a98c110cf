#include "analyses/irq/irq.h"

#include <algorithm>
#include <ostream>
#include <variant>

#include "analyses/sched/perf_format.h"
#include "core/kernel_events.h"

namespace tk::irq {
namespace {

bool In(const std::vector<int32_t>& v, int32_t x) {
  return v.empty() || std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

bool IrqAnalysis::Wanted(const Event& e) const { return filter_.Accepts(e); }

absl::Status IrqAnalysis::OnEvent(const Event& e) {
  report_.range.Add(e.ts_ns);
  if (const auto* q = std::get_if<Irq>(&e.body)) {
    ++events_;
    if (opts_.hard) OnIrq(e, *q);
  } else if (const auto* s = std::get_if<Softirq>(&e.body)) {
    ++events_;
    if (opts_.soft) OnSoftirq(e, *s);
  } else if (e.kind() == EventKind::kLost) {
    hard_slots_.assign(hard_slots_.size(), HardSlot());
    soft_slots_.clear();
  }
  return absl::OkStatus();
}

void IrqAnalysis::OnIrq(const Event& e, const Irq& q) {
  if (!sched::ValidCpu(e.cpu)) return;
  if (static_cast<size_t>(e.cpu) >= hard_slots_.size()) {
    hard_slots_.resize(e.cpu + 1);
    entry_names_.resize(e.cpu + 1);
  }
  HardSlot& slot = hard_slots_[e.cpu];
  if (!q.exit) {
    slot = HardSlot{q.irq, e.ts_ns, Wanted(e) && In(opts_.irqs, q.irq)};
    entry_names_[e.cpu].assign(q.name);
    if (slot.wanted) {
      std::vector<std::string>& names = hard_names_[q.irq];
      if (std::find(names.begin(), names.end(), q.name) == names.end()) names.emplace_back(q.name);
    }
    return;
  }
  if (slot.irq != q.irq || slot.ts == 0 || e.ts_ns < slot.ts) {
    ++report_.unpaired;
    slot = HardSlot();
    return;
  }
  if (slot.wanted) {
    Interrupt i;
    i.number = q.irq;
    i.cpu = e.cpu;
    i.begin_ns = slot.ts;
    i.end_ns = e.ts_ns;
    i.name = entry_names_[e.cpu];
    i.ret = q.ret;
    Complete(i);
  }
  slot = HardSlot();
}

void IrqAnalysis::OnSoftirq(const Event& e, const Softirq& s) {
  if (!sched::ValidCpu(e.cpu) || s.vec < 0 || s.vec > 255) return;
  SoftSlot& slot = soft_slots_[(static_cast<int64_t>(e.cpu) << 8) | s.vec];
  switch (s.phase) {
    case Softirq::Phase::kRaise:
      if (slot.pending == 0) slot.pending = e.ts_ns;
      return;
    case Softirq::Phase::kEntry:
      // The entry consumes the pending raise; a raise during the handler waits for the next.
      slot.entry = e.ts_ns;
      slot.entry_raise = slot.pending;
      slot.pending = 0;
      slot.wanted = Wanted(e) && In(opts_.vecs, s.vec);
      return;
    case Softirq::Phase::kExit: {
      const int64_t raise = slot.entry_raise;
      if (slot.entry == 0 || e.ts_ns < slot.entry) {
        ++report_.unpaired;
        slot.entry = 0;
        return;
      }
      if (slot.wanted) {
        Interrupt i;
        i.soft = true;
        i.number = s.vec;
        i.cpu = e.cpu;
        i.begin_ns = slot.entry;
        i.end_ns = e.ts_ns;
        i.raise_ns = raise;
        i.name = SoftirqName(s.vec);
        Complete(i);
      }
      slot.entry = 0;
      return;
    }
  }
}

void IrqAnalysis::Complete(const Interrupt& i) {
  const uint64_t ns = static_cast<uint64_t>(i.end_ns - i.begin_ns);
  const double us = static_cast<double>(ns) / 1000.0;
  if ((opts_.min_us >= 0 && us < opts_.min_us) || (opts_.max_us >= 0 && us > opts_.max_us)) return;
  if (opts_.on_interrupt) opts_.on_interrupt(i);
  Series& s = (i.soft ? report_.soft : report_.hard)[i.number];
  s.number = i.number;
  s.duration.Add(ns);
  if (i.soft && i.raise_ns > 0 && i.begin_ns >= i.raise_ns)
    s.raise_latency.Add(static_cast<uint64_t>(i.begin_ns - i.raise_ns));
  if (opts_.top > 0 && opts_.mode == IrqOptions::Mode::kStats) KeepLongest(s, i);
  switch (opts_.mode) {
    case IrqOptions::Mode::kHist:
      if (i.soft)
        s.hist.Add(ns / 1000);
      else if (i.ret != 0)
        report_.by_name[std::string(i.name)].Add(ns / 1000);
      break;
    case IrqOptions::Mode::kFreq:
      if (!s.freq) {
        double lo = opts_.min_us, hi = opts_.max_us;
        if (lo < 0 || hi < 0) {  // the series' own range, from the first pass
          auto it = opts_.freq_ranges.find({i.soft, i.number});
          if (it == opts_.freq_ranges.end()) break;
          lo = it->second.first;
          hi = it->second.second;
        }
        s.freq = std::make_shared<lttng::LinearFreq>(lo, hi, opts_.freq_resolution);
      }
      s.freq->Add(us);
      break;
    case IrqOptions::Mode::kLog:
      LogRow(i);
      break;
    case IrqOptions::Mode::kStats:
      break;
  }
}

namespace {
// Longer first; of equal durations the earlier.
bool Longer(const Interrupt& a, const Interrupt& b) {
  const int64_t da = a.end_ns - a.begin_ns, db = b.end_ns - b.begin_ns;
  return da != db ? da > db : a.begin_ns < b.begin_ns;
}
}  // namespace

void IrqAnalysis::KeepLongest(Series& s, const Interrupt& i) const {
  Interrupt kept = i;
  kept.name = {};  // a view into the event: the series' name is printed instead
  std::vector<Interrupt>& h = s.longest;
  if (h.size() < static_cast<size_t>(opts_.top)) {
    h.push_back(kept);
    std::push_heap(h.begin(), h.end(), Longer);  // the heap's front is the shortest kept
  } else if (Longer(kept, h.front())) {
    std::pop_heap(h.begin(), h.end(), Longer);
    h.back() = kept;
    std::push_heap(h.begin(), h.end(), Longer);
  }
}

absl::Status IrqAnalysis::Finish() {
  for (auto& [irq, s] : report_.hard) {
    const std::vector<std::string>& names = hard_names_[irq];
    for (size_t k = 0; k < names.size(); ++k) s.name += (k ? ", " : "") + names[k];
  }
  for (auto& [vec, s] : report_.soft) s.name = std::string(SoftirqName(vec));
  for (auto* series : {&report_.hard, &report_.soft}) {
    for (auto& [n, s] : *series) {
      std::sort(s.longest.begin(), s.longest.end(), Longer);
      // freq: a series without a table of its own gets one over its own range.
      if (opts_.mode == IrqOptions::Mode::kFreq && !s.freq) {
        s.freq = std::make_shared<lttng::LinearFreq>(
            s.duration.min() / 1000.0, s.duration.max() / 1000.0, opts_.freq_resolution);
      }
    }
  }
  report_.mode = opts_.mode;
  report_.top = opts_.top;
  out_ << buf_;
  buf_.clear();
  return absl::OkStatus();
}

}  // namespace tk::irq
