"""PTX mode: the floating-point rewrites ptxas makes that change results, applied to a kernel's PTX
before it is assembled, so that PTX mode computes what the hardware computes (issue 61).

PTX lets the code generator contract a `mul` and an `add`/`sub` with no rounding modifier into a
fused multiply-add ("mul/add sequences with no rounding modifiers may be optimized to use
fused-multiply-add instructions on the target device"), and ptxas does: the product is then not
rounded, so the sum differs in its last bit (or more, near cancellation).  Which pairs ptxas fuses
was measured on ptxas 13.0 for sm_90 with hand-written PTX (docs/ptx-subset.md, "What ptxas
rewrites"); this module follows those observations:

  * `mul.T d, a, b` (T = f32, f64, f16, bf16, f16x2, bf16x2; no rounding modifier, no .sat) fuses into
    an `add.T` / `sub.T` (no rounding modifier; .sat allowed, kept on the fma) in the same basic block
    when the two agree on .ftz and every other use of d is such an add/sub too: the mul disappears
    and each add/sub becomes an fma.  A mul with any other use (a store, a compare, a second
    operand of the same add) is left alone, as ptxas leaves it.
  * An add of two such products fuses its first operand (ptxas: FFMA a, b, FMUL(c, d)).
  * `sub d, m, c` becomes `fma d, a, b, -c`; `sub d, c, m` becomes `fma d, -a, b, c` (the negation
    is a `neg` into the mul's own, now unused, register, so no register is added).
  * Across a label or a branch nothing is fused (ptxas left a product computed before a branch
    unfused in the block after it).

and one identity ptxas folds that shows in NaN payloads: `min`/`max` `.f16`/`.f16x2`/`.f32` of a
register with itself is that register (a NaN keeps its payload, where the instruction would give the
canonical NaN); ptxas does not fold it for bf16.

Two folds that decide control flow and literals: ptxas bounds f32 values as if never NaN and folds
the ordered compares the bounds decide to true (fold_range_compares: `setp.gt.f32 |x|, -1.0` is true
for a NaN), and it folds integer code on constants, so a `selp` on such a predicate is the operand
it picks (fold_constant_selects).

What this cannot know: ptxas's other rewrites (loop unrolling that folds `neg(neg(x))` into x,
re-association across blocks after if-conversion, a mul it duplicates into several blocks).  A
kernel whose results depend on those still differs from the hardware in PTX mode; SASS mode (the
default for nvcc-compiled programs) runs what ptxas really made.
"""
from __future__ import annotations

from dataclasses import replace

from simt_sim.frontend.syntax import Instruction, Kernel, Label, Module, Operand

FUSIBLE_TYPES = {"f32", "f64", "f16", "bf16", "f16x2", "bf16x2"}
ROUNDING = {"rn", "rz", "rm", "rp"}
ENDS_BLOCK = {"bra", "brx", "ret", "exit", "trap", "call"}
FOLD_SELF_MIN_MAX = {"f32", "f64", "f16", "f16x2"}


def _type(ins: Instruction) -> str:
    return ins.suffixes[-1] if ins.suffixes else ""


def _mods(ins: Instruction) -> set[str]:
    return set(ins.suffixes[:-1])


def _is_mul(ins: Instruction) -> bool:
    return (ins.opcode == "mul" and ins.guard is None and _type(ins) in FUSIBLE_TYPES
            and _mods(ins) <= {"ftz"} and len(ins.operands) == 3 and ins.operands[0].kind == "reg")


def _is_add(ins: Instruction) -> bool:
    return (ins.opcode in ("add", "sub") and ins.guard is None and _type(ins) in FUSIBLE_TYPES
            and _mods(ins) <= {"ftz", "sat"} and len(ins.operands) == 3)


def _names(op: Operand) -> list[str]:
    """Register names an operand mentions (addresses, vectors, the extra predicate)."""
    out = []
    if op.kind == "reg":
        out.append(op.name)
    if op.base is not None:
        out += _names(op.base)
    for item in op.items:
        out += _names(item)
    if op.extra is not None:
        out += _names(op.extra)
    return out


def _written(ins: Instruction) -> set[str]:
    """Registers an instruction may write (conservatively: everything named by its first operand)."""
    return set(_names(ins.operands[0])) if ins.operands else set()


def _reg(name: str, like: Operand) -> Operand:
    return Operand("reg", like.loc, name=name)


def _blocks(items: list) -> list[int]:
    block = []
    b = 0
    for it in items:
        if isinstance(it, Label):
            b += 1
        block.append(b)
        if isinstance(it, Instruction) and it.opcode in ENDS_BLOCK:
            b += 1
    return block


def _occurrences(items: list) -> dict[str, list[tuple[int, int]]]:
    """Every occurrence of every register name: (item index, operand index; -1: the guard)."""
    occ: dict[str, list[tuple[int, int]]] = {}
    for i, it in enumerate(items):
        if isinstance(it, Instruction):
            if it.guard:
                occ.setdefault(it.guard, []).append((i, -1))
            for k, op in enumerate(it.operands):
                for n in _names(op):
                    occ.setdefault(n, []).append((i, k))
    return occ


def negate_products(items: list) -> list:
    """`mul d, a, b; neg n, d` (d used by the neg alone, same block) -> `neg d, a; mul n, d, b`:
    the same value, -(a*b) == (-a)*b, written as a product that can then fuse (ptxas: FFMA -a, b, c)."""
    block = _blocks(items)
    occ = _occurrences(items)
    moves: dict[int, int] = {}
    for j, it in enumerate(items):
        if not (isinstance(it, Instruction) and it.opcode == "neg" and it.guard is None
                and len(it.suffixes) == 1 and it.suffixes[0] in FUSIBLE_TYPES and len(it.operands) == 2
                and it.operands[1].kind == "reg" and it.operands[0].kind == "reg"):
            continue
        d = it.operands[1].name
        where = occ.get(d, [])
        if len(where) != 2:
            continue
        (mi, mk), (ni, nk) = sorted(where)
        m = items[mi]
        if not (ni == j and nk == 1 and mk == 0 and _is_mul(m) and _type(m) == it.suffixes[0]
                and block[mi] == block[j] and m.operands[1].kind == "reg"):
            continue
        sources = {n for op in m.operands[1:] for n in _names(op)}
        if any(sources & _written(items[x]) for x in range(mi + 1, j) if isinstance(items[x], Instruction)):
            continue
        moves[mi] = j
    if not moves:
        return items
    out = list(items)
    for mi, j in moves.items():
        m, n = items[mi], items[j]
        tmp = m.operands[0]
        out[mi] = Instruction("neg", [_type(m)], [tmp, m.operands[1]], m.loc, text=f"neg.{_type(m)} {tmp.name}, {m.operands[1].name};")
        out[j] = Instruction("mul", list(m.suffixes), [n.operands[0], tmp, m.operands[2]], n.loc,
                             text=f"mul.{'.'.join(m.suffixes)} {n.operands[0].name}, -a, b;  // -(a*b) of line {m.loc.line}")
    return out


def flip_selected_negations(items: list) -> list:
    """`neg.f32 n, a` / `abs.f32 n, a` (no .ftz, n set once) whose every use is a value operand of
    `selp.f32` or the source of another such neg / abs -> `xor.b32 n, a, 0x80000000` /
    `and.b32 n, a, 0x7fffffff`: ptxas folds them into the select as operand modifiers (`FSEL R13,
    -R4, -RZ, P1`, `FSEL R15, R15, -R15, !P0`, copysignf's `FSEL R2, -|R0|, |R0|, !P3`), sign-bit
    operations that keep a NaN's payload, where neg.f32 / abs.f32 on their own (FADD -a, -RZ) give
    the canonical NaN (generated corpus k08212, k06400, k08508: -fdimf(x, y), -fmaxf(x, x) of a
    NaN; k00613: copysignf(f1, y) of a NaN f1)."""
    occ = _occurrences(items)
    cand = {}
    for j, it in enumerate(items):
        if (isinstance(it, Instruction) and it.opcode in ("neg", "abs") and it.guard is None and it.suffixes == ["f32"]
                and len(it.operands) == 2 and it.operands[0].kind == "reg" and it.operands[1].kind == "reg"):
            n = it.operands[0].name
            if sum(1 for i, k in occ.get(n, []) if k == 0) == 1:
                cand[n] = j

    def folds(n: str) -> bool:
        uses = [(i, k) for i, k in occ.get(n, []) if (i, k) != (cand[n], 0)]
        for i, k in uses:
            u = items[i]
            if not isinstance(u, Instruction) or k == 0:
                return False
            if u.opcode == "selp" and u.suffixes == ["f32"] and k in (1, 2):
                continue
            if k == 1 and u.operands[0].kind == "reg" and cand.get(u.operands[0].name) == i:
                continue                    # the source of a neg / abs that folds too
            return False
        return bool(uses)

    while True:
        drop = [n for n in cand if not folds(n)]
        if not drop:
            break
        for n in drop:
            del cand[n]
    out = list(items)
    for n, j in cand.items():
        it = items[j]
        neg = it.opcode == "neg"
        out[j] = Instruction("xor" if neg else "and", ["b32"],
                             [it.operands[0], it.operands[1], Operand("imm", it.loc, value=0x80000000 if neg else 0x7FFFFFFF)],
                             it.loc, text=f"{'xor' if neg else 'and'}.b32 {n}, {it.operands[1].name}, "
                                          f"{'0x80000000' if neg else '0x7fffffff'};  // ptxas: FSEL with {'-a' if neg else '|a|'}")
    return out


ORDERED_TO_UNORDERED = {"gt": "gtu", "ge": "geu", "lt": "ltu", "le": "leu"}
SWAPPED = {"gt": "lt", "ge": "le", "lt": "gt", "le": "ge"}


def _f32_constant(op: Operand, consts: dict) -> float | None:
    """The value of an f32 literal operand or of a register set once by a mov of one (None: neither)."""
    import struct
    if op.kind == "reg":
        op = consts.get(op.name)
        if op is None:
            return None
    bits = _immediate_bits(op, "f32") if op.kind in ("imm", "fimm") else None
    if bits is None:
        return None
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


def fold_range_compares(items: list) -> list:
    """ptxas's range folds of f32 compares (measured on ptxas 13 for sm_90, docs/ptx-subset.md): it
    bounds an f32 value as if it were never NaN, and folds an ordered compare its bounds decide to
    true, so a NaN compares true where setp gives false (`f2u(fabsf(x))`: `setp.gt.f32 p, |x|, -1.0`
    is true for a NaN x; generated corpus k09729).  The bounds, over every definition of a register:
      abs.f32 (not .ftz) and ex2.approx[.ftz].f32: [0, +inf];  neg: [-hi, -lo];  a mov of a constant
      or of a bounded register;  add/sub.f32 without a rounding modifier (.ftz allowed): the sum of
      the bounds;  min/max/selp.f32 of two bounded operands: their union.
      Not bounded: mul, fma, sqrt, rcp, div, cvt, add/sub with a rounding modifier, abs.ftz.
    Folded to true (written here as the unordered compare, true for a NaN and the same otherwise):
    setp.gt.f32 v, c with c < lo, setp.ge.f32 v, c with c <= lo, setp.lt.f32 v, c with c > hi, and
    the same with the operands swapped (c < v, c <= v, c > v); c a finite constant; .ftz allowed, no
    boolean operation (setp.gt.and ptxas keeps).  Not folded by ptxas: v <= c from an upper bound;
    f64 and f16 compares.  The folds that give false agree with setp on a NaN and need nothing."""
    consts: dict[str, Operand] = {}
    defs: dict[str, list[Instruction]] = {}
    for it in items:
        if isinstance(it, Instruction) and it.operands:
            for n in _written(it):
                defs.setdefault(n, []).append(it)
    for n, ds in defs.items():
        it = ds[0]
        if (len(ds) == 1 and it.opcode == "mov" and it.guard is None and len(it.operands) == 2
                and it.operands[1].kind in ("imm", "fimm")):
            consts[n] = it.operands[1]
    inf = float("inf")
    bounds: dict[str, tuple[float, float]] = {}

    def bound(op: Operand):
        if op.kind == "reg":
            if op.name in bounds:
                return bounds[op.name]
        c = _f32_constant(op, consts)
        if c is None or c != c:
            return None
        return (c, c)

    def of(it: Instruction):
        """The bounds one definition gives its destination (None: unbounded)."""
        ty = it.suffixes[-1] if it.suffixes else ""
        mods = set(it.suffixes[:-1])
        ops = it.operands
        if ty != "f32" or ops[0].kind != "reg" or ops[0].extra is not None:
            return None
        if it.opcode == "abs" and not mods and len(ops) == 2:
            return (0.0, inf)
        if it.opcode == "ex2" and mods <= {"approx", "ftz"} and "approx" in mods and len(ops) == 2:
            return (0.0, inf)
        if it.opcode == "neg" and not mods and len(ops) == 2:
            b = bound(ops[1])
            return None if b is None else (-b[1], -b[0])
        if it.opcode == "mov" and len(ops) == 2:
            return bound(ops[1])
        if it.opcode in ("add", "sub") and mods <= {"ftz"} and len(ops) == 3:
            a, b = bound(ops[1]), bound(ops[2])
            if a is None or b is None:
                return None
            if it.opcode == "sub":
                b = (-b[1], -b[0])
            return (a[0] + b[0], a[1] + b[1])
        if it.opcode in ("min", "max", "selp") and not mods and len(ops) in (3, 4):
            a, b = bound(ops[1]), bound(ops[2])
            if a is None or b is None:
                return None
            return (min(a[0], b[0]), max(a[1], b[1]))
        return None

    changed = True
    while changed:                      # to a fixed point; a register in a cycle stays unbounded
        changed = False
        for n, ds in defs.items():
            if n in bounds or n in consts:
                continue
            got = [of(d) for d in ds]
            if got and None not in got:
                bounds[n] = (min(g[0] for g in got), max(g[1] for g in got))
                changed = True
    if not bounds:
        return items
    out = []
    for it in items:
        if (isinstance(it, Instruction) and it.opcode == "setp" and len(it.operands) == 3 and it.suffixes
                and it.suffixes[-1] == "f32" and it.suffixes[0] in ORDERED_TO_UNORDERED
                and set(it.suffixes[1:-1]) <= {"ftz"}):
            cmp, a, b = it.suffixes[0], it.operands[1], it.operands[2]
            if b.kind == "reg" and b.name in bounds and not (a.kind == "reg" and a.name in bounds):
                cmp, a, b = SWAPPED[cmp], b, a          # c < v is v > c
            c = _f32_constant(b, consts) if a.kind == "reg" and a.name in bounds else None
            if c is not None and abs(c) != inf and c == c:
                lo, hi = bounds[a.name]
                if (cmp == "gt" and c < lo) or (cmp == "ge" and c <= lo) or (cmp == "lt" and c > hi):
                    new = [ORDERED_TO_UNORDERED[it.suffixes[0]]] + list(it.suffixes[1:])
                    it = replace(it, suffixes=new,
                                 text=f"setp.{'.'.join(new)} ...;  // ptxas folds {it.text.strip() or 'setp'} to true")
        out.append(it)
    return out


INT_CMP = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b,
           "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
           "lo": lambda a, b: a < b, "ls": lambda a, b: a <= b, "hi": lambda a, b: a > b, "hs": lambda a, b: a >= b}


def _int_value(ins: Instruction, ops: list, width: int, signed: bool):
    """The value an integer instruction computes from known operand values (None: not folded here)."""
    m = (1 << width) - 1
    op = ins.opcode
    mods = set(ins.suffixes[:-1])
    if op == "mov" and len(ops) == 1:
        return ops[0] & m
    if op in ("add", "sub", "and", "or", "xor", "shl", "shr") and len(ops) == 2 and not mods:
        a, b = ops[0] & m, ops[1] & m
        if op == "add":
            return (a + b) & m
        if op == "sub":
            return (a - b) & m
        if op == "and":
            return a & b
        if op == "or":
            return a | b
        if op == "xor":
            return a ^ b
        n = ops[1] & 0xFFFFFFFF
        if op == "shl":
            return (a << n) & m if n < width else 0
        if signed and a >> (width - 1):
            return ((a - (1 << width)) >> min(n, width - 1)) & m
        return a >> n if n < width else 0
    if op == "not" and len(ops) == 1:
        return ~ops[0] & m
    if op == "popc" and len(ops) == 1:
        return bin(ops[0] & m).count("1")
    if op == "clz" and len(ops) == 1:
        return width - (ops[0] & m).bit_length()
    if op == "brev" and len(ops) == 1:
        return int(format(ops[0] & m, f"0{width}b")[::-1], 2)
    if op == "bfind" and len(ops) == 1 and mods <= {"shiftamt"}:
        a = ops[0] & m
        if signed and a >> (width - 1):
            a = ~a & m                              # negative: the most significant 0 bit
        if a == 0:
            return 0xFFFFFFFF
        pos = a.bit_length() - 1
        return (width - 1 - pos) if "shiftamt" in mods else pos
    return None


def fold_constant_selects(items: list) -> list:
    """ptxas folds integer code on constants (a register set once by a `mov` of an immediate, then
    add/sub/and/or/xor/shl/shr/not/popc/clz/brev/bfind and an integer setp of such values), so a
    `selp` whose predicate is then known is the operand it picks: written here as a `mov` of it, so
    that a literal it picks counts as one for the literal rules (`sub.f64 d, a, LIT` is `DADD d, a,
    -LIT`: `__ffs(0x7fffffff) & 768 ? p0 : NaN` then `x - that` gives the negated NaN on the H100;
    generated corpus k02509).  Only registers written once, by unguarded instructions; the integer
    instructions stay as they are (they compute the same values)."""
    defs: dict[str, int] = {}
    for it in items:
        if isinstance(it, Instruction) and it.operands:
            for n in _written(it):
                defs[n] = defs.get(n, 0) + 1
    known: dict[str, int] = {}

    def value(op: Operand):
        if op.kind == "imm":
            return int(op.value)
        if op.kind == "reg" and not op.negate:
            return known.get(op.name)
        return None

    changed = True
    while changed:
        changed = False
        for it in items:
            if (not isinstance(it, Instruction) or it.guard is not None or not it.operands
                    or it.operands[0].kind != "reg" or it.operands[0].extra is not None
                    or defs.get(it.operands[0].name) != 1 or it.operands[0].name in known or not it.suffixes):
                continue
            ty = it.suffixes[-1]
            if ty[:1] not in "bus" or ty[1:] not in ("32", "64"):
                continue
            ops = [value(op) for op in it.operands[1:]]
            if None in ops:
                continue
            width, signed = int(ty[1:]), ty[0] == "s"
            if it.opcode == "setp":
                if len(ops) != 2 or len(it.suffixes) != 2 or it.suffixes[0] not in INT_CMP:
                    continue
                m = (1 << width) - 1
                a, b = ops[0] & m, ops[1] & m
                if signed:
                    a, b = (a - (1 << width) if a >> (width - 1) else a), (b - (1 << width) if b >> (width - 1) else b)
                known[it.operands[0].name] = int(INT_CMP[it.suffixes[0]](a, b))
                changed = True
                continue
            v = _int_value(it, ops, width, signed)
            if v is not None:
                known[it.operands[0].name] = v
                changed = True
    if not known:
        return items
    out = []
    for it in items:
        if (isinstance(it, Instruction) and it.opcode == "selp" and it.guard is None and len(it.operands) == 4
                and it.operands[3].kind == "reg" and not it.operands[3].negate and it.operands[3].name in known
                and len(it.suffixes) == 1):
            pick = it.operands[1] if known[it.operands[3].name] else it.operands[2]
            it = Instruction("mov", list(it.suffixes), [it.operands[0], pick], it.loc,
                             text=f"mov.{it.suffixes[0]} ...;  // ptxas folds {it.text.strip() or 'selp'} on a constant predicate")
        out.append(it)
    return out


def contract_instructions(items: list) -> list:
    """The body with ptxas's mul+add contraction and self-min/max folding applied."""
    items = fold_constant_selects(fold_range_compares(list(items)))
    items = flip_selected_negations(negate_products(fold_identities(items)))
    block = _blocks(items)
    occurrences = _occurrences(items)
    muls = {it.operands[0].name: i for i, it in enumerate(items)
            if isinstance(it, Instruction) and _is_mul(it)}

    def compatible(mi: int, ai: int, k: int) -> bool:
        m, a = items[mi], items[ai]
        if not (isinstance(a, Instruction) and _is_add(a) and k in (1, 2)):
            return False
        if _type(a) != _type(m) or ("ftz" in _mods(a)) != ("ftz" in _mods(m)) or block[ai] != block[mi] or ai <= mi:
            return False
        if a.operands[1].kind == "reg" and a.operands[2].kind == "reg" and a.operands[1].name == a.operands[2].name:
            return False                    # x*y + x*y: ptxas keeps the mul and adds
        sources = {n for op in m.operands[1:] for n in _names(op)}
        return not any(sources & _written(items[j]) for j in range(mi + 1, ai) if isinstance(items[j], Instruction))

    # candidates: muls whose every other occurrence is a compatible add/sub operand
    cand = {}
    for d, mi in muls.items():
        uses = [(i, k) for i, k in occurrences[d] if not (i == mi and k == 0)]
        if uses and all(compatible(mi, i, k) for i, k in uses):
            cand[d] = (mi, uses)
    # an add with two candidate products fuses its first; the other then has a use that stays
    while True:
        chosen: dict[int, str] = {}
        for d, (mi, uses) in cand.items():
            for i, k in uses:
                other = items[i].operands[3 - k]
                if k == 2 and other.kind == "reg" and other.name in cand:
                    continue
                chosen[i] = d
        drop = [d for d, (mi, uses) in cand.items() if any(chosen.get(i) != d for i, _ in uses)]
        if not drop:
            break
        for d in drop:
            del cand[d]
    if not cand:
        return items
    out = []
    dead = {mi for mi, _ in cand.values()}
    for i, it in enumerate(items):
        if i in dead:
            continue
        d = chosen.get(i)
        if d is None:
            out.append(it)
            continue
        m = items[cand[d][0]]
        x, y = m.operands[1], m.operands[2]
        if x.kind != "reg" and y.kind == "reg":
            x, y = y, x                     # the register first: it is the one negated
        dst, p, q = it.operands
        k = 1 if p.kind == "reg" and p.name == d else 2
        c = q if k == 1 else p
        mods = [s for s in it.suffixes[:-1] if s in ("ftz", "sat")]
        fma_suffixes = ["rn"] + mods + [_type(it)]
        tmp = _reg(d, m.operands[0])
        note = f"  // ptxas contraction of line {m.loc.line}"
        if it.opcode == "sub" and k == 1:      # a*b - c = fma(a, b, -c)
            out.append(Instruction("neg", [_type(it)], [tmp, c], it.loc, text=f"neg.{_type(it)} {d}, -c;{note}"))
            c = tmp
        elif it.opcode == "sub":                # c - a*b = fma(-a, b, c)
            out.append(Instruction("neg", [_type(it)], [tmp, x], it.loc, text=f"neg.{_type(it)} {d}, -a;{note}"))
            x = tmp
        text = f"fma.{'.'.join(fma_suffixes)} {dst.name}, a, b, c;{note}"
        out.append(Instruction("fma", fma_suffixes, [dst, x, y, c], it.loc, text=text))
    return out


MOV_TYPE = {"f32": "f32", "f64": "f64", "f16": "b16", "bf16": "b16", "f16x2": "b32"}
ONE_BITS = {"f16": 0x3C00, "bf16": 0x3F80, "f32": 0x3F800000, "f64": 0x3FF0000000000000}


def _immediate_bits(op: Operand, ty: str) -> int | None:
    """The bits of an immediate operand as a value of float type ty (None: not an immediate)."""
    import struct
    if op.kind == "imm":
        return int(op.value) & ((1 << (64 if ty == "f64" else 32)) - 1)
    if op.kind == "fimm":
        t = op.text.lower()
        if t.startswith(("0f", "0d")):
            return int(t[2:], 16)
        if ty == "f64":
            return struct.unpack("<Q", struct.pack("<d", float(op.value)))[0]
        if ty == "f32":
            return struct.unpack("<I", struct.pack("<f", float(op.value)))[0]
    return None


NEG_ZERO_F64 = 1 << 63


def _literal_bits(op: Operand, consts: dict) -> int | None:
    """The f64 bits of a literal operand, or of a register set once by a mov of one (None: neither)."""
    if op.kind == "reg":
        op = consts.get(op.name)
        if op is None:
            return None
    if op.kind != "fimm":
        return None
    return _immediate_bits(op, "f64")


def fold_identities(items: list) -> list:
    """The identities ptxas folds whose result differs from the instruction's on a NaN (the operand's
    payload kept where the instruction gives the canonical NaN), measured on ptxas 13 for sm_90:
      min/max .f32/.f64/.f16/.f16x2 (no modifier) of a register with itself -> the register (not bf16);
      mul .f16/.bf16/.f32/.f64 (no modifier) by 1.0, an immediate or a register set once by a mov of
      one -> the other operand.
      cvt.rn.{f16,bf16}.{f32,f64} of a constant NaN (a register set once by a mov of one) -> 0x7fff;
      cvt.{f32,f64}.{f16,bf16} of a constant NaN -> 0x7fffffff (f64: 0x7fffffffe0000000).
      A fold into a constant counts as a constant for the folds after it (a chain of conversions).
      mul.f64 (any rounding) of -0.0 and a literal (or registers set once to them) -> 0.0 times the
      negated literal (ptxas: DMUL RZ, -LITERAL), so a NaN literal goes on negated.
    Not folded (and not here): x + 0, x - 0, x + -0, mul.rn by 1, min.ftz(x, x), x * -1 (a negation)."""
    consts: dict[str, Operand] = {}
    defs: dict[str, int] = {}
    for it in items:
        if isinstance(it, Instruction) and it.operands:
            for n in _written(it):
                defs[n] = defs.get(n, 0) + 1
            if (it.opcode == "mov" and it.guard is None and len(it.operands) == 2
                    and it.operands[0].kind == "reg" and it.operands[1].kind in ("imm", "fimm")):
                consts[it.operands[0].name] = it.operands[1]
    consts = {n: v for n, v in consts.items() if defs.get(n) == 1}

    def is_one(op: Operand, ty: str) -> bool:
        if op.kind == "reg":
            op = consts.get(op.name)
            if op is None:
                return False
        return _immediate_bits(op, ty) == ONE_BITS[ty]

    def is_nan_constant(op: Operand, ty: str) -> bool:
        if op.kind == "reg":
            op = consts.get(op.name)
            if op is None:
                return False
        bits = _immediate_bits(op, ty)
        if bits is None:
            return False
        if ty == "f64":
            return (bits >> 52) & 0x7FF == 0x7FF and bits & ((1 << 52) - 1) != 0
        if ty == "f16":
            return (bits >> 10) & 0x1F == 0x1F and bits & 0x3FF != 0
        if ty == "bf16":
            return (bits >> 7) & 0xFF == 0xFF and bits & 0x7F != 0
        return (bits >> 23) & 0xFF == 0xFF and bits & ((1 << 23) - 1) != 0

    out = []
    alias: dict[str, str] = {}             # register -> the register it copies, within a block

    def root(op: Operand) -> str:
        return alias.get(op.name, op.name)

    for it in items:
        if isinstance(it, Label) or (isinstance(it, Instruction) and it.opcode in ENDS_BLOCK):
            alias.clear()
        out_len = len(out)
        _fold_one(it, out, consts, is_one, is_nan_constant, root)
        new = out[out_len] if len(out) > out_len else None
        if isinstance(new, Instruction):
            for w in _written(new):
                alias.pop(w, None)
                for k in [k for k, v in alias.items() if v == w]:
                    del alias[k]
            if (new.opcode == "mov" and new.guard is None and len(new.operands) == 2
                    and new.operands[0].kind == "reg" and new.operands[1].kind == "reg"):
                alias[new.operands[0].name] = root(new.operands[1])
            if (new is not it and new.opcode == "mov" and len(new.operands) == 2 and new.operands[0].kind == "reg"
                    and new.operands[1].kind in ("imm", "fimm") and defs.get(new.operands[0].name) == 1):
                # a fold into a constant feeds the next ones, as ptxas propagates constants:
                # cvt.f32.bf16 of cvt.rn.bf16.f32 of a constant NaN is 0x7fffffff (corpus k03126)
                consts[new.operands[0].name] = new.operands[1]
    return out


def _fold_one(it, out, consts, is_one, is_nan_constant, root) -> None:
    """Append `it`, or its folded form, to out (fold_identities)."""
    if True:
        if (isinstance(it, Instruction) and it.opcode == "cvt" and it.guard is None and len(it.operands) == 2
                and it.operands[0].kind == "reg" and len(it.suffixes) >= 2
                and it.suffixes[-2] in ("f16", "bf16") and it.suffixes[-1] in ("f32", "f64")
                and set(it.suffixes[:-2]) <= {"rn"} and is_nan_constant(it.operands[1], it.suffixes[-1])):
            # ptxas folds the conversion of a constant NaN to the canonical half NaN 0x7fff, where
            # F2F.F16.F64 at run time narrows the payload (generated corpus k05725)
            out.append(Instruction("mov", ["b16"], [it.operands[0], Operand("imm", it.loc, value=0x7FFF)], it.loc,
                                   text=f"mov.b16 {it.operands[0].name}, 0x7FFF;  // ptxas folds cvt of a constant NaN"))
            return
        if (isinstance(it, Instruction) and it.opcode == "cvt" and it.guard is None and len(it.operands) == 2
                and it.operands[0].kind == "reg" and len(it.suffixes) == 2
                and it.suffixes[0] in ("f32", "f64") and it.suffixes[1] in ("f16", "bf16")
                and is_nan_constant(it.operands[1], it.suffixes[1])):
            # widening a constant half NaN: ptxas folds it to the canonical float NaN (f64: that
            # NaN widened), where cvt.f32.bf16 at run time shifts the bits (generated corpus k08926)
            wide = it.suffixes[0] == "f64"
            out.append(Instruction("mov", ["b64" if wide else "b32"],
                                   [it.operands[0], Operand("imm", it.loc, value=0x7FFFFFFFE0000000 if wide else 0x7FFFFFFF)],
                                   it.loc, text="mov of the canonical NaN;  // ptxas folds cvt of a constant NaN"))
            return
        if (isinstance(it, Instruction) and it.opcode == "mul" and it.guard is None and it.suffixes
                and it.suffixes[-1] == "f64" and set(it.suffixes[:-1]) <= ROUNDING and len(it.operands) == 3
                and it.operands[0].kind == "reg"):
            # -0.0 times a literal: ptxas writes DMUL RZ, -LITERAL (the zero's sign moved into the
            # immediate, any rounding), so a NaN literal goes on negated (generated corpus k03618)
            bits = [_literal_bits(op, consts) for op in it.operands[1:]]
            if None not in bits and NEG_ZERO_F64 in bits:
                other = bits[1] if bits[0] == NEG_ZERO_F64 else bits[0]
                zero = Operand("fimm", it.loc, value=0.0, text="0d0000000000000000")
                lit = Operand("fimm", it.loc, text=f"0d{other ^ NEG_ZERO_F64:016X}")
                out.append(Instruction("mul", list(it.suffixes), [it.operands[0], zero, lit], it.loc,
                                       text=f"mul.{'.'.join(it.suffixes)} {it.operands[0].name}, 0d0000000000000000, "
                                            f"{lit.text};  // ptxas: -0.0 * literal is RZ * -literal"))
                return
        if (isinstance(it, Instruction) and it.guard is None and len(it.suffixes) == 1
                and len(it.operands) == 3 and it.operands[0].kind == "reg"):
            ty = it.suffixes[0]
            a, b = it.operands[1], it.operands[2]
            src = None
            if (it.opcode in ("min", "max") and ty in FOLD_SELF_MIN_MAX and a.kind == "reg" and b.kind == "reg"
                    and root(a) == root(b)):
                src = a
            elif it.opcode == "mul" and ty in ONE_BITS:
                if is_one(b, ty) and a.kind == "reg":
                    src = a
                elif is_one(a, ty) and b.kind == "reg":
                    src = b
            if src is not None:
                mov_ty = MOV_TYPE[ty]
                it = Instruction("mov", [mov_ty], [it.operands[0], src], it.loc,
                                 text=f"mov.{mov_ty} {it.operands[0].name}, {src.name};  // ptxas folds {it.text.strip() or it.opcode}")
        out.append(it)
    return out


def contract_kernel(kernel: Kernel) -> Kernel:
    if kernel.error is not None:
        return kernel
    return replace(kernel, body=contract_instructions(kernel.body))


def contract_module(module: Module) -> Module:
    """A copy of the module whose kernels and device functions have ptxas's contractions."""
    return replace(module, kernels={n: contract_kernel(k) for n, k in module.kernels.items()},
                   funcs={n: contract_kernel(f) for n, f in module.funcs.items()})
