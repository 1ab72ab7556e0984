"""Random structured kernels for property tests: a Hypothesis strategy that draws a small
structured program over per-thread integer state and lowers it to nvcc-style PTX.

Program model (per thread, all values 32-bit):
  * NV mutable variables v0..v{NV-1}, initialised from the input word, the global thread id and
    %tid.x; three read-only sources (%tid.x, global thread id, the input word) can be read too;
  * statements: assignment (add/sub/xor/and/mul.lo with a register or an immediate, shl by a small
    constant), if / if-else, while loops whose counter is (input >> s) & 7 decremented once per
    iteration, break / continue (as the last statement of an if-branch inside a loop, or as a
    predicated `@%p bra`), switch-like else-if chains on (x & 3), early exit (outputs written with
    predicated stores, then `@%p ret;`) and bar.sync (top level only, and only when no early exit
    precedes it in the program text);
  * at the end each thread writes v0..v{NV-1} to out[gtid * NV + j]; an early exit writes the same
    words before returning.

`kernels()` draws a GeneratedKernel: the AST, the PTX text, the static nesting depth and a
reference evaluator (`evaluate`) of the AST that the PTX must agree with.

Static nesting depth: if/else and loops count one level each around their bodies; an else-if
chain with n comparisons counts as the C nesting `if .. else { if .. else { .. } }`, i.e. case i
sits at level i + 1 and the default at level n.  `construct_depth` is the same with a whole chain
counted as one level.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st

NV = 4                      # mutable variables == output words per thread
SRC_TID, SRC_GTID, SRC_IN = NV, NV + 1, NV + 2
N_SRC = NV + 3
MASK32 = 0xFFFF_FFFF

ASSIGN_OPS = ("add", "sub", "xor", "and", "mul", "shl")
CMPS = ("eq", "ne", "lt", "le", "gt", "ge")
NEG_CMP = {"eq": "ne", "ne": "eq", "lt": "ge", "ge": "lt", "le": "gt", "gt": "le"}


# ---------------------------------------------------------------- AST
# Statements are tuples:
#   ("assign", dst, op, src, (kind, value))     kind "r": source index, "i": immediate
#   ("if", cond, then_stmts, else_stmts)
#   ("while", shift, body)                      counter = (in >> shift) & 7
#   ("switch", src, n_cmp, [case bodies], default_body)   x = src & 3; case k when x == k
#   ("break",) / ("continue",)
#   ("exit", cond)
#   ("bar",)
# cond = (src, mask, cmp, imm): (reg[src] & mask if mask else reg[src]) <cmp> imm, signed 32-bit.


@dataclass
class GeneratedKernel:
    stmts: list
    ptx: str
    nesting_depth: int
    construct_depth: int
    has_exit: bool
    has_barrier: bool
    n_out: int = NV
    features: set = field(default_factory=set)
    funcs: list = field(default_factory=list)      # device-function bodies (kernels_with_calls)

    def evaluate(self, inp: np.ndarray, block: int, grid: int) -> np.ndarray:
        return evaluate(self.stmts, inp, block, grid, self.funcs)

    def __repr__(self) -> str:        # what Hypothesis prints for a falsifying example
        return (f"GeneratedKernel(nesting_depth={self.nesting_depth}, stmts={self.stmts!r}, "
                f"funcs={self.funcs!r}) with PTX:\n{self.ptx}")

    def _repr_pretty_(self, p, cycle) -> None:
        p.text(repr(self))


# ---------------------------------------------------------------- strategy

@dataclass
class _Ctx:
    budget: int                 # statements left to draw
    loops: int = 0              # enclosing loops
    top: bool = True            # directly in the kernel body
    exit_seen: bool = False     # an exit appears earlier in the program text
    allow_loops: bool = True
    allow_nested_exit: bool = True
    features: set = field(default_factory=set)
    callees: tuple = ()         # device functions this body may call
    in_function: bool = False   # a device function's body: early `ret`, no exit or barrier


def _cond(draw):
    src = draw(st.integers(0, N_SRC - 1))
    mask = draw(st.sampled_from([0, 1, 3, 7, 15]))
    cmp = draw(st.sampled_from(CMPS))
    imm = draw(st.integers(-2, 8)) if mask == 0 else draw(st.integers(0, mask))
    return (src, mask, cmp, imm)


def _exit_cond(draw):
    """Exit conditions hold for 1/4 .. 1/16 of the values, so that most threads go on."""
    src = draw(st.integers(0, N_SRC - 1))
    mask = draw(st.sampled_from([3, 7, 15]))
    return (src, mask, "eq", draw(st.integers(0, mask)))


def _assign(draw):
    dst = draw(st.integers(0, NV - 1))
    op = draw(st.sampled_from(ASSIGN_OPS))
    src = draw(st.integers(0, N_SRC - 1))
    if op == "shl":
        b = ("i", draw(st.integers(0, 4)))
    elif draw(st.booleans()):
        b = ("r", draw(st.integers(0, N_SRC - 1)))
    else:
        b = ("i", draw(st.integers(-16, 16)))
    return ("assign", dst, op, src, b)


def _block(draw, ctx: _Ctx, depth_left: int, max_len: int, spine: bool = False) -> list:
    """A statement list.  spine=True: it holds (at a drawn position) a construct whose own
    sub-blocks continue the spine, so the program reaches the drawn nesting depth."""
    n = draw(st.integers(0 if not ctx.top else 1, max_len))
    spine_at = draw(st.integers(0, n)) if spine and depth_left > 0 else -1
    out = []
    for i in range(n + 1):
        if i == spine_at:
            kinds = ["while", "if", "switch"] if ctx.loops < 2 and ctx.allow_loops else ["if", "switch"]
            out.append(_construct(draw, ctx, draw(st.sampled_from(kinds)), depth_left, spine=True))
        if i == n or ctx.budget <= 0:
            break
        ctx.budget -= 1
        kinds = ["assign"] * 3
        if depth_left > 0:
            kinds += ["if"] * 3 + ["switch"]
            if ctx.loops < 2 and ctx.allow_loops:
                kinds += ["while"] * 2
        if (ctx.top or ctx.allow_nested_exit) and not ctx.in_function:
            kinds += ["exit"]
        if ctx.loops > 0:
            kinds += ["brk"]
        if ctx.top and not ctx.exit_seen and not ctx.in_function:
            kinds += ["bar"] * 2
        if ctx.callees:
            kinds += ["call"] * 3
        if ctx.in_function:
            kinds += ["ret"] * 2
        kind = draw(st.sampled_from(kinds))
        if kind == "assign":
            out.append(_assign(draw))
        elif kind in ("if", "while", "switch"):
            out.append(_construct(draw, ctx, kind, depth_left))
        elif kind == "exit":
            out.append(("exit", _exit_cond(draw)))
            ctx.exit_seen = True
            ctx.features.add("exit" if ctx.top else "nested-exit")
        elif kind == "brk":
            # conditional break / continue: `if (c) break;` -> a predicated branch
            out.append(("if", _cond(draw), [(draw(st.sampled_from(["break", "continue"])),)], []))
            ctx.features.add(out[-1][2][0][0])
        elif kind == "bar":
            out.append(("bar",))
            ctx.features.add("bar")
        elif kind == "call":
            guard = _cond(draw) if draw(st.booleans()) else None
            out.append(("call", draw(st.sampled_from(ctx.callees)), draw(st.integers(0, NV - 1)), guard))
            ctx.features.add("guarded-call" if guard else "call")
        elif kind == "ret":
            out.append(("ret", _cond(draw)))
            ctx.features.add("early-ret")
    return out


def _construct(draw, ctx: _Ctx, kind: str, depth_left: int, spine: bool = False):
    """An if / while / switch whose bodies nest at most depth_left - 1 further levels."""
    top = ctx.top
    ctx.top = False
    sub = depth_left - 1
    if kind == "if":
        cond = _cond(draw)
        spine_side = draw(st.integers(0, 1)) if spine else -1
        then = _block(draw, ctx, sub, 3, spine=spine_side == 0)
        els = _block(draw, ctx, sub, 3, spine=spine_side == 1) \
            if spine_side == 1 or draw(st.booleans()) else []
        if ctx.loops > 0 and draw(st.integers(0, 3)) == 0:
            then = then + [(draw(st.sampled_from(["break", "continue"])),)]
            ctx.features.add(then[-1][0])
        stmt = ("if", cond, then, els)
        ctx.features.add("if-else" if els else "if")
    elif kind == "while":
        ctx.loops += 1
        shift = draw(st.integers(0, 6))
        body = _block(draw, ctx, sub, 3, spine=spine)
        ctx.loops -= 1
        stmt = ("while", shift, body)
        ctx.features.add("while")
    else:
        src = draw(st.integers(0, N_SRC - 1))
        n_cmp = draw(st.integers(1, 3))
        spine_case = draw(st.integers(0, n_cmp)) if spine else -1
        cases = [_block(draw, ctx, sub, 2, spine=spine_case == i) for i in range(n_cmp)]
        default = _block(draw, ctx, sub, 2, spine=spine_case == n_cmp)
        stmt = ("switch", src, n_cmp, cases, default)
        ctx.features.add("switch")
    ctx.top = top
    return stmt


@st.composite
def kernels(draw, max_depth: int = 3, max_stmts: int = 14, loops: bool = True,
            nested_exits: bool = True) -> GeneratedKernel:
    """loops=False: no while loops (hence no break / continue); nested_exits=False: early exits
    only at the top level of the kernel."""
    depth = draw(st.integers(1, max_depth))
    ctx = _Ctx(budget=draw(st.integers(3, max_stmts)), allow_loops=loops, allow_nested_exit=nested_exits)
    stmts = _block(draw, ctx, depth, 5, spine=True)
    return kernel_from_stmts(stmts, ctx.features)


@st.composite
def kernels_with_calls(draw, max_funcs: int = 3, max_depth: int = 2, max_stmts: int = 8) -> GeneratedKernel:
    """A kernel that calls up to max_funcs device functions; function k may call the functions
    after it (no recursion) and return early (`@%p ret;`) in some lanes; calls may be guarded
    (`@%p call`) or sit in divergent code."""
    n = draw(st.integers(1, max_funcs))
    funcs: list = [None] * n
    features: set = set()
    for k in reversed(range(n)):
        ctx = _Ctx(budget=draw(st.integers(2, max_stmts)), top=False, callees=tuple(range(k + 1, n)),
                   in_function=True, features=features)
        funcs[k] = _block(draw, ctx, draw(st.integers(1, max_depth)), 4, spine=True)
    ctx = _Ctx(budget=draw(st.integers(3, max_stmts)), callees=tuple(range(n)), features=features)
    stmts = _block(draw, ctx, draw(st.integers(1, max_depth)), 5, spine=True)
    if not _has(stmts, "call"):
        stmts.append(("call", 0, 0, None))
    return kernel_from_stmts(stmts, features, funcs)


def kernel_from_stmts(stmts, features=(), funcs=()) -> GeneratedKernel:
    """A GeneratedKernel for a hand-written AST (explicit examples, bug repros); funcs: the bodies
    of the device functions that ("call", k, dst, guard) statements call."""
    kernel = GeneratedKernel(stmts, emit_ptx(stmts, funcs), nesting_depth(stmts), construct_depth(stmts),
                             _has(stmts, "exit"), _has(stmts, "bar"), NV, set(features))
    kernel.funcs = list(funcs)
    return kernel


def _walk(stmts):
    for s in stmts:
        yield s
        if s[0] == "if":
            yield from _walk(s[2])
            yield from _walk(s[3])
        elif s[0] == "while":
            yield from _walk(s[2])
        elif s[0] == "switch":
            for c in s[3]:
                yield from _walk(c)
            yield from _walk(s[4])


def _has(stmts, kind) -> bool:
    return any(s[0] == kind for s in _walk(stmts))


def nesting_depth(stmts) -> int:
    d = 0
    for s in stmts:
        if s[0] == "if":
            d = max(d, 1 + max(nesting_depth(s[2]), nesting_depth(s[3])))
        elif s[0] == "while":
            d = max(d, 1 + nesting_depth(s[2]))
        elif s[0] == "switch":
            n = s[2]
            d = max(d, *(k + 1 + nesting_depth(c) for k, c in enumerate(s[3])), n + nesting_depth(s[4]))
    return d


def construct_depth(stmts) -> int:
    d = 0
    for s in stmts:
        if s[0] == "if":
            d = max(d, 1 + max(construct_depth(s[2]), construct_depth(s[3])))
        elif s[0] == "while":
            d = max(d, 1 + construct_depth(s[2]))
        elif s[0] == "switch":
            d = max(d, 1 + max(construct_depth(b) for b in s[3] + [s[4]]))
    return d


# ---------------------------------------------------------------- reference semantics

def _s32(x: int) -> int:
    x &= MASK32
    return x - (1 << 32) if x & 0x8000_0000 else x


def _cond_val(regs, cond) -> bool:
    src, mask, cmp, imm = cond
    v = regs[src] & mask if mask else regs[src]
    a = _s32(v)
    return {"eq": a == imm, "ne": a != imm, "lt": a < imm, "le": a <= imm,
            "gt": a > imm, "ge": a >= imm}[cmp]


class _Exit(Exception):
    pass


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class _Return(Exception):
    pass


def _call(funcs, k, regs) -> int:
    """A device function's result: its v0 after its body ran on a copy of the caller's values."""
    inner = list(regs)
    try:
        _run(funcs[k], inner, funcs)
    except _Return:
        pass
    return inner[0]


def _run(stmts, regs, funcs=()):
    for s in stmts:
        k = s[0]
        if k == "assign":
            _, dst, op, src, (bk, bv) = s
            a = regs[src]
            b = regs[bv] if bk == "r" else bv & MASK32
            if op == "add":
                r = a + b
            elif op == "sub":
                r = a - b
            elif op == "xor":
                r = a ^ b
            elif op == "and":
                r = a & b
            elif op == "mul":
                r = a * b
            else:
                r = a << bv
            regs[dst] = r & MASK32
        elif k == "if":
            _run(s[2] if _cond_val(regs, s[1]) else s[3], regs, funcs)
        elif k == "while":
            c = (regs[SRC_IN] >> s[1]) & 7
            while c != 0:
                c -= 1
                try:
                    _run(s[2], regs, funcs)
                except _Continue:
                    pass
                except _Break:
                    break
        elif k == "switch":
            x = regs[s[1]] & 3
            _run(s[3][x] if x < s[2] else s[4], regs, funcs)
        elif k == "break":
            raise _Break
        elif k == "continue":
            raise _Continue
        elif k == "exit":
            if _cond_val(regs, s[1]):
                raise _Exit
        elif k == "ret":
            if _cond_val(regs, s[1]):
                raise _Return
        elif k == "call":
            _, f, dst, guard = s
            if guard is None or _cond_val(regs, guard):
                regs[dst] = _call(funcs, f, regs)
        # "bar": no effect on values


def evaluate(stmts, inp: np.ndarray, block: int, grid: int, funcs=()) -> np.ndarray:
    """out words (uint32[n_threads * NV]) the kernel must produce for input words `inp`."""
    n = block * grid
    out = np.zeros(n * NV, dtype=np.uint32)
    for g in range(n):
        tid = g % block
        x = int(inp[g]) & MASK32
        regs = [0] * N_SRC
        regs[SRC_TID], regs[SRC_GTID], regs[SRC_IN] = tid, g, x
        regs[0], regs[1], regs[2], regs[3] = x, g, tid, (x ^ (g * 2654435761)) & MASK32
        try:
            _run(stmts, regs, funcs)
        except _Exit:
            pass
        out[g * NV:(g + 1) * NV] = regs[:NV]
    return out


# ---------------------------------------------------------------- PTX lowering

class _Emitter:
    def __init__(self):
        self.lines: list[str] = []
        self.n_r = 5 + NV            # %r1..%r5 fixed, %r6.. variables
        self.n_p = 0
        self.n_l = 0

    def reg(self, src: int) -> str:
        if src < NV:
            return f"%r{6 + src}"
        return {SRC_TID: "%r3", SRC_GTID: "%r4", SRC_IN: "%r5"}[src]

    def new_r(self) -> str:
        self.n_r += 1
        return f"%r{self.n_r}"

    def new_p(self) -> str:
        self.n_p += 1
        return f"%p{self.n_p}"

    def new_label(self) -> str:
        self.n_l += 1
        return f"$L__BB0_{self.n_l}"

    def ins(self, text: str) -> None:
        guard = ""
        if text.startswith("@"):
            guard, _, text = text.partition(" ")
            guard += " "
        op, _, rest = text.partition(" ")
        self.lines.append(f"\t{guard}{op} \t{rest.strip()}" if rest else f"\t{guard}{op}")

    def label(self, name: str) -> None:
        self.lines.append(f"{name}:")

    def pred(self, cond, negate: bool) -> str:
        """setp for cond (or its negation); returns the predicate register."""
        src, mask, cmp, imm = cond
        a = self.reg(src)
        if mask:
            t = self.new_r()
            self.ins(f"and.b32 {t}, {a}, {mask};")
            a = t
        p = self.new_p()
        self.ins(f"setp.{NEG_CMP[cmp] if negate else cmp}.s32 {p}, {a}, {imm};")
        return p

    def branch_if(self, cond, target: str, when: bool) -> None:
        """Branch to target when cond == when.  Sometimes through @!%p, as nvcc also writes."""
        negate_guard = (cond[3] + cond[1]) % 3 == 0      # deterministic variety
        p = self.pred(cond, negate=(not when) ^ negate_guard)
        self.ins(f"@{'!' if negate_guard else ''}{p} bra {target};")

    def store_outputs(self, guard: str = "") -> None:
        for j in range(NV):
            off = f"+{4 * j}" if j else ""
            self.ins(f"{guard}st.global.u32 [%rd8{off}], {self.reg(j)};")

    def block(self, stmts, loop) -> bool:
        """Emit stmts; loop = (continue label, break label) or None.  True when the block ends
        with an unconditional jump."""
        for s in stmts:
            k = s[0]
            if k == "assign":
                _, dst, op, src, (bk, bv) = s
                d, a = self.reg(dst), self.reg(src)
                b = self.reg(bv) if bk == "r" else str(bv)
                ptx_op = {"add": "add.s32", "sub": "sub.s32", "xor": "xor.b32", "and": "and.b32",
                          "mul": "mul.lo.s32", "shl": "shl.b32"}[op]
                self.ins(f"{ptx_op} {d}, {a}, {b};")
            elif k == "if":
                _, cond, then, els = s
                if not els and len(then) == 1 and then[0][0] in ("break", "continue"):
                    self.branch_if(cond, loop[1] if then[0][0] == "break" else loop[0], True)
                    continue
                l_else, l_end = self.new_label(), self.new_label()
                self.branch_if(cond, l_else if els else l_end, False)
                jumped = self.block(then, loop)
                if els:
                    if not jumped:
                        self.ins(f"bra.uni {l_end};")
                    self.label(l_else)
                    self.block(els, loop)
                self.label(l_end)
            elif k == "while":
                _, shift, body = s
                c = self.new_r()
                if shift:
                    t = self.new_r()
                    self.ins(f"shr.u32 {t}, %r5, {shift};")
                    self.ins(f"and.b32 {c}, {t}, 7;")
                else:
                    self.ins(f"and.b32 {c}, %r5, 7;")
                l_head, l_cont, l_end = self.new_label(), self.new_label(), self.new_label()
                p = self.new_p()
                self.ins(f"setp.eq.s32 {p}, {c}, 0;")
                self.ins(f"@{p} bra {l_end};")
                self.label(l_head)
                self.ins(f"add.s32 {c}, {c}, -1;")
                self.block(body, (l_cont, l_end))
                self.label(l_cont)
                p = self.new_p()
                self.ins(f"setp.ne.s32 {p}, {c}, 0;")
                self.ins(f"@{p} bra {l_head};")
                self.label(l_end)
            elif k == "switch":
                _, src, n_cmp, cases, default = s
                x = self.new_r()
                self.ins(f"and.b32 {x}, {self.reg(src)}, 3;")
                l_end = self.new_label()
                for i, case in enumerate(cases):
                    l_next = self.new_label()
                    p = self.new_p()
                    self.ins(f"setp.ne.s32 {p}, {x}, {i};")
                    self.ins(f"@{p} bra {l_next};")
                    if not self.block(case, loop):
                        self.ins(f"bra.uni {l_end};")
                    self.label(l_next)
                self.block(default, loop)
                self.label(l_end)
            elif k == "break":
                self.ins(f"bra.uni {loop[1]};")
                return True
            elif k == "continue":
                self.ins(f"bra.uni {loop[0]};")
                return True
            elif k == "exit":
                p = self.pred(s[1], negate=False)
                self.store_outputs(guard=f"@{p} ")
                self.ins(f"@{p} ret;")
            elif k == "bar":
                self.ins("bar.sync 0;")
            elif k == "ret":
                p = self.pred(s[1], negate=False)
                self.ins(f"@{p} st.param.b32 [func_retval0], %r6;")
                self.ins(f"@{p} ret;")
            elif k == "call":
                self.call(*s[1:])
        return False

    def call(self, f: int, dst: int, guard) -> None:
        """nvcc's call sequence: the 7 values as .param arguments, v[dst] = the result."""
        g = f"@{self.pred(guard, negate=False)} " if guard else ""
        self.lines.append("\t{")
        for j in range(N_SRC):
            self.lines.append(f"\t.param .b32 param{j};")
            self.ins(f"st.param.b32 [param{j}], {self.reg(j)};")
        self.lines.append("\t.param .b32 retval0;")
        args = ", ".join(f"param{j}" for j in range(N_SRC))
        self.ins(f"{g}call{'' if g else '.uni'} (retval0), gen_f{f}, ({args});")
        self.ins(f"{g}ld.param.b32 {self.reg(dst)}, [retval0];")
        self.lines.append("\t}")


def emit_function(k: int, stmts) -> list[str]:
    """Device function gen_fK: its 7 parameters in the kernel's registers (%r6..%r9 = v0..v3,
    %r3 / %r4 / %r5 = tid / gtid / in), its result v0."""
    e = _Emitter()
    for j in range(N_SRC):
        e.ins(f"ld.param.u32 {e.reg(j)}, [gen_f{k}_param_{j}];")
    e.block(stmts, None)
    e.ins("st.param.b32 [func_retval0], %r6;")
    e.ins("ret;")
    params = ",\n".join(f"\t.param .b32 gen_f{k}_param_{j}" for j in range(N_SRC))
    return [f".func  (.param .b32 func_retval0) gen_f{k}(", params, ")", "{",
            f"\t.reg .pred \t%p<{e.n_p + 1}>;", f"\t.reg .b32 \t%r<{e.n_r + 1}>;", ""] + e.lines + ["}", ""]


def emit_ptx(stmts, funcs=()) -> str:
    e = _Emitter()
    e.ins("ld.param.u64 %rd1, [gen_param_0];")
    e.ins("ld.param.u64 %rd2, [gen_param_1];")
    e.ins("cvta.to.global.u64 %rd3, %rd1;")
    e.ins("cvta.to.global.u64 %rd4, %rd2;")
    e.ins("mov.u32 %r1, %ctaid.x;")
    e.ins("mov.u32 %r2, %ntid.x;")
    e.ins("mov.u32 %r3, %tid.x;")
    e.ins("mad.lo.s32 %r4, %r1, %r2, %r3;")
    e.ins("mul.wide.s32 %rd5, %r4, 4;")
    e.ins("add.s64 %rd6, %rd3, %rd5;")
    e.ins("ld.global.u32 %r5, [%rd6];")
    e.ins(f"mul.wide.s32 %rd7, %r4, {4 * NV};")
    e.ins("add.s64 %rd8, %rd4, %rd7;")
    e.ins("mov.u32 %r6, %r5;")
    e.ins("mov.u32 %r7, %r4;")
    e.ins("mov.u32 %r8, %r3;")
    e.ins("mul.lo.s32 %r9, %r4, -1640531535;")      # 2654435761 as s32
    e.ins("xor.b32 %r9, %r9, %r5;")
    e.lines.append("")
    e.block(stmts, None)
    e.lines.append("")
    e.store_outputs()
    e.ins("ret;")
    head = ["//", "// Generated by tests/kernelgen.py (nvcc-style PTX)", "//", "",
            ".version 8.0", ".target sm_80", ".address_size 64", ""]
    for k, body in enumerate(funcs):
        head += emit_function(k, body)
    head += [
            "\t// .globl\tgen", "",
            ".visible .entry gen(",
            "\t.param .u64 gen_param_0,",
            "\t.param .u64 gen_param_1",
            ")", "{",
            f"\t.reg .pred \t%p<{e.n_p + 1}>;",
            f"\t.reg .b32 \t%r<{e.n_r + 1}>;",
            "\t.reg .b64 \t%rd<9>;", ""]
    return "\n".join(head + e.lines + ["", "}", ""])
