"""Integer encoding of instructions, operands, types and special registers.

The assembler writes programs in this encoding; the numba engine reads it.  Opcode numbers come
from the ISA table (isa/*.yaml), so this module is the only place that turns names into numbers.
"""
from __future__ import annotations

import numpy as np

from simt_sim.isa import isa
from simt_sim.isa.table import NCU_PIPES, NCU_PIPE_OF_UNIT, UNIT_NAMES

_ISA = isa()

# ---- instruction row fields (one int64 row per instruction) ----
F_OP = 0          # opcode number (position in the ISA table)
F_TYPE = 1        # main type (destination type for cvt)
F_TYPE2 = 2       # second type (cvt source type)
F_CMP = 3         # sub-operation: setp/set comparison, atom/vote/shfl/redux/match/bar.red (SUBOP_CODE)
F_BOOL = 4        # setp combining operation: 0 none, 1 and, 2 or, 3 xor
F_FLAGS = 5       # modifier bit flags (FL_*)
F_RND = 6         # rounding mode (RND_*)
F_SPACE = 7       # state space of a memory operation (SP_*)
F_VEC = 8         # vector width of ld/st (1, 2, 4); SASS DEPBAR.LE: the copy groups it lets stay incomplete
F_GUARD = 9       # guard predicate register, -1 when unguarded
F_GUARD_NEG = 10  # 1 for @!%p
F_TARGET = 11     # branch / push_mask / br_push target pc
F_TARGET2 = 12    # br_push reconvergence pc
F_RECONV = 13     # immediate post-dominator pc of a conditional branch (-1: kernel exit)
F_UNIT = 14       # functional-unit class (UNIT_*)
F_DST2 = 15       # extra predicate destination (`%r|%p`, `%p|%q`), -1 when absent
F_NOPS = 16       # number of operands
F_NDST = 17       # SASS rows: how many leading operands are destinations (PTX rows: from the ISA table)
F_PIPE = 18       # the pipe Nsight Compute counts the instruction in (NCU_PIPE_CODE)
F_CTRL = 19       # SASS rows: the 21-bit control code (bits 105..125; CTRL_* below), -1 for PTX rows
F_OPS = 20        # operands start here: OPERAND_FIELDS ints each
OPERAND_FIELDS = 4  # kind, index, immediate, type the operand is read/written at
MAX_OPERANDS = 7    # SASS: PLOP3 has seven (two predicate results, three sources, two LUTs)
ROW_FIELDS = F_OPS + OPERAND_FIELDS * MAX_OPERANDS

SASS_INSTRUCTION_BYTES = 16     # sm_90 SASS: a byte offset / 16 is the row (pc) of an instruction

# ---- SASS control code fields (frontend/sass.py documents the layout) ----
CTRL_STALL_MASK = 0xF            # bits 0-3: cycles before the warp's next instruction may issue
CTRL_YIELD_SHIFT = 4             # bit 4: yield (raw; 0 means the scheduler should switch warps)
CTRL_WBAR_SHIFT = 5              # bits 5-7: write barrier set by a variable-latency result
CTRL_RBAR_SHIFT = 8              # bits 8-10: read barrier set until the sources are read
CTRL_WAIT_SHIFT = 11             # bits 11-16: wait mask, bit i = barrier i
CTRL_REUSE_SHIFT = 17            # bits 17-20: reuse flag per source operand slot
CTRL_NO_BARRIER = 7              # the write/read barrier field's "none" value

# ---- operand kinds ----
K_NONE, K_R32, K_R64, K_PRED, K_IMM, K_SREG, K_VEC, K_ADDR, K_CALL, K_RPAIR, K_CONST = range(11)
# K_RPAIR (SASS): a 64-bit value in two adjacent 32-bit registers, index = the low one.
# K_CONST (SASS): a constant-bank word c[bank][offset]: index = bank, immediate = byte offset.
# K_ADDR: index = base register | (ADDR_R32 or ADDR_R64) << ADDR_FILE_SHIFT, or -1 for none;
#         immediate = byte offset (or the whole address).
# K_VEC:  index = row of the vector table, immediate = element count.  Vector-table entries are
#         register numbers, | VEC_R64 for 64-bit registers, VEC_IMM | constant index for an
#         immediate element (`st.v2 [a], {%r1, 0}`), -1 for `_`, -2 for unused slots.
# K_PRED: immediate 1 means the source is negated (!%p).
# K_CALL: index = row of the call table (a `call`'s only operand; see CALL_FIELDS).
ADDR_R32, ADDR_R64, ADDR_RPAIR = 1, 2, 3   # ADDR_RPAIR (SASS): `[R2.64]`, a register pair
# SASS `[R4+UR4+0x10]`: a second (uniform) register, its r32 index + 1 from bit ADDR_SECOND_SHIFT
ADDR_SECOND_SHIFT = 24
ADDR_FILE_MASK = 0xF
ADDR_FILE_SHIFT = 20
VEC_R64 = 1 << 20
VEC_IMM = 1 << 21

# ---- types ----
TYPE_NAMES = ("u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
              "b8", "b16", "b32", "b64", "f16", "f32", "f64", "pred", "bf16", "f16x2", "bf16x2",
              "u16x2", "s16x2")
TYPE_CODE = {name: code for code, name in enumerate(TYPE_NAMES)}
T_U8, T_U16, T_U32, T_U64, T_S8, T_S16, T_S32, T_S64 = range(8)
T_B8, T_B16, T_B32, T_B64, T_F16, T_F32, T_F64, T_PRED = range(8, 16)
# 16-bit floats live in the low half of a 32-bit register; the x2 types pack two of them (element
# 0 in bits 15..0, element 1 in bits 31..16).
T_BF16, T_F16X2, T_BF16X2 = range(16, 19)
# Two 16-bit integers in a 32-bit register (add / sub / min / max .u16x2 / .s16x2, per half); read
# as raw 32-bit words (the signedness applies to each half: engine/functional/alu.packed16).
T_U16X2, T_S16X2 = 19, 20
TYPE_BITS = (8, 16, 32, 64, 8, 16, 32, 64, 8, 16, 32, 64, 16, 32, 64, 1, 16, 32, 32, 32, 32)
TYPE_SIGNED = (0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
NO_TYPE = -1

# ---- modifier flags ----
FL_FTZ = 1 << 0
FL_SAT = 1 << 1
FL_APPROX = 1 << 2
FL_HI = 1 << 3
FL_WIDE = 1 << 4
FL_UNI = 1 << 5
FL_TO = 1 << 6
FL_SHF_L = 1 << 7
FL_SHF_WRAP = 1 << 8
FL_FULL = 1 << 9
FL_L1_BYPASS = 1 << 10   # ld.cg / .cv / .volatile: not cached in L1 (timing only)
FL_SHIFTAMT = 1 << 11    # bfind.shiftamt
FL_B_SIGNED = 1 << 12    # dp4a / dp2a: .btype is .s32 (the row's type is .atype)
FL_RELU = 1 << 13        # fma / cvt to a half type: negative results become +0, NaN the canonical NaN
FL_SATFINITE = 1 << 14   # cvt to a half type: results beyond the largest finite value clamp to it
FL_NAN = 1 << 15         # min / max .NaN: a NaN operand gives the canonical NaN
FL_COL_A = 1 << 16       # mma / wmma: the first layout is .col (wmma.load / store: the memory layout)
FL_COL_B = 1 << 17       # wmma.mma: the second layout is .col
FL_TRANS = 1 << 18       # ldmatrix.trans
FL_ARRIVE = 1 << 19      # bar.arrive: count the warp's threads at the barrier without waiting
FL_IN_FUNC = 1 << 20     # a row of a .func body (ret there returns from the function)
FL_ZFILL = 1 << 21       # SASS LDGSTS.ZFILL as cp.async: the source address's misalignment is the count of
                         # zero-filled tail bytes (ptxas adds size - src_size to it); operand 3, a
                         # predicate, false: every byte zero
FL_CC = 1 << 23          # add / sub / mad .cc, addc / subc / madc .cc: write the carry (borrow) out to
                         # CC.CF, the thread's hidden carry predicate, in F_DST2; addc / subc / madc
                         # read it as their last operand (frontend/assembler.py, CARRY_REGISTER)
FL_NAN_B_FIRST = 1 << 24  # f64 add / sub / mul / fma: of two NaN operands b's goes on, not a's (b was written
                          # after a: ptxas then puts it in DADD / DMUL / DFMA's b slot, assembler.b_written_last).
                          # The H100 passes the b slot's NaN first (then c, a: bits.dfma_nan).  Which PTX operand
                          # lands in the b slot, ptxas decides after scheduling / register allocation (a register
                          # shared by a DFMA chain keeps its slot; expanded div / sqrt / selp results go anywhere):
                          # PTX cannot say.  Measured on 121 corpus instructions (PTX vs SASS values): this rule
                          # right for 87, never swapping 65, higher register number 80 (docs/ptx-subset.md)
FL_SRC_ABS = 1 << 25     # cvt.f64.f32 reading the source of an abs.f32 (FL_SRC_NEG: neg.f32) it folds, as ptxas
FL_SRC_NEG = 1 << 26     # does (F2F.F64.F32 d, |a| / -a): applied to a number, not to a NaN (assembler.sign_folds)
FL_CAST = 1 << 22        # SASS ATOMS.CAST.SPIN as atom.cas: the destination gets 1 where the store happened
                         # (memory held the compare value), 0 where not, instead of the old value

# ---- the call table (int64[n, CALL_FIELDS]): per `call`, one descriptor row, then one copy row
# per argument and one per return value (src offset, dst offset, bytes in the first three fields).
# The callee's window: its registers (first index and count in each file) and the local-memory
# bytes of its parameters, return values and .local variables; `save` is 1 when the callee may
# already be active in the calling thread (recursion), so that the window is saved on the
# thread's call stack at the call and restored at the return.
CALL_FIELDS = ("save", "r32", "n_r32", "r64", "n_r64", "pred", "n_pred", "local", "n_local",
               "n_args", "n_rets", "frame_bytes", "unused")
(CA_SAVE, CA_R32, CA_N_R32, CA_R64, CA_N_R64, CA_PRED, CA_N_PRED, CA_LOCAL, CA_N_LOCAL, CA_N_ARGS,
 CA_N_RETS, CA_FRAME_BYTES, CA_UNUSED) = range(len(CALL_FIELDS))
CP_SRC, CP_DST, CP_BYTES = range(3)

RND_NONE, RND_RN, RND_RZ, RND_RM, RND_RP, RND_RNI, RND_RZI, RND_RMI, RND_RPI = range(9)
RND_CODE = {"rn": RND_RN, "rz": RND_RZ, "rm": RND_RM, "rp": RND_RP,
            "rni": RND_RNI, "rzi": RND_RZI, "rmi": RND_RMI, "rpi": RND_RPI}

CMP_NAMES = ("eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs",
             "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan")
CMP_CODE = {n: i for i, n in enumerate(CMP_NAMES)}
BOOL_CODE = {"and": 1, "or": 2, "xor": 3}


def _group_codes(group: str, first: int = 0) -> dict[str, int]:
    """Sub-operation code of each modifier of an ISA-table modifier group: its position (+ first).
    The engine compares F_CMP against the named constants below, never against raw numbers."""
    return {name: first + i for i, name in enumerate(_ISA.modifier_groups[group])}


# ---- sub-operations stored in F_CMP (besides setp/set comparisons) ----
ATOM_NAMES = tuple(_ISA.modifier_groups["atomop"])             # atom / red operation
ATOM_CODE = _group_codes("atomop")
(ATOM_ADD, ATOM_MIN, ATOM_MAX, ATOM_EXCH, ATOM_CAS, ATOM_INC, ATOM_DEC, ATOM_AND, ATOM_OR,
 ATOM_XOR) = (ATOM_CODE[n] for n in ("add", "min", "max", "exch", "cas", "inc", "dec", "and", "or", "xor"))
VOTE_CODE = _group_codes("vote")                               # vote.sync mode
VOTE_ANY, VOTE_ALL, VOTE_UNI, VOTE_BALLOT = (VOTE_CODE[n] for n in ("any", "all", "uni", "ballot"))
SHFL_CODE = _group_codes("shfl")                               # shfl.sync mode
SHFL_IDX, SHFL_UP, SHFL_DOWN, SHFL_BFLY = (SHFL_CODE[n] for n in ("idx", "up", "down", "bfly"))
REDUX_NAMES = tuple(_ISA.modifier_groups["redux"])             # redux.sync operation
REDUX_CODE = _group_codes("redux")
REDUX_ADD, REDUX_MIN, REDUX_MAX, REDUX_AND, REDUX_OR, REDUX_XOR = (
    REDUX_CODE[n] for n in ("add", "min", "max", "and", "or", "xor"))
REDUX_BITWISE = (REDUX_AND, REDUX_OR, REDUX_XOR)               # the .b32 forms
MATCH_CODE = _group_codes("match")                             # match.sync mode
MATCH_ANY, MATCH_ALL = MATCH_CODE["any"], MATCH_CODE["all"]
BARRED_NONE = 0                                                # F_CMP of a plain bar row
BARRED_CODE = _group_codes("barred", first=1)                  # bar.red operation (F_CMP of a bar row)
BARRED_POPC, BARRED_AND, BARRED_OR = (BARRED_CODE[n] for n in ("popc", "and", "or"))
# Tensor-core shapes (F_CMP of mma, wmma.* and ldmatrix rows): the table's mmashape, wmmashape
# and ldmshape groups in one numbering, with each shape's M, N, K (ldmatrix: 8 x 8, K unused).
TENSOR_SHAPES = tuple(_ISA.modifier_groups["mmashape"] + _ISA.modifier_groups["wmmashape"]
                      + _ISA.modifier_groups["ldmshape"])
SHAPE_CODE = {name: i for i, name in enumerate(TENSOR_SHAPES)}
SHAPE_MNK = tuple(tuple(int(x) for x in name[1:].replace("n", " ").replace("k", " ").split())
                  + ((0,) if "k" not in name else ()) for name in TENSOR_SHAPES)
SHAPE_M = tuple(s[0] for s in SHAPE_MNK)
SHAPE_N = tuple(s[1] for s in SHAPE_MNK)
SHAPE_K = tuple(s[2] for s in SHAPE_MNK)
SHAPE_M8N8K4 = SHAPE_CODE["m8n8k4"]
# Registers of a vector operand: 4 for ld / st / mov, 8 for the tensor-core fragments.
VEC_WIDTH = 8
MAX_VEC_PLAIN = 4
# modifier -> F_CMP code, for each opcode that takes a sub-operation
SUBOP_CODE = {"setp": CMP_CODE, "set": CMP_CODE, "atom": ATOM_CODE, "red": ATOM_CODE,
              "vote": VOTE_CODE, "shfl": SHFL_CODE, "redux": REDUX_CODE, "match": MATCH_CODE,
              "bar.red": BARRED_CODE, "mma": SHAPE_CODE, "wmma.load.a": SHAPE_CODE,
              "wmma.load.b": SHAPE_CODE, "wmma.load.c": SHAPE_CODE, "wmma.store.d": SHAPE_CODE,
              "wmma.mma": SHAPE_CODE, "ldmatrix": SHAPE_CODE}

SPACE_NAMES = ("generic", "global", "shared", "local", "param", "const")
SPACE_CODE = {n: i for i, n in enumerate(SPACE_NAMES)}
SP_GENERIC, SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_PARAM, SP_CONST = range(6)

# Generic address windows: shared and local state-space addresses are small offsets; the generic
# address of a shared/local byte adds the window base.  Global buffers live above GLOBAL_BASE.
SHARED_WINDOW = 0x0000_7E00_0000_0000
LOCAL_WINDOW = 0x0000_7F00_0000_0000
WINDOW_SIZE = 0x0000_0100_0000_0000
GLOBAL_BASE = 0x0000_0001_0000_0000
CONST_BASE = 0x0000_0000_1000_0000

UNIT_CODE = {n: i for i, n in enumerate(UNIT_NAMES)}
NCU_PIPE_CODE = {n: i for i, n in enumerate(NCU_PIPES)}

# ---- special registers: code = base * 4 + component (x, y, z) ----
SREG_NAMES = ("%tid", "%ntid", "%ctaid", "%nctaid", "%laneid", "%warpid", "%nwarpid", "%smid",
              "%nsmid", "%clock", "%clock64", "%lanemask_eq", "%lanemask_lt", "%lanemask_le",
              "%lanemask_gt", "%lanemask_ge", "%gridid", "%globaltimer")
SREG_BASE = {n: i for i, n in enumerate(SREG_NAMES)}
(S_TID, S_NTID, S_CTAID, S_NCTAID, S_LANEID, S_WARPID, S_NWARPID, S_SMID, S_NSMID, S_CLOCK,
 S_CLOCK64, S_LANEMASK_EQ, S_LANEMASK_LT, S_LANEMASK_LE, S_LANEMASK_GT, S_LANEMASK_GE,
 S_GRIDID, S_GLOBALTIMER) = range(len(SREG_NAMES))
SREG_HIGH_WORD, SREG_VIRTID = 1, 2          # a SASS K_SREG operand's immediate: which word (sass_lower.SREG_WORD)
SREG_VECTOR = ("%tid", "%ntid", "%ctaid", "%nctaid")


def sreg_code(name: str) -> int | None:
    """`%tid.x` -> code, or None when the name is not a special register."""
    base, _, comp = name.partition(".")
    if base not in SREG_BASE:
        return None
    if base in SREG_VECTOR:
        if comp not in ("x", "y", "z"):
            return None
        return SREG_BASE[base] * 4 + "xyz".index(comp)
    return SREG_BASE[base] * 4 if not comp else None


def sreg_name(code: int) -> str:
    base = SREG_NAMES[code // 4]
    return f"{base}.{'xyz'[code % 4]}" if base in SREG_VECTOR else base


OPCODE = {op.name: op.opcode for op in _ISA.ops}
# Opcode numbers the engine dispatches on (frozen into compiled code; see engine/__init__.py).
OP_ADD, OP_SUB, OP_MUL, OP_MAD, OP_FMA, OP_DIV, OP_REM = (OPCODE[n] for n in ("add", "sub", "mul", "mad", "fma", "div", "rem"))
OP_ABS, OP_NEG, OP_MIN, OP_MAX, OP_COPYSIGN, OP_SAD = (OPCODE[n] for n in ("abs", "neg", "min", "max", "copysign", "sad"))
OP_POPC, OP_CLZ, OP_BREV, OP_BFE, OP_BFI, OP_PRMT = (OPCODE[n] for n in ("popc", "clz", "brev", "bfe", "bfi", "prmt"))
OP_AND, OP_OR, OP_XOR, OP_NOT, OP_CNOT, OP_SHL, OP_SHR, OP_SHF = (OPCODE[n] for n in ("and", "or", "xor", "not", "cnot", "shl", "shr", "shf"))
OP_SETP, OP_SET, OP_SELP, OP_SLCT, OP_MOV, OP_CVT, OP_CVTA = (OPCODE[n] for n in ("setp", "set", "selp", "slct", "mov", "cvt", "cvta"))
OP_RCP, OP_SQRT, OP_RSQRT, OP_SIN, OP_COS, OP_EX2, OP_LG2, OP_TANH = (OPCODE[n] for n in ("rcp", "sqrt", "rsqrt", "sin", "cos", "ex2", "lg2", "tanh"))
OP_LD, OP_LDU, OP_ST, OP_ATOM, OP_RED, OP_MEMBAR, OP_FENCE = (OPCODE[n] for n in ("ld", "ldu", "st", "atom", "red", "membar", "fence"))
OP_BAR, OP_BARRIER, OP_ACTIVEMASK, OP_VOTE, OP_SHFL = (OPCODE[n] for n in ("bar", "barrier", "activemask", "vote", "shfl"))
OP_BRA, OP_RET, OP_EXIT, OP_TRAP, OP_NANOSLEEP = (OPCODE[n] for n in ("bra", "ret", "exit", "trap", "nanosleep"))
OP_CALL = OPCODE["call"]
OP_BFIND, OP_FNS, OP_DP4A, OP_DP2A, OP_MUL24, OP_MAD24 = (OPCODE[n] for n in ("bfind", "fns", "dp4a", "dp2a", "mul24", "mad24"))
OP_MATCH, OP_REDUX, OP_MMA, OP_CP_ASYNC, OP_CP_ASYNC_GROUP = (OPCODE[n] for n in ("match", "redux", "mma", "cp.async", "cp.async.group"))
OP_PUSH_MASK, OP_POP_MASK, OP_MASK_NZ, OP_BR_PUSH = (OPCODE[n] for n in ("push_mask", "pop_mask", "mask_nz", "br_push"))
OP_ISSPACEP, OP_BAR_WARP = (OPCODE[n] for n in ("isspacep", "bar.warp"))
OP_ADDC, OP_SUBC, OP_MADC, OP_LOP3 = (OPCODE[n] for n in ("addc", "subc", "madc", "lop3"))
OP_VABSDIFF4, OP_VABSDIFF2 = (OPCODE[n] for n in ("vabsdiff4", "vabsdiff2"))
OP_WMMA_LOAD_A, OP_WMMA_LOAD_B, OP_WMMA_LOAD_C, OP_WMMA_STORE_D, OP_WMMA_MMA, OP_LDMATRIX = (
    OPCODE[n] for n in ("wmma.load.a", "wmma.load.b", "wmma.load.c", "wmma.store.d", "wmma.mma", "ldmatrix"))
# The less common families, which a launch compiles only where its code holds them (Code.ext,
# execute.ext_row): calls, the tensor-core rows and the asynchronous copies; IS_EXT_OP by opcode
EXT_OPS = (OP_CALL, OP_MMA, OP_WMMA_LOAD_A, OP_WMMA_LOAD_B, OP_WMMA_LOAD_C, OP_WMMA_STORE_D, OP_WMMA_MMA,
           OP_LDMATRIX, OP_CP_ASYNC)
IS_EXT_OP = np.isin(np.arange(len(_ISA.ops)), EXT_OPS)     # a constant array in compiled code

# ---- SASS (isa/sass.yaml) ----
# Every SASS family gets an engine opcode after the PTX ones; memory, barrier and exit families
# are lowered to the PTX rows whose semantics they share (frontend/sass_lower.py), the rest run
# in engine/functional/sass_*.py.  Registers: the uniform registers UR0..UR62 are r32[0..62]
# (SASS_UR_BASE), R0..R254 follow at SASS_R_BASE, as many rows as the kernel's register count
# (its EIATTR_REGCOUNT); predicates P0..P6 are pred[0..6], UP0..UP6 follow at SASS_UP_BASE.
# RZ / URZ read 0 and PT / UPT read 1 (immediates); writes to them are dropped.
from simt_sim.isa.sass_table import sass_table as _sass_table   # noqa: E402

SASS_FAMILIES = tuple(o.name for o in _sass_table().ops)
SASS_OP_BASE = len(_ISA.ops)
SASS_OPCODE = {name: SASS_OP_BASE + i for i, name in enumerate(SASS_FAMILIES)}
SASS_UR_BASE = 0
SASS_R_BASE = SASS_UR_BASE + 64
SASS_CALL_DEPTH_ROW = SASS_UR_BASE + 63   # UR63 is URZ, never stored: the row keeps each thread's CALL
                                         # depth (CALL +1, RET -1), the call context of convergence.py
SASS_UP_BASE = 8
SASS_N_PRED = SASS_UP_BASE + 8
SASS_CBARRIERS = 16                    # convergence barriers B0..B15
# A SASS source operand's modifiers, in the operand's type field (SASS rows only).
OM_NEG, OM_ABS, OM_NOT = 1, 2, 4       # -x, |x|, ~x (and !P for predicates)
OM_H0_H0, OM_H1_H1, OM_H1 = 8, 16, 32  # half-pair selectors of HADD2 / HFMA2 / HSETP2 operands
OM_B1, OM_B2, OM_B3, OM_H1_SEL = 64, 128, 256, 512   # byte / half selects of I2F / I2FP sources
OM_H0_NH1 = 1024                       # HFMA2 R16.H0_NH1: {high: the low half, low: the high half negated}
# Comparison codes of SASS compare rows: PTX's, plus always-true / always-false (FSETP.T / .F).
SASS_CMP_CODE = dict(CMP_CODE, t=len(CMP_NAMES), f=len(CMP_NAMES) + 1)
CMP_TRUE, CMP_FALSE = SASS_CMP_CODE["t"], SASS_CMP_CODE["f"]
# DSETP.MIN / .MAX (ptxas's fmin / fmax of doubles): the first predicate says a is the minimum
# (maximum) to select, the second that both are NaN (sass_ops.dsetp_minmax)
SASS_CMP_CODE.update(min=len(CMP_NAMES) + 2, max=len(CMP_NAMES) + 3)
CMP_MIN_SELECT, CMP_MAX_SELECT = SASS_CMP_CODE["min"], SASS_CMP_CODE["max"]
# Type words of SASS modifiers -> the engine's type codes (conversions, signedness).
SASS_TYPE_CODE = {"U8": T_U8, "S8": T_S8, "U16": T_U16, "S16": T_S16, "U32": T_U32, "S32": T_S32,
                  "U64": T_U64, "S64": T_S64, "F16": T_F16, "BF16": T_BF16, "F32": T_F32, "F64": T_F64}
# Modifier words that change what a SASS row computes (F_FLAGS bits).
SM_X, SM_HI, SM_WIDE, SM_EX, SM_FTZ, SM_SAT, SM_SX32, SM_W, SM_L, SM_SH, SM_NAN, SM_CLEAR, SM_64, \
    SM_RELU, SM_NTZ, SM_PACK_AB, SM_BF16_V2, SM_F32 = (1 << i for i in range(18))
SASS_MODIFIER_FLAG = {"X": SM_X, "HI": SM_HI, "WIDE": SM_WIDE, "EX": SM_EX, "FTZ": SM_FTZ, "SAT": SM_SAT,
                      "SX32": SM_SX32, "W": SM_W, "L": SM_L, "SH": SM_SH, "NAN": SM_NAN, "CLEAR": SM_CLEAR,
                      "64": SM_64, "U64": SM_64, "S64": SM_64, "RELU": SM_RELU, "NTZ": SM_NTZ,
                      "PACK_AB": SM_PACK_AB, "BF16_V2": SM_BF16_V2, "F32": SM_F32}
# The families that run as SASS rows (engine/functional/sass_*.py); the others are lowered to PTX
# rows (frontend/sass_lower.py).  tests/test_sass_engine.py checks the engine dispatches them all.
SASS_IMPLEMENTED = frozenset((
    "MOV", "IMAD", "IADD3", "VIADD", "LOP3", "PLOP3", "SHF", "LEA", "ISETP", "SEL", "FSEL", "IABS",
    "VIMNMX", "POPC", "FLO", "BREV", "PRMT", "SGXT", "S2R", "CS2R", "NOP", "LDC",
    "FADD", "FMUL", "FFMA", "FMNMX", "FSETP", "MUFU", "I2F", "I2FP", "F2I", "F2F",
    "DADD", "DMUL", "DFMA", "DSETP", "HFMA2",
    "UMOV", "UIADD3", "UIMAD", "USHF", "ULEA", "UISETP", "ULDC", "UFLO", "S2UR", "R2UR",
    "BRA", "BSSY", "BSYNC", "BREAK", "WARPSYNC", "BMOV", "YIELD", "DEPBAR", "LDGDEPBAR", "ERRBAR",
    "CGAERRBAR", "VOTE", "VOTEU", "CALL", "RET",
    # half, warp and tensor families (sass_half.py, sass_warp.py, sass_tensor.py)
    "HADD2", "HMUL2", "HMNMX2", "HSETP2", "F2FP", "MATCH", "REDUX", "VIADDMNMX", "VABSDIFF", "FCHK",
    "HMMA", "DMMA", "MOVM",
    # families of the differential programs (programs/sass-diff/s-*): sass_ops.py, sass_half.py
    "FRND", "HSET2", "I2I", "IDP", "BMSK", "VIMNMX3", "P2R", "CCTL", "ENDCOLLECTIVE",
    # the rest of the uniform datapath (the integer families on uniform registers) and VHMNMX
    "ULOP3", "UPOPC", "UPRMT", "USEL", "UBREV", "UBMSK", "USGXT", "UPLOP3", "UP2UR", "VHMNMX",
    # generated corpus classes: byte-wise absolute differences (__vabsdiffu4, __vsadu4), register to predicates
    "VABSDIFF4", "R2P",
    # generated corpus class: a float compare into a register (FSET.BF: 1.0f / 0)
    "FSET"))
for _name in (*SASS_IMPLEMENTED,):
    globals()[f"OP_S_{_name}"] = SASS_OPCODE[_name]
# MUFU functions (F_CMP of a MUFU row) and the PTX operation each approximates.
MUFU_NAMES = ("EX2", "LG2", "RCP", "RSQ", "SIN", "COS", "SQRT", "TANH", "RCP64H", "RSQ64H")
MUFU_CODE = {n: i for i, n in enumerate(MUFU_NAMES)}
MUFU_RCP64H, MUFU_RSQ64H = MUFU_CODE["RCP64H"], MUFU_CODE["RSQ64H"]
MUFU_SIN, MUFU_COS = MUFU_CODE["SIN"], MUFU_CODE["COS"]
MUFU_PTX_OP = (OP_EX2, OP_LG2, OP_RCP, OP_RSQRT, OP_SIN, OP_COS, OP_SQRT, OP_TANH, OP_RCP, OP_RSQRT)
SM_H_AND = 1 << 18                     # HSETP2.H_AND: both predicates are the and of the two halves
SASS_MODIFIER_FLAG["H_AND"] = SM_H_AND
SM_BF = 1 << 19                        # HSET2.BF: a true half is 1.0 (in the half format), not 0xffff
SASS_MODIFIER_FLAG["BF"] = SM_BF
SM_UNIFORM = 1 << 30                   # a uniform-datapath row: it writes every lane of the warp
VOTE_MODE_ANY, VOTE_MODE_ALL, VOTE_MODE_EQ = 0, 1, 2    # F_CMP of VOTE / VOTEU rows (.EQ: vote.uni)
PARAM_BANK_OFFSET = 0x210              # sm_90: kernel parameters start here in constant bank 0
