"""Syntax tree of a PTX module, as written (names, not numbers), with source locations."""
from __future__ import annotations

from dataclasses import dataclass, field

from simt_sim.errors import InputError, SourceLoc


@dataclass
class Operand:
    """One operand as written.

    kind: reg (%r1), sreg (%tid.x), imm (integer), fimm (float literal), sym (a variable or
    param name), addr ([base+offset]), vec ({%r1, %r2}), label.
    """
    kind: str
    loc: SourceLoc
    name: str = ""             # register / special register / symbol / label name
    value: int | float = 0     # immediate value; for addr the byte offset
    text: str = ""             # literal text of a float immediate (0f..., 0d..., 1.5)
    base: "Operand | None" = None          # addr: the register or symbol inside [ ]
    items: list["Operand"] = field(default_factory=list)  # vec: the elements
    extra: "Operand | None" = None         # `%r1|%p1`: the extra predicate destination
    negate: bool = False       # `!%p` as a source predicate


@dataclass
class Instruction:
    opcode: str
    suffixes: list[str]
    operands: list[Operand]
    loc: SourceLoc
    guard: str | None = None
    guard_negated: bool = False
    text: str = ""


@dataclass
class Label:
    name: str
    loc: SourceLoc


@dataclass
class VarDecl:
    """A .shared / .local / .global / .const variable: name, element type, element count, alignment."""
    space: str
    name: str
    dtype: str
    count: int
    align: int
    loc: SourceLoc
    extern: bool = False
    init: list[int | float] | None = None


@dataclass
class Param:
    name: str
    dtype: str
    count: int
    align: int
    loc: SourceLoc


@dataclass
class Kernel:
    """An `.entry` kernel or a `.func` device function.  `error` holds the first problem found while
    parsing its body: the rest of the module still loads, and this kernel (or a kernel that calls
    this function) is refused with that error only when it is the one loaded."""
    name: str
    params: list[Param]
    regs: dict[str, str]               # register name -> declared type (scoped names made unique)
    vars: list[VarDecl]
    body: list[Instruction | Label]
    loc: SourceLoc
    directives: dict[str, list[int]] = field(default_factory=dict)
    error: InputError | None = None
    call_params: list[VarDecl] = field(default_factory=list)   # `.param` declared in a body (for call)
    returns: list[Param] = field(default_factory=list)        # a .func's return parameters
    is_function: bool = False


@dataclass
class Module:
    file: str
    version: str = ""
    target: str = ""
    address_size: int = 64
    kernels: dict[str, Kernel] = field(default_factory=dict)
    vars: list[VarDecl] = field(default_factory=list)
    funcs: dict[str, Kernel] = field(default_factory=dict)    # `.func` device functions
