#include "core/diag.h"

#include <algorithm>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"

namespace tk {
namespace {

std::string_view UnitName(Diagnostics::Unit u) {
  return u == Diagnostics::Unit::kLine ? "line" : "offset";
}

}  // namespace

Diagnostics::Diagnostics(std::string input, std::ostream* err)
    : input_(std::move(input)), err_(err ? err : &std::cerr) {}

void Diagnostics::Malformed(Stat id, Unit unit, uint64_t where, std::string_view what,
                            uint64_t n) {
  const int i = static_cast<int>(id);
  if (!seen_[i]) {
    seen_[i] = true;
    first_[i] = First{unit, where};
    *err_ << "tk: " << input_ << ": " << UnitName(unit) << " " << where << ": " << what << "\n";
  }
  counts_[i] += n;
}

void Diagnostics::Note(Stat id, std::string_view text, uint64_t n) {
  const int i = static_cast<int>(id);
  if (!seen_[i]) {
    seen_[i] = true;
    notes_.push_back(id);
    *err_ << "tk: " << input_ << ": " << text << "\n";
  }
  counts_[i] += n;
}

void Diagnostics::NoteEach(Stat id, std::string_view key, std::string_view text, uint64_t n) {
  const int i = static_cast<int>(id);
  if (!seen_[i]) {
    seen_[i] = true;
    notes_.push_back(id);
  }
  if (keep_note_log_) note_log_.push_back({id, std::string(key), std::string(text), n});
  if (keys_.emplace(id, std::string(key)).second) {
    *err_ << "tk: " << input_ << ": " << text << "\n";
  }
  counts_[i] += n;
}

void Diagnostics::Count(Stat id, uint64_t n) { counts_[static_cast<int>(id)] += n; }

uint64_t Diagnostics::total_malformed() const {
  uint64_t n = 0;
  for (const StatInfo& s : kStats) {
    if (s.severity == StatSeverity::kError) n += count(s.id);
  }
  return n;
}

void Diagnostics::PrintSummary() {
  // By noun, as the summary lines always came out.
  std::vector<const StatInfo*> errors;
  for (const StatInfo& s : kStats) {
    if (s.severity == StatSeverity::kError && count(s.id) > 1) errors.push_back(&s);
  }
  std::sort(errors.begin(), errors.end(),
            [](const StatInfo* a, const StatInfo* b) { return a->noun < b->noun; });
  for (const StatInfo* s : errors) {
    const First& f = first_[static_cast<int>(s->id)];
    *err_ << "tk: " << input_ << ": " << count(s->id) << " " << s->noun << " skipped (first at "
          << UnitName(f.unit) << " " << f.where << ")\n";
  }
}

absl::Status ErrorAt(uint64_t offset, std::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("offset ", offset, ": ", AV(what)));
}

std::string Diagnostics::ErrorAt(Unit unit, uint64_t where, std::string_view what) const {
  return absl::StrCat(input_, ": ", AV(UnitName(unit)), " ", where, ": ", AV(what));
}

}  // namespace tk
