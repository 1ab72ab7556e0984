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
        words = set(modifiers) | set(operands)
        return next((pipe for word, pipe in self.pipe_when if word in words), self.pipe)


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
