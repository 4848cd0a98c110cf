// Text of the event families of core/kernel_events.h → typed events. The forms, as the
// kernel's print formats (ftrace, perf script) and trace-cmd (report, report -R) print them:
//
//   irq_handler_entry   irq=19 name=ahci[0000:00:1f.2]      (2.6.3x: handler=ahci)
//   irq_handler_exit    irq=19 ret=handled | ret=unhandled  (-R: ret=1; 2.6.3x: return=)
//   softirq_*           vec=9 [action=RCU]                  (-R: vec=9; 2.6.3x: softirq=9)
//   sys_enter           NR 0 (3, 7ffd5e1e8a40, 2000, 0, 0, 0)   (-R: id=0 args=ARRAY[...])
//   sys_exit            NR 0 = 12                            (-R: id=0 ret=12)
//   sys_enter_read      fd: 0x00000003, buf: 0x7ffd5e1e8a40, count: 0x00002000
//   sys_exit_read       0xc                                  (a negative ret in two's complement)
//   mm_page_alloc       page=0xffffea00046c5a80 pfn=0x11b16a order=0 migratetype=1
//                       gfp_flags=GFP_KERNEL   (failed: page=(nil) pfn=0x0; -R: pfn=-1)
//   mm_page_free        page=... pfn=0x11b16a order=0
//   mm_page_free_batched page=... pfn=0x11b16a order=0
//   mm_page_free_direct / mm_pagevec_free (before 3.3): page=... pfn=1161578 order=0
//
// Views in the results borrow `text`. nullopt when the text is not one of these forms.
#ifndef TK_PARSERS_TP_TEXT_FAMILY_TEXT_H_
#define TK_PARSERS_TP_TEXT_FAMILY_TEXT_H_

#include <optional>
#include <string_view>

#include "core/event.h"
#include "core/kernel_events.h"

namespace tk::parsers::tp_text {

// Decodes `text` of an event declared by `k`; `name` is the event's name as the line has it
// (for syscalls:sys_enter_NAME's NAME). False when it does not parse.
bool ParseFamilyText(const KernelEvent& k, std::string_view name, std::string_view text, Event& e);

}  // namespace tk::parsers::tp_text

#endif  // TK_PARSERS_TP_TEXT_FAMILY_TEXT_H_
