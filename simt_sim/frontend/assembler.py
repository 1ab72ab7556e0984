"""Syntax tree -> encoded Program: checks every instruction against the ISA table, allocates
registers to the 32-bit, 64-bit and predicate files, lays out params / shared / local / global
variables, resolves labels and computes reconvergence points."""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field, replace

import numpy as np

from simt_sim.isa import encoding as E
from simt_sim.errors import InputError, SourceLoc
from simt_sim.frontend.calls import call_graph, nesting_levels, reachable_functions, reaches
from simt_sim.frontend.cfg import build_cfg, reconvergence_pcs
from simt_sim.frontend.parser import TYPE_SIZES, parse_ptx
from simt_sim.frontend.ptx_contract import contract_module
from simt_sim.frontend.syntax import Instruction, Kernel, Label, Module, Operand, VarDecl
from simt_sim.frontend import tensor_forms as TF
from simt_sim.isa import OpInfo, isa

FILE_R32, FILE_R64, FILE_PRED = E.K_R32, E.K_R64, E.K_PRED


@dataclass
class Variable:
    name: str
    space: str
    offset: int          # byte offset in its state space (global: from the module-globals base)
    size: int
    dtype: str
    init: list | None = None
    kind: str = ""       # "call": a call sequence's .param variable; "arg": a .func's parameter or
                         # return value (both live in local memory and take ld.param / st.param)


@dataclass
class Body:
    """One body being assembled into the program: the kernel or a linked .func."""
    syntax: Kernel
    regs: dict[str, tuple[int, int]]
    symbols: dict[str, Variable]
    window: tuple[int, ...] = ()         # .func: r32, n, r64, n, pred, n, local, n (see E.CALL_FIELDS)
    pc_base: int = 0
    instrs: list[Instruction] = field(default_factory=list)
    labels: dict[str, int] = field(default_factory=dict)


@dataclass
class Program:
    """One kernel, encoded for the engine, plus what is needed to print and launch it."""
    name: str
    file: str
    code: np.ndarray                 # int64[n, ROW_FIELDS]
    const_u64: np.ndarray            # immediates: raw bits
    const_f32: np.ndarray            # immediates as float32 values
    const_f64: np.ndarray            # immediates as float64 values
    vec_regs: np.ndarray             # int64[nvec, E.VEC_WIDTH]: register numbers of {a, b, ...} operands
    n_r32: int
    n_r64: int
    n_pred: int
    reg_names: dict[tuple[int, int], str]   # (file kind, index) -> name
    params: list[Variable]
    param_size: int
    shared: list[Variable]
    shared_size: int                 # static shared bytes
    dynamic_shared: bool
    local_size: int
    globals: list[Variable]
    global_size: int
    labels: dict[str, int]
    locs: list[SourceLoc]
    texts: list[str]
    declared_regs: int               # 32-bit registers per thread implied by the .reg declarations
    directives: dict[str, list[int]] = field(default_factory=dict)
    calls: np.ndarray = field(default_factory=lambda: np.zeros((0, len(E.CALL_FIELDS)), np.int64))
    call_levels: int = 0             # deepest call nesting (0: no calls), -1 when calls may recurse
    frame_bytes: int = 0             # bytes of one saved frame on a thread's call stack (recursion)
    # SASS: the module's constant banks other than 0 (frontend/sass_banks.py), copied into the
    # parameter block at bank_image_offset (inside param_size)
    bank_image: bytes = b""
    bank_image_offset: int = 0
    functions: dict[str, int] = field(default_factory=dict)   # linked .func name -> entry pc
    isa: str = "ptx"                 # "sass": rows lowered from ptxas's SASS (frontend/sass_lower.py)
    isa_reason: str = ""             # why it runs as `isa` (api.load_program says; "": not said)

    def __len__(self) -> int:
        return len(self.code)

    def engine_arrays(self):
        return (self.code, self.const_u64, self.const_f32, self.const_f64, self.vec_regs)


HALF_TYPES = ("f16", "bf16", "f16x2", "bf16x2")
PAIR_TYPES = ("f16x2", "bf16x2")
HALF_ARITHMETIC = ("add", "sub", "mul", "fma", "neg", "abs", "min", "max")


# Extended-precision arithmetic: CC.CF, the PTX ISA's carry flag, is a hidden predicate register of
# each body that uses it; `.cc` writes it (the row's F_DST2, FL_CC), addc / subc / madc read it as
# an extra last operand.
CARRY_OPS = ("addc", "subc", "madc")
CARRY_REGISTER = "%%cc"
PACKED_INT_TYPES = ("u16x2", "s16x2")


def uses_carry(ins) -> bool:
    return isinstance(ins, Instruction) and (ins.opcode in CARRY_OPS or "cc" in ins.suffixes)


def b_written_last(instrs: list, block_starts: set[int]) -> set[int]:
    """Positions of the f64 add / sub / mul / fma / mad whose operand b was written after operand a
    in their basic block (or b there and a before it), or is a literal (or a register set once to one:
    f64_literals) where a is not.  ptxas most often puts the later one, and always an immediate, in
    the b slot of DADD / DMUL / DFMA, whose NaN goes on first on the H100 (s-fp64 and the generated
    corpus; how often, and what PTX cannot know: docs/ptx-subset.md)."""
    out = set()
    literals = f64_literals(instrs)
    for i, ins in enumerate(instrs):
        if ins.opcode not in ("add", "sub", "mul", "fma", "mad") or "f64" not in ins.suffixes \
                or len(ins.operands) < 3:
            continue
        a, b = ins.operands[1], ins.operands[2]
        if a.kind == "reg" and a.name not in literals and (b.kind == "fimm" or b.name in literals) \
                and ins.opcode in ("add", "sub", "mul"):
            out.add(i)                      # a literal b is an immediate: ptxas encodes it in the b slot
            continue
        if a.kind != "reg" or b.kind != "reg" or a.name == b.name:
            continue
        written: dict[str, int] = {}
        for j in range(i - 1, -1, -1):
            prev = instrs[j]
            if prev.opcode in ("bra", "call", "ret", "exit"):
                break
            dst = prev.operands[0] if prev.operands else None
            if dst is not None and dst.kind == "reg" and dst.name in (a.name, b.name):
                written.setdefault(dst.name, j)
            if len(written) == 2 or j in block_starts:
                break
        if written.get(b.name, -1) > written.get(a.name, -1):
            out.add(i)
    return out


def f64_literals(instrs: list) -> dict[str, Operand]:
    """Registers written once in the function, by `mov.f64 %fd, LITERAL`: ptxas propagates the
    literal into the instructions that read them (an immediate there)."""
    count: dict[str, int] = {}
    lit: dict[str, Operand] = {}
    for ins in instrs:
        if ins.operands and ins.operands[0].kind == "reg":
            name = ins.operands[0].name
            count[name] = count.get(name, 0) + 1
            if ins.opcode == "mov" and ins.suffixes == ["f64"] and ins.guard is None \
                    and len(ins.operands) == 2 and ins.operands[1].kind == "fimm":
                lit[name] = ins.operands[1]
    return {r: op for r, op in lit.items() if count[r] == 1}


def negated_literal_sub(ins, literals: dict):
    """sub.f64 d, a, LITERAL (or a register set once to one by mov.f64) as ptxas writes it: DADD d, a,
    -LITERAL, the literal's sign flipped in the immediate, so a NaN literal goes on negated
    (fdim(x, NaN): generated corpus k02400 k09629); a - x is a + (-x) for every other value and
    rounding mode."""
    if ins.opcode != "sub" or "f64" not in ins.suffixes or len(ins.operands) != 3 \
            or ins.operands[1].kind != "reg":
        return ins
    lit = ins.operands[2]
    if lit.kind == "reg" and lit.name in literals and lit.name != ins.operands[1].name:
        lit = literals[lit.name]
    if lit.kind != "fimm":
        return ins
    text = lit.text[1:] if lit.text.startswith("-") else "-" + lit.text
    negated = replace(lit, text=text, value=-lit.value if isinstance(lit.value, float) else lit.value)
    return replace(ins, opcode="add", operands=[ins.operands[0], ins.operands[1], negated])


def sign_folds(instrs: list, block_starts: set[int]) -> dict[int, tuple]:
    """cvt.f64.f32 d, s where s = abs.f32 / neg.f32 of y (earlier in the basic block with y unchanged
    since, or s and y each written once in the function, as nvcc writes them): ptxas folds them
    into F2F.F64.F32 d, |y| / -y, and the H100 applies no |x| / -x to a NaN source, so the NaN of
    y goes on with its own sign (generated corpus k00019 k07615 k07801 k09903 k09906).
    Position -> (y's operand, FL_SRC_ABS / FL_SRC_NEG flags) for the row to read y instead."""
    out = {}
    defs: dict[str, list[int]] = {}
    for k, ins in enumerate(instrs):
        if ins.operands and ins.operands[0].kind == "reg":
            defs.setdefault(ins.operands[0].name, []).append(k)
    for i, ins in enumerate(instrs):
        if ins.opcode != "cvt" or ins.suffixes != ["f64", "f32"] or ins.guard is not None \
                or len(ins.operands) != 2 or ins.operands[1].kind != "reg":
            continue
        src, absolute, negate, j = ins.operands[1], False, False, i
        while True:
            found = None
            single = defs.get(src.name, [])
            if len(single) == 1 and single[0] < j:
                # written once in the function (nvcc's PTX is SSA-like): ptxas folds across blocks
                found = single[0]
            for k in range(j - 1, -1, -1) if found is None else ():
                prev = instrs[k]
                if prev.opcode in ("bra", "call", "ret", "exit"):
                    break
                if prev.operands and prev.operands[0].kind == "reg" and prev.operands[0].name == src.name:
                    found = k
                    break
                if k in block_starts:
                    break
            if found is None:
                break
            prev = instrs[found]
            if prev.opcode not in ("abs", "neg") or prev.suffixes != ["f32"] or prev.guard is not None \
                    or prev.operands[1].kind != "reg":
                break
            y = prev.operands[1]
            y_defs = defs.get(y.name, [])
            if len(y_defs) == 1:
                if y_defs[0] >= found:
                    break
            elif any(k in block_starts or instrs[k].opcode in ("bra", "call", "ret", "exit")
                     for k in range(found + 1, i)) or any(k in y_defs for k in range(found + 1, i)):
                break                       # y may have changed between the fold and the cvt
            if prev.opcode == "abs":
                absolute = True
            elif not absolute:
                negate = not negate
            src, j = y, found
        if src is not ins.operands[1]:
            out[i] = (src, (E.FL_SRC_ABS if absolute else 0) | (E.FL_SRC_NEG if negate else 0))
    return out


def check_int_forms(ins: Instruction, name: str, types: list[str], mods: list[str]) -> None:
    """The carry forms (.u32/.s32/.u64/.s64; mad / madc with .lo or .hi) and the packed 16-bit
    integer forms (add / sub / min / max .u16x2 / .s16x2, without modifiers) PTX defines."""
    t1 = types[0] if types else None
    if name in ("atom", "red") and (t1 in HALF_TYPES or "noftz" in mods):
        if t1 not in HALF_TYPES or "noftz" not in mods or "add" not in mods:
            raise InputError(f"{name} with a half-precision type is {name}.add.noftz.{{f16,bf16,f16x2,bf16x2}} "
                             "(.noftz belongs to those forms only)", ins.loc)
    if t1 in PACKED_INT_TYPES and mods:
        raise InputError(f"{name}.{t1} takes no modifier (found .{mods[0]})", ins.loc)
    if "cc" in mods or name in CARRY_OPS:
        what = f"{name}.cc" if "cc" in mods else name
        if t1 not in ("u32", "s32", "u64", "s64"):
            raise InputError(f"{what} takes .u32, .s32, .u64 or .s64", ins.loc)
        if name in ("mad", "madc") and ("wide" in mods or not any(m in ("lo", "hi") for m in mods)):
            raise InputError(f"{what} needs .lo or .hi", ins.loc)
        if "sat" in mods:
            raise InputError(f"{what} takes no .sat", ins.loc)


def check_half_forms(ins: Instruction, name: str, types: list[str], mods: list[str], nops: int) -> None:
    """The half-precision forms PTX defines (and cvt's operand count), with a clear error for the
    rest: half arithmetic rounds only to nearest, bf16 takes no .ftz / .sat, .relu / .satfinite /
    .NaN belong to the half forms, x2 conversions pack two .f32 sources."""
    def fail(message: str):
        raise InputError(message, ins.loc)

    t1 = types[0] if types else None
    half = t1 in HALF_TYPES
    if "NaN" in mods and not half:
        fail(f"{name}.NaN is supported for .f16, .f16x2, .bf16 and .bf16x2 only")
    if "relu" in mods and not (half and name in ("fma", "cvt")):
        fail(".relu applies to fma and cvt with a half-precision (.f16/.bf16/.f16x2/.bf16x2) result")
    if "satfinite" in mods and not (half and name == "cvt"):
        fail(".satfinite applies to cvt with a half-precision (.f16/.bf16/.f16x2/.bf16x2) result")
    if half and name in HALF_ARITHMETIC:
        if any(m in ("rz", "rm", "rp") for m in mods):
            fail(f"half-precision {name} rounds to nearest only (.rn)")
        if t1.startswith("bf16") and ("ftz" in mods or "sat" in mods):
            fail(f"{name}.{t1} takes no .ftz or .sat")
    if name == "cvt" and len(types) == 2:
        if types[1] in PAIR_TYPES:
            fail(f"cvt from .{types[1]} is not supported (unpack with mov.b32 {{lo, hi}} first)")
        if t1 in PAIR_TYPES:
            if types[1] != "f32" or not any(m in ("rn", "rz") for m in mods):
                fail(f"cvt to .{t1} is cvt.rn|rz{{.relu}}{{.satfinite}}.{t1}.f32 d, a, b")
            if nops != 3:
                fail(f"cvt.{t1}.f32 takes 3 operands (d, a, b: a to the high half, b to the low half)")
        elif nops != 2:
            fail("cvt takes 2 operands (3 only for .f16x2 / .bf16x2 destinations)")
    if name == "set" and len(types) == 2 and (types[0] in PAIR_TYPES or types[1] in PAIR_TYPES):
        if types[1] not in PAIR_TYPES or types[0] not in (types[1], "u32", "s32"):
            fail(f"set with packed halves is set.CMP.{{{types[1]}|u32|s32}}.{types[1]} (one result per half)")


def _file_of(dtype: str) -> int:
    if dtype == "pred":
        return FILE_PRED
    return FILE_R64 if TYPE_SIZES[dtype] == 8 else FILE_R32


def _align(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def _float_bits(op: Operand, dtype: str) -> tuple[int, float]:
    """Raw bits and value of a float literal for a float-typed operand."""
    text = op.text.lstrip("-")
    neg = op.text.startswith("-")
    if text[:2] in ("0f", "0F"):
        bits = int(text[2:], 16)
        value = struct.unpack("<f", struct.pack("<I", bits))[0]
    elif text[:2] in ("0d", "0D"):
        bits = int(text[2:], 16)
        value = struct.unpack("<d", struct.pack("<Q", bits))[0]
    else:
        value = float(text)
    if neg:
        value = -value
    if dtype == "f64":
        return struct.unpack("<Q", struct.pack("<d", value))[0], value
    if dtype == "f32":
        value32 = float(np.float32(value))
        return struct.unpack("<I", struct.pack("<f", value32))[0], value32
    raise ValueError


class Assembler:
    def __init__(self, module: Module, kernel: Kernel):
        self.module = module
        self.kernel = kernel
        self.isa = isa()
        self.regs: dict[str, tuple[int, int]] = {}
        self.reg_names: dict[tuple[int, int], str] = {}
        self.counts = {FILE_R32: 0, FILE_R64: 0, FILE_PRED: 0}
        self.consts: list[tuple[int, float, float]] = []
        self.const_index: dict[tuple[int, bytes, bytes], int] = {}
        self.vecs: list[list[int]] = []
        self.symbols: dict[str, Variable] = {}
        self.module_symbols: dict[str, Variable] = {}
        self.local_end = 0               # local-memory bytes placed so far
        self.wide_operands = False       # the current instruction allows wider data registers
        self.tensor_fragments = False    # the current instruction takes 8-register fragments
        self.bodies: dict[str, Body] = {}
        self.calls: list[list[int]] = []     # the call table's rows (E.CALL_FIELDS wide)
        self.graph: dict[str, set[str]] = {}
        self.local_param = False         # the current instruction names a .param variable in local memory

    # ---- declarations ----
    def allocate_registers(self, body: Kernel) -> tuple[dict[str, tuple[int, int]], tuple[int, ...]]:
        """Registers of one body, after those of the bodies before it -> (name -> (file, index),
        (first, count) in the 32-bit, 64-bit and predicate files)."""
        start = dict(self.counts)
        regs: dict[str, tuple[int, int]] = {}
        for name, dtype in body.regs.items():
            f = _file_of(dtype)
            idx = self.counts[f]
            self.counts[f] += 1
            regs[name] = (f, idx)
            self.reg_names[(f, idx)] = name
        if any(uses_carry(item) for item in body.body):
            idx = self.counts[FILE_PRED]
            self.counts[FILE_PRED] += 1
            regs[CARRY_REGISTER] = (FILE_PRED, idx)
            self.reg_names[(FILE_PRED, idx)] = CARRY_REGISTER
        window = []
        for f in (FILE_R32, FILE_R64, FILE_PRED):
            window += [start[f], self.counts[f] - start[f]]
        return regs, tuple(window)

    def place_local(self, name: str, dtype: str, count: int, align: int, kind: str = "",
                    init=None) -> Variable:
        """The next local-memory variable (kernel and .func locals, call parameters)."""
        size = TYPE_SIZES[dtype] * max(count, 0)
        offset = _align(self.local_end, max(align, 1))
        self.local_end = offset + size
        return Variable(name, "local", offset, size, dtype, init, kind)

    def add_symbol(self, symbols: dict[str, Variable], var: Variable, loc: SourceLoc) -> None:
        if var.name in symbols:
            raise InputError(f"symbol {var.name!r} declared twice", loc)
        symbols[var.name] = var

    def layout_variables(self) -> tuple[list[Variable], int, list[Variable], int, bool, list[Variable], int]:
        """The kernel's params, the module's and the kernel's variables and the kernel's call
        parameters (in local memory) -> self.symbols."""
        params, off = [], 0
        for p in self.kernel.params:
            size = TYPE_SIZES[p.dtype] * p.count
            off = _align(off, max(p.align, TYPE_SIZES[p.dtype]))
            params.append(Variable(p.name, "param", off, size, p.dtype))
            off += size
        param_size = off
        spaces: dict[str, list[Variable]] = {"shared": [], "local": [], "global": []}
        sizes = {"shared": 0, "global": 0}
        dynamic = False
        decls: list[VarDecl] = list(self.module.vars) + list(self.kernel.vars)
        externs = []
        for v in decls:
            space = "global" if v.space == "const" else v.space
            if space not in spaces:
                raise InputError(f".{v.space} variables are not supported here", v.loc)
            if v.count == 0 and space == "shared":
                dynamic = True
                externs.append(v)           # placed after the static arrays (below)
                continue
            if space == "local":
                var = self.place_local(v.name, v.dtype, v.count, v.align, init=v.init)
            else:
                size = TYPE_SIZES[v.dtype] * max(v.count, 0)
                o = _align(sizes[space], v.align)
                var = Variable(v.name, space, o, size, v.dtype, v.init)
                sizes[space] = o + size
            spaces[space].append(var)
            if v in self.module.vars:
                self.module_symbols[v.name] = var
        # `extern __shared__` arrays: the dynamic shared memory, which begins where the block's
        # static shared memory ends (as CUDA lays it out), not at 0 over the static arrays
        sizes["shared"] = _align(sizes["shared"], 16)
        for v in externs:
            var = Variable(v.name, "shared", _align(sizes["shared"], v.align), 0, v.dtype, v.init)
            sizes["shared"] = var.offset        # an alignment above 16 moves the dynamic part up
            spaces["shared"].append(var)
            if v in self.module.vars:
                self.module_symbols[v.name] = var
        calls = [self.place_local(v.name, v.dtype, max(v.count, 1), v.align, "call") for v in self.kernel.call_params]
        for var in params + spaces["shared"] + spaces["local"] + spaces["global"] + calls:
            self.add_symbol(self.symbols, var, self.kernel.loc)
        sizes["shared"] = _align(sizes["shared"], 16)
        return (params, param_size, spaces["shared"], sizes["shared"], dynamic,
                spaces["global"], _align(sizes["global"], 256))

    def layout_function(self, func: Kernel) -> tuple[dict[str, Variable], int, int]:
        """A .func's symbols: the module's variables, then its return values, parameters and
        .local variables (the saved part, one local-memory range) and its call parameters ->
        (symbols, first saved byte, saved bytes)."""
        symbols = dict(self.module_symbols)
        self.local_end = _align(self.local_end, 8)
        first = self.local_end
        own: list[Variable] = []
        for p in func.returns + func.params:
            own.append(self.place_local(p.name, p.dtype, p.count, max(p.align, TYPE_SIZES[p.dtype]), "arg"))
        for v in func.vars:
            if v.space != "local":
                raise InputError(f".{v.space} variables inside a .func are not supported (declare them at "
                                 "module scope)", v.loc)
            own.append(self.place_local(v.name, v.dtype, v.count, v.align, init=v.init))
        saved = self.local_end - first
        own += [self.place_local(v.name, v.dtype, max(v.count, 1), v.align, "call") for v in func.call_params]
        for var in own:
            symbols.pop(var.name, None)          # a function's own name shadows a module variable
        for var in own:
            self.add_symbol(symbols, var, func.loc)
        return symbols, first, saved

    # ---- operands ----
    def const(self, bits: int, f32: float, f64: float) -> int:
        # keyed by the floats' bit patterns: -0.0 == 0.0 as Python floats, so a -0.0 literal must not
        # take the slot of an integer immediate of the same bits (0x8000000000000000 as +0.0:
        # x / -0.0 gave +inf; generated corpus k03015), nor a NaN another NaN's
        key = (bits, struct.pack("<d", f32), struct.pack("<d", f64))
        if key not in self.const_index:
            self.const_index[key] = len(self.consts)
            self.consts.append((bits, f32, f64))
        return self.const_index[key]

    def reg(self, op: Operand, want_file: int | None, what: str, dtype: str | None = None) -> tuple[int, int]:
        """The (file, index) of a register operand; `want_file` is the file of the type it is read or
        written at (`dtype`), which a wider register may stand in for where the instruction allows."""
        if op.kind != "reg":
            raise InputError(f"expected {what}, found {op.kind}", op.loc)
        if op.name not in self.regs:
            if E.sreg_code(op.name) is not None:
                raise InputError(f"special register {op.name} cannot be written", op.loc)
            raise InputError(f"undeclared register {op.name}", op.loc)
        f, idx = self.regs[op.name]
        if want_file is not None and f != want_file and not self.wider_register_ok(op, f, want_file, dtype):
            names = {FILE_R32: "a 32-bit (or narrower) register", FILE_R64: "a 64-bit register",
                     FILE_PRED: "a predicate register"}
            raise InputError(f"expected {names[want_file]} for {what}, but {op.name} is "
                             f".{self.kernel.regs[op.name]}", op.loc)
        return f, idx

    def wider_register_ok(self, op: Operand, f: int, want_file: int, dtype: str | None) -> bool:
        """PTX ISA "Operand size exceeding instruction-type size": ld, st and cvt (the table's
        `wide_operands`) take a 64-bit register for a narrower type; sources are truncated,
        destinations extended.  Float types need a bit-size register, integer types a non-float one."""
        if not (self.wide_operands and f == FILE_R64 and want_file == FILE_R32 and dtype):
            return False
        reg_type = self.kernel.regs[op.name]
        if dtype[0] == "f" and reg_type[0] != "b":
            raise InputError(f".{dtype} data in a wider register needs a bit-size (.b64) register, "
                             f"but {op.name} is .{reg_type}", op.loc)
        if dtype[0] in "us" and reg_type[0] == "f":
            raise InputError(f"a floating-point register cannot hold .{dtype} data of another size "
                             f"({op.name} is .{reg_type})", op.loc)
        return True

    def value(self, op: Operand, dtype: str, what: str) -> tuple[int, int, int]:
        """Encode a source operand read at type dtype -> (kind, index, imm)."""
        if op.kind == "reg":
            code = E.sreg_code(op.name)
            if code is not None:
                return E.K_SREG, code, 0
            f, idx = self.reg(op, _file_of(dtype) if dtype in TYPE_SIZES else None, what, dtype)
            return f, idx, 0
        if op.kind == "imm":
            v = int(op.value)
            if dtype == "any":
                dtype = "b64"
            if dtype in ("f32", "f64"):
                fv = float(v)
                bits, val = _float_bits(Operand("fimm", op.loc, text=repr(fv)), dtype)
                return E.K_IMM, self.const(bits, float(np.float32(val)), val), 0
            if dtype == "pred":
                v = 1 if v else 0
            bits = v & 0xFFFF_FFFF_FFFF_FFFF
            return E.K_IMM, self.const(bits, 0.0, 0.0), v
        if op.kind == "fimm":
            if dtype in HALF_TYPES:
                raise InputError(f"a .{dtype} operand takes a register or a 16-bit integer pattern "
                                 f"(like 0x3C00), not a floating-point literal", op.loc)
            if dtype not in ("f32", "f64"):
                prefix = op.text.lstrip("-")[:2].lower()
                if prefix in ("0f", "0d"):   # raw bit pattern in a .b op
                    # ptxas 13 takes a 0f pattern only where the operand is .b32 and a 0d pattern
                    # only where it is .b64 (mov, and/or/xor/not, selp, prmt, shl's value, st.b32 ...);
                    # an .s/.u operand (a shift amount, bfe's positions, add.s32) or a size that
                    # differs is its 'Arguments mismatch'
                    want = "b32" if prefix == "0f" else "b64"
                    if dtype != want:
                        kind_ = "32-bit (0f)" if prefix == "0f" else "64-bit (0d)"
                        raise InputError(f"{what}: the {kind_} floating-point bit pattern {op.text} "
                                         f"needs a .{want} (or .{'f32' if prefix == '0f' else 'f64'}) operand, "
                                         f"not .{dtype} (ptxas: 'Arguments mismatch')", op.loc)
                    bits, _ = _float_bits(op, "f32" if prefix == "0f" else "f64")
                    # the row's immediate field is an int64: a 0d pattern with its top bit set wraps
                    return E.K_IMM, self.const(bits, 0.0, 0.0), bits - (1 << 64) if bits >> 63 else bits
                raise InputError(f"a floating-point literal needs a float type, not .{dtype}", op.loc)
            bits, val = _float_bits(op, dtype)
            with np.errstate(over="ignore"):        # an f64 literal past the f32 range rounds to +-inf there
                narrow = float(np.float32(val))
            return E.K_IMM, self.const(bits, narrow, val), 0
        if op.kind == "sym":
            var = self.symbols.get(op.name)
            if var is None and op.name == "WARP_SZ":      # PTX's predefined constant (warpSize): 32
                return E.K_IMM, self.const(32, 0.0, 0.0), 32
            if var is None:
                raise InputError(f"unknown symbol {op.name!r}", op.loc)
            addr = var.offset if var.space != "global" else E.GLOBAL_BASE + var.offset
            return E.K_IMM, self.const(addr, 0.0, 0.0), addr
        if op.kind == "vec":
            return self.vector(op, dtype, destination=False)
        raise InputError(f"expected a value operand, found {op.kind}", op.loc)

    def vector(self, op: Operand, dtype: str, destination: bool) -> tuple[int, int, int]:
        """{a, b, ..} -> (K_VEC, vector-table row, element count).  `_` discards an element of a
        destination; a source element may be an immediate (`st.v2.u32 [a], {%r1, 0}`)."""
        limit = E.VEC_WIDTH if self.tensor_fragments else E.MAX_VEC_PLAIN
        if len(op.items) > limit:
            raise InputError(f"a vector has at most {limit} elements, found {len(op.items)}", op.loc)
        element = dtype if dtype in TYPE_SIZES else "b32"
        regs = []
        for item in op.items:
            if item.kind == "sym" and item.name == "_":
                if not destination:
                    raise InputError("'_' discards a destination element; a source vector needs a value",
                                     item.loc)
                regs.append(-1)
            elif item.kind in ("imm", "fimm") and not destination:
                _, index, _ = self.value(item, element, "a vector element")
                regs.append(index | E.VEC_IMM)
            else:
                f, idx = self.reg(item, None, "a vector element (a register" +
                                  (", '_'" if destination else " or an immediate") + ")")
                if f == FILE_PRED:
                    raise InputError(f"a predicate register cannot be a vector element: {item.name}", item.loc)
                regs.append(idx if f == FILE_R32 else idx | E.VEC_R64)
        self.vecs.append(regs + [-2] * (E.VEC_WIDTH - len(regs)))
        return E.K_VEC, len(self.vecs) - 1, len(regs)

    def address(self, op: Operand, space: str) -> tuple[int, int, int]:
        """[base+offset] -> (K_ADDR, base register or -1 with its file in bits 20+, offset)."""
        if op.kind != "addr":
            raise InputError("expected a memory operand [address]", op.loc)
        offset = int(op.value)
        base = op.base
        if base is None:
            return E.K_ADDR, -1, offset
        if base.kind == "reg":
            f, idx = self.reg(base, None, "an address register")
            if f == FILE_PRED:
                raise InputError("a predicate cannot be an address", base.loc)
            return E.K_ADDR, idx | ((E.ADDR_R64 if f == FILE_R64 else E.ADDR_R32) << E.ADDR_FILE_SHIFT), offset
        var = self.symbols.get(base.name)
        if var is None:
            raise InputError(f"unknown symbol {base.name!r}", base.loc)
        if space == "param" and var.kind in ("call", "arg"):
            self.local_param = True
        elif space not in ("generic", var.space) and not (space == "const" and var.space == "global"):
            raise InputError(f"{base.name!r} is a .{var.space} variable, not .{space}", base.loc)
        addr = var.offset if var.space != "global" else E.GLOBAL_BASE + var.offset
        if space == "generic" and var.space in ("shared", "local"):
            addr += E.SHARED_WINDOW if var.space == "shared" else E.LOCAL_WINDOW
        return E.K_ADDR, -1, addr + offset

    # ---- instructions ----
    def resolve_opcode(self, ins: Instruction) -> tuple[OpInfo | None, list[str]]:
        """The table entry of an instruction and its remaining suffixes: `bar.red` / `barrier.red`
        and `cp.async[.commit_group|...]` have table entries of their own."""
        suffixes = list(ins.suffixes)
        name = ins.opcode
        if name in ("bar", "barrier") and "red" in suffixes:
            suffixes.remove("red")
            name = "bar.red"
        elif name == "bar" and suffixes[:1] == ["warp"]:
            suffixes = suffixes[1:]
            name = "bar.warp"
        elif name == "wmma" and "wmma." + ".".join(suffixes[:2]) in TF.WMMA_OPS:
            name = "wmma." + ".".join(suffixes[:2])
            suffixes = suffixes[2:]
        elif name == "wmma" and suffixes[:1] == ["mma"]:
            name = "wmma.mma"
            suffixes = suffixes[1:]
        elif name == "cp" and suffixes[:1] == ["async"]:
            suffixes = suffixes[1:]
            grouped = any(s in ("commit_group", "wait_group", "wait_all") for s in suffixes)
            name = "cp.async.group" if grouped else "cp.async"
        return self.isa.by_name.get(name), suffixes

    def split_suffixes(self, ins: Instruction, info: OpInfo, suffixes: list[str]) -> tuple[list[str], list[str]]:
        types, mods = [], []
        for s in suffixes:
            if s in self.isa.all_types:
                types.append(s)
            elif s in info.modifiers:
                mods.append(s)
            else:
                allowed = ", ".join(sorted("." + m for m in info.modifiers)) or "none"
                raise InputError(f"unknown modifier .{s} for {ins.opcode} (allowed: {allowed})", ins.loc)
        types = TF.normalize_types(ins, info.name, types)
        if len(types) != info.type_count:
            if info.type_count == 0:
                raise InputError(f"{ins.opcode} takes no type suffix", ins.loc)
            raise InputError(f"{ins.opcode} needs {info.type_count} type suffix"
                             f"{'es' if info.type_count > 1 else ''} (one of "
                             f"{', '.join(sorted('.' + t for t in info.types))})", ins.loc)
        for t in types[:1] if info.name not in ("cvt", "mma", "wmma.mma", "vabsdiff4", "vabsdiff2") else types:
            if t not in info.types:
                raise InputError(f"{ins.opcode} does not take type .{t} (allowed: "
                                 f"{', '.join(sorted('.' + x for x in info.types))})", ins.loc)
        return types, mods

    def encode(self, ins: Instruction, labels: dict[str, int], in_function: bool = False) -> np.ndarray:
        info, suffixes = self.resolve_opcode(ins)
        self.current_loc = ins.loc
        if info is None:
            raise InputError(f"unknown opcode {ins.opcode!r}", ins.loc)
        types, mods = self.split_suffixes(ins, info, suffixes)
        if info.name == "bar.red" and (len(types) != 1 or not any(m in E.BARRED_CODE for m in mods)
                                       or (types[0] == "u32") != ("popc" in mods)):
            raise InputError("bar.red needs .popc.u32, .and.pred or .or.pred", ins.loc)
        row = np.zeros(E.ROW_FIELDS, dtype=np.int64)
        row[E.F_OP] = E.OP_BAR if info.name == "bar.red" else info.opcode   # bar.red: a bar row, F_CMP says which reduction
        t1 = types[0] if types else None
        t2 = types[1] if len(types) > 1 else None
        row[E.F_TYPE] = E.TYPE_CODE.get(t1, E.NO_TYPE) if t1 else E.NO_TYPE
        row[E.F_TYPE2] = E.TYPE_CODE.get(t2, E.NO_TYPE) if t2 else E.NO_TYPE
        row[E.F_GUARD] = -1
        row[E.F_DST2] = -1
        row[E.F_CTRL] = -1                 # PTX has no control codes
        row[E.F_RECONV] = -1
        row[E.F_TARGET] = -1
        row[E.F_TARGET2] = -1
        row[E.F_VEC] = 1
        space = "generic"
        flags = 0
        subops = E.SUBOP_CODE.get(info.name, {})
        for m in mods:
            if m in subops:
                row[E.F_CMP] = subops[m]
            elif m in E.BOOL_CODE and info.name == "setp":
                row[E.F_BOOL] = E.BOOL_CODE[m]
            elif m in E.RND_CODE:
                row[E.F_RND] = E.RND_CODE[m]
            elif m in E.SPACE_CODE:
                space = m
            elif info.name in TF.TENSOR_OPS:
                pass                            # shapes, layouts, counts: check_tensor_form
            elif m in ("v2", "v4"):
                row[E.F_VEC] = int(m[1])
            else:
                flags |= {"ftz": E.FL_FTZ, "sat": E.FL_SAT, "approx": E.FL_APPROX, "full": E.FL_FULL,
                          "hi": E.FL_HI, "wide": E.FL_WIDE, "uni": E.FL_UNI, "to": E.FL_TO,
                          "l": E.FL_SHF_L, "wrap": E.FL_SHF_WRAP, "cg": E.FL_L1_BYPASS,
                          "cv": E.FL_L1_BYPASS, "volatile": E.FL_L1_BYPASS,
                          "shiftamt": E.FL_SHIFTAMT, "relu": E.FL_RELU, "satfinite": E.FL_SATFINITE,
                          "NaN": E.FL_NAN, "arrive": E.FL_ARRIVE}.get(m, 0)
        check_half_forms(ins, info.name, types, mods, len(ins.operands))
        check_int_forms(ins, info.name, types, mods)
        if info.name in ("dp4a", "dp2a") and t2 == "s32":
            flags |= E.FL_B_SIGNED
        if info.name in ("vabsdiff4", "vabsdiff2"):     # F_TYPE2: .atype; .btype .s32: FL_B_SIGNED
            flags |= E.FL_B_SIGNED if types[2] == "s32" else 0
            row[E.F_CMP] = 1 if "add" in mods else 0
        if info.name == "redux" and ((row[E.F_CMP] in E.REDUX_BITWISE) != (t1 == "b32")):
            raise InputError("redux.sync takes .add/.min/.max with .u32/.s32 and .and/.or/.xor with .b32", ins.loc)
        if in_function:
            flags |= E.FL_IN_FUNC
        row[E.F_FLAGS] = flags
        if info.name in TF.TENSOR_OPS:
            TF.check_tensor_form(ins, info.name, types, mods, row)
        row[E.F_SPACE] = E.SPACE_CODE[space]
        row[E.F_UNIT] = E.UNIT_CODE[info.unit_for(t1)]
        row[E.F_PIPE] = E.NCU_PIPE_CODE[E.NCU_PIPE_OF_UNIT[info.unit_for(t1)]]
        if ins.guard is not None:
            row[E.F_GUARD] = self.reg(Operand("reg", ins.loc, name=ins.guard), FILE_PRED, "a guard")[1]
            row[E.F_GUARD_NEG] = int(ins.guard_negated)
        self.wide_operands = info.wide_operands
        self.local_param = False
        self.tensor_fragments = info.name in TF.TENSOR_OPS
        if info.name == "call":
            self.encode_call(ins, row)
        else:
            self.encode_operands(ins, info, row, t1, t2, space, labels)
        if info.name in CARRY_OPS or "cc" in mods:
            carry = self.regs[CARRY_REGISTER][1]
            if "cc" in mods:
                row[E.F_DST2] = carry
                row[E.F_FLAGS] |= E.FL_CC
            if info.name in CARRY_OPS:          # the carry in, an extra last operand
                n = int(row[E.F_NOPS])
                base = E.F_OPS + n * E.OPERAND_FIELDS
                row[base:base + E.OPERAND_FIELDS] = (E.K_PRED, carry, 0, E.TYPE_CODE["pred"])
                row[E.F_NOPS] = n + 1
        if space == "param" and (self.local_param or in_function):
            row[E.F_SPACE] = E.SP_LOCAL      # call parameters live in local memory (docs/ptx-subset.md)
        if info.name in TF.TENSOR_OPS:
            TF.check_fragments(ins, info.name, types, row, self.vecs)
        return row

    def operand_type(self, info: OpInfo, pos: int, kind: str, t1: str | None, t2: str | None, row) -> str | None:
        """Type at which operand `pos` is read or written."""
        name = info.name
        wide = row[E.F_FLAGS] & E.FL_WIDE
        if kind in ("p", "pd"):
            return "pred"
        if name in TF.TENSOR_OPS:            # fragments: 32-bit registers (DMMA: .f64); strides: u32
            if kind == "addr":
                return None
            if name.startswith("wmma.") and pos == 2:
                return "u32"
            return "f64" if t1 == "f64" else "b32"
        if name == "cvt":
            return t1 if pos == 0 else t2     # cvt.f16x2.f32 d, a, b: both sources .f32
        if name in ("mul", "mad") and wide and t1:
            double = {"u16": "u32", "s16": "s32", "u32": "u64", "s32": "s64"}.get(t1)
            if double is None:
                raise InputError(f"{name}.wide needs a 16- or 32-bit integer type", self.current_loc)
            return double if (pos == 0 or (name == "mad" and pos == 3)) else t1
        if name in ("shl", "shr") and pos == 2:
            return "u32"
        if name in ("bfe",) and pos >= 2:
            return "u32"
        if name in ("bfi",) and pos >= 3:
            return "u32"
        if name == "shfl" and pos >= 2:
            return "b32"
        if name == "vote":
            return "b32" if pos == 2 else ("pred" if pos == 1 else t1)
        if name in ("popc", "clz", "bfind") and pos == 0:
            return "u32"
        if name == "fns":
            return "s32" if pos == 3 else "b32"
        if name in ("dp4a", "dp2a"):
            if pos in (1, 2):
                return "b32"          # packed bytes / halves, extended by the helper
            return "s32" if "s32" in (t1, t2) else "u32"
        if name == "match":
            return t1 if pos == 1 else "b32"
        if name == "redux" and pos == 2:
            return "b32"
        if name == "bar.red":
            if pos == 0:
                return t1
            return "pred" if pos == row[E.F_NOPS] - 1 else "u32"
        if name in ("cp.async", "cp.async.group"):
            return None if kind == "addr" else "u32"
        if name == "set" and pos > 0:
            return t2
        if name == "slct" and pos == 3:
            return t2
        if name == "cvta":
            return t1
        if name in ("bar", "barrier", "bar.warp", "nanosleep", "mask_nz"):
            return "u32" if name != "mask_nz" else None
        if name == "isspacep":
            return "pred" if pos == 0 else "any"     # a 32- or 64-bit address, read as it is
        return t1

    def encode_operands(self, ins: Instruction, info: OpInfo, row, t1, t2, space, labels) -> None:
        ops = ins.operands
        specs = info.operands
        if len(ops) < info.min_operands or len(ops) > len(specs):
            lo, hi = info.min_operands, len(specs)
            want = f"{lo}" if lo == hi else f"{lo} to {hi}"
            raise InputError(f"{ins.opcode} takes {want} operand{'s' if hi != 1 else ''}, found {len(ops)}",
                             ins.loc)
        row[E.F_NOPS] = len(ops)
        for pos, (op, spec) in enumerate(zip(ops, specs)):
            dtype = self.operand_type(info, pos, spec.kind, t1, t2, row)
            if op.extra is not None:
                if not spec.pair:
                    raise InputError(f"{ins.opcode} has no second destination '|'", op.extra.loc)
                row[E.F_DST2] = self.reg(op.extra, FILE_PRED, "the '|' predicate destination")[1]
            if spec.kind == "label":
                if op.kind != "sym":
                    raise InputError("expected a label", op.loc)
                if op.name not in labels:
                    raise InputError(f"undefined label {op.name!r}", op.loc)
                earlier_labels = sum(1 for s in specs[:pos] if s.kind == "label")
                field_ = E.F_TARGET if earlier_labels == 0 else E.F_TARGET2
                row[field_] = labels[op.name]
                kind, idx, imm = E.K_NONE, labels[op.name], 0
            elif spec.kind == "addr":
                # cp.async: [shared destination], [global source]
                kind, idx, imm = self.address(op, "shared" if info.name == "cp.async" and pos == 0 else space)
            elif spec.kind in ("d", "pd"):
                if op.kind == "vec":
                    kind, idx, imm = self.vector(op, dtype or "b32", destination=True)
                else:
                    want = _file_of(dtype) if dtype in TYPE_SIZES else None
                    kind, idx = self.reg(op, want, "the destination", dtype)
                    imm = 0
            else:
                if op.negate and dtype != "pred":
                    raise InputError("'!' is only allowed on predicate operands", op.loc)
                kind, idx, imm = self.value(op, dtype or "b32", f"operand {pos + 1}")
                if op.negate:
                    imm = 1   # negated predicate source
            base = E.F_OPS + pos * E.OPERAND_FIELDS
            row[base], row[base + 1], row[base + 2] = kind, idx, imm
            row[base + 3] = E.TYPE_CODE.get(dtype, E.NO_TYPE) if dtype else E.NO_TYPE

    def collect(self, body: Body, is_function: bool) -> None:
        """The body's instructions and labels; a body that may fall off its end gets an implicit
        exit (a kernel) or ret (a .func), so that no body runs into the next one."""
        for item in body.syntax.body:
            if isinstance(item, Label):
                if item.name in body.labels:
                    raise InputError(f"label {item.name!r} defined twice", item.loc)
                body.labels[item.name] = len(body.instrs)
            else:
                body.instrs.append(item)
        instrs = body.instrs
        end = instrs[-1].loc if instrs else body.syntax.loc
        if is_function:
            if not instrs or instrs[-1].guard is not None or instrs[-1].opcode not in ("ret", "exit", "bra", "trap"):
                instrs.append(Instruction("ret", [], [], end, text="ret;"))
        elif not instrs or instrs[-1].opcode not in ("ret", "exit", "bra", "trap", "pop_mask"):
            # PTX kernels may fall off the end; an implicit exit keeps the engine simple.
            instrs.append(Instruction("exit", [], [], end, text="exit;"))
        for name, pc in body.labels.items():
            body.labels[name] = body.pc_base + min(pc, len(instrs) - 1)

    def link_functions(self, kernel_body: Body) -> list[Body]:
        """Every .func the kernel reaches, each with its own registers and local storage."""
        funcs = reachable_functions(self.module, self.kernel)
        self.graph = call_graph([self.kernel] + funcs)
        bodies = []
        for func in funcs:
            regs, window = self.allocate_registers(func)
            symbols, first, saved = self.layout_function(func)
            bodies.append(Body(func, regs, symbols, window + (first, saved)))
        return bodies

    def assemble(self) -> Program:
        kregs, _ = self.allocate_registers(self.kernel)
        (params, param_size, shared, shared_size, dynamic,
         globals_, global_size) = self.layout_variables()
        kernel_body = Body(self.kernel, kregs, self.symbols)
        bodies = [kernel_body] + self.link_functions(kernel_body)
        pc = 0
        for k, body in enumerate(bodies):
            body.pc_base = pc
            self.collect(body, k > 0)
            pc += len(body.instrs)
            self.bodies[body.syntax.name] = body
        rows = []
        for body in bodies:
            self.kernel, self.regs, self.symbols = body.syntax, body.regs, body.symbols
            starts = {pc - body.pc_base for pc in body.labels.values()}
            later_b = b_written_last(body.instrs, starts)
            folds = sign_folds(body.instrs, starts)
            literals = f64_literals(body.instrs)
            for k, ins in enumerate(body.instrs):
                if k in folds:
                    ins = replace(ins, operands=[ins.operands[0], folds[k][0]])
                ins = negated_literal_sub(ins, literals)
                row = self.encode(ins, body.labels, in_function=body is not kernel_body)
                if k in later_b:
                    row[E.F_FLAGS] |= E.FL_NAN_B_FIRST
                if k in folds:
                    row[E.F_FLAGS] |= folds[k][1]
                rows.append(row)
        self.kernel = kernel_body.syntax
        code = np.array(rows, dtype=np.int64).reshape(len(rows), E.ROW_FIELDS)
        self.add_reconvergence(code)
        consts = self.consts or [(0, 0.0, 0.0)]
        vecs = self.vecs or [[-2] * E.VEC_WIDTH]
        declared = self.counts[FILE_R32] + 2 * self.counts[FILE_R64]
        instrs = [i for b in bodies for i in b.instrs]
        labels = dict(kernel_body.labels)
        for body in bodies[1:]:
            labels[body.syntax.name] = body.pc_base
            for name, at in body.labels.items():
                labels[name if name not in labels else f"{body.syntax.name}:{name}"] = at
        calls = np.array(self.calls, np.int64).reshape(-1, len(E.CALL_FIELDS))
        return Program(
            name=self.kernel.name, file=self.module.file, code=code,
            const_u64=np.array([c[0] for c in consts], dtype=np.uint64),
            const_f32=np.array([c[1] for c in consts], dtype=np.float32),
            const_f64=np.array([c[2] for c in consts], dtype=np.float64),
            vec_regs=np.array(vecs, dtype=np.int64),
            n_r32=max(self.counts[FILE_R32], 1), n_r64=max(self.counts[FILE_R64], 1),
            n_pred=max(self.counts[FILE_PRED], 1), reg_names=self.reg_names,
            params=params, param_size=param_size, shared=shared, shared_size=shared_size,
            dynamic_shared=dynamic, local_size=_align(self.local_end, 8), globals=globals_,
            global_size=global_size, labels=labels, locs=[i.loc for i in instrs],
            texts=[format_instruction(i) for i in instrs], declared_regs=declared,
            directives=dict(self.kernel.directives), calls=calls,
            call_levels=nesting_levels(self.graph, self.kernel.name) if self.graph else 0,
            frame_bytes=max((int(r[E.CA_FRAME_BYTES]) for r in self.calls if r[E.CA_SAVE] == 1), default=0),
            functions={b.syntax.name: b.pc_base for b in bodies[1:]})

    # ---- calls ----
    def encode_call(self, ins: Instruction, row) -> None:
        """`call (r..), f, (a..)`: F_TARGET = f's entry, operand 0 = its call-table rows: the
        descriptor (f's window, whether to save it), then a copy per argument and per return value."""
        rets, fname, args = ins.operands
        callee = self.bodies[fname.name]
        func = callee.syntax
        for what, given, wanted in (("arguments", args, func.params), ("return values", rets, func.returns)):
            if len(given.items) != len(wanted):
                raise InputError(f"call of {func.name}: {len(given.items)} {what} given, the function takes "
                                 f"{len(wanted)}", fname.loc)
        save = int(reaches(self.graph, func.name, self.kernel.name))   # the callee may be active already
        window = list(callee.window)
        n32, n64, npred, nlocal = window[1], window[3], window[5], window[7]
        frame = _align(4 * n32 + 8 * n64 + npred + nlocal, 8)
        first = len(self.calls)
        self.calls.append([save] + window + [len(args.items), len(rets.items), frame, 0])
        for item, p in zip(args.items, func.params):
            src = self.call_variable(item, "argument")
            dst = callee.symbols[p.name]
            self.calls.append(self.copy_row(src.offset, dst.offset, min(src.size, dst.size)))
        for item, p in zip(rets.items, func.returns):
            dst = self.call_variable(item, "return value")
            src = callee.symbols[p.name]
            self.calls.append(self.copy_row(src.offset, dst.offset, min(src.size, dst.size)))
        row[E.F_TARGET] = callee.pc_base
        row[E.F_NOPS] = 1
        row[E.F_OPS], row[E.F_OPS + 1], row[E.F_OPS + 2], row[E.F_OPS + 3] = E.K_CALL, first, 0, E.NO_TYPE

    @staticmethod
    def copy_row(src: int, dst: int, size: int) -> list[int]:
        out = [0] * len(E.CALL_FIELDS)
        out[E.CP_SRC], out[E.CP_DST], out[E.CP_BYTES] = src, dst, size
        return out

    def call_variable(self, op: Operand, what: str) -> Variable:
        """A call's argument or return value: a .param variable of the calling body."""
        var = self.symbols.get(op.name) if op.kind == "sym" else None
        if var is None or var.kind not in ("call", "arg"):
            raise InputError(f"a call's {what} must be a .param variable declared in the calling body "
                             f"(found {format_operand(op)})", op.loc)
        return var

    def add_reconvergence(self, code: np.ndarray) -> None:
        n = len(code)

        def successors(pc: int):
            row = code[pc]
            op = row[E.F_OP]
            guarded = row[E.F_GUARD] >= 0
            if op == E.OP_BRA:
                return [int(row[E.F_TARGET])], guarded, False
            if op in (E.OP_RET, E.OP_EXIT, E.OP_TRAP):
                # A guarded exit only removes lanes; the rest fall through, so for post-dominance
                # it is an ordinary instruction (branches around it still reconverge below it).
                return [], guarded, not guarded
            if op == E.OP_BR_PUSH:
                return [int(row[E.F_TARGET]), int(row[E.F_TARGET2])], True, False
            if op == E.OP_POP_MASK:
                return [], False, True       # target comes from the stack at run time
            if op == E.OP_MASK_NZ:
                return [], True, True
            return [], True, False

        cfg = build_cfg(n, successors)
        branches = [pc for pc in range(n) if code[pc, E.F_OP] in (E.OP_BRA, E.OP_RET, E.OP_EXIT)
                    and code[pc, E.F_GUARD] >= 0]
        for pc, r in reconvergence_pcs(cfg, branches).items():
            code[pc, E.F_RECONV] = r


def format_operand(op: Operand) -> str:
    if op.kind == "reg":
        s = ("!" if op.negate else "") + op.name
        return s + ("|" + op.extra.name if op.extra else "")
    if op.kind == "imm":
        return str(op.value)
    if op.kind == "fimm":
        return op.text
    if op.kind == "sym":
        return op.name
    if op.kind == "vec":
        return "{" + ", ".join(format_operand(i) for i in op.items) + "}"
    if op.kind == "addr":
        base = format_operand(op.base) if op.base else ""
        off = int(op.value)
        if not base:
            return f"[{off}]"
        return f"[{base}{'+' if off >= 0 else '-'}{abs(off)}]" if off else f"[{base}]"
    return "?"


def format_call(ins: Instruction) -> str:
    rets, fname, args = ins.operands
    parts = ([f"({', '.join(format_operand(o) for o in rets.items)})"] if rets.items else []) + [fname.name]
    if args.items:
        parts.append(f"({', '.join(format_operand(o) for o in args.items)})")
    return ", ".join(parts)


def format_instruction(ins: Instruction) -> str:
    guard = f"@{'!' if ins.guard_negated else ''}{ins.guard} " if ins.guard else ""
    name = ".".join([ins.opcode] + ins.suffixes)
    if ins.opcode == "call" and len(ins.operands) == 3:
        return f"{guard}{name} {format_call(ins)};"
    ops = ", ".join(format_operand(o) for o in ins.operands)
    return f"{guard}{name}{' ' + ops if ops else ''};"


def assemble(module: Module, kernel: str | None = None) -> Program:
    if not module.kernels:
        raise InputError("no .entry kernel in the program", SourceLoc(module.file, 1, 1))
    if kernel is None:
        if len(module.kernels) > 1:
            raise InputError(f"several kernels ({', '.join(module.kernels)}): choose one with --kernel",
                             SourceLoc(module.file, 1, 1))
        kernel = next(iter(module.kernels))
    if kernel not in module.kernels:
        raise InputError(f"no kernel named {kernel!r} (have: {', '.join(module.kernels)})",
                         SourceLoc(module.file, 1, 1))
    chosen = module.kernels[kernel]
    if chosen.error is not None:       # the module's other kernels load; this one cannot
        raise InputError(f"kernel {kernel}: {chosen.error.message}", chosen.error.loc)
    module = contract_module(module)   # ptxas's mul+add contraction (frontend/ptx_contract.py)
    return Assembler(module, module.kernels[kernel]).assemble()


def load_program(path: str, kernel: str | None = None) -> Program:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise InputError(f"cannot read {path}: not UTF-8 text (byte {e.start})") from None
    return assemble(parse_ptx(text, path), kernel)


def assemble_text(text: str, kernel: str | None = None, file: str = "<string>") -> Program:
    return assemble(parse_ptx(text, file), kernel)
