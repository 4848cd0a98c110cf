// Binary decoding of the event families of core/kernel_events.h (irq, softirq, syscalls,
// page allocator): the declaration's field slots resolved once per event id in this
// recording's format, then one typed event per record.
#ifndef TK_PARSERS_TEP_FAMILY_DECODE_H_
#define TK_PARSERS_TEP_FAMILY_DECODE_H_

#include <array>
#include <string>
#include <vector>

#include "core/event.h"
#include "core/kernel_events.h"
#include "parsers/tep/fields.h"

struct tep_event;

namespace tk::parsers::tep {

struct FamilyInfo {
  const KernelEvent* decl = nullptr;
  std::array<FieldRef, 4> slots;
  std::array<int8_t, 4> alt{};      // which "a|b" alternative each slot matched (-1: none)
  std::vector<FieldRef> call_args;  // syscalls:sys_enter_NAME: the call's own fields
  std::string call_name;            // syscalls:sys_*_NAME: NAME
};

// Resolves `decl`'s slots in `ev` ("system:name" is `full_name`).
FamilyInfo ResolveFamily(const KernelEvent& decl, struct tep_event* ev, std::string_view full_name);

// Fills e.body from the record. Views borrow the record and `info`.
void DecodeFamily(const FamilyInfo& info, const FieldReader& r, bool big_endian, Event& e);

}  // namespace tk::parsers::tep

#endif  // TK_PARSERS_TEP_FAMILY_DECODE_H_
