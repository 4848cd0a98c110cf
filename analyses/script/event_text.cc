// The print formats rendered here are the kernel's (include/trace/events/sched.h, block.h) as
// of 6.18, with libtraceevent's rendering of what it cannot evaluate: the 6.11+ ioprio class
// symbol (IOPRIO_CLASS_BE) comes out as its number, "0x2,0,4", exactly as perf script shows it.
// Fields a source did not have are left out (3.x block events have no ioprio; 6.8+
// sched_stat_runtime has no vruntime).
#include "analyses/script/event_text.h"

#include <charconv>

#include "analyses/script/event_fields.h"

namespace tk::analyses::script {
namespace {

void Kv(std::string_view key, std::string_view v, std::string* out) {
  out->append(key);
  out->push_back('=');
  out->append(v);
}
void KvInt(std::string_view key, int64_t v, std::string* out) {
  out->append(key);
  out->push_back('=');
  AppendInt(v, out);
}
void KvUint(std::string_view key, uint64_t v, std::string* out) {
  out->append(key);
  out->push_back('=');
  AppendUint(v, out);
}

void Dev(uint32_t major, uint32_t minor, std::string* out) {
  AppendUint(major, out);
  out->push_back(',');
  AppendUint(minor, out);
}

void AppendHex(uint64_t v, std::string* out) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v, 16);
  out->append("0x");
  out->append(buf, r.ptr);
}

// "SECTOR + NR" and, for 6.11+ sources, " 0x2,0,4".
void SectorCount(const BlockRq& b, bool ioprio, std::string* out) {
  AppendUint(b.sector, out);
  out->append(" + ");
  AppendUint(b.nr_sector, out);
  if (ioprio && b.ioprio >= 0) {
    out->push_back(' ');
    AppendHex(static_cast<uint32_t>(b.ioprio) >> 13 & 7, out);
    out->push_back(',');
    AppendUint(static_cast<uint32_t>(b.ioprio) >> 3 & 1023, out);
    out->push_back(',');
    AppendUint(static_cast<uint32_t>(b.ioprio) & 7, out);
  }
}

void Bracket(std::string_view s, std::string* out) {
  out->append(" [");
  out->append(s);
  out->push_back(']');
}

void BlockText(const BlockRq& b, std::string* out) {
  switch (b.stage) {
    case BlockStage::kPlug:
      out->push_back('[');
      out->append(b.comm);
      out->push_back(']');
      return;
    case BlockStage::kUnplug:
      out->push_back('[');
      out->append(b.comm);
      out->append("] ");
      AppendUint(b.nr_rq, out);
      return;
    case BlockStage::kDirtyBuffer:
      Dev(b.major, b.minor, out);
      out->push_back(' ');
      KvUint("sector", b.sector, out);
      out->push_back(' ');
      KvUint("size", b.bytes, out);
      return;
    default:
      break;
  }
  Dev(b.major, b.minor, out);
  out->push_back(' ');
  out->append(b.rwbs.ToString());
  out->push_back(' ');
  switch (b.stage) {
    case BlockStage::kInsert:
    case BlockStage::kIssue:
    case BlockStage::kRqMerge:
    case BlockStage::kIoStart:
    case BlockStage::kIoDone:
      // "%u (%s) %llu + %u %s,%u,%u [%s]": bytes, the (empty) cmd, ...
      AppendUint(b.bytes, out);
      out->append(" () ");
      SectorCount(b, true, out);
      Bracket(b.comm, out);
      return;
    case BlockStage::kComplete:
    case BlockStage::kRequeue:
      out->append("() ");
      SectorCount(b, true, out);
      out->append(" [");
      AppendInt(b.error, out);
      out->push_back(']');
      return;
    case BlockStage::kBioComplete:
      SectorCount(b, false, out);
      out->append(" [");
      AppendInt(b.error, out);
      out->push_back(']');
      return;
    case BlockStage::kBioRemap:
    case BlockStage::kRqRemap:
      SectorCount(b, false, out);
      out->append(" <- (");
      Dev(b.old_major, b.old_minor, out);
      out->append(") ");
      AppendUint(b.old_sector, out);
      return;
    case BlockStage::kSplit:
      AppendUint(b.sector, out);
      out->append(" / ");
      AppendUint(b.old_sector, out);
      Bracket(b.comm, out);
      return;
    default:
      SectorCount(b, false, out);
      Bracket(b.comm, out);
      return;
  }
}

// The sched events' print formats are their fields (event_fields.cc, the JSON writer's
// list) as "name=value" in format order, with the kernel's print quirks: " ==> " before
// next_comm, target_cpu as %03d, " [ns]" after runtime / vruntime / delay, group_dead as
// true/false, and sched_process_fork's parent_comm / parent_pid printed as comm= / pid=.
void SchedText(const Event& e, std::string* out) {
  thread_local EventFields fields;
  fields.Fill(e);
  bool first = true;
  for (const FieldValue& f : fields.fields()) {
    if (!first) out->append(f.name == "next_comm" ? " ==> " : " ");
    first = false;
    out->append(f.name == "parent_comm" ? "comm" : f.name == "parent_pid" ? "pid" : f.name);
    out->push_back('=');
    if (f.name == "target_cpu") {
      if (f.i >= 0 && f.i < 100) out->push_back('0');
      if (f.i >= 0 && f.i < 10) out->push_back('0');
      AppendInt(f.i, out);
    } else if (f.name == "group_dead") {
      out->append(f.i ? "true" : "false");
    } else if (f.type == FieldValue::Type::kString) {
      out->append(f.s);
    } else if (f.type == FieldValue::Type::kUint) {
      AppendUint(f.u, out);
    } else {
      AppendInt(f.i, out);
    }
    if (f.name == "runtime" || f.name == "vruntime" || f.name == "delay") out->append(" [ns]");
  }
}

// The families from binary sources, in the kernel's (6.x) print formats as libtraceevent
// renders them for perf script and trace-cmd report:
//   irq_handler_entry  "irq=%d name=%s"          irq_handler_exit "irq=%d ret=%s" (handled)
//   softirq_*          "vec=%u [action=%s]"
//   sys_enter          "NR %ld (%lx, %lx, %lx, %lx, %lx, %lx)"   sys_exit "NR %ld = %ld"
//   mm_page_alloc      "page=%p pfn=0x%lx order=%d migratetype=%d gfp_flags=%s"
//   mm_page_free       "page=%p pfn=0x%lx order=%d"  mm_page_free_batched the same, order=0
// libtraceevent cannot evaluate pfn_to_page (vmemmap_base), so page= prints the pfn. Two
// deviations: gfp_flags is its hex number (tk does not evaluate the format's __print_flags
// table of names), and per-call syscalls:sys_enter_NAME print the raw form (their argument
// names are not kept). Kernels before 4.1 record a page pointer, printed as page=0x....
void FamilyText(const Event& e, std::string* out) {
  if (const auto* q = std::get_if<Irq>(&e.body)) {
    KvInt("irq", q->irq, out);
    if (q->exit) {
      out->append(q->ret ? " ret=handled" : " ret=unhandled");
    } else {
      out->push_back(' ');
      Kv("name", q->name, out);
    }
  } else if (const auto* v = std::get_if<Softirq>(&e.body)) {
    KvInt("vec", v->vec, out);
    out->append(" [action=");
    out->append(SoftirqName(v->vec));
    out->push_back(']');
  } else if (const auto* c = std::get_if<Syscall>(&e.body)) {
    out->append("NR ");
    AppendInt(c->id, out);
    if (c->exit) {
      out->append(" = ");
      AppendInt(c->ret, out);
      return;
    }
    out->append(" (");
    for (uint8_t i = 0; i < c->nargs; ++i) {
      if (i) out->append(", ");
      char buf[24];
      auto r = std::to_chars(buf, buf + sizeof buf, c->args[i], 16);
      out->append(buf, r.ptr);
    }
    out->push_back(')');
  } else if (const auto* p = std::get_if<PageEvent>(&e.body)) {
    out->append("page=");
    if (p->failed) out->append("(nil)");
    else AppendHex(p->pfn, out);
    if (!p->is_page_ptr) {
      out->append(" pfn=");
      AppendHex(p->pfn, out);
    }
    out->push_back(' ');
    KvUint("order", p->order, out);
    if (p->op == PageEvent::Op::kAlloc) {
      out->push_back(' ');
      KvInt("migratetype", p->migratetype, out);
      out->append(" gfp_flags=");
      AppendHex(p->gfp_flags, out);
    }
  }
}

}  // namespace

void AppendInt(int64_t v, std::string* out) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out->append(buf, r.ptr);
}

void AppendUint(uint64_t v, std::string* out) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out->append(buf, r.ptr);
}

void AppendEventText(const Event& e, std::string* out) {
  switch (e.kind()) {
    case EventKind::kSchedSwitch:
    case EventKind::kSchedWakeup:
    case EventKind::kSchedMigrate:
    case EventKind::kSchedStat:
    case EventKind::kSchedFork:
    case EventKind::kSchedExit:
      SchedText(e, out);
      return;
    case EventKind::kBlockRq:
      BlockText(std::get<BlockRq>(e.body), out);
      return;
    case EventKind::kIrq:
    case EventKind::kSoftirq:
    case EventKind::kSyscall:
    case EventKind::kPage:
      // Text sources: as they printed it (the print formats changed across kernels).
      if (!e.info_text.empty()) out->append(e.info_text);
      else FamilyText(e, out);
      return;
    case EventKind::kGeneric: {
      const auto& g = std::get<Generic>(e.body);
      if (!g.text.empty()) {
        out->append(g.text);
        return;
      }
      bool first = true;
      for (const Field& f : g.fields) {
        if (!first) out->push_back(' ');
        first = false;
        Kv(f.name, f.value, out);
      }
      return;
    }
    default:
      return;
  }
}

}  // namespace tk::analyses::script
