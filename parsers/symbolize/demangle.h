// C++ names as `perf script` prints them: demangled without parameters or return type
// (libiberty's DMGL_NO_OPTS, what perf uses unless -v), e.g.
//   _ZN2ns1K4workEi              -> ns::K::work
//   _Z2twIlET_S0_                -> tw<long>
//   _ZNKSt8functionIFiiEEclEi    -> std::function<int (int)>::operator()
//   _ZN12_GLOBAL__N_13fooEv      -> (anonymous namespace)::foo
//   _ZN1AltERKS_                 -> A::operator<
// Anything that is not a mangled name comes back unchanged.
#ifndef TK_PARSERS_SYMBOLIZE_DEMANGLE_H_
#define TK_PARSERS_SYMBOLIZE_DEMANGLE_H_

#include <string>
#include <string_view>

namespace tk::parsers::symbolize {

std::string Demangle(std::string_view name);

// Drops the parameter list (and what follows it) and a leading return type from a fully
// demangled function name ("long tw<long>(long)" -> "tw<long>").
std::string StripSignature(std::string_view full);

}  // namespace tk::parsers::symbolize

#endif  // TK_PARSERS_SYMBOLIZE_DEMANGLE_H_
