"""The tensor-core instruction forms the simulator runs (mma.sync, wmma.*, ldmatrix): which shapes,
layouts and types are accepted, how many registers each fragment has, and the row fields they set.
Every refusal is an InputError at the instruction (file:line:column).  docs/tensor-cores.md
describes the fragment mapping these register counts belong to."""
from __future__ import annotations

from simt_sim.errors import InputError
from simt_sim.frontend.syntax import Instruction
from simt_sim.isa import encoding as E

MMA_TYPES = {("f32", "f16", "f16", "f32"), ("f32", "bf16", "bf16", "f32"), ("f16", "f16", "f16", "f16")}
WMMA_OPS = ("wmma.load.a", "wmma.load.b", "wmma.load.c", "wmma.store.d", "wmma.mma")
TENSOR_OPS = ("mma", "ldmatrix") + WMMA_OPS


def fail(ins: Instruction, message: str):
    raise InputError(message, ins.loc)


def one_of(ins: Instruction, mods: list[str], group: tuple[str, ...] | list[str], what: str) -> str:
    found = [m for m in mods if m in group]
    if len(found) != 1:
        fail(ins, f"{ins.opcode}.{'.'.join(ins.suffixes)}: needs exactly one {what} "
                  f"({', '.join('.' + g for g in group)})")
    return found[0]


def layouts(mods: list[str]) -> list[str]:
    return [m for m in mods if m in ("row", "col")]


def require(ins: Instruction, mods: list[str], words: tuple[str, ...]) -> None:
    for w in words:
        if w not in mods:
            fail(ins, f"{ins.opcode} needs .{w}")


def fragment_regs(name: str, shape: str, types: list[str]) -> list[int]:
    """Registers of each fragment operand, in operand order (0 for a non-fragment operand)."""
    m, n, k = E.SHAPE_MNK[E.SHAPE_CODE[shape]]

    def inputs(rows: int, t: str, wmma: bool) -> int:
        # f16 wmma fragments are 8 registers whatever the shape (PTX ISA); the rest hold each
        # element once: two 16-bit elements per register
        return 8 if (wmma and t == "f16") else rows * k // 64

    def acc(t: str) -> int:
        return m * n // (32 if t == "f32" else 64)

    if name == "mma":
        return [acc(types[0]), inputs(m, types[1], False), inputs(n, types[1], False), acc(types[3])]
    if name == "wmma.mma":
        return [acc(types[0]), inputs(m, types[1], True), inputs(n, types[1], True), acc(types[3])]
    if name == "wmma.load.a":
        return [inputs(m, types[0], True), 0, 0]
    if name == "wmma.load.b":
        return [inputs(n, types[0], True), 0, 0]
    if name == "wmma.load.c":
        return [acc(types[0]), 0, 0]
    return [0, acc(types[0]), 0]                  # wmma.store.d [p], {d}, stride


def check_mma(ins: Instruction, types: list[str], mods: list[str], row) -> str:
    require(ins, mods, ("sync", "aligned"))
    shape = one_of(ins, mods, list(E.TENSOR_SHAPES[:3]), "shape")
    if layouts(mods) != ["row", "col"]:
        fail(ins, f"mma.{shape}: only the .row.col layout is supported")
    if shape == "m8n8k4":
        if set(types) != {"f64"}:
            fail(ins, "mma.m8n8k4: only .f64.f64.f64.f64 (DMMA) is supported")
    elif tuple(types) not in MMA_TYPES:
        fail(ins, f"mma.{shape}.{'.'.join(types)}: supported types are .f32.f16.f16.f32, "
                  ".f32.bf16.bf16.f32 and .f16.f16.f16.f16")
    return shape


def check_wmma(ins: Instruction, name: str, types: list[str], mods: list[str], row) -> str:
    require(ins, mods, ("sync", "aligned"))
    shape = one_of(ins, mods, E.TENSOR_SHAPES[3:6], "wmma shape")
    lay = layouts(mods)
    if name == "wmma.mma":
        if len(lay) != 2:
            fail(ins, "wmma.mma needs two layouts (.row|.col for A, then for B)")
        if tuple(types) not in MMA_TYPES:
            fail(ins, f"wmma.mma.{'.'.join(types)}: supported are .f16 inputs with dtype = ctype "
                      "(.f32.f32, .f16.f16) and .f32.bf16.bf16.f32")
    else:
        if len(lay) != 1:
            fail(ins, f"{name} needs one layout (.row or .col)")
        if [m for m in mods if m in E.SPACE_CODE and m not in ("global", "shared")]:
            fail(ins, f"{name}: the state space is .global, .shared or none (generic)")
    row[E.F_FLAGS] |= (E.FL_COL_A if lay[0] == "col" else 0)
    if len(lay) == 2 and lay[1] == "col":
        row[E.F_FLAGS] |= E.FL_COL_B
    return shape


def check_ldmatrix(ins: Instruction, mods: list[str], row) -> str:
    require(ins, mods, ("sync", "aligned", "m8n8", "shared"))
    num = one_of(ins, mods, ("x1", "x2", "x4"), "matrix count")
    row[E.F_VEC] = int(num[1])
    if "trans" in mods:
        row[E.F_FLAGS] |= E.FL_TRANS
    return "m8n8"


def normalize_types(ins: Instruction, name: str, types: list[str]) -> list[str]:
    """wmma.mma with .f16 inputs names only .dtype.ctype; the table lists four types."""
    if name == "wmma.mma" and len(types) == 2:
        return [types[0], "f16", "f16", types[1]]
    return types


def check_tensor_form(ins: Instruction, name: str, types: list[str], mods: list[str], row) -> None:
    """Validate a tensor-core instruction and set its shape (F_CMP), layout flags and F_VEC."""
    if name == "mma":
        shape = check_mma(ins, types, mods, row)
    elif name == "ldmatrix":
        shape = check_ldmatrix(ins, mods, row)
    else:
        shape = check_wmma(ins, name, types, mods, row)
    row[E.F_CMP] = E.SHAPE_CODE[shape]


def check_fragments(ins: Instruction, name: str, types: list[str], row, vecs) -> None:
    """Each fragment operand is a braced list of the right number of 32-bit registers (.f64 for
    DMMA); ldmatrix takes one register per matrix."""
    shape = E.TENSOR_SHAPES[row[E.F_CMP]]
    if name == "ldmatrix":
        counts = [int(row[E.F_VEC]), 0]
    elif shape == "m8n8k4":
        counts = [2, 1, 1, 2]
    else:
        counts = fragment_regs(name, shape, types)
    wide = shape == "m8n8k4"
    names = {"mma": "DABC", "wmma.mma": "DABC", "wmma.load.a": "A", "wmma.load.b": "B",
             "wmma.load.c": "C", "wmma.store.d": " D", "ldmatrix": "D"}[name]
    for pos, n in enumerate(counts):
        if n == 0:
            continue
        base = E.F_OPS + pos * E.OPERAND_FIELDS
        kind, idx, imm = row[base], row[base + 1], row[base + 2]
        entries = vecs[idx][:imm] if kind == E.K_VEC else []
        ok = kind == E.K_VEC and imm == n and all(
            e >= 0 and not e & E.VEC_IMM and bool(e & E.VEC_R64) == wide for e in entries)
        if name == "ldmatrix" and n == 1 and kind == E.K_R32:
            ok = True                               # `ldmatrix...x1 %r1, [p]` without braces
        if not ok:
            what = ".f64" if wide else "32-bit"
            fail_at = ins.operands[pos].loc if pos < len(ins.operands) else ins.loc
            raise InputError(f"{ins.opcode}.{'.'.join(ins.suffixes)}: the {names[pos]} fragment must "
                             f"be {n} {what} register{'s' if n > 1 else ''} in braces", fail_at)
