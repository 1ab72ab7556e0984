"""Strict SASS lowering: every modifier word and operand attribute of an instruction is understood
(consumed by the lowering) or the instruction is refused by name, never silently dropped (issue 61).

isa/sass_modifiers.yaml is the prescriptive table (loaded by simt_sim/isa/sass_table.py): the meaning
of every modifier word and operand form once, and per opcode family the words and forms it accepts,
with per-opcode meanings where a word means something else there.  lower_instruction
(frontend/sass_lower.py) runs `checked_lowering`:

1. before lowering, every modifier word must be one the family accepts and every operand attribute
   (-x, |x|, ~x, !P, .H0_H0, .H1, .B2, .64, desc[..], ...) one of the family's operand forms;
2. the lowering sees the instruction's modifiers as a `Modifiers` tuple that records every word it
   asks about (`"X" in mods`, `mods.pick(mapping)`); `sass_flags` (the E.SM_* flags path) consumes a
   word only when the family's entry says its semantics read that flag (`flags:`); words the table
   declares without effect in the simulator (cache hints, .E addressing: `no_effect`, or an opcode's
   `implicit` words, the semantics' default) are consumed automatically;
3. after lowering, a word nobody consumed is an error naming the opcode, the word and the pc.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping

from simt_sim.frontend.sass import SassInstruction
from simt_sim.isa import encoding as E


class Modifiers(tuple):
    """An instruction's modifier words (a tuple, as before) that records which words the lowering
    consumed: a membership test that succeeds, `pick`, `picks`, or equality with a tuple."""

    def __new__(cls, words: Iterable[str], family: str = ""):
        obj = super().__new__(cls, tuple(words))
        obj.family = family
        obj.used = set()
        return obj

    def __contains__(self, word) -> bool:
        hit = tuple.__contains__(self, word)
        if hit:
            self.used.add(word)
        return hit

    def __eq__(self, other):
        same = tuple.__eq__(self, other)
        if same is True:
            self.used.update(self)
        return same

    def __ne__(self, other):
        same = self.__eq__(other)
        return same if same is NotImplemented else not same

    __hash__ = tuple.__hash__

    def pick(self, mapping: Mapping[str, object] | Iterable[str], default=None):
        """The value (of a mapping; the word itself for a set or tuple of words) of the first word of
        the instruction that `mapping` names, consumed; `default` when none is there."""
        for word in tuple.__iter__(self):
            if word in mapping:
                self.used.add(word)
                return mapping[word] if isinstance(mapping, Mapping) else word
        return default

    def picks(self, words: Iterable[str]) -> list[str]:
        """Every word of the instruction that is in `words`, in order, consumed."""
        wanted = set(words)
        found = [w for w in tuple.__iter__(self) if w in wanted]
        self.used.update(found)
        return found

    def consume(self, *words: str) -> None:
        """Mark words consumed whose meaning the lowering realises without testing them one by one."""
        self.used.update(w for w in words if tuple.__contains__(self, w))


@dataclass(frozen=True)
class TrackedInstruction(SassInstruction):
    """A SassInstruction whose `modifiers` is one Modifiers object for the whole lowering (kept by
    dataclasses.replace, as lower_p2r does)."""
    tracker: Modifiers | None = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        if self.tracker is None:
            object.__setattr__(self, "tracker", Modifiers(self.opcode.split(".")[1:], self.opcode.split(".")[0]))

    @property
    def modifiers(self) -> Modifiers:      # type: ignore[override]
        return self.tracker


def tracked(inst: SassInstruction) -> TrackedInstruction:
    if isinstance(inst, TrackedInstruction):
        return inst
    return TrackedInstruction(inst.pc, inst.predicate, inst.opcode, inst.operands, inst.encoding, inst.control,
                              inst.control_flow, inst.ptx_line)


def pick(mods: tuple[str, ...], mapping, default=None):
    """Modifiers.pick for the lowering, also on a plain tuple of words (callers outside lower_instruction)."""
    if isinstance(mods, Modifiers):
        return mods.pick(mapping, default)
    word = next((w for w in mods if w in mapping), None)
    if word is None:
        return default
    return mapping[word] if isinstance(mapping, Mapping) else word


def picks(mods: tuple[str, ...], words) -> list[str]:
    """Modifiers.picks, also on a plain tuple."""
    if isinstance(mods, Modifiers):
        return mods.picks(words)
    wanted = set(words)
    return [w for w in mods if w in wanted]


def flags_of(mods: tuple[str, ...]) -> int:
    """E.SM_* flags of the modifier words (sass_lower.sass_flags).  On a Modifiers tuple a word is
    consumed only when its family's entry in isa/sass_modifiers.yaml says the family's semantics
    read that flag; the flag is set either way (a flag no semantics reads changes nothing)."""
    flags = 0
    reads = ()
    if isinstance(mods, Modifiers):
        from simt_sim.isa.sass_table import modifier_table
        spec = modifier_table().opcodes.get(mods.family)
        reads = spec.flags if spec is not None else ()
    for word in tuple.__iter__(mods):
        flag = E.SASS_MODIFIER_FLAG.get(word, 0)
        flags |= flag
        if flag and word in reads:
            mods.used.add(word)
    return flags


# ---- operand attributes -------------------------------------------------------------------------

_NUMBER_RE = re.compile(r"^[+-]?(0x[0-9a-f]+|\d+\.?\d*(e[+-]?\d+)?|INF|QNAN|SNAN|NAN)$", re.I)
_SUFFIX_FORMS = (".H0_H0", ".H1_H1", ".H0_NH1", ".H0_H1", ".H1_H0", ".H0", ".H1", ".B0", ".B1", ".B2", ".B3", ".64")


def _prefixes(t: str, forms: list[str]) -> str:
    """Strip the leading -, ~ and ! of an operand (a minus of a literal is the literal's)."""
    while t and t[0] in "-~!" and not _NUMBER_RE.match(t):
        forms.append({"-": "-x", "~": "~x", "!": "!P"}[t[0]])
        t = t[1:]
    return t


def operand_forms(text: str) -> list[str]:
    """The attributes of one printed operand, as the form names of isa/sass_modifiers.yaml:
    '-|R2|.reuse' -> ['.reuse', '-x', '|x|'].  Literals, labels, addresses' insides and register
    lists have none (a leading minus of a number is part of the literal)."""
    t = text.strip()
    forms: list[str] = []
    if t.startswith("desc["):
        forms.append("desc[UR]")
        return forms
    if t.startswith("32@lo(") or t.startswith("32@hi("):     # 32@lo((k10400 + 0x3b0))
        forms.append(t[:6] + "SYM+OFF)")
        return forms
    if t.startswith("[") or t.startswith("{") or t.startswith("`") or _NUMBER_RE.match(t):
        return forms
    if ".reuse" in t:                            # R2.reuse, |R2|.reuse, R2.reuse.H0_H0
        forms.append(".reuse")
        t = t.replace(".reuse", "")
    t = _prefixes(t, forms)
    if not t.startswith("SR_"):                  # SR_TID.X names a special register
        for suffix in _SUFFIX_FORMS:
            if t.endswith(suffix):
                forms.append(suffix)
                t = t[: -len(suffix)]
                break
    if len(t) > 1 and t.startswith("|") and t.endswith("|"):
        forms.append("|x|")
        _prefixes(t[1:-1], forms)
    return forms


# ---- the check ----------------------------------------------------------------------------------

def check_accepted(inst: SassInstruction, error: Callable[[str], Exception]) -> None:
    """Every modifier word and operand form of `inst` is one its family accepts (before lowering)."""
    from simt_sim.isa.sass_table import modifier_table
    table = modifier_table()
    family = inst.family
    spec = table.opcodes.get(family)
    if spec is None:
        raise error(f"opcode {family} has no entry in isa/sass_modifiers.yaml (the modifiers and operand "
                    "forms it accepts), so it is not lowered")
    for word in inst.opcode.split(".")[1:]:
        if word not in spec.modifiers:
            accepted = " ".join("." + w for w in sorted(spec.modifiers)) or "none"
            raise error(f"modifier .{word} of {family} is not understood by the simulator "
                        f"({family} accepts: {accepted}; isa/sass_modifiers.yaml)")
    for k, text in enumerate(inst.operands):
        for form in operand_forms(text):
            if form in table.no_effect_forms or form in spec.operands:
                continue
            meaning = table.forms.get(form, "")
            raise error(f"operand form {form}{f' ({meaning})' if meaning else ''} of operand {k} {text!r} is "
                        f"not understood by the simulator for {family} "
                        f"({family} accepts: {' '.join(sorted(spec.operands)) or 'no operand modifiers'})")


def check_consumed(inst: TrackedInstruction, error: Callable[[str], Exception]) -> None:
    """After lowering: every modifier word was consumed (tested by the lowering, set as a flag the
    family's semantics read, or declared without effect)."""
    from simt_sim.isa.sass_table import modifier_table
    table = modifier_table()
    spec = table.opcodes[inst.family]
    mods = inst.modifiers
    for word in dict.fromkeys(tuple.__iter__(mods)):
        if word in mods.used or word in spec.implicit or (word in table.no_effect and word not in spec.meanings):
            continue
        raise error(f"modifier .{word} of {inst.opcode} ({spec.meaning_of(word, table)}) is not consumed by "
                    f"the lowering of {inst.family}: the simulator would ignore it, so the instruction is refused")


def check_opcode(inst: SassInstruction, error: Callable[[str], Exception]) -> None:
    """An opcode NVIDIA's Hopper table lists as refused here (isa/sass_hopper.yaml), or one that is no
    sm_90 opcode at all, stops with a clear error naming it."""
    from simt_sim.isa.sass_table import hopper_table, sass_table
    family = inst.family
    entry = hopper_table().get(family)
    if entry is not None and entry.status == "refused":
        raise error(f"opcode {family} ({entry.description}) is not simulated: {entry.reason}")
    if entry is None and sass_table().family(inst.opcode) is None:
        raise error(f"opcode {family} is not an sm_90 opcode the simulator knows: it is in neither NVIDIA's "
                    "Hopper instruction table (isa/sass_hopper.yaml) nor isa/sass.yaml")


def checked_lowering(b, inst: SassInstruction, lower: Callable) -> object:
    """lower(b, tracked instruction) between the acceptance and consumption checks."""
    t = tracked(inst)
    b.inst = t
    check_opcode(t, b.error)
    check_accepted(t, b.error)
    row = lower(b, t)
    done = b.inst if isinstance(b.inst, TrackedInstruction) else t
    if done is not t:
        done.tracker.used.update(t.tracker.used)
    check_consumed(done, b.error)
    return row
