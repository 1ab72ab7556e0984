"""Load isa/*.yaml: every opcode, its operand signature, types, modifiers, unit, timing class, meaning.

This table is the single source of truth: the assembler validates against it, the disassembler
prints from it, the timing model maps opcodes to units and timing classes through it and
docs/isa.md is generated from it.  Opcode numbers are positions in the table; unit and timing-class
codes are positions in UNIT_NAMES and TIMING_CLASSES.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from simt_sim.errors import InputError, SourceLoc

ISA_DIR = Path(__file__).resolve().parents[2] / "isa"
SASS_TABLE_FILE = "sass.yaml"
ISAS = ("ptx", "sass")          # what a kernel runs as: its PTX, or the sm_90 SASS ptxas makes of it
UNIT_NAMES = ("fp32", "int", "fp64", "sfu", "tensor", "ldst", "control")
# The pipes Nsight Compute counts warp-instructions in (sm__inst_executed_pipe_<name>.sum), and the
# one a PTX instruction is counted in: its unit's (side by side only, since SASS splits work otherwise).
NCU_PIPES = ("fma", "alu", "fp64", "xu", "tensor", "cbu", "lsu", "adu", "uniform")
NCU_PIPE_OF_UNIT = {"fp32": "fma", "int": "alu", "fp64": "fp64", "sfu": "xu", "tensor": "tensor",
                    "control": "cbu", "ldst": "lsu"}
# How the timing model treats a warp-instruction (what it waits on, how its result is timed).
TIMING_CLASSES = ("alu", "sfu", "memory", "branch", "barrier", "exit", "other")
# An opcode without a `timing:` key gets the class of its unit (unit `by_type` and the rest: alu).
TIMING_BY_UNIT = {"sfu": "sfu", "control": "other"}
INT_TYPES = ("u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "b8", "b16", "b32", "b64")


@dataclass(frozen=True)
class OperandSpec:
    kind: str            # d, pd, p, a, b, c, e, addr, label
    optional: bool = False
    pair: bool = False   # `d|pd`: an extra predicate destination is allowed

    @classmethod
    def parse(cls, text: str) -> "OperandSpec":
        optional = text.endswith("?")
        text = text.rstrip("?")
        pair = "|" in text
        return cls(text.split("|")[0], optional, pair)


@dataclass(frozen=True)
class OpInfo:
    opcode: int
    name: str
    operands: tuple[OperandSpec, ...]
    types: frozenset[str]
    type_count: int
    modifiers: frozenset[str]      # every modifier word this opcode accepts
    unit: str
    timing: str                    # one of TIMING_CLASSES
    meaning: str
    wide_operands: bool = False    # data registers may be wider than the instruction type (ld, st, cvt)
    timing_in_function: str = ""   # the timing class inside a .func body, when it differs (ret)
    type_units: tuple[tuple[str, str], ...] = ()   # the table's `unit_by_type`, classes expanded

    def unit_for(self, dtype: str | None) -> str:
        """Functional-unit class of this opcode at this type."""
        if self.unit != "by_type":
            return self.unit
        return dict(self.type_units).get(dtype, "int")

    @property
    def min_operands(self) -> int:
        return sum(1 for o in self.operands if not o.optional)


@dataclass
class ISA:
    ops: list[OpInfo]
    by_name: dict[str, OpInfo]
    modifier_groups: dict[str, list[str]]
    type_classes: dict[str, list[str]]
    all_types: frozenset[str] = field(default_factory=frozenset)

    def op(self, name: str) -> OpInfo:
        return self.by_name[name]

    def opcode(self, name: str) -> int:
        return self.by_name[name].opcode


def _table_error(path: Path, message: str) -> InputError:
    return InputError(message, SourceLoc(str(path), 1, 1))


def _timing_class(path: Path, entry: dict, key: str = "timing") -> str:
    """The entry's `timing:` (or `timing_in_function:`) class, or its unit's default."""
    timing = entry.get(key, TIMING_BY_UNIT.get(entry["unit"], "alu"))
    if timing not in TIMING_CLASSES:
        raise _table_error(path, f"opcode {entry['name']}: unknown timing class {timing!r} "
                                 f"(one of {', '.join(TIMING_CLASSES)})")
    return timing


# libyaml's loader when PyYAML has it: the tables are read at every import of the engine encoding
TABLE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_table(path: Path):
    """A table file's YAML document (same result as yaml.safe_load, ten times faster with libyaml)."""
    return yaml.load(path.read_text(), Loader=TABLE_LOADER)


def load_isa(directory: Path = ISA_DIR) -> ISA:
    # isa/sass*.yaml are the SASS tables (simt_sim/isa/sass_table.py), not part of the PTX ISA
    files = sorted(p for p in directory.glob("*.yaml") if not p.name.startswith("sass"))
    if not files:
        raise InputError(f"no ISA table found in {directory} (install with `pip install -e .`)")
    ops: list[OpInfo] = []
    groups: dict[str, list[str]] = {}
    classes: dict[str, list[str]] = {}
    raw_ops = []
    by_type: dict[str, str] = {}
    for path in files:
        data = read_table(path)
        groups.update(data.get("modifier_groups", {}))
        classes.update(data.get("type_classes", {}))
        by_type.update(data.get("unit_by_type", {}))
        raw_ops += [(path, entry) for entry in data.get("opcodes", [])]
    all_types = frozenset(classes.get("all", []))
    type_units = tuple((t, unit) for key, unit in by_type.items() for t in classes.get(key, [key]))
    for t, unit in type_units:
        if t not in all_types or unit not in UNIT_NAMES:
            raise _table_error(files[0], f"unit_by_type: unknown type {t!r} or unit {unit!r}")
    for path, entry in raw_ops:
        name = entry["name"]
        types: set[str] = set()
        for t in entry.get("types", []):
            if t in classes:
                types.update(classes[t])
            elif t in all_types:
                types.add(t)
            else:
                raise _table_error(path, f"opcode {name}: unknown type or type class {t!r}")
        modifiers: set[str] = set()
        for g in entry.get("modifiers", []):
            if g not in groups:
                raise _table_error(path, f"opcode {name}: unknown modifier group {g!r}")
            modifiers.update(groups[g])
        unit = entry["unit"]
        if unit not in UNIT_NAMES and unit != "by_type":
            raise _table_error(path, f"opcode {name}: unknown unit {unit!r}")
        ops.append(OpInfo(
            opcode=len(ops), name=name,
            operands=tuple(OperandSpec.parse(o) for o in entry["operands"]),
            types=frozenset(types), type_count=entry.get("type_count", 1 if types else 0),
            modifiers=frozenset(modifiers), unit=unit, timing=_timing_class(path, entry),
            meaning=entry["meaning"], type_units=type_units,
            timing_in_function=_timing_class(path, entry, "timing_in_function") if "timing_in_function" in entry else "",
            wide_operands=bool(entry.get("wide_operands", False))))
    by_name = {o.name: o for o in ops}
    if len(by_name) != len(ops):
        raise _table_error(files[0], "duplicate opcode names in the ISA table")
    return ISA(ops, by_name, groups, classes, all_types)


@functools.cache
def isa() -> ISA:
    """The project's ISA table (loaded once)."""
    return load_isa()
