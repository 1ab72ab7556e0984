"""Load isa/sass.yaml: the SASS opcode families ptxas emits for sm_90, each with its semantics
class, its pipe as Nsight Compute names it, fixed or variable latency and the modifier words seen.

The table is data (issue 12, point 2): `simt-sim disasm --isa sass` prints pipes from it and
docs/sass.md is generated from it (simt_sim/isa/sass_doc.py).  A family is the opcode before its
first dot (`ISETP.GE.U32.AND` -> ISETP, modifiers GE, U32, AND).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path


from simt_sim.errors import InputError, SourceLoc
from simt_sim.isa.table import ISA_DIR, SASS_TABLE_FILE, read_table

LATENCIES = ("fixed", "variable")
REQUIRED_KEYS = ("name", "class", "pipe", "latency", "meaning")


@dataclass(frozen=True)
class SassOp:
    name: str                    # the family: LDG, IMAD, ...
    semantics: str               # one of the table's `classes`
    pipe: str                    # one of the table's `pipes`
    latency: str                 # fixed | variable
    modifiers: frozenset[str]
    meaning: str
    note: str = ""
    pipe_when: tuple[tuple[str, str], ...] = ()   # (modifier word or operand, pipe) exceptions

    def pipe_of(self, modifiers: tuple[str, ...], operands: tuple[str, ...]) -> str:
        """The pipe Nsight Compute counts one instruction of this family in: the family's, unless
        one of its modifier words or operands names another (S2R SR_TID.X, HFMA2.MMA)."""
        # `word in modifiers`: on the lowering's Modifiers tuple this consumes the word (its effect is the pipe)
        return next((pipe for word, pipe in self.pipe_when if word in modifiers or word in operands), self.pipe)


@dataclass(frozen=True)
class SassTable:
    ops: tuple[SassOp, ...]
    pipes: tuple[str, ...]
    classes: tuple[str, ...]

    def family(self, opcode: str) -> SassOp | None:
        """The entry for a full opcode (`LDG.E.128` -> LDG), None when the family is not listed."""
        return self.by_name.get(opcode.split(".")[0])

    @functools.cached_property
    def by_name(self) -> dict[str, SassOp]:
        return {o.name: o for o in self.ops}


def _error(path: Path, message: str) -> InputError:
    return InputError(message, SourceLoc(str(path), 1, 1))


def _entry(path: Path, raw: dict, pipes: tuple, classes: tuple) -> SassOp:
    missing = [k for k in REQUIRED_KEYS if k not in raw]
    if missing:
        raise _error(path, f"SASS opcode {raw.get('name', '?')}: missing {', '.join(missing)}")
    name = raw["name"]
    for key, allowed in (("pipe", pipes), ("class", classes), ("latency", LATENCIES)):
        if raw[key] not in allowed:
            raise _error(path, f"SASS opcode {name}: unknown {key} {raw[key]!r} (one of {', '.join(allowed)})")
    pipe_when = tuple((str(word), str(pipe)) for word, pipe in (raw.get("pipe_when") or {}).items())
    for word, pipe in pipe_when:
        if pipe not in pipes:
            raise _error(path, f"SASS opcode {name}: unknown pipe {pipe!r} for {word} (one of {', '.join(pipes)})")
    return SassOp(name, raw["class"], raw["pipe"], raw["latency"],
                  frozenset(str(m) for m in raw.get("modifiers") or ()), raw["meaning"], raw.get("note", ""),
                  pipe_when)


def load_sass_table(path: Path = ISA_DIR / SASS_TABLE_FILE) -> SassTable:
    try:
        data = read_table(path)
    except OSError as e:
        raise InputError(f"cannot read the SASS table {path}: {e.strerror}") from None
    pipes, classes = tuple(data["pipes"]), tuple(data["classes"])
    ops = tuple(_entry(path, raw, pipes, classes) for raw in data["opcodes"])
    if len({o.name for o in ops}) != len(ops):
        raise _error(path, "duplicate opcode families in the SASS table")
    return SassTable(ops, pipes, classes)


@functools.cache
def sass_table() -> SassTable:
    """The project's SASS table (loaded once)."""
    return load_sass_table()


# ---- isa/sass_modifiers.yaml: what each family accepts, and what every word means (issue 61) ----

MODIFIER_TABLE_FILE = "sass_modifiers.yaml"


@dataclass(frozen=True)
class ModifierSpec:
    """The modifier words and operand forms one family accepts (prescriptive: anything else is refused)."""
    family: str
    modifiers: frozenset[str]          # every modifier word the family accepts
    operands: frozenset[str]           # operand forms (-x, |x|, .H1, ...) its semantics read
    flags: frozenset[str]              # words consumed through the flags path: the semantics read their E.SM_* flag
    implicit: dict                     # word -> why it needs no flag (the semantics' default, or no effect here)
    meanings: dict                     # word -> its meaning for this family, where it differs from the common one

    def meaning_of(self, word: str, table: "ModifierTable") -> str:
        return self.meanings.get(word) or table.meanings.get(word) or table.no_effect.get(word, "")


@dataclass(frozen=True)
class ModifierTable:
    meanings: dict                     # word -> meaning (one place for every family)
    no_effect: dict                    # word -> why it changes nothing the simulator models (consumed automatically)
    forms: dict                        # operand form -> meaning
    no_effect_forms: dict              # operand form -> why it changes nothing (accepted everywhere)
    opcodes: dict                      # family -> ModifierSpec


def _words(value) -> frozenset[str]:
    if value is None:
        return frozenset()
    if isinstance(value, str):
        return frozenset(value.split())
    return frozenset(str(v) for v in value)


def load_modifier_table(path: Path = ISA_DIR / MODIFIER_TABLE_FILE) -> ModifierTable:
    try:
        data = read_table(path)
    except OSError as e:
        raise InputError(f"cannot read the SASS modifier table {path}: {e.strerror}") from None
    meanings = {str(k): str(v) for k, v in (data.get("meanings") or {}).items()}
    no_effect = {str(k): str(v) for k, v in (data.get("no_effect") or {}).items()}
    forms = {str(k): str(v) for k, v in (data.get("forms") or {}).items()}
    no_effect_forms = {str(k): str(v) for k, v in (data.get("no_effect_forms") or {}).items()}
    opcodes = {}
    for family, raw in (data.get("opcodes") or {}).items():
        raw = raw or {}
        unknown = set(raw) - {"modifiers", "operands", "flags", "implicit", "meanings"}
        if unknown:
            raise _error(path, f"SASS modifier table, {family}: unknown keys {', '.join(sorted(unknown))}")
        spec = ModifierSpec(str(family), _words(raw.get("modifiers")), _words(raw.get("operands")),
                            _words(raw.get("flags")), {str(k): str(v) for k, v in (raw.get("implicit") or {}).items()},
                            {str(k): str(v) for k, v in (raw.get("meanings") or {}).items()})
        for word in spec.modifiers:
            if not spec.meaning_of(word, ModifierTable(meanings, no_effect, forms, no_effect_forms, {})):
                raise _error(path, f"SASS modifier table, {family}: modifier .{word} has no meaning")
        for key in ("flags", "implicit", "meanings"):
            stray = set(getattr(spec, key)) - spec.modifiers
            if stray:
                raise _error(path, f"SASS modifier table, {family}: {key} names words it does not accept: "
                             f"{', '.join(sorted(stray))}")
        stray = spec.operands - set(forms)
        if stray:
            raise _error(path, f"SASS modifier table, {family}: operand forms without a meaning: {', '.join(sorted(stray))}")
        opcodes[str(family)] = spec
    return ModifierTable(meanings, no_effect, forms, no_effect_forms, opcodes)


@functools.cache
def modifier_table() -> ModifierTable:
    """isa/sass_modifiers.yaml (loaded once)."""
    return load_modifier_table()


# ---- isa/sass_hopper.yaml: NVIDIA's sm_90 instruction table, each opcode executed or refused ----

HOPPER_TABLE_FILE = "sass_hopper.yaml"
HOPPER_STATUSES = ("executed", "refused")


@dataclass(frozen=True)
class HopperOp:
    name: str
    group: str                          # NVIDIA's section (Floating Point Instructions, ...)
    description: str                    # NVIDIA's one-line description
    status: str                         # executed | refused
    reason: str = ""                    # why it is refused (or how it is executed, where worth saying)


def load_hopper_table(path: Path = ISA_DIR / HOPPER_TABLE_FILE) -> dict[str, HopperOp]:
    try:
        data = read_table(path)
    except OSError as e:
        raise InputError(f"cannot read the Hopper opcode table {path}: {e.strerror}") from None
    ops: dict[str, HopperOp] = {}
    for group, entries in (data.get("groups") or {}).items():
        for name, raw in (entries or {}).items():
            if name in ops:
                raise _error(path, f"Hopper opcode table: {name} is listed twice")
            status = raw.get("status")
            if status not in HOPPER_STATUSES:
                raise _error(path, f"Hopper opcode table, {name}: status {status!r} (one of {', '.join(HOPPER_STATUSES)})")
            if status == "refused" and not raw.get("reason"):
                raise _error(path, f"Hopper opcode table, {name}: a refused opcode needs a reason")
            ops[str(name)] = HopperOp(str(name), str(group), str(raw.get("description", "")), status,
                                      str(raw.get("reason", "")))
    return ops


@functools.cache
def hopper_table() -> dict[str, HopperOp]:
    """isa/sass_hopper.yaml (loaded once)."""
    return load_hopper_table()
