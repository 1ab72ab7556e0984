"""What a cubin's ELF says beyond its code: the constant banks other than 0 and the initial data of
the module's globals, with the relocations that fill them.

A cubin is an ELF64 little-endian file.  ptxas puts
  * `.nv.constant4`: one 64-bit slot per module-global (and external function) the kernels reach
    by address, filled by relocations in `.rela.nv.constant4` (`R_CUDA_64 simt_trace` at offset 0
    means c[0x4][0x0] holds the address of simt_trace);
  * `.nv.constant3`: the module's `__constant__` data (initial values; relocated where a constant
    holds an address);
  * `.nv.global.init` / `.nv.global`: initialised / zeroed `__device__` variables, each a symbol
    whose value is its offset in the section.  Function addresses stored in them (a table of
    function pointers) are offsets in the kernel's `.text` section, the form `CALL.REL` takes.

Only the fields needed here are read (section headers, the symbol table, RELA entries); the
layout is the System V ELF64 one.  The relocation type numbers are those cuobjdump -elf names
(checked against its listing in tests/test_sass_call.py).
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path

from simt_sim.errors import InputError

SHT_SYMTAB, SHT_RELA, SHT_NOBITS = 2, 4, 8
SHN_UNDEF = 0
STT_OBJECT, STT_FUNC = 1, 2
R_CUDA_32, R_CUDA_64 = 1, 2          # word := S + A (32 bits / 64 bits)
R_CUDA_NAMES = {R_CUDA_32: "R_CUDA_32", R_CUDA_64: "R_CUDA_64"}
EIFMT_SVAL = 0x04                    # a `.nv.info` entry with a 16-bit size and that many bytes
EIATTR_REGCOUNT = 0x2F               # (symbol index, registers per thread)


@dataclass(frozen=True)
class Symbol:
    name: str
    value: int                 # offset in its section
    size: int
    kind: int                  # STT_*
    section: str               # "" when undefined (an external function such as vprintf)


@dataclass(frozen=True)
class Relocation:
    offset: int                # byte offset in the relocated section
    symbol: Symbol
    kind: int                  # R_CUDA_*
    addend: int

    @property
    def kind_name(self) -> str:
        return R_CUDA_NAMES.get(self.kind, f"type {self.kind}")


@dataclass
class CubinElf:
    path: Path
    sections: dict[str, bytes] = field(default_factory=dict)      # name -> contents (NOBITS: zeros)
    offsets: dict[str, int] = field(default_factory=dict)         # name -> offset in the file
    symbols: list[Symbol] = field(default_factory=list)
    relocations: dict[str, list[Relocation]] = field(default_factory=dict)   # relocated section -> entries

    def symbol(self, name: str) -> Symbol | None:
        return next((s for s in self.symbols if s.name == name), None)

    def bank(self, number: int) -> bytes:
        """The initial bytes of constant bank `number` (banks 1..17 are module-wide sections)."""
        return self.sections.get(f".nv.constant{number}", b"")

    def bank_relocations(self, number: int) -> list[Relocation]:
        return self.relocations.get(f".nv.constant{number}", [])

    def register_counts(self) -> dict[str, int]:
        """Registers per thread of each function, from `.nv.info`'s EIATTR_REGCOUNT entries."""
        counts = {}
        for symbol_index, value in _info_values(self.sections.get(".nv.info", b""), EIATTR_REGCOUNT):
            if symbol_index < len(self.symbols):
                counts[self.symbols[symbol_index].name] = value
        return counts

    def banks(self) -> list[int]:
        """Module-wide constant banks present (bank 0 is per kernel: `.nv.constant0.KERNEL`)."""
        out = []
        for name in self.sections:
            tail = name[len(".nv.constant"):]
            if name.startswith(".nv.constant") and tail.isdigit() and tail != "0":
                out.append(int(tail))
        return sorted(out)


def read_cubin(path: Path) -> CubinElf:
    try:
        data = path.read_bytes()
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror}") from None
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise InputError(f"{path}: not a 64-bit little-endian ELF file (a cubin)")
    try:
        return _parse(path, data)
    except (struct.error, IndexError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: malformed ELF ({e})") from None


def _parse(path: Path, data: bytes) -> CubinElf:
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    # (name, type, flags, addr, offset, size, link, info, addralign, entsize)
    strtab = _contents(data, headers[shstrndx])
    names = [_cstring(strtab, h[0]) for h in headers]
    elf = CubinElf(path)
    for name, h in zip(names, headers):
        elf.sections[name] = bytes(h[5]) if h[1] == SHT_NOBITS else _contents(data, h)
        elf.offsets[name] = h[4]
    symbols: list[Symbol] = []
    for h in headers:
        if h[1] == SHT_SYMTAB:
            symbols = _symbols(data, h, _contents(data, headers[h[6]]), names)
            elf.symbols = symbols
    for name, h in zip(names, headers):
        if h[1] == SHT_RELA and symbols:
            target = names[h[7]]
            elf.relocations[target] = _relocations(data, h, symbols)
    return elf


def _contents(data: bytes, header: tuple) -> bytes:
    return data[header[4]:header[4] + header[5]]


def _cstring(table: bytes, offset: int) -> str:
    end = table.index(b"\0", offset)
    return table[offset:end].decode()


def _symbols(data: bytes, header: tuple, strings: bytes, section_names: list[str]) -> list[Symbol]:
    out = []
    for off in range(0, header[5], 24):
        name, info, _other, shndx, value, size = struct.unpack_from("<IBBHQQ", data, header[4] + off)
        section = section_names[shndx] if 0 < shndx < len(section_names) else ""
        out.append(Symbol(_cstring(strings, name), value, size, info & 0xF, section))
    return out


def _relocations(data: bytes, header: tuple, symbols: list[Symbol]) -> list[Relocation]:
    out = []
    for off in range(0, header[5], 24):
        offset, info, addend = struct.unpack_from("<QQq", data, header[4] + off)
        out.append(Relocation(offset, symbols[info >> 32], info & 0xFFFFFFFF, addend))
    return out


def _info_values(info: bytes, attribute: int) -> list[tuple[int, int]]:
    """(symbol index, value) of every `.nv.info` entry of `attribute`.  Entries are a format byte
    and an attribute byte, then a 16-bit word that is the payload's size for EIFMT_SVAL and the
    value itself for the other formats."""
    out, off = [], 0
    while off + 4 <= len(info):
        fmt, attr, word = struct.unpack_from("<BBH", info, off)
        size = word if fmt == EIFMT_SVAL else 0
        if attr == attribute and fmt == EIFMT_SVAL and size >= 8:
            out.append(struct.unpack_from("<II", info, off + 4))
        off += 4 + size
    return out
