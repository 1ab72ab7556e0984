"""The row builder of SASS lowering: operands of nvdisasm's listing -> the engine's row fields.

RowBuilder turns one instruction's operand texts (registers, predicates, immediates, constant-bank
operands, relocations) into row fields; with it the tables the lowerings share (special registers,
comparison and rounding codes, half selectors).  frontend/sass_lower.py (memory, control and
generic families) and sass_lower_more.py (half, warp, tensor-core and async-copy families) both
build their rows with it, so neither imports the other's internals.
"""
from __future__ import annotations

import re
import struct

import numpy as np

from simt_sim.errors import InputError, SourceLoc
from simt_sim.frontend.sass import ControlCodes, SassInstruction, SassKernel
from simt_sim.frontend.sass_banks import ConstantBanks
from simt_sim.frontend.sass_modifiers import flags_of, pick, picks
from simt_sim.isa import encoding as E
from simt_sim.isa.sass_table import sass_table

NCU_PIPE_OF_SASS = {"fmaheavy": "fma", "fmalite": "fma"}       # Nsight Compute's fma pipe holds both
PIPE_UNIT = {"fma": "fp32", "fmaheavy": "fp32", "fmalite": "fp32", "alu": "int", "fp64": "fp64", "xu": "sfu",
             "lsu": "ldst", "adu": "control", "cbu": "control", "tensor": "tensor", "uniform": "int"}
SREG = {"SR_TID.X": "%tid.x", "SR_TID.Y": "%tid.y", "SR_TID.Z": "%tid.z", "SR_CTAID.X": "%ctaid.x",
        "SR_CTAID.Y": "%ctaid.y", "SR_CTAID.Z": "%ctaid.z", "SR_LANEID": "%laneid", "SR_CLOCKLO": "%clock64",
        "SR_CLOCKHI": "%clock64", "SR_GLOBALTIMERLO": "%globaltimer", "SR_GLOBALTIMERHI": "%globaltimer",
        "SR_LANEMASK_EQ": "%lanemask_eq", "SR_EQMASK": "%lanemask_eq", "SR_LTMASK": "%lanemask_lt",
        "SR_LEMASK": "%lanemask_le", "SR_GTMASK": "%lanemask_gt", "SR_GEMASK": "%lanemask_ge",
        "SR_LANEMASK_LT": "%lanemask_lt", "SR_LANEMASK_LE": "%lanemask_le", "SR_LANEMASK_GT": "%lanemask_gt",
        "SR_LANEMASK_GE": "%lanemask_ge", "SR_VIRTID": "%warpid", "SR_SMID": "%smid", "SR_VIRTUALSMID": "%smid"}
# How a special register's SASS word sits in the PTX value (the K_SREG operand's immediate):
# the upper word of a 64-bit counter, or SR_VIRTID's warp slot in bits 8-14 (ptxas reads %warpid
# as SHF.R.U32.HI 0x8 and SGXT.U32 0x7 of it).
SREG_WORD = {"SR_CLOCKHI": E.SREG_HIGH_WORD, "SR_GLOBALTIMERHI": E.SREG_HIGH_WORD, "SR_VIRTID": E.SREG_VIRTID}
# Special registers that are constants here: the block's rank in its cluster (launches are not
# clustered) and the upper word of the shared window in the generic address space.
# SR_LMEMHIOFF: the lowest address the thread's stack may reach; -G code compares R1 with it in
# every function's prologue (ISETP.GE.U32 P0, PT, R1, R0 ... BPT.TRAP otherwise).  The stack here
# may use the thread's whole local memory, down to 0 (a deeper stack faults on its first access).
SREG_CONSTANT = {"SR_CgaCtaId": 0, "SR_SWINHI": E.SHARED_WINDOW >> 32, "SRZ": 0, "SR_LMEMHIOFF": 0}
# sm_90 reserves the first 1 KiB of a block's shared memory: ptxas addresses shared variables from
# 0x400 (UMOV UR4, 0x400; ULEA UR4, SR_CgaCtaId, UR4, 0x18), so a SASS kernel's shared space is larger
SHARED_RESERVED = 0x400
INT_CMP = {"EQ": "eq", "NE": "ne", "LT": "lt", "LE": "le", "GT": "gt", "GE": "ge"}
FLOAT_CMP = {"EQ": "eq", "NE": "ne", "LT": "lt", "LE": "le", "GT": "gt", "GE": "ge", "EQU": "equ",
             "NEU": "neu", "LTU": "ltu", "LEU": "leu", "GTU": "gtu", "GEU": "geu", "NUM": "num", "NAN": "nan",
             "T": "t", "F": "f"}
MEM_TYPES = {"U8": "u8", "S8": "s8", "U16": "u16", "S16": "s16", "64": "b32", "128": "b32"}
ATOM_OPS = {"ADD": "add", "MIN": "min", "MAX": "max", "EXCH": "exch", "CAS": "cas", "INC": "inc", "DEC": "dec",
            "AND": "and", "OR": "or", "XOR": "xor"}
ROUNDING = {"RN": E.RND_RN, "RZ": E.RND_RZ, "RM": E.RND_RM, "RP": E.RND_RP, "TRUNC": E.RND_RZ,
            "FLOOR": E.RND_RM, "CEIL": E.RND_RP}

# Source selectors of a 32-bit register (the half or byte an instruction reads); .H0 / .B0 name the
# low part, which is what a plain register gives, so they add no flag.  SELECTOR_USERS: the
# families whose semantics read them (any other family with one is refused).
SELECTORS = ((".H0_H0", E.OM_H0_H0), (".H1_H1", E.OM_H1_H1), (".H0_NH1", E.OM_H0_NH1), (".H1", E.OM_H1),
             (".H0", 0), (".B0", 0), (".B1", E.OM_B1), (".B2", E.OM_B2), (".B3", E.OM_B3))
SELECTOR_BITS = E.OM_H0_H0 | E.OM_H1_H1 | E.OM_H0_NH1 | E.OM_H1 | E.OM_B1 | E.OM_B2 | E.OM_B3
HALF_PAIR_FAMILIES = ("HFMA2", "HADD2", "HMUL2", "HMNMX2", "HSETP2", "HSET2", "VHMNMX")
# .H0_NH1 (the swapped pair with the new low half negated, ptxas's fold of a - b into an HFMA2 of
# packed operands) on the arithmetic families, whose semantics read it (sass_half.src_pair)
SELECTOR_USERS = {**{f: E.OM_H0_H0 | E.OM_H1_H1 | (E.OM_H0_NH1 if f in ("HFMA2", "HADD2", "HMUL2") else 0)
                     for f in HALF_PAIR_FAMILIES},
                  "I2F": E.OM_H1 | E.OM_B1 | E.OM_B2 | E.OM_B3, "I2FP": E.OM_H1 | E.OM_B1 | E.OM_B2 | E.OM_B3,
                  "I2I": E.OM_H1 | E.OM_B1 | E.OM_B2 | E.OM_B3, "F2F": E.OM_H1, "F2I": E.OM_H1}
_REG_RE = re.compile(r"^(U?)R(\d+|Z)$")
_PRED_RE = re.compile(r"^(U?)P(\d|T)$")
_CONST_RE = re.compile(r"^c\[(0x[0-9a-f]+)\]\[(.+)\]$")
_FLOAT_RE = re.compile(r"^[+-]?(\d+\.?\d*(e[+-]?\d+)?|INF|QNAN|NAN)$", re.I)
# a code address ptxas leaves to the linker: `32@lo((k10400 + 0x3b0))` / `32@hi(...)`, the low / high
# 32 bits of SYM's address plus OFF bytes (the return address of a -G CALL.ABS)
_RELOC_RE = re.compile(r"^32@(lo|hi)\(\(?\s*([\w$.]+)\s*(?:\+\s*(0x[0-9a-f]+)\s*)?\)?\)$", re.I)


class SassLoweringError(InputError):
    pass


class RowBuilder:
    """The immediates, vectors and rows of one kernel under construction."""

    def __init__(self, kernel: SassKernel, where: str):
        self.kernel, self.where = kernel, where
        self.u64: list[int] = []
        self.vecs: list[list[int]] = []
        self.rows: list[np.ndarray] = []
        self.inst: SassInstruction | None = None
        self.banks = ConstantBanks()            # banks other than 0 (sass_banks.py)
        self.highest_r = -1                     # the highest R register the text names
        self.selectors = 0                      # the source selectors the instruction's operands carry

    # ---- errors ----
    def error(self, message: str) -> SassLoweringError:
        pc = self.inst.pc if self.inst else 0
        text = self.inst.text() if self.inst else ""
        return SassLoweringError(f"SASS {text!r} at pc {pc:#06x}: {message}",
                                 SourceLoc(self.where, (pc // E.SASS_INSTRUCTION_BYTES) + 1, 1))

    # ---- operands ----
    def imm(self, bits: int) -> tuple[int, int, int, int]:
        self.u64.append(bits & 0xFFFF_FFFF_FFFF_FFFF)
        return E.K_IMM, len(self.u64) - 1, 0, 0

    def vec(self, regs: list[int]) -> tuple[int, int, int, int]:
        self.vecs.append(regs + [-2] * (E.VEC_WIDTH - len(regs)))
        return E.K_VEC, len(self.vecs) - 1, len(regs), E.TYPE_CODE["b32"]

    def register(self, text: str, dest: bool = False) -> tuple[int, int] | None:
        """(kind, index) of R/UR text, None for RZ/URZ."""
        m = _REG_RE.match(text)
        if not m:
            return None
        if m.group(2) == "Z":
            return (E.K_NONE if dest else E.K_IMM), -1
        n = int(m.group(2))
        if m.group(1):
            if n > 62:             # sm_90: UR0-UR62 and URZ; a higher one would alias an R row
                raise self.error(f"uniform register UR{n} does not exist (UR0-UR62, URZ)")
            return E.K_R32, E.SASS_UR_BASE + n
        if n > 254:
            raise self.error(f"register R{n} does not exist (R0-R254, RZ)")
        self.highest_r = max(self.highest_r, n)
        return E.K_R32, E.SASS_R_BASE + n

    def operand(self, text: str, number: str = "int", dest: bool = False) -> tuple[int, int, int, int]:
        """A SASS operand -> (kind, index, immediate, modifiers).  `number`: how a decimal
        immediate is read (int, f32, f64, f16x2)."""
        mods = 0
        t = text.replace(".reuse", "")
        if t in SREG or t == "SRZ" or t.startswith("SR_"):
            return self.special(t, mods)
        for suffix, flag in SELECTORS:          # |R2|.H0_H0: the selector outside the bars
            if t.endswith(suffix) and t[: -len(suffix)].endswith("|"):
                t, mods = t[: -len(suffix)], mods | flag
                break
        while t[:1] in "-~!|" and t:
            if t[0] == "|":
                if not t.endswith("|"):
                    raise self.error(f"unbalanced |...| in operand {text!r}")
                mods |= E.OM_ABS
                t = t[1:-1]
            else:
                mods |= {"-": E.OM_NEG, "~": E.OM_NOT, "!": E.OM_NOT}[t[0]]
                t = t[1:]
        if t[:1] == "-" and mods & E.OM_ABS:        # -|R2|
            mods |= E.OM_NEG
            t = t[1:]
        for suffix, flag in SELECTORS + ((".64", -1),):
            if t.endswith(suffix):
                t = t[: -len(suffix)]
                if flag == -1:
                    reg = self.register(t, dest)
                    if reg is None or reg[0] != E.K_R32:
                        raise self.error(f"operand {text!r}: .64 of something other than a register")
                    return E.K_RPAIR, reg[1], 0, mods
                mods |= flag
                break
        self.selectors |= mods & SELECTOR_BITS
        reg = self.register(t, dest)
        if reg is not None:
            kind, idx = reg
            if kind == E.K_IMM:
                k, i, _, _ = self.imm(0)
                return k, i, 0, mods
            return kind, idx, 0, mods
        m = _PRED_RE.match(t)
        if m:
            if m.group(2) == "T":
                if dest:
                    return E.K_NONE, -1, 0, 0
                k, i, _, _ = self.imm(0 if mods & E.OM_NOT else 1)
                return k, i, 0, 0
            base = E.SASS_UP_BASE if m.group(1) else 0
            return E.K_PRED, base + int(m.group(2)), 1 if mods & E.OM_NOT else 0, mods
        m = _CONST_RE.match(t)
        if m:
            return self.constant(int(m.group(1), 16), m.group(2), mods)
        if t in SREG or t == "SRZ" or t.startswith("SR_"):
            return self.special(t, mods)
        if t.startswith("0x"):
            value = int(t, 16)
            if mods & E.OM_NEG and number == "int":
                # an integer literal, not a negation: IADD3.X R23, R5, -0x1, RZ, P0 adds
                # 0xFFFFFFFF and the carry (a negated register there adds ~R, the carry the 1)
                value, mods = -value, mods & ~E.OM_NEG
            k, i, _, _ = self.imm(value)
            return k, i, 0, mods
        if _FLOAT_RE.match(t):
            if t.upper().lstrip("+") in ("QNAN", "NAN") and number in ("f32", "f64", "f64hi") and self.inst is not None:
                # nvdisasm prints every NaN-valued 32-bit immediate as [+-]QNAN, payload lost: the bits
                # are the encoding's immediate field (bits 32-63 of the low word, its sign included),
                # e.g. FSEL R5, R0, -QNAN is 0xfff00000, the upper word of -inf (fmin(-inf, x) folded);
                # an f64 instruction's 32-bit immediate is its upper word
                bits = (self.inst.encoding[0] >> 32) & 0xFFFF_FFFF
                negative = t.startswith("-") or bool(mods & E.OM_NEG)      # the sign as printed
                if (bits & 0x7F80_0000) != 0x7F80_0000 or not bits & 0x007F_FFFF or bool(bits >> 31) != negative:
                    raise self.error(f"operand {text!r}: the encoding's immediate field {bits:#010x} is not a "
                                     f"{'negative' if negative else 'positive'} NaN")
                k, i, _, _ = self.imm(bits << 32 if number == "f64" else bits)
                return k, i, 0, mods & ~E.OM_NEG
            k, i, _, _ = self.imm(self.float_bits(t, number))
            return k, i, 0, mods
        m = _RELOC_RE.match(t)
        if m and not mods:
            return self.imm(self.code_address(m.group(2), int(m.group(3) or "0", 16), m.group(1).lower()))
        raise self.error(f"operand {text!r} is not supported")

    def code_address(self, symbol: str, offset: int, part: str) -> int:
        """`32@lo((SYM + OFF))` / `32@hi(...)`: SYM is the kernel (its code starts at offset 0 of the
        simulator's code space) or a device function linked after it (sass.link_functions: the
        label SYM names its base); OFF is a byte offset into SYM's own section, so the address is
        base + OFF, the byte offset RET / CALL through a register jumps to; its high word is 0."""
        if symbol.lower().startswith("0x"):
            # nvdisasm -json prints the unrelocated value of a data symbol's address here
            # (`32@lo(__cudart_i2opi_f)` in the -c listing: -G sinf's table in global memory); the
            # cubin's relocation at this instruction names the variable, whose simulated address it is
            address = self.data_address(int(symbol, 16) + offset)
            return address & 0xFFFF_FFFF if part == "lo" else (address >> 32) & 0xFFFF_FFFF
        base = 0 if symbol == self.kernel.name else self.kernel.label_pc(symbol)
        if base is None:
            raise self.error(f"code address of {symbol!r}, which is neither the kernel nor a function it calls")
        address = base + offset
        return address & 0xFFFF_FFFF if part == "lo" else address >> 32

    def data_address(self, printed: int) -> int:
        """The address of the module variable a relocation at this instruction names (its code
        section: the kernel's or a linked device function's, `.text.NAME`)."""
        pc = self.inst.pc
        function = self.kernel.function_at(pc)
        name = function.split("$")[-1] if function != self.kernel.name else function
        base = 0 if function == self.kernel.name else self.kernel.label_pc(function)
        found = self.banks.text_data.get((f".text.{name}", pc - (base or 0)))
        if found is None or printed != found[2]:      # nvdisasm prints the symbol's section offset + addend
            raise self.error("the address of a variable written as a relocation (32@lo / 32@hi of a data "
                             "symbol) without a relocation of the cubin naming a module variable at this "
                             "instruction is not simulated")
        return found[1]

    def float_bits(self, t: str, number: str) -> int:
        u = t.upper().lstrip("+")
        neg = u.startswith("-")
        u = u.lstrip("-")
        if number == "int":
            if not u.isdigit():
                raise self.error(f"integer immediate expected, found {t!r}")
            return -int(u) if neg else int(u)
        value = {"INF": float("inf"), "QNAN": float("nan"), "NAN": float("nan")}.get(u)
        value = float(u) if value is None else value
        value = -value if neg else value
        if number == "f64":
            return struct.unpack("<Q", struct.pack("<d", value))[0]
        if number == "f64hi":
            return struct.unpack("<Q", struct.pack("<d", value))[0] >> 32
        if number == "f16":
            return int(np.float16(value).view(np.uint16))
        try:
            bits = struct.unpack("<I", struct.pack("<f", value))[0]
        except OverflowError:
            raise self.error(f"immediate {t} does not fit a float32") from None
        if number == "bf16":                   # a printed bf16 is exact in float32's upper half
            return (bits >> 16) & 0xFFFF
        return 0x7FFFFFFF if u in ("QNAN", "NAN") else bits

    def constant(self, bank: int, inner: str, mods: int) -> tuple[int, int, int, int]:
        """c[bank][offset] (a plain offset; an indexed form is LDC's business)."""
        if not inner.startswith("0x"):
            raise self.error(f"indexed constant c[{bank:#x}][{inner}] outside LDC")
        bank, offset = self.bank_word(bank, int(inner, 16))
        return E.K_CONST, bank, offset, mods

    def bank_word(self, bank: int, offset: int) -> tuple[int, int]:
        """c[bank][offset] -> the (bank, offset) the engine reads: bank 0 as it is, the module's
        other banks (3: __constant__ data, 4: addresses of module globals) at their copy in the
        parameter block (sass_banks.py)."""
        if bank == 0:
            moved = self.banks.bank0_offset(0, offset)
            return 0, offset if moved is None else moved
        moved = self.banks.bank0_offset(bank, offset)
        if moved is None:
            raise self.error(f"constant bank {bank} (c[{bank:#x}][{offset:#x}]) is not laid out: the cubin "
                             f"has no .nv.constant{bank} section")
        if offset >= self.banks.sizes[bank]:
            raise self.error(f"c[{bank:#x}][{offset:#x}] lies past the end of constant bank {bank} "
                             f"({self.banks.sizes[bank]} bytes)")
        return 0, moved

    def special(self, name: str, mods: int) -> tuple[int, int, int, int]:
        if name in SREG_CONSTANT:
            k, i, _, _ = self.imm(SREG_CONSTANT[name])
            return k, i, 0, mods
        if name not in SREG:
            raise self.error(f"special register {name} is not supported")
        code = E.sreg_code(SREG[name])
        return E.K_SREG, code, SREG_WORD.get(name, 0), mods

    def address(self, text: str) -> tuple[int, int, int, int]:
        """[R2.64+0x10], desc[UR4][R2.64], [R5+0x100], [UR4+0x8], [0x40] -> K_ADDR."""
        t = text.replace(".reuse", "")
        if t.startswith("desc["):
            t = t[t.index("]") + 1:]
        if not (t.startswith("[") and t.endswith("]")):
            raise self.error(f"address {text!r} is not supported")
        base, second, offset = -1, 0, 0
        for part in t[1:-1].replace("+-", "-").replace("-0x", "+-0x").split("+"):
            part = part.strip()
            if not part:
                continue
            if part.startswith("0x") or part.startswith("-0x"):
                offset += int(part, 16)
                continue
            pair = part.endswith(".64")
            reg = self.register(part[:-3] if pair else part)
            if reg is None:
                raise self.error(f"address {text!r}: {part!r} is not a register or an offset")
            if reg[0] == E.K_IMM:
                continue
            if reg[1] < E.SASS_R_BASE and not pair and second == 0:
                second = reg[1] + 1                  # the uniform register of [R4+UR4]
            elif base < 0:
                base = reg[1] | ((E.ADDR_RPAIR if pair else E.ADDR_R32) << E.ADDR_FILE_SHIFT)
            else:
                raise self.error(f"address {text!r}: more registers than a base and a uniform register")
        if second:
            base = (max(base, 0) if base >= 0 else 0) | (second << E.ADDR_SECOND_SHIFT)
        return E.K_ADDR, base, offset, 0

    def target(self, text: str) -> int:
        t = text.strip("`() ")
        try:
            return int(t, 16) // E.SASS_INSTRUCTION_BYTES
        except ValueError:
            raise self.error(f"branch target {text!r} is not an address") from None

    # ---- rows ----
    def row(self, op: int, operands: list[tuple[int, int, int, int]], ndst: int = 0, **fields) -> np.ndarray:
        if len(operands) > E.MAX_OPERANDS:
            raise self.error(f"{len(operands)} operands (at most {E.MAX_OPERANDS})")
        inst = self.inst
        row = np.zeros(E.ROW_FIELDS, np.int64)
        row[[E.F_TYPE, E.F_TYPE2, E.F_GUARD, E.F_TARGET, E.F_TARGET2, E.F_RECONV, E.F_DST2]] = -1
        row[E.F_OP] = op
        row[E.F_NOPS] = len(operands)
        row[E.F_NDST] = ndst
        row[E.F_CTRL] = ControlCodes.raw(inst.encoding[1])
        pipe = sass_table().family(inst.opcode).pipe_of(inst.modifiers, inst.operands)
        row[E.F_UNIT] = E.UNIT_CODE[PIPE_UNIT[pipe]]
        row[E.F_PIPE] = E.NCU_PIPE_CODE[NCU_PIPE_OF_SASS.get(pipe, pipe)]
        guard = inst.predicate.lstrip("@")
        if guard:
            neg = guard.startswith("!")
            m = _PRED_RE.match(guard.lstrip("!"))
            if not m:
                raise self.error(f"guard {inst.predicate!r} is not supported")
            if m.group(2) == "T":
                if neg:                                   # @!PT: never executes
                    row[E.F_GUARD], row[E.F_GUARD_NEG] = E.SASS_N_PRED - 1, 0
            else:
                row[E.F_GUARD] = (E.SASS_UP_BASE if m.group(1) else 0) + int(m.group(2))
                row[E.F_GUARD_NEG] = int(neg)
        for name, value in fields.items():
            row[getattr(E, name)] = value
        for k, (kind, idx, imm, ty) in enumerate(operands):
            b = E.F_OPS + k * E.OPERAND_FIELDS
            row[b:b + 4] = (kind, idx, imm, ty)
            if k < ndst and _is_uniform_register(kind, idx):
                row[E.F_FLAGS] |= E.SM_UNIFORM
        return row


def _is_uniform_register(kind: int, idx: int) -> bool:
    """A UR or UP register: a uniform-datapath result, written for every lane of the warp."""
    return (kind == E.K_R32 and idx < E.SASS_R_BASE) or (kind == E.K_PRED and idx >= E.SASS_UP_BASE)


def sass_flags(mods: tuple[str, ...]) -> int:
    """E.SM_* flags of the modifier words that change a SASS row's meaning (a word is consumed only
    where its family's semantics read the flag: sass_modifiers.flags_of)."""
    return flags_of(mods)


def _wide(b: RowBuilder, text: str, dest: bool = False):
    kind, idx, imm, mods = b.operand(text, dest=dest)
    if kind == E.K_R32:
        return E.K_RPAIR, idx, imm, mods
    return kind, idx, imm, mods


# DSETP.MIN / .MAX: the min / max selection predicates of ptxas's fmin / fmax (sass_ops.dsetp_minmax)
DSETP_CMP = {**FLOAT_CMP, "MIN": "min", "MAX": "max"}


def _compare_fields(b: RowBuilder, family: str, mods: tuple[str, ...]) -> dict:
    fields = {}
    table = INT_CMP if family in ("ISETP", "UISETP") else DSETP_CMP if family == "DSETP" else FLOAT_CMP
    if family in ("ISETP", "UISETP", "FSETP", "FSET", "DSETP", "HSETP2", "HSET2"):
        cmp = pick(mods, table)
        if cmp is None:
            raise b.error("comparison without a known test")
        fields["F_CMP"] = E.SASS_CMP_CODE[cmp]
        fields["F_BOOL"] = pick(mods, {m: E.BOOL_CODE[m.lower()] for m in ("AND", "OR", "XOR")}, 0)
    if family == "MUFU":
        fn = pick(mods, tuple(E.MUFU_CODE))
        if fn is None:
            raise b.error("MUFU without a known function")
        fields["F_CMP"] = E.MUFU_CODE[fn]
    if family in ("VOTE", "VOTEU"):
        fields["F_CMP"] = pick(mods, {"ALL": E.VOTE_MODE_ALL, "ANY": E.VOTE_MODE_ANY, "EQ": E.VOTE_MODE_EQ},
                               E.VOTE_MODE_ANY)
    rnd = pick(mods, ROUNDING)
    if rnd is not None:
        fields["F_RND"] = rnd
    return fields


def _int_literal(text: str) -> int | None:
    """A 32-bit integer immediate as nvdisasm prints it (0x.., -0x.., decimal) as a signed value."""
    t = text.replace(".reuse", "")
    try:
        v = int(t, 16) if t.lstrip("-").startswith("0x") else int(t, 10)
    except ValueError:
        return None
    v &= 0xFFFF_FFFF
    return v - (1 << 32) if v & 0x8000_0000 else v
