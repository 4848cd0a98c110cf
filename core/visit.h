// One dispatch on an event's body for analyses' OnEvent, instead of a `switch (e.kind())`
// with a std::get per case written in each analysis:
//
//   VisitBody(e, [&](const SchedSwitch& s) { OnSwitch(e, s); },
//                [&](const SchedWakeup& w) { OnWakeup(e, w); });
//
// Each handler takes one body type; bodies no handler takes are ignored. std::visit compiles
// to one indexed jump, as the switch did.
#ifndef TK_CORE_VISIT_H_
#define TK_CORE_VISIT_H_

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

template <typename... F>
void VisitBody(const Event& e, F&&... handlers) {
  std::visit(Overloaded{std::forward<F>(handlers)..., [](const auto&) {}}, e.body);
}

}  // namespace tk

#endif  // TK_CORE_VISIT_H_
