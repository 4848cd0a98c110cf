// One dispatch on an event's body for analyses' OnEvent, instead of a `switch (e.kind())`
// with a std::get per case written in each analysis:
//
//   VisitBody(e, [&](const SchedSwitch& s) { OnSwitch(e, s); },
//                [&](const SchedWakeup& w) { OnWakeup(e, w); });
//
// Each handler takes one body type; bodies no handler takes are ignored.
#ifndef TK_CORE_VISIT_H_
#define TK_CORE_VISIT_H_

#include <cstddef>
#include <utility>
#include <variant>

#include "core/event.h"

namespace tk {

template <typename... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <typename... F>
Overloaded(F...) -> Overloaded<F...>;

namespace visit_internal {

// Calls `f` on alternative I of `body` (the overload std::visit would pick).
template <size_t I, typename F>
inline bool CallAt(const Body& body, F& f) {
  f(*std::get_if<I>(&body));
  return true;
}

template <typename F, size_t... I>
inline void Dispatch(const Body& body, F& f, std::index_sequence<I...>) {
  const size_t index = body.index();
  (void)((index == I && CallAt<I>(body, f)) || ...);
}

}  // namespace visit_internal

// Inline compares on the index, one per alternative some handler takes (std::visit went
// through a table of function pointers: a call per event per analysis that did not inline).
template <typename... F>
void VisitBody(const Event& e, F&&... handlers) {
  Overloaded f{std::forward<F>(handlers)..., [](const auto&) {}};
  visit_internal::Dispatch(e.body, f, std::make_index_sequence<std::variant_size_v<Body>>());
}

}  // namespace tk

#endif  // TK_CORE_VISIT_H_
