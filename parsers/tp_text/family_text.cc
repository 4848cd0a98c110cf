#include "parsers/tp_text/family_text.h"

#include "parsers/tp_text/text_fields.h"

namespace tk::parsers::tp_text {
namespace {

// The value of the first of `keys` present in "k=v k=v" text, up to the next space.
std::optional<std::string_view> Value(std::string_view text,
                                      std::initializer_list<std::string_view> keys) {
  for (std::string_view key : keys) {
    size_t at = FindKey(text, key);
    if (at == std::string_view::npos) continue;
    size_t end = text.find(' ', at);
    return text.substr(at, end == std::string_view::npos ? end : end - at);
  }
  return std::nullopt;
}

std::optional<Irq> ParseIrq(bool exit, std::string_view text) {
  Irq q;
  q.exit = exit;
  auto irq = Value(text, {"irq"});
  if (!irq) return std::nullopt;
  auto n = ParseInt32(*irq);
  if (!n) return std::nullopt;
  q.irq = *n;
  if (exit) {
    auto ret = Value(text, {"ret", "return"});
    if (!ret) return std::nullopt;
    if (*ret == "handled")
      q.ret = 1;
    else if (*ret == "unhandled")
      q.ret = 0;
    else if (auto v = ParseInt32(*ret))
      q.ret = *v;
    else
      return std::nullopt;
  } else {
    // The name runs to the end of the text (handler names may hold spaces).
    for (std::string_view key : {"name", "handler"}) {
      size_t at = FindKey(text, key);
      if (at != std::string_view::npos) {
        q.name = text.substr(at);
        return q;
      }
    }
    return std::nullopt;
  }
  return q;
}

std::optional<Softirq> ParseSoftirq(Softirq::Phase phase, std::string_view text) {
  auto vec = Value(text, {"vec", "softirq"});
  if (!vec) return std::nullopt;
  auto n = ParseInt32(*vec);
  if (!n) return std::nullopt;
  return Softirq{phase, *n};
}

// "NR 0 (3, 7ffd5e1e8a40, 2000, 0, 0, 0)" / "NR 0 = 12", or -R's "id=0 ..." key=values.
std::optional<Syscall> ParseRawSyscall(bool exit, std::string_view text) {
  Syscall c;
  c.exit = exit;
  if (text.substr(0, 3) == "NR ") {
    text.remove_prefix(3);
    size_t sp = text.find(' ');
    auto id = ParseInt(text.substr(0, sp));
    if (!id) return std::nullopt;
    c.id = *id;
    std::string_view rest = sp == std::string_view::npos ? "" : text.substr(sp + 1);
    if (exit) {
      if (rest.substr(0, 2) != "= ") return std::nullopt;
      auto ret = ParseInt(rest.substr(2));
      if (!ret) return std::nullopt;
      c.ret = *ret;
      return c;
    }
    if (rest.size() < 2 || rest.front() != '(' || rest.back() != ')') return std::nullopt;
    rest = rest.substr(1, rest.size() - 2);
    while (!rest.empty() && c.nargs < 6) {
      size_t comma = rest.find(", ");
      std::string_view a = rest.substr(0, comma);
      auto v = ParseUint(a.substr(0, 2) == "0x" ? a : std::string("0x").append(a));
      if (!v) return std::nullopt;
      c.args[c.nargs++] = *v;
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 2);
    }
    return c;
  }
  auto id = Value(text, {"id"});
  if (!id) return std::nullopt;
  auto n = ParseInt(*id);
  if (!n) return std::nullopt;
  c.id = *n;
  if (exit) {
    auto ret = Value(text, {"ret"});
    if (!ret || !ParseInt(*ret)) return std::nullopt;
    c.ret = *ParseInt(*ret);
  }
  return c;
}

// "fd: 0x00000003, buf: 0x7ffd5e1e8a40, count: 0x00002000" / "0xc".
std::optional<Syscall> ParseCallSyscall(bool exit, std::string_view call, std::string_view text) {
  Syscall c;
  c.exit = exit;
  c.name = call;
  if (exit) {
    auto v = ParseUint(text);
    if (!v) return std::nullopt;
    c.ret = static_cast<int64_t>(*v);
    return c;
  }
  while (!text.empty() && c.nargs < 6) {
    size_t colon = text.find(": ");
    if (colon == std::string_view::npos) return std::nullopt;
    text.remove_prefix(colon + 2);
    size_t comma = text.find(", ");
    auto v = ParseUint(text.substr(0, comma));
    if (!v) return std::nullopt;
    c.args[c.nargs++] = *v;
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 2);
  }
  return c;
}

std::optional<PageEvent> ParsePage(PageEvent::Op op, std::string_view text) {
  PageEvent p;
  p.op = op;
  auto pfn = Value(text, {"pfn"});
  auto page = Value(text, {"page"});
  if (pfn) {
    auto v = ParseInt(*pfn);  // -R prints the raw field: -1 for a failed allocation
    if (!v) return std::nullopt;
    p.pfn = static_cast<uint64_t>(*v);
    bool null_page = page && (*page == "(nil)" || *page == "0000000000000000" || *page == "0");
    if (op == PageEvent::Op::kAlloc) p.failed = p.pfn == UINT64_MAX || (null_page && p.pfn == 0);
    if (p.failed) p.pfn = UINT64_MAX;
  } else if (page) {
    auto v = ParseUint(page->substr(0, 2) == "0x" ? *page : std::string("0x").append(*page));
    if (!v) return std::nullopt;
    p.pfn = *v;
    p.is_page_ptr = true;
    if (op == PageEvent::Op::kAlloc) p.failed = p.pfn == 0;
  } else {
    return std::nullopt;
  }
  if (auto order = Value(text, {"order"})) {
    auto v = ParseInt32(*order);
    if (!v || *v < 0) return std::nullopt;
    p.order = static_cast<uint32_t>(*v);
  }
  if (auto mt = Value(text, {"migratetype"})) p.migratetype = ParseInt32(*mt).value_or(-1);
  if (auto gfp = Value(text, {"gfp_flags"})) p.gfp_flags = ParseUint(*gfp).value_or(0);
  return p;
}

}  // namespace

bool ParseFamilyText(const KernelEvent& k, std::string_view name, std::string_view text, Event& e) {
  switch (k.kind) {
    case EventKind::kIrq:
      if (auto q = ParseIrq(k.variant == 1, text)) {
        e.body = *q;
        return true;
      }
      return false;
    case EventKind::kSoftirq:
      if (auto q = ParseSoftirq(static_cast<Softirq::Phase>(k.variant), text)) {
        e.body = *q;
        return true;
      }
      return false;
    case EventKind::kSyscall: {
      auto c = k.prefix ? ParseCallSyscall(k.variant == 1, KernelEventSuffix(k, name), text)
                        : ParseRawSyscall(k.variant == 1, text);
      if (c) {
        e.body = *c;
        return true;
      }
      return false;
    }
    case EventKind::kPage:
      if (auto p = ParsePage(static_cast<PageEvent::Op>(k.variant), text)) {
        e.body = *p;
        return true;
      }
      return false;
    default:
      return false;
  }
}

}  // namespace tk::parsers::tp_text
