#include "parsers/symbolize/demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <cstring>

namespace tk::parsers::symbolize {
namespace {

constexpr std::string_view kAnon = "(anonymous namespace)";
constexpr std::string_view kOperator = "operator";

bool IsIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// At s[i] == "operator" starting a word: the index after the operator's token, longest
// match ("operator+<char, ...>" is operator+ with template arguments; libiberty writes
// "operator< <int>" with a space). "operator new" and conversion operators continue as names.
size_t SkipOperator(std::string_view s, size_t i) {
  static constexpr std::string_view kTokens[] = {
      "<<=", ">>=", "<=>", "->*", "()", "[]", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
      "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "->", ",", "<", ">", "+",
      "-", "*", "/", "%", "^", "&", "|", "~", "!", "="};
  i += kOperator.size();
  for (std::string_view t : kTokens) {
    if (s.substr(i).starts_with(t)) return i + t.size();
  }
  return i;
}

}  // namespace

std::string StripSignature(std::string_view s) {
  int depth = 0;
  size_t name_start = 0;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (depth == 0 && s.substr(i).starts_with(kAnon)) {
      i += kAnon.size();
      continue;
    }
    if (s.substr(i).starts_with(kOperator) && (i == 0 || !IsIdentChar(s[i - 1])) &&
        (i + kOperator.size() >= s.size() || !IsIdentChar(s[i + kOperator.size()]))) {
      i = SkipOperator(s, i);
      continue;
    }
    if (c == '<' || c == '{' || (c == '(' && depth > 0)) {  // '{': "{lambda(int)#1}"
      ++depth;
    } else if (c == '>' || c == '}' || c == ')') {
      if (depth > 0) --depth;
    } else if (c == '(' && depth == 0) {
      break;  // the parameter list
    } else if (c == ' ' && depth == 0) {
      // "long tw<long>": what precedes the last top-level space is the return type, unless
      // the space belongs to "operator new" / a conversion operator.
      std::string_view before = s.substr(0, i);
      size_t op = before.rfind(kOperator);
      if (op == std::string_view::npos || before.substr(op).find(':') != std::string_view::npos)
        name_start = i + 1;
    }
    ++i;
  }
  return std::string(s.substr(name_start, i - name_start));
}

std::string Demangle(std::string_view name) {
  if (!name.starts_with("_Z")) return std::string(name);
  std::string z(name);
  int status = 0;
  char* out = abi::__cxa_demangle(z.c_str(), nullptr, nullptr, &status);
  if (status != 0 || out == nullptr) {
    std::free(out);
    return z;
  }
  // Special names keep libiberty's full form even without DMGL_PARAMS:
  //   _ZThn8_N5clang9ASTReaderD1Ev -> non-virtual thunk to clang::ASTReader::~ASTReader()
  //   _ZTVN4llvm2cl15OptionValueCopyIiEE -> vtable for llvm::cl::OptionValueCopy<int>
  std::string_view full(out);
  for (std::string_view special : {"non-virtual thunk to ", "virtual thunk to ",
                                   "covariant return thunk to ", "vtable for ", "typeinfo for ",
                                   "typeinfo name for ", "VTT for ", "construction vtable for ",
                                   "guard variable for ", "TLS init function for ",
                                   "TLS wrapper function for ", "reference temporary #",
                                   "transaction clone for "}) {
    if (full.starts_with(special)) {
      std::string r(full);
      std::free(out);
      return r;
    }
  }
  std::string r = StripSignature(out);
  std::free(out);
  return r.empty() ? z : r;
}

}  // namespace tk::parsers::symbolize
