"""docs/isa.md, generated from the ISA table (tests/test_docs.py checks it is current)."""
from __future__ import annotations

from simt_sim.isa.table import TIMING_CLASSES, isa


def render_isa_doc() -> str:
    table = isa()
    out = ["# Instruction set", "",
           "Generated from `isa/*.yaml` by `simt-sim isa-doc > docs/isa.md`; do not edit by hand.", "",
           "Operand kinds: `d` destination register, `pd` destination predicate, `p` source predicate,",
           "`a`..`e` source values (register, immediate, special register or symbol), `addr` memory",
           "operand, `label` code label; `?` marks an optional operand, `d|pd` allows `%r|%p`.",
           "Unit `by_type`: " + ", ".join(f".{t} {u}" for t, u in table.ops[0].type_units) +
           ", int for every other type.",
           f"Timing: how the timing model times the warp-instruction ({', '.join(TIMING_CLASSES)};",
           "see `timing:` in `isa/ptx.yaml`).  Operands marked *wide* may be registers wider than the",
           "instruction type (sources truncated, destinations sign-extended for signed integer types and",
           "zero-extended otherwise; see docs/ptx-subset.md).", "",
           "| opcode | operands | types | modifiers | unit | timing | meaning |",
           "|---|---|---|---|---|---|---|"]
    order = ["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "b8", "b16", "b32", "b64", "f16",
             "f16x2", "bf16", "bf16x2", "f32", "f64", "pred"]
    for op in table.ops:
        operands = ", ".join(o.kind + ("|pd" if o.pair else "") + ("?" if o.optional else "")
                             for o in op.operands)
        types = " ".join("." + t for t in order if t in op.types)
        if op.type_count == 2:
            types = "two of: " + types
        mods = " ".join(sorted("." + m for m in op.modifiers))
        if op.wide_operands:
            operands += " (*wide*)"
        timing = op.timing + (f" ({op.timing_in_function} in a .func)" if op.timing_in_function else "")
        out.append(f"| `{op.name}` | {operands} | {types} | {mods} | {op.unit} | {timing} | {op.meaning} |")
    out += ["", "## Modifier groups", ""]
    for name, words in table.modifier_groups.items():
        out.append(f"- **{name}**: {' '.join('.' + w for w in words)}")
    out.append("")
    return "\n".join(out)
