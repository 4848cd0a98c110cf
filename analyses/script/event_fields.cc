#include "analyses/script/event_fields.h"

namespace tk::analyses::script {
namespace {

// Which of the optional block fields each stage's format file has (6.18 names).
struct BlockShape {
  bool bytes = false, ioprio = false, error = false, comm = false, remap = false;
};

BlockShape ShapeOf(BlockStage s) {
  BlockShape b;
  switch (s) {
    // dev sector nr_sector bytes ioprio rwbs comm cmd
    case BlockStage::kInsert:
    case BlockStage::kIssue:
    case BlockStage::kRqMerge:
    case BlockStage::kIoStart:
    case BlockStage::kIoDone:
      b.bytes = b.ioprio = b.comm = true;
      break;
    // dev sector nr_sector error ioprio rwbs cmd
    case BlockStage::kComplete:
    case BlockStage::kRequeue:
      b.error = b.ioprio = true;
      break;
    // dev sector nr_sector error rwbs
    case BlockStage::kBioComplete:
      b.error = true;
      break;
    // dev sector nr_sector old_dev old_sector (nr_bios) rwbs
    case BlockStage::kBioRemap:
    case BlockStage::kRqRemap:
      b.remap = true;
      break;
    // dev sector nr_sector rwbs comm
    default:
      b.comm = true;
      break;
  }
  return b;
}

}  // namespace

void EventFields::Int(std::string_view name, int64_t v) {
  FieldValue f;
  f.name = name;
  f.type = FieldValue::Type::kInt;
  f.i = v;
  fields_.push_back(f);
}

void EventFields::Uint(std::string_view name, uint64_t v) {
  FieldValue f;
  f.name = name;
  f.type = FieldValue::Type::kUint;
  f.u = v;
  fields_.push_back(f);
}

void EventFields::Str(std::string_view name, std::string_view v) {
  FieldValue f;
  f.name = name;
  f.type = FieldValue::Type::kString;
  f.s = v;
  fields_.push_back(f);
}

void EventFields::Dev(std::string_view name, uint32_t major, uint32_t minor, int slot) {
  std::string& s = scratch_[slot];
  s.clear();
  s += std::to_string(major);
  s += ',';
  s += std::to_string(minor);
  Str(name, s);
}

void EventFields::Block(const BlockRq& b) {
  switch (b.stage) {
    case BlockStage::kPlug:
      Str("comm", b.comm);
      return;
    case BlockStage::kUnplug:
      Uint("nr_rq", b.nr_rq);
      Str("comm", b.comm);
      return;
    case BlockStage::kDirtyBuffer:
      Dev("dev", b.major, b.minor, 1);
      Uint("sector", b.sector);
      Uint("size", b.bytes);
      return;
    case BlockStage::kSplit:
      Dev("dev", b.major, b.minor, 1);
      Uint("sector", b.sector);
      Uint("new_sector", b.old_sector);
      scratch_[2] = b.rwbs.ToString();
      Str("rwbs", scratch_[2]);
      Str("comm", b.comm);
      return;
    default:
      break;
  }
  BlockShape shape = ShapeOf(b.stage);
  Dev("dev", b.major, b.minor, 1);
  Uint("sector", b.sector);
  Uint("nr_sector", b.nr_sector);
  if (shape.remap) {
    Dev("old_dev", b.old_major, b.old_minor, 3);
    Uint("old_sector", b.old_sector);
  }
  if (shape.bytes) Uint("bytes", b.bytes);
  if (shape.error) Int("error", b.error);
  if (shape.ioprio && b.ioprio >= 0) Int("ioprio", b.ioprio);
  scratch_[2] = b.rwbs.ToString();
  Str("rwbs", scratch_[2]);
  if (shape.comm) Str("comm", b.comm);
}

void EventFields::Family(const Event& e) {
  if (const auto* q = std::get_if<Irq>(&e.body)) {
    Int("irq", q->irq);
    if (q->exit) Int("ret", q->ret);
    else Str("name", q->name);
  } else if (const auto* v = std::get_if<Softirq>(&e.body)) {
    Int("vec", v->vec);
  } else if (const auto* c = std::get_if<Syscall>(&e.body)) {
    Int("id", c->id);
    if (c->exit) {
      Int("ret", c->ret);
    } else {
      FieldValue f;
      f.name = "args";
      f.type = FieldValue::Type::kUintList;
      f.list = absl::MakeConstSpan(c->args, c->nargs);
      fields_.push_back(f);
    }
  } else if (const auto* p = std::get_if<PageEvent>(&e.body)) {
    Uint(p->is_page_ptr ? "page" : "pfn", p->pfn);
    if (p->op != PageEvent::Op::kFreeBatched || p->is_page_ptr) Uint("order", p->order);
    if (p->op == PageEvent::Op::kAlloc) {
      if (p->migratetype >= 0) Int("migratetype", p->migratetype);
      if (p->gfp_flags) Uint("gfp_flags", p->gfp_flags);
    }
  }
}

void EventFields::Fill(const Event& e) {
  fields_.clear();
  switch (e.kind()) {
    case EventKind::kSchedSwitch: {
      const auto& s = std::get<SchedSwitch>(e.body);
      scratch_[0] = s.prev_state.ToString();
      Str("prev_comm", s.prev_comm);
      Int("prev_pid", s.prev_pid);
      Int("prev_prio", s.prev_prio);
      Str("prev_state", scratch_[0]);
      Str("next_comm", s.next_comm);
      Int("next_pid", s.next_pid);
      Int("next_prio", s.next_prio);
      break;
    }
    case EventKind::kSchedWakeup: {
      const auto& w = std::get<SchedWakeup>(e.body);
      Str("comm", w.comm);
      Int("pid", w.pid);
      Int("prio", w.prio);
      if (w.success != 1) Int("success", w.success);
      if (w.target_cpu >= 0) Int("target_cpu", w.target_cpu);
      break;
    }
    case EventKind::kSchedMigrate: {
      const auto& m = std::get<SchedMigrate>(e.body);
      Str("comm", m.comm);
      Int("pid", m.pid);
      Int("prio", m.prio);
      Int("orig_cpu", m.orig_cpu);
      Int("dest_cpu", m.dest_cpu);
      break;
    }
    case EventKind::kSchedStat: {
      const auto& s = std::get<SchedStat>(e.body);
      Str("comm", s.comm);
      Int("pid", s.pid);
      if (s.which == SchedStat::Which::kRuntime) {
        Uint("runtime", s.delay_ns);
        if (s.vruntime) Uint("vruntime", s.vruntime);
      } else {
        Uint("delay", s.delay_ns);
      }
      break;
    }
    case EventKind::kSchedFork: {
      const auto& f = std::get<SchedFork>(e.body);
      Str("parent_comm", f.parent_comm);
      Int("parent_pid", f.parent_pid);
      Str("child_comm", f.child_comm);
      Int("child_pid", f.child_pid);
      break;
    }
    case EventKind::kSchedExit: {
      const auto& x = std::get<SchedExit>(e.body);
      Str("comm", x.comm);
      Int("pid", x.pid);
      Int("prio", x.prio);
      if (x.group_dead >= 0) Int("group_dead", x.group_dead);
      break;
    }
    case EventKind::kBlockRq:
      Block(std::get<BlockRq>(e.body));
      break;
    case EventKind::kIrq:
    case EventKind::kSoftirq:
    case EventKind::kSyscall:
    case EventKind::kPage:
      Family(e);
      break;
    case EventKind::kGeneric:
      for (const Field& f : std::get<Generic>(e.body).fields) {
        FieldValue v;
        v.name = f.name;
        v.type = f.numeric ? FieldValue::Type::kNumberText : FieldValue::Type::kString;
        v.s = f.value;
        fields_.push_back(v);
      }
      break;
    default:
      break;
  }
}

}  // namespace tk::analyses::script
