#include "core/diag.h"

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

void Diagnostics::Malformed(std::string_view counter, Unit unit, uint64_t where,
                            std::string_view what, uint64_t n) {
  auto it = malformed_.find(counter);
  if (it == malformed_.end()) {
    it = malformed_.emplace(std::string(counter), Counter{0, unit, where}).first;
    *err_ << "tk: " << input_ << ": " << UnitName(unit) << " " << where << ": " << what << "\n";
  }
  it->second.n += n;
}

void Diagnostics::Note(std::string_view counter, std::string_view text, uint64_t n) {
  auto it = notes_.find(counter);
  if (it == notes_.end()) {
    notes_.emplace(std::string(counter), n);
    *err_ << "tk: " << input_ << ": " << text << "\n";
  } else {
    it->second += n;
  }
}

void Diagnostics::Count(std::string_view counter, uint64_t n) {
  auto it = notes_.find(counter);
  if (it == notes_.end()) {
    notes_.emplace(std::string(counter), n);
  } else {
    it->second += n;
  }
}

uint64_t Diagnostics::count(std::string_view counter) const {
  auto it = malformed_.find(counter);
  if (it != malformed_.end()) return it->second.n;
  auto nt = notes_.find(counter);
  return nt == notes_.end() ? 0 : nt->second;
}

uint64_t Diagnostics::total_malformed() const {
  uint64_t n = 0;
  for (const auto& [name, c] : malformed_) n += c.n;
  return n;
}

void Diagnostics::PrintSummary() {
  for (const auto& [name, c] : malformed_) {
    if (c.n > 1) {
      *err_ << "tk: " << input_ << ": " << c.n << " " << name << " skipped (first at "
            << UnitName(c.unit) << " " << c.first << ")\n";
    }
  }
}

absl::Status ErrorAt(uint64_t offset, std::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("offset ", offset, ": ", AV(what)));
}

std::string Diagnostics::ErrorAt(Unit unit, uint64_t where, std::string_view what) const {
  return absl::StrCat(input_, ": ", AV(UnitName(unit)), " ", where, ": ", AV(what));
}

}  // namespace tk
