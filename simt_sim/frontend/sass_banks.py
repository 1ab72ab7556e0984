"""Constant banks other than 0, and the initial data of module globals, for a SASS kernel.

sm_90 SASS reaches module-scope data through constant banks the driver fills at module load:
  * bank 4 holds the 64-bit addresses of the module's `__device__` variables (and of external
    functions such as vprintf), one slot per relocation of `.nv.constant4` in the cubin
    (`ULDC.64 UR4, c[0x4][0x0]` then reads the address of simt_trace);
  * bank 3 holds the `__constant__` data itself (`LDC R3, c[0x3][R10]` indexes an array).

Here each bank present in the cubin gets a copy in the kernel's parameter block, after the
parameters (the engine serves bank 0 from that block: c[0x0][0x210 + offset]), and the lowering
turns c[0xN][x] into c[0x0][0x210 + base(N) + x], so indexed reads work as plain ones do.  Bank-4
slots get the addresses where the run lays out the module globals (E.GLOBAL_BASE + the PTX
variable's offset, matched by name), function symbols their offset in the kernel's code (the
form CALL takes), and undefined symbols (external functions) are remembered so that a call
through them is refused with their names.

The module globals' initial bytes come from the cubin's `.nv.global.init` too, so that what ptxas
stored (function addresses in a table of function pointers are code offsets in SASS) is what the
kernel reads.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field, replace

import numpy as np

from simt_sim.errors import InputError
from simt_sim.frontend.cubin_elf import R_CUDA_32, R_CUDA_64, STT_FUNC, CubinElf
from simt_sim.isa import encoding as E

BANK_ALIGN = 16
# Bank-0 words the loader fills that the engine's bank 0 does not serve: the generic address of the
# local window (cvta.local: `ULDC UR4, c[0x0][0x20]`, `ULDC UR5, c[0x0][0x24]`, added to the stack
# pointer R1).  They go into the image too, before the other banks.
BANK0_WORDS = {0x20: struct.pack("<Q", E.LOCAL_WINDOW)}
INIT_DTYPES = {"u8": "<u1", "s8": "<i1", "b8": "<u1", "u16": "<u2", "s16": "<i2", "b16": "<u2", "u32": "<u4",
               "s32": "<i4", "b32": "<u4", "u64": "<u8", "s64": "<i8", "b64": "<u8", "f32": "<f4", "f64": "<f8"}


@dataclass
class ConstantBanks:
    """Where each constant bank other than 0 lives in the parameter block, and its bytes."""
    image_offset: int = 0                                   # first byte of the image in the parameter block
    offsets: dict[int, int] = field(default_factory=dict)   # bank -> its offset in the image
    bank0: dict[int, int] = field(default_factory=dict)     # bank-0 byte offset -> its offset in the image
    sizes: dict[int, int] = field(default_factory=dict)
    image: bytes = b""
    externals: dict[str, list[tuple[int, int]]] = field(default_factory=dict)  # name -> [(bank, offset)]
    # the address of a module variable an instruction's operand holds (-G's `MOV R14, 32@lo(0x0)`: sinf's
    # __cudart_i2opi_f table): (code section, byte offset of the instruction) -> (variable, its address + addend,
    # the unrelocated value nvdisasm prints: the symbol's offset in its section + addend)
    text_data: dict[tuple[str, int], tuple[str, int, int]] = field(default_factory=dict)

    def bank0_offset(self, bank: int, offset: int) -> int | None:
        """c[bank][offset] as a bank-0 offset (parameters start at E.PARAM_BANK_OFFSET), or None
        when the cubin has no such bank."""
        if bank == 0:
            if offset not in self.bank0:
                return None
            return E.PARAM_BANK_OFFSET + self.image_offset + self.bank0[offset]
        if bank not in self.offsets:
            return None
        return E.PARAM_BANK_OFFSET + self.image_offset + self.offsets[bank] + offset


def lay_out_banks(elf: CubinElf, kernel: str, param_size: int, global_address: dict[str, int],
                  bank0_read: set[int] = frozenset()) -> ConstantBanks:
    """The banks of the cubin placed after `param_size` bytes of parameters, relocated, after the
    BANK0_WORDS among the bank-0 offsets the kernel reads (`bank0_read`)."""
    banks = ConstantBanks(image_offset=_align(param_size, BANK_ALIGN))
    image = bytearray()
    for start, data in BANK0_WORDS.items():
        if any(start <= off < start + len(data) for off in bank0_read):
            for k in range(0, len(data), 4):
                banks.bank0[start + k] = len(image) + k
            image += data + bytes(_align(len(data), BANK_ALIGN) - len(data))
    for number in elf.banks():
        data = bytearray(elf.bank(number))
        for rel in elf.bank_relocations(number):
            value = _symbol_address(rel.symbol, kernel, global_address, elf)
            if value is None:
                banks.externals.setdefault(rel.symbol.name, []).append((number, rel.offset))
                continue
            _patch(data, rel.offset, rel.kind, value + rel.addend, elf, number)
        banks.offsets[number] = len(image)
        banks.sizes[number] = len(data)
        image += data + bytes(_align(len(data), BANK_ALIGN) - len(data))
    banks.image = bytes(image)
    for section, rels in elf.relocations.items():
        if not section.startswith(".text."):
            continue
        for rel in rels:
            sym = rel.symbol
            if sym.section and sym.kind != STT_FUNC and not sym.section.startswith(".text") \
                    and sym.name in global_address:
                banks.text_data[(section, rel.offset)] = (sym.name, global_address[sym.name] + rel.addend,
                                                          sym.value + rel.addend)
    return banks


def _symbol_address(symbol, kernel: str, global_address: dict[str, int], elf: CubinElf) -> int | None:
    if not symbol.section:
        return None                                  # undefined: an external function
    if symbol.kind == STT_FUNC:
        if symbol.section != f".text.{kernel}":
            return None                              # another kernel's code cannot be called from here
        return symbol.value
    if symbol.name in global_address:
        return global_address[symbol.name]
    raise InputError(f"{elf.path}: constant bank data refers to {symbol.name!r} (in {symbol.section}), "
                     "which the PTX does not declare as a module variable")


def _patch(data: bytearray, offset: int, kind: int, value: int, elf: CubinElf, bank: int) -> None:
    if kind == R_CUDA_64:
        struct.pack_into("<Q", data, offset, value & 0xFFFF_FFFF_FFFF_FFFF)
    elif kind == R_CUDA_32:
        struct.pack_into("<I", data, offset, value & 0xFFFF_FFFF)
    else:
        raise InputError(f"{elf.path}: relocation type {kind} at c[{bank:#x}][{offset:#x}] is not supported "
                         "(R_CUDA_32 and R_CUDA_64 are)")


def _align(n: int, a: int) -> int:
    return (n + a - 1) // a * a


def globals_from_cubin(globals_: list, elf: CubinElf) -> list:
    """The PTX program's module variables with the initial values ptxas stored in the cubin's
    .nv.global.init (so a function-pointer table holds SASS code offsets)."""
    init = elf.sections.get(".nv.global.init", b"")
    out = []
    for var in globals_:
        sym = elf.symbol(var.name)
        if sym is None or sym.section != ".nv.global.init" or var.dtype not in INIT_DTYPES:
            out.append(var)
            continue
        raw = init[sym.value:sym.value + var.size]
        values = np.frombuffer(raw[:len(raw) // np.dtype(INIT_DTYPES[var.dtype]).itemsize
                                   * np.dtype(INIT_DTYPES[var.dtype]).itemsize], INIT_DTYPES[var.dtype])
        out.append(replace(var, init=[v.item() for v in values]))
    return out
