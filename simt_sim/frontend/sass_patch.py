"""Patches applied to ptxas's cubin: source-register renumbering (the register-bank probes) and
the yield hint (the scheduler probes).

ptxas picks registers to avoid bank conflicts, marks operands for the reuse cache and sets the
yield hint by its own rules, so no CUDA source can ask for a conflict or for a loop without yield
hints.  A probe program that needs one keeps a patch beside its PTX, `kernel.sass-patch.yaml`:

    opcode: FFMA                              # the instructions to patch (nvdisasm's opcode text)
    sources: [[R4, R8, R12], [R5, R9, R13]]   # their source registers, cycled over the matches
    reuse: []                                 # source slots whose reuse flag is set (others cleared)

or, for every instruction of an opcode, whatever its operands:

    opcode: FMUL                              # also FMUL|UIADD3 (any of them) or * (every instruction)
    yield_hint: false                         # clear ptxas's yield hint (true: set it)

The patch is applied to the cubin's bytes, and the result is read back with nvdisasm and checked,
so the simulator and `simt-sim hw record` run the same patched SASS (the committed cubin's key
covers the patch).  Only three-register-source forms whose fields are known are accepted.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from simt_sim.errors import InputError
from simt_sim.frontend.yamlschema import Field, error_at, load_yaml_nodes, validate
from simt_sim.isa import encoding as E

# Bit offsets of the source-register fields in the 128-bit instruction (Ra, Rb, Rc) of the forms
# below, read off nvdisasm: changing these bytes changes exactly the printed operand.
SOURCE_FIELD_BITS = {"FFMA": (24, 32, 64)}
REUSE_FIRST_BIT = 105 + E.CTRL_REUSE_SHIFT       # control bits start at instruction bit 105

YIELD_BIT = 105 + E.CTRL_YIELD_SHIFT            # raw 0: the hint is set (the listing's Y)

SCHEMA = {
    "opcode": Field(str, required=True, doc="instructions to patch (sources: " + ", ".join(SOURCE_FIELD_BITS) + ")"),
    "sources": Field(list, doc="[[Ra, Rb, Rc], ...] cycled over the matched instructions"),
    "reuse": Field(list, doc="source slots (0-2) whose reuse flag is set; the others are cleared "
                             "(default: [], no reuse)"),
    "yield_hint": Field(bool, doc="set (true) or clear (false) the yield hint of every instruction of the opcode"),
}


@dataclass(frozen=True)
class SassPatch:
    path: Path
    source: bytes                        # the file's bytes: part of the committed cubin's key
    opcode: str
    sources: tuple[tuple[int, int, int], ...]   # () for a yield-hint patch
    reuse: int                           # reuse bits: bit i = source slot i
    yield_hint: bool | None = None       # None: left as ptxas set it


def patch_path(ptx: Path) -> Path:
    return ptx.with_name(f"{ptx.stem}.sass-patch.yaml")


def find_patch(ptx: Path) -> SassPatch | None:
    """The patch beside a PTX file (kernel.ptx -> kernel.sass-patch.yaml), if there is one."""
    path = patch_path(ptx)
    return load_patch(path) if path.is_file() else None


def load_patch(path: Path) -> SassPatch:
    data, root = load_yaml_nodes(str(path))
    validate(data, SCHEMA, str(path), root)
    if "sources" not in data and "yield_hint" not in data:
        raise error_at(str(path), root, (), "give `sources` (a register renumbering) or `yield_hint`")
    triples = []
    if "sources" in data:
        if data["opcode"] not in SOURCE_FIELD_BITS:  # one opcode: `|` and `*` name several for yield hints
            raise error_at(str(path), root, ("opcode",), f"cannot patch {data['opcode']!r}'s sources (known "
                           f"forms: {', '.join(SOURCE_FIELD_BITS)})")
        if not data["sources"]:
            raise error_at(str(path), root, ("sources",), "give at least one [Ra, Rb, Rc]")
        for i, triple in enumerate(data["sources"]):
            if not (isinstance(triple, list) and len(triple) == 3):
                raise error_at(str(path), root, ("sources", i), "expected [Ra, Rb, Rc]")
            triples.append(tuple(register_number(r, str(path), root, ("sources", i)) for r in triple))
    reuse = 0
    for i, slot in enumerate(data.get("reuse") or []):
        if slot not in (0, 1, 2):
            raise error_at(str(path), root, ("reuse", i), f"a source slot is 0, 1 or 2, found {slot!r}")
        reuse |= 1 << slot
    return SassPatch(path, path.read_bytes(), data["opcode"], tuple(triples), reuse, data.get("yield_hint"))


def register_number(name, path: str, root, keys) -> int:
    text = str(name)
    if not (text.startswith("R") and text[1:].isdigit() and int(text[1:]) < 255):
        raise error_at(path, root, keys, f"expected a register R0..R254, found {text!r}")
    return int(text[1:])


def patched_instructions(kernels: list, patch: SassPatch):
    """(kernel, instruction, its new [Ra, Rb, Rc] or None) for every instruction the patch
    changes, in order: a renumbering takes each unpredicated `patch.opcode` whose operands are all
    registers (immediate and constant-bank forms have other fields); a yield-hint patch every
    `patch.opcode`."""
    matched = 0
    names = set(patch.opcode.split("|"))
    for kernel in kernels:
        for inst in kernel.instructions:
            if patch.opcode != "*" and inst.opcode not in names:      # `*` only loads for yield hints
                continue
            if not patch.sources:
                yield kernel, inst, None
                continue
            regs = [op.split(".")[0] for op in inst.operands]
            if not inst.predicate and all(r.startswith("R") and r[1:].isdigit() for r in regs):
                yield kernel, inst, patch.sources[matched % len(patch.sources)]
                matched += 1


def apply_patch(cubin: bytes, text_offsets: dict[str, int], kernels: list, patch: SassPatch) -> bytes:
    """The cubin with every instruction the patch names changed.  text_offsets: kernel name ->
    file offset of its .text section; kernels: SassKernel listings of the cubin."""
    data = bytearray(cubin)
    targets = list(patched_instructions(kernels, patch))
    if not targets:
        what = "with register sources " if patch.sources else ""
        raise InputError(f"{patch.path}: no {patch.opcode} {what}to patch")
    for kernel, inst, sources in targets:
        at = text_offsets[kernel.name] + inst.pc
        word = int.from_bytes(data[at:at + E.SASS_INSTRUCTION_BYTES], "little")
        if sources is not None:
            for bit, reg in zip(SOURCE_FIELD_BITS[patch.opcode], sources):
                word = (word & ~(0xFF << bit)) | (reg << bit)
            word = (word & ~(0xF << REUSE_FIRST_BIT)) | (patch.reuse << REUSE_FIRST_BIT)
        if patch.yield_hint is not None:
            word = (word & ~(1 << YIELD_BIT)) | ((0 if patch.yield_hint else 1) << YIELD_BIT)
        data[at:at + E.SASS_INSTRUCTION_BYTES] = word.to_bytes(E.SASS_INSTRUCTION_BYTES, "little")
    return bytes(data)


def check_patched(kernels: list, patch: SassPatch) -> None:
    """nvdisasm's reading of the patched cubin must show exactly what was asked."""
    for kernel, inst, want in patched_instructions(kernels, patch):
        wrong_sources = want is not None and (
            tuple(int(op.split(".")[0][1:]) for op in inst.operands[1:]) != want or inst.control.reuse != patch.reuse)
        wrong_yield = patch.yield_hint is not None and inst.control.yield_bit != (0 if patch.yield_hint else 1)
        if wrong_sources or wrong_yield:
            raise InputError(f"{patch.path}: the patched {kernel.name}+{inst.pc:#x} reads back as "
                             f"{inst.text()} (reuse {inst.control.reuse:04b}, yield bit {inst.control.yield_bit})")
