#include "parsers/tep/family_decode.h"

#include "core/byte_reader.h"

extern "C" {
#include <traceevent/event-parse.h>
}

namespace tk::parsers::tep {
namespace {

int32_t I32(int64_t v) { return static_cast<int32_t>(v); }

// The first alternative of "a|b|c" that `ev` has.
FieldRef ResolveAlternatives(struct tep_event* ev, std::string_view names, int8_t* which) {
  *which = -1;
  int8_t i = 0;
  while (!names.empty()) {
    size_t bar = names.find('|');
    std::string name(names.substr(0, bar));
    FieldRef f = ResolveField(ev, name.c_str());
    if (f.present()) {
      *which = i;
      return f;
    }
    if (bar == std::string_view::npos) break;
    names.remove_prefix(bar + 1);
    ++i;
  }
  return FieldRef();
}

void DecodeSyscall(const FamilyInfo& info, const FieldReader& r, bool big_endian, Event& e) {
  const auto& s = info.slots;
  Syscall c;
  c.exit = info.decl->variant == 1;
  c.id = r.IntOr(s[0], -1);
  c.name = info.call_name;
  if (c.exit) {
    c.ret = r.IntOr(s[1], 0);
  } else if (!info.decl->prefix) {
    // raw_syscalls:sys_enter: unsigned long args[6] (4 or 8 bytes each).
    if (auto bytes = r.Bytes(s[1])) {
      size_t width = s[1].elem == 4 ? 4 : 8;
      size_t n = std::min<size_t>(6, bytes->size() / width);
      for (size_t i = 0; i < n; ++i)
        c.args[i] =
            LoadUnsigned(bytes->data() + i * width, static_cast<int>(width), NeedsSwap(big_endian));
      c.nargs = static_cast<uint8_t>(n);
    }
  } else {
    size_t n = std::min<size_t>(6, info.call_args.size());
    for (size_t i = 0; i < n; ++i) c.args[i] = r.UInt(info.call_args[i]).value_or(0);
    c.nargs = static_cast<uint8_t>(n);
  }
  e.body = c;
}

void DecodePage(const FamilyInfo& info, const FieldReader& r, Event& e) {
  const auto& s = info.slots;
  PageEvent p;
  p.op = static_cast<PageEvent::Op>(info.decl->variant);
  p.pfn = r.UInt(s[0]).value_or(0);
  // The slot's last alternative (or only name) "page" is a struct page pointer.
  std::string_view first = info.decl->fields[0];
  p.is_page_ptr = first == "page" || (first == "pfn|page" && info.alt[0] == 1);
  if (p.op == PageEvent::Op::kAlloc) {
    p.failed = p.is_page_ptr ? p.pfn == 0 : p.pfn == UINT64_MAX;
    p.gfp_flags = r.UInt(s[2]).value_or(0);
    p.migratetype = I32(r.IntOr(s[3], -1));
  }
  p.order = static_cast<uint32_t>(r.IntOr(s[1], 0));
  e.body = p;
}

}  // namespace

FamilyInfo ResolveFamily(const KernelEvent& decl, struct tep_event* ev,
                         std::string_view full_name) {
  FamilyInfo info;
  info.decl = &decl;
  for (size_t i = 0; i < decl.fields.size(); ++i) {
    if (!decl.fields[i].empty())
      info.slots[i] = ResolveAlternatives(ev, decl.fields[i], &info.alt[i]);
  }
  if (decl.prefix) {
    info.call_name = std::string(KernelEventSuffix(decl, full_name));
    if (decl.variant == 0) {
      for (struct tep_format_field* f = ev->format.fields; f; f = f->next) {
        std::string_view n = f->name ? f->name : "";
        if (n == "__syscall_nr" || n == "nr") continue;
        info.call_args.push_back(MakeFieldRef(f));
      }
    }
  }
  return info;
}

void DecodeFamily(const FamilyInfo& info, const FieldReader& r, bool big_endian, Event& e) {
  const auto& s = info.slots;
  switch (info.decl->kind) {
    case EventKind::kIrq: {
      Irq q;
      q.exit = info.decl->variant == 1;
      q.irq = I32(r.IntOr(s[0], -1));
      if (q.exit)
        q.ret = I32(r.IntOr(s[1], -1));
      else
        q.name = r.Str(s[1]);
      e.body = q;
      return;
    }
    case EventKind::kSoftirq: {
      Softirq q;
      q.phase = static_cast<Softirq::Phase>(info.decl->variant);
      q.vec = I32(r.IntOr(s[0], -1));
      e.body = q;
      return;
    }
    case EventKind::kSyscall:
      DecodeSyscall(info, r, big_endian, e);
      return;
    case EventKind::kPage:
      DecodePage(info, r, e);
      return;
    default:
      e.body = Generic{};
      return;
  }
}

}  // namespace tk::parsers::tep
