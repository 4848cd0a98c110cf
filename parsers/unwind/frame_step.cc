#include "parsers/unwind/frame_step.h"

#include <dwarf.h>

#include <algorithm>
#include <cstdlib>

namespace tk::parsers::unwind {
namespace {

// libdwfl's limits for one expression.
constexpr size_t kStackMax = 0x100, kStepsMax = 0x1000;

struct Eval {
  StepContext& ctx;
  const FrameState& cur;
  const FrameRules& rules;
  const Dwarf_Op* pool;
  uint64_t bias;
  bool is32;
  bool cfa_done = false, cfa_ok = false;
  uint64_t cfa = 0;

  // The CFA, evaluated once per step (libdwfl evaluates it again for each register rule that
  // uses it: the same value, from the same reads).
  bool Cfa(uint64_t* out) {
    if (!cfa_done) {
      cfa_done = true;
      cfa_ok = rules.cfa.kind == FrameRules::kOps &&
               Run(pool + rules.cfa.begin, rules.cfa.n, false, &cfa);
    }
    *out = cfa;
    return cfa_ok;
  }

  // Runs a DWARF expression as libdwfl's expr_eval: DW_OP_call_frame_cfa (which libdw's
  // dwarf_frame_register puts before a register's rule) makes the result a location, read
  // from memory at the end; `with_cfa` false is the CFA's own expression.
  bool Run(const Dwarf_Op* ops, size_t n, bool with_cfa, uint64_t* result) {
    if (n == 0) return false;
    // The two shapes nearly every row has, without the stack machine: "register + offset"
    // (DW_CFA_def_cfa) and "saved at CFA + N" (DW_CFA_offset).
    if (n == 1 && ops[0].atom == DW_OP_bregx) {
      if (!cur.regs.Get(static_cast<unsigned>(ops[0].number), result)) return false;
      *result += ops[0].number2;
      return true;
    }
    if (with_cfa && n <= 2 && ops[0].atom == DW_OP_call_frame_cfa &&
        (n == 1 || ops[1].atom == DW_OP_plus_uconst)) {
      return Cfa(result) && ctx.Read(*result + (n == 2 ? ops[1].number : 0), result);
    }
    uint64_t st[kStackMax];
    size_t used = 0;
    auto push = [&](uint64_t v) {
      if (used >= kStackMax) return false;
      st[used++] = v;
      return true;
    };
    auto pop = [&](uint64_t* v) {
      if (used == 0) return false;
      *v = st[--used];
      return true;
    };
    bool location = false;
    size_t steps = 0;
    uint64_t a = 0, b = 0, c = 0;
    for (const Dwarf_Op* op = ops; op < ops + n; ++op) {
      if (++steps > kStepsMax) return false;
      const uint8_t atom = op->atom;
      bool ok = true;
      if (atom >= DW_OP_lit0 && atom <= DW_OP_lit31) {
        ok = push(atom - DW_OP_lit0);
      } else if (atom >= DW_OP_reg0 && atom <= DW_OP_reg31) {
        ok = cur.regs.Get(atom - DW_OP_reg0, &a) && push(a);
      } else if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31) {
        ok = cur.regs.Get(atom - DW_OP_breg0, &a) && push(a + op->number);
      } else {
        switch (atom) {
          case DW_OP_addr: ok = push(op->number + bias); break;
          case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u: case DW_OP_const2s:
          case DW_OP_const4u: case DW_OP_const4s: case DW_OP_const8u: case DW_OP_const8s:
          case DW_OP_constu: case DW_OP_consts:
            ok = push(op->number);
            break;
          case DW_OP_regx: ok = cur.regs.Get(static_cast<unsigned>(op->number), &a) && push(a); break;
          case DW_OP_bregx:
            ok = cur.regs.Get(static_cast<unsigned>(op->number), &a) && push(a + op->number2);
            break;
          case DW_OP_dup: ok = pop(&a) && push(a) && push(a); break;
          case DW_OP_drop: ok = pop(&a); break;
          case DW_OP_pick: ok = used > op->number && push(st[used - 1 - op->number]); break;
          case DW_OP_over: ok = pop(&a) && pop(&b) && push(b) && push(a) && push(b); break;
          case DW_OP_swap: ok = pop(&a) && pop(&b) && push(a) && push(b); break;
          case DW_OP_rot: ok = pop(&a) && pop(&b) && pop(&c) && push(a) && push(c) && push(b); break;
          case DW_OP_deref:
          case DW_OP_deref_size:
            ok = pop(&a) && ctx.Read(a, &a);
            if (ok && atom == DW_OP_deref_size) {
              const uint64_t word = is32 ? 4 : 8;
              if (op->number > word) return false;
              if (op->number < 8) a &= (1ull << (op->number * 8)) - 1;
            }
            ok = ok && push(a);
            break;
          case DW_OP_abs: ok = pop(&a) && push(static_cast<uint64_t>(std::llabs(static_cast<int64_t>(a)))); break;
          case DW_OP_neg: ok = pop(&a) && push(0 - a); break;
          case DW_OP_not: ok = pop(&a) && push(~a); break;
          case DW_OP_plus_uconst: ok = pop(&a) && push(a + op->number); break;
          case DW_OP_div:  // signed; INT64_MIN / -1 wraps instead of trapping
            ok = pop(&b) && pop(&a) && b != 0 &&
                 push(static_cast<int64_t>(b) == -1
                          ? 0 - a
                          : static_cast<uint64_t>(static_cast<int64_t>(a) / static_cast<int64_t>(b)));
            break;
          case DW_OP_mod: ok = pop(&b) && pop(&a) && b != 0 && push(a % b); break;
          case DW_OP_and: case DW_OP_minus: case DW_OP_mul: case DW_OP_or: case DW_OP_plus:
          case DW_OP_shl: case DW_OP_shr: case DW_OP_shra: case DW_OP_xor: case DW_OP_le:
          case DW_OP_ge: case DW_OP_eq: case DW_OP_lt: case DW_OP_gt: case DW_OP_ne:
            ok = pop(&b) && pop(&a) && push(Binary(atom, a, b));
            break;
          case DW_OP_bra:
            if (!pop(&a)) return false;
            if (a == 0) break;
            [[fallthrough]];
          case DW_OP_skip: {
            // The target is a byte offset in the expression; ops are sorted by offset.
            const uint64_t to = op->offset + 1 + 2 + static_cast<int16_t>(op->number);
            const Dwarf_Op* found = std::lower_bound(
                ops, ops + n, to, [](const Dwarf_Op& o, uint64_t off) { return o.offset < off; });
            if (found == ops + n || found->offset != to) return false;
            op = found - 1;
            break;
          }
          case DW_OP_nop: break;
          case DW_OP_call_frame_cfa:
            ok = with_cfa && Cfa(&a) && push(a);
            location = true;
            break;
          case DW_OP_stack_value: location = false; break;
          default: return false;
        }
      }
      if (!ok) return false;
    }
    if (!pop(result)) return false;
    return !location || ctx.Read(*result, result);
  }

  static uint64_t Binary(uint8_t atom, uint64_t a, uint64_t b) {
    const int64_t sa = static_cast<int64_t>(a), sb = static_cast<int64_t>(b);
    switch (atom) {
      case DW_OP_and: return a & b;
      case DW_OP_minus: return a - b;
      case DW_OP_mul: return a * b;
      case DW_OP_or: return a | b;
      case DW_OP_plus: return a + b;
      case DW_OP_shl: return b >= 64 ? 0 : a << b;
      case DW_OP_shr: return b >= 64 ? 0 : a >> b;
      case DW_OP_shra: return static_cast<uint64_t>(b >= 64 ? (sa < 0 ? -1 : 0) : sa >> b);
      case DW_OP_xor: return a ^ b;
      case DW_OP_le: return sa <= sb;
      case DW_OP_ge: return sa >= sb;
      case DW_OP_eq: return sa == sb;
      case DW_OP_lt: return sa < sb;
      case DW_OP_gt: return sa > sb;
      default: return sa != sb;  // DW_OP_ne
    }
  }
};

// Applies a CFI row (libdwfl's handle_cfi).
void Apply(StepContext& ctx, bool is32, const FrameState& cur, const FrameRules& rules,
           const ElfFile& file, uint64_t bias, FrameState* next) {
  const unsigned nregs = is32 ? 9 : kMaxRegs;
  next->signal = rules.signal;
  next->pc_state = FrameState::Pc::kError;
  Eval ev{ctx, cur, rules, file.ops(), bias, is32};
  for (unsigned r = 0; r < nregs; ++r) {
    const FrameRules::Rule& rule = rules.regs[r];
    uint64_t v = 0;
    switch (rule.kind) {
      case FrameRules::kUnset: continue;
      case FrameRules::kUndefined:
        if (r == rules.ra) next->pc_state = FrameState::Pc::kUndefined;
        continue;
      case FrameRules::kSame:
        if (!cur.regs.Get(r, &v)) continue;
        break;
      case FrameRules::kOps:
        if (!ev.Run(file.ops() + rule.begin, rule.n, true, &v)) continue;
        break;
    }
    next->regs.Set(r, is32 ? (v & 0xffffffffu) : v);
  }
  if (next->pc_state != FrameState::Pc::kError) return;
  if (next->regs.Get(rules.ra, &next->pc)) {
    next->pc_state = next->pc == 0 ? FrameState::Pc::kUndefined : FrameState::Pc::kSet;
  } else if (rules.ra < nregs) {
    next->pc_state = FrameState::Pc::kUndefined;
  }
}

// elfutils' x86_64_unwind / i386_unwind: frame-pointer chasing when no CFI covers the pc.
bool FramePointer(StepContext& ctx, bool is32, const FrameState& cur, FrameState* next) {
  const unsigned fp_reg = is32 ? 5 : 6, sp_reg = is32 ? 4 : 7;
  const uint64_t word = is32 ? 4 : 8;
  uint64_t fp = 0, sp = 0, ret = 0, prev_fp = 0;
  if (!cur.regs.Get(fp_reg, &fp) || fp == 0) return false;
  if (is32) {
    if (!cur.regs.Get(sp_reg, &sp) || sp == 0 || fp < sp) return false;
    if (!ctx.Read(fp + word, &ret) || ret == 0) return false;
    sp = fp + 2 * word;
    if (!ctx.Read(fp, &prev_fp) || prev_fp == 0 || sp >= prev_fp) return false;
    next->regs.Set(sp_reg, sp & 0xffffffffu);
    next->regs.Set(fp_reg, prev_fp & 0xffffffffu);
  } else {
    if (!cur.regs.Get(sp_reg, &sp)) sp = 0;
    if (!ctx.Read(fp, &prev_fp)) prev_fp = 0;
    if (!ctx.Read(fp + word, &ret)) return false;
    next->regs.Set(fp_reg, prev_fp);
    next->regs.Set(sp_reg, fp + 2 * word);
    if (sp >= fp + 2 * word) return false;
  }
  next->pc = ret;
  next->pc_state = FrameState::Pc::kSet;
  next->signal = false;
  return true;
}

}  // namespace

bool Step(StepContext& ctx, bool is32, const FrameState& cur, FrameState* next) {
  next->regs.known = 0;
  next->pc = 0;
  next->initial = false;
  uint64_t pc = cur.pc;
  if (!cur.initial && !cur.signal) --pc;
  ElfFile* file = nullptr;
  uint64_t bias = 0;
  if (ctx.ModuleAt(pc, &file, &bias)) {
    for (bool debug_frame : {false, true}) {
      if (const FrameRules* rules = file->Rules(pc - bias, debug_frame)) {
        Apply(ctx, is32, cur, *rules, *file, bias, next);
        return true;
      }
    }
  }
  return FramePointer(ctx, is32, cur, next);
}

}  // namespace tk::parsers::unwind
