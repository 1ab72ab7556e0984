"""PTX text -> syntax tree.

Accepts the subset documented in docs/ptx-subset.md: module directives, `.entry` kernels with
`.param`s, `.func` device functions with parameters and return values, `call` (direct), `.reg`
declarations (including `%r<12>` ranges and names without `%`), `.shared`/`.local`/`.global`
variables, labels, guards, instructions with vector / address / dual-destination operands and
scoped `{ }` blocks, whose registers and `.param` variables are renamed `NAME~K` so that they may
shadow outer names (a call sequence declares `param0` in each of its blocks).  Every error names
file:line:column and what was expected; an error inside one kernel's body is kept with that kernel
(Kernel.error) so that the module's other kernels still load.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from simt_sim.errors import InputError, SourceLoc
from simt_sim.frontend.syntax import Instruction, Kernel, Label, Module, Operand, Param, VarDecl

_TOKEN_RE = re.compile(r"""
    (?P<ws>[ \t\r]+)
  | (?P<nl>\n)
  | (?P<lcomment>//[^\n]*)
  | (?P<bcomment>/\*.*?\*/)
  | (?P<string>"[^"\n]*")
  | (?P<fhex>0[fF][0-9a-fA-F]{8}(?![\w]))
  | (?P<dhex>0[dD][0-9a-fA-F]{16}(?![\w]))
  | (?P<hex>0[xX][0-9a-fA-F]+U?)
  | (?P<bin>0[bB][01]+U?(?![\w]))
  | (?P<float>\d+\.\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+)
  | (?P<int>\d+U?)
  | (?P<ident>[%$A-Za-z_.][\w$.]*(?:::[\w$.]+)*)
  | (?P<punct>[,;:\[\]{}()+\-|!@<>=])
""", re.VERBOSE | re.DOTALL)

STATE_SPACES = ("global", "shared", "local", "const", "param")
SCALAR_TYPES = ("u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "b8", "b16", "b32", "b64",
                "f16", "f16x2", "bf16", "bf16x2", "f32", "f64", "pred", "u16x2", "s16x2")
TYPE_SIZES = {"u8": 1, "s8": 1, "b8": 1, "u16": 2, "s16": 2, "b16": 2, "f16": 2, "bf16": 2,
              "u32": 4, "s32": 4, "b32": 4, "f32": 4, "f16x2": 4, "bf16x2": 4, "u16x2": 4, "s16x2": 4,
              "u64": 8, "s64": 8, "b64": 8, "f64": 8, "pred": 1}
INT_KINDS = ("int", "hex", "bin")
U64_MASK = (1 << 64) - 1


def int_literal(tok: "Token") -> int:
    """The value of a PTX integer literal as the PTX ISA defines them: hexadecimal (0x1F), octal
    (a leading 0: 017), binary (0b101) or decimal, each with an optional unsigned suffix U.
    Integer constants are 64-bit: a literal past 2**64 - 1 is refused (ptxas refuses such a
    binary literal as "Constant overflow" and silently wraps the other forms modulo 2**64), and
    so is an octal literal with an 8 or a 9 (ptxas: a syntax error)."""
    text = tok.text[:-1] if tok.text.endswith("U") else tok.text
    if text[:2] in ("0x", "0X"):
        value = int(text[2:], 16)
    elif text[:2] in ("0b", "0B"):
        value = int(text[2:], 2)
    elif len(text) > 1 and text[0] == "0":
        if any(c in "89" for c in text):
            raise InputError(f"invalid octal literal {tok.text!r} (a leading 0 makes a PTX integer octal)",
                             tok.loc)
        value = int(text, 8)
    else:
        value = int(text, 10)
    if value > U64_MASK:
        raise InputError(f"integer literal {tok.text} does not fit in 64 bits (PTX integer constants are "
                         f"64-bit; at most 0xFFFFFFFFFFFFFFFF)", tok.loc)
    return value


def wrap_s64(value: int) -> int:
    """A 64-bit constant's bits as a signed 64-bit number: 0xFFFFFFFFFFFFFFFF -> -1, -0xFFFFFFFFFFFFFFFF
    -> 1 (PTX's constant arithmetic is 64-bit; the instruction's type then takes its low bits)."""
    return ((value + (1 << 63)) & U64_MASK) - (1 << 63)


# Bounds checked while parsing, before anything is sized by a declaration (issue 62).  PTX
# registers are virtual, but the simulator keeps each declared one for every resident thread: 2**18
# is 16 times the most any kernel of the repository or the generated corpus declares (16,418).
MAX_KERNEL_REGISTERS = 1 << 18
# A variable larger than any GPU's memory (the H100 has 80 GB) cannot be placed; the real per-space
# limits (shared memory per SM, the host-memory budget for .global and .local) are checked when a
# launch is laid out (machine/lower.py, run/budget.py).
MAX_VARIABLE_BYTES = 1 << 40
# no config's SM holds more (the range of sm.shared_memory in machine/config.py); checked here too so
# that a SASS run refuses a 4 GiB .shared array before ptxas and nvdisasm (which allocated 4.2 GB for it)
MAX_SHARED_BYTES = 1 << 26
MAX_CONST_BYTES = 1 << 16        # one constant bank (ptxas: "too much global constant data ... 0x10000 max")
MAX_PARAM_BYTES = 32764          # kernel parameters (CUDA 12.1+ on sm_70 and later)
MAX_ALIGN = 1 << 24

# Module-level directives that take the rest of the line and carry no semantics for us.
_LINE_DIRECTIVES = (".loc", ".file", ".section", ".callprototype")


@dataclass
class Token:
    kind: str
    text: str
    loc: SourceLoc


def tokenize(text: str, file: str) -> list[Token]:
    tokens: list[Token] = []
    line, line_start, pos = 1, 0, 0
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        if not m:
            raise InputError(f"unexpected character {text[pos]!r}",
                             SourceLoc(file, line, pos - line_start + 1))
        kind = m.lastgroup
        tok_text = m.group()
        if kind in ("ws", "lcomment"):
            pass
        elif kind in ("nl", "bcomment"):
            if kind == "nl":
                tokens.append(Token("nl", "\n", SourceLoc(file, line, pos - line_start + 1)))
            newlines = tok_text.count("\n")
            if newlines:
                line += newlines
                line_start = m.start() + tok_text.rfind("\n") + 1
        elif kind == "ident" and tok_text.startswith(".reg."):
            # `.reg.b16 h, r;` (the half-precision headers' inline assembly writes no space):
            # the directive and its type, as `.reg .b16`
            col = pos - line_start + 1
            tokens.append(Token(kind, ".reg", SourceLoc(file, line, col)))
            tokens.append(Token(kind, tok_text[4:], SourceLoc(file, line, col + 4)))
        else:
            tokens.append(Token(kind, tok_text, SourceLoc(file, line, pos - line_start + 1)))
        pos = m.end()
    tokens.append(Token("eof", "", SourceLoc(file, line, pos - line_start + 1)))
    return tokens


class Parser:
    def __init__(self, text: str, file: str):
        self.file = file
        self.tokens = tokenize(text, file)
        self.i = 0
        self.scopes: list[dict[str, str]] = []    # register names visible in the body: name -> unique name
        self.param_scopes: list[dict[str, str]] = []   # `.param` variables of the body, likewise
        self.scope_count = 0
        self.scope_ids: list[int] = []            # a number per open scope (names `NAME~K`)

    # ---- token helpers ----
    def peek(self, skip_nl: bool = True) -> Token:
        if skip_nl:
            while self.tokens[self.i].kind == "nl":
                self.i += 1
        return self.tokens[self.i]

    def next(self) -> Token:
        tok = self.peek()
        self.i += 1
        return tok

    def at(self, text: str) -> bool:
        return self.peek().text == text

    def accept(self, text: str) -> bool:
        if self.at(text):
            self.i += 1
            return True
        return False

    def expect(self, text: str, what: str | None = None) -> Token:
        tok = self.peek()
        if tok.text != text:
            raise self.error(tok, f"expected {what or repr(text)}")
        self.i += 1
        return tok

    def error(self, tok: Token, expected: str) -> InputError:
        found = "end of file" if tok.kind == "eof" else repr(tok.text)
        return InputError(f"{expected}, found {found}", tok.loc)

    def expect_ident(self, what: str) -> Token:
        tok = self.peek()
        if tok.kind != "ident":
            raise self.error(tok, f"expected {what}")
        self.i += 1
        return tok

    def expect_int(self, what: str) -> int:
        tok = self.peek()
        neg = False
        if tok.text == "-":
            self.i += 1
            neg = True
            tok = self.peek()
        if tok.kind not in INT_KINDS:
            raise self.error(tok, f"expected {what}")
        self.i += 1
        value = int_literal(tok)
        return -value if neg else value

    def expect_count(self, what: str, limit: int, why: str) -> tuple[int, Token]:
        """A non-negative integer (a length, a count, an alignment) of at most `limit`: checked here,
        before anything is sized by it."""
        tok = self.peek()
        value = self.expect_int(what)
        if value < 0:
            raise InputError(f"{what} must not be negative, found {value}", tok.loc)
        if value > limit:
            raise InputError(f"{what} {value} is larger than {limit:,} ({why})", tok.loc)
        return value, tok

    def expect_alignment(self) -> int:
        tok = self.peek()
        align, _ = self.expect_count("an alignment", MAX_ALIGN, "larger alignments are not supported")
        if align & (align - 1) or align == 0:
            raise InputError(f"alignment must be a power of two, found {align}", tok.loc)
        return align

    def skip_line(self) -> None:
        while self.tokens[self.i].kind not in ("nl", "eof"):
            self.i += 1

    def skip_section(self) -> None:
        """`.section .debug_info { .b8 ... }` (nvcc -G's DWARF): the name line and its braced body."""
        self.skip_line()
        if not self.at("{"):
            return
        open_tok = self.next()
        depth = 1
        while depth:
            tok = self.next()
            if tok.kind == "eof":
                raise self.error(tok, f"expected '}}' to close the .section opened at {open_tok.loc}")
            depth += {"{": 1, "}": -1}.get(tok.text, 0)

    # ---- module ----
    def parse_module(self) -> Module:
        module = Module(file=self.file)
        while True:
            tok = self.peek()
            if tok.kind == "eof":
                return module
            if tok.text == ".version":
                self.next()
                module.version = self.next().text
            elif tok.text == ".target":
                self.next()
                module.target = self.next().text
                while self.accept(","):
                    self.next()
            elif tok.text == ".address_size":
                self.next()
                module.address_size = self.expect_int("an address size")
            elif tok.text == ".section":
                self.skip_section()
            elif tok.text in _LINE_DIRECTIVES or tok.text == ".pragma":
                self.skip_line()
            elif tok.text in (".visible", ".weak", ".extern", ".entry", ".func") or (
                    tok.text in tuple("." + s for s in STATE_SPACES)):
                self.parse_module_item(module)
            else:
                raise self.error(tok, "expected a directive (.version, .target, .address_size, .entry, "
                                      ".global, .shared, .const)")

    def parse_module_item(self, module: Module) -> None:
        start = self.peek()
        extern = False
        while self.peek().text in (".visible", ".weak", ".extern"):
            extern |= self.next().text == ".extern"
        tok = self.peek()
        if tok.text == ".func":
            self.next()
            func = self.parse_kernel(start.loc, device_function=True)
            if func.body or func.name not in module.funcs:     # a definition replaces a declaration
                module.funcs[func.name] = func
            return
        if tok.text == ".entry":
            self.next()
            kernel = self.parse_kernel(start.loc)
            if kernel.name in module.kernels:
                raise InputError(f"kernel {kernel.name!r} defined twice", kernel.loc)
            module.kernels[kernel.name] = kernel
            return
        if tok.text.lstrip(".") in STATE_SPACES:
            var = self.parse_var_decl()
            var.extern = extern
            module.vars.append(var)
            return
        raise self.error(tok, "expected .entry or a variable declaration")

    # ---- declarations ----
    def parse_type(self) -> str:
        tok = self.peek()
        if tok.text.startswith(".") and tok.text[1:] in SCALAR_TYPES:
            self.i += 1
            return tok.text[1:]
        raise self.error(tok, "expected a type such as .u32, .f32 or .b8")

    def parse_var_decl(self) -> VarDecl:
        """`.shared .align 4 .b8 name[1024];` and friends (state-space token first)."""
        space_tok = self.next()
        space = space_tok.text[1:]
        align = 0
        while True:
            if self.accept(".align"):
                align = self.expect_alignment()
            elif self.peek().text in (".ptr", ".volatile"):
                self.next()
            else:
                break
        if self.peek().text in (".v2", ".v4"):
            raise InputError("vector-typed variables are not supported; declare a .b8 array", self.peek().loc)
        dtype = self.parse_type()
        name_tok = self.expect_ident("a variable name")
        count = 1
        if self.accept("["):
            if self.at("]"):
                count = 0   # extern dynamic shared array: sized at launch
            else:
                limit, why = {
                    "const": (MAX_CONST_BYTES, "a .const array holds at most one 64 KiB constant bank"),
                    "shared": (MAX_SHARED_BYTES, "no SM holds more than 64 MiB of shared memory (the range of "
                                                 "sm.shared_memory)"),
                }.get(space, (MAX_VARIABLE_BYTES, "a variable larger than 1 TiB exceeds any GPU's memory"))
                count, _ = self.expect_count("an array length", limit // TYPE_SIZES[dtype], why)
            self.expect("]")
        init = None
        if self.accept("="):
            init = self.parse_initializer()
        self.expect(";")
        return VarDecl(space, name_tok.text, dtype, count, align or TYPE_SIZES[dtype], space_tok.loc, init=init)

    def parse_initializer(self) -> list[int | float]:
        values: list[int | float] = []
        braced = self.accept("{")
        while True:
            op = self.parse_operand()
            if op.kind not in ("imm", "fimm"):
                raise InputError("expected a numeric initializer", op.loc)
            values.append(op.value)
            if not (braced and self.accept(",")):
                break
        if braced:
            self.expect("}")
        return values

    def param_attributes(self, align: int) -> int:
        """Skip `.ptr` / state-space words; returns the `.align` value if one is given."""
        while True:
            if self.accept(".align"):
                align = self.expect_alignment()
            elif self.peek().text in (".ptr", ".global", ".shared", ".const", ".local"):
                self.next()
            else:
                return align

    def parse_param(self) -> Param:
        tok = self.expect(".param", "'.param' or ')'")
        align = self.param_attributes(0)        # attributes may come before and after the type
        dtype = self.parse_type()
        align = self.param_attributes(align)
        name = self.expect_ident("a parameter name").text
        count = 1
        if self.accept("["):
            count, _ = self.expect_count("a parameter array length", MAX_PARAM_BYTES // TYPE_SIZES[dtype],
                                         f"kernel parameters take at most {MAX_PARAM_BYTES} bytes")
            self.expect("]")
        return Param(name, dtype, count, align or TYPE_SIZES[dtype], tok.loc)

    def parse_reg_decl(self, regs: dict[str, str]) -> None:
        self.expect(".reg")
        if self.peek().text in (".v2", ".v4"):
            raise InputError("vector registers are not supported", self.peek().loc)
        dtype = self.parse_type()
        while True:
            name_tok = self.expect_ident("a register name")
            if name_tok.text.startswith(".") or "." in name_tok.text:
                raise InputError(f"expected a register name, found {name_tok.text!r}", name_tok.loc)
            if self.accept("<"):
                room = max(MAX_KERNEL_REGISTERS - len(regs), 0)
                n, _ = self.expect_count("a register count", room,
                                         f"a kernel declares at most {MAX_KERNEL_REGISTERS:,} registers in all; "
                                         f"the simulator keeps each one for every resident thread")
                self.expect(">")
                for k in range(n):
                    regs[self.declare(f"{name_tok.text}{k}")] = dtype
            else:
                regs[self.declare(name_tok.text)] = dtype
            if not self.accept(","):
                break
        self.expect(";")

    def declare(self, name: str) -> str:
        """Register `name` in the innermost scope -> its unique name (itself in the body's own scope,
        `name~K` in the K-th nested `{ }` block, so that it may shadow an outer name)."""
        unique = name if len(self.scopes) <= 1 else f"{name}~{self.scope_ids[-1]}"
        self.scopes[-1][name] = unique
        return unique

    def declare_param(self, name: str) -> str:
        """A `.param` variable declared in the innermost scope -> its unique name (as `declare`)."""
        unique = name if len(self.param_scopes) <= 1 else f"{name}~{self.scope_ids[-1]}"
        self.param_scopes[-1][name] = unique
        return unique

    def symbol(self, name: str) -> str:
        """A symbol's unique name: a `.param` variable of an enclosing scope, or the name itself."""
        for scope in reversed(self.param_scopes):
            if name in scope:
                return scope[name]
        return name

    def lookup(self, name: str) -> str | None:
        """The unique name of a register visible here, or None."""
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    # ---- kernels ----
    def parse_kernel(self, loc: SourceLoc, device_function: bool = False) -> Kernel:
        """An .entry kernel (or a .func) from its name on.  An error after the name is kept with the
        kernel, and parsing resumes after its body."""
        returns = []
        if device_function and self.at("("):       # .func (.param .b32 retval) name(...)
            returns = self.parse_param_list()
        name_tok = self.expect_ident("a function name" if device_function else "a kernel name")
        kernel = Kernel(name_tok.text, [], {}, [], [], loc, returns=returns, is_function=device_function)
        start = self.i
        try:
            self.parse_kernel_rest(kernel, device_function)
        except InputError as e:
            kernel.error = e
            self.skip_definition(start, e)
        return kernel

    def parse_param_list(self) -> list[Param]:
        return self.parse_paren_list(self.parse_param, "',' or ')'")

    def parse_paren_list(self, parse_item, closing: str) -> list:
        """`(item, item, ...)`, possibly empty; `closing` names what may follow an item."""
        self.expect("(")
        items = []
        if not self.at(")"):
            items.append(parse_item())
            while self.accept(","):
                items.append(parse_item())
        self.expect(")", closing)
        return items

    def skip_definition(self, start: int, error: InputError) -> None:
        """Move past the body of the definition whose header starts at token `start` (or its `;`
        when it has no body); re-raise `error` when the body never closes."""
        i = start
        while self.tokens[i].text not in ("{", ";") and self.tokens[i].kind != "eof":
            i += 1
        if self.tokens[i].text == ";":
            self.i = i + 1
            return
        depth = 0
        while self.tokens[i].kind != "eof":
            depth += {"{": 1, "}": -1}.get(self.tokens[i].text, 0)
            i += 1
            if depth == 0:
                self.i = i
                return
        raise error

    def parse_kernel_rest(self, kernel: Kernel, device_function: bool) -> None:
        if self.at("("):
            kernel.params = self.parse_param_list()
        # performance directives between the signature and the body
        while self.peek().text in (".maxntid", ".reqntid", ".minnctapersm", ".maxnreg", ".maxclusterrank",
                                    ".reqnctapercluster", ".explicitcluster", ".noreturn", ".pragma",
                                    ".attribute"):
            if self.accept(".attribute"):      # .func .attribute(.unified)
                self.parse_paren_words()
                continue
            directive = self.next().text
            if directive == ".pragma":
                self.next()
                self.expect(";")
                continue
            values = []
            if self.peek(skip_nl=False).kind in INT_KINDS:
                values.append(self.expect_int("a number"))
                while self.accept(","):
                    values.append(self.expect_int("a number"))
            kernel.directives[directive[1:]] = values
        if device_function and self.accept(";"):     # a declaration (prototype) only
            return
        self.expect("{", "'{' to open the kernel body")
        self.scopes, self.scope_ids, self.param_scopes = [], [], []
        self.parse_block(kernel)

    def parse_paren_words(self) -> None:
        self.expect("(")
        while not self.accept(")"):
            if self.peek().kind == "eof":
                raise self.error(self.peek(), "expected ')'")
            self.next()

    def parse_block(self, kernel: Kernel) -> None:
        """Statements up to the matching '}'; a nested `{ }` block opens a scope for .reg names."""
        self.scopes.append({})
        self.param_scopes.append({})
        self.scope_count += 1
        self.scope_ids.append(self.scope_count)
        while True:
            tok = self.peek()
            if tok.kind == "eof":
                raise self.error(tok, "expected '}' to close the kernel body")
            if tok.text == "}":
                self.next()
                self.scopes.pop()
                self.param_scopes.pop()
                self.scope_ids.pop()
                return
            if tok.text == "{":
                self.next()
                self.parse_block(kernel)
            elif tok.text == ".reg":
                self.parse_reg_decl(kernel.regs)
            elif tok.text in (".shared", ".local", ".global", ".const"):
                kernel.vars.append(self.parse_var_decl())
            elif tok.text == ".param":                   # argument space of a call
                var = self.parse_var_decl()
                var.name = self.declare_param(var.name)
                kernel.call_params.append(var)
            elif tok.text == ".pragma":
                self.next()
                self.next()
                self.expect(";")
            elif tok.text in _LINE_DIRECTIVES:
                self.skip_line()
            elif tok.kind == "ident" and self.tokens[self.i + 1].text == ":" and not tok.text.startswith("%"):
                self.i += 2
                kernel.body.append(Label(tok.text, tok.loc))
            else:
                kernel.body.append(self.parse_instruction())

    def parse_instruction(self) -> Instruction:
        first = self.peek()
        guard, negated = None, False
        if self.accept("@"):
            negated = self.accept("!")
            guard = self.expect_ident("a predicate register after '@'").text
        if guard is not None:
            guard = self.lookup(guard) or guard
        tok = self.peek()
        if tok.kind != "ident" or tok.text.startswith((".", "%")):
            raise self.error(tok, "expected an instruction, a label or a declaration")
        self.i += 1
        opcode, *suffixes = tok.text.split(".")
        if opcode == "call":
            operands = self.parse_call_operands(tok)
            return Instruction(opcode, suffixes, operands, first.loc if guard else tok.loc, guard, negated)
        operands: list[Operand] = []
        if not self.at(";"):
            operands.append(self.parse_operand())
            while self.accept(","):
                operands.append(self.parse_operand())
        self.expect(";", "',' or ';' after an operand")
        return Instruction(opcode, suffixes, operands, first.loc if guard else tok.loc, guard, negated)

    def parse_call_operands(self, call_tok: Token) -> list[Operand]:
        """`call (r0, ..), f, (a0, ..);`, `call f, (a0, ..);`, `call (r0), f;`, `call f;` ->
        [returns {..}, function name, arguments {..}].  Indirect calls (through a register, with a
        prototype) are refused here."""
        rets = Operand("vec", call_tok.loc)
        if self.at("("):
            rets.items = self.parse_name_list()
            self.expect(",", "',' after the call's return values")
        fname = self.peek()
        if fname.kind != "ident" or fname.text.startswith("%") or self.lookup(fname.text) is not None:
            raise InputError(f"indirect calls (through {fname.text!r}) are not supported: call a .func by "
                             "its name", fname.loc)
        self.next()
        args = Operand("vec", fname.loc)
        if self.accept(","):
            if not self.at("("):
                raise InputError(f"indirect calls (with a prototype {self.peek().text!r}) are not supported",
                                 self.peek().loc)
            args.items = self.parse_name_list()
            if self.at(","):
                raise InputError("call targets lists and prototypes (indirect calls) are not supported",
                                 self.peek().loc)
        self.expect(";", "';' after the call")
        return [rets, Operand("sym", fname.loc, name=fname.text), args]

    def parse_name_list(self) -> list[Operand]:
        """`(a, b, ..)` of a call: operands (names of .param variables, normally)."""
        return self.parse_paren_list(self.parse_operand, "',' or ')' in a call's operand list")

    # ---- operands ----
    def parse_operand(self) -> Operand:
        tok = self.peek()
        if tok.text == "[":
            return self.parse_address()
        if tok.text == "{":
            self.next()
            items = [self.parse_operand()]
            while self.accept(","):
                items.append(self.parse_operand())
            self.expect("}", "',' or '}' in a vector operand")
            return Operand("vec", tok.loc, items=items)
        if tok.text == "!":
            self.next()
            inner = self.parse_operand()
            if inner.kind != "reg":
                raise InputError("'!' applies only to predicate registers", tok.loc)
            inner.negate = True
            return inner
        if tok.text == "-" or tok.kind in ("int", "hex", "bin", "float", "fhex", "dhex"):
            return self.parse_number()
        if tok.kind == "ident":
            self.next()
            register = self.lookup(tok.text)
            if register is not None or tok.text.startswith("%"):
                op = Operand("reg", tok.loc, name=register or tok.text)
                if self.at("|"):
                    self.next()
                    op.extra = self.parse_operand()
                return op
            return Operand("sym", tok.loc, name=self.symbol(tok.text))
        raise self.error(tok, "expected an operand (register, number, name, [address] or {vector})")

    def parse_number(self) -> Operand:
        start = self.peek()
        neg = self.accept("-")
        tok = self.next()
        if tok.kind in INT_KINDS:
            value = int_literal(tok)
            return Operand("imm", start.loc, value=wrap_s64(-value if neg else value))
        if tok.kind == "float" and float(tok.text) == float("inf"):
            raise InputError(f"floating-point literal {tok.text} is beyond the .f64 range (ptxas: "
                             f"Constant overflow)", tok.loc)
        if tok.kind in ("float", "fhex", "dhex"):
            return Operand("fimm", start.loc, text=("-" if neg else "") + tok.text,
                           value=-float(tok.text) if neg and tok.kind == "float" else
                           (float(tok.text) if tok.kind == "float" else 0.0))
        raise self.error(tok, "expected a number")

    def parse_address(self) -> Operand:
        open_tok = self.expect("[")
        tok = self.peek()
        base: Operand | None = None
        offset = 0
        if tok.kind == "ident":
            self.next()
            register = self.lookup(tok.text)
            is_reg = register is not None or tok.text.startswith("%")
            base = Operand("reg" if is_reg else "sym", tok.loc,
                           name=register or (tok.text if is_reg else self.symbol(tok.text)))
            if self.at("+") or self.at("-"):
                sign = -1 if self.next().text == "-" else 1
                offset = wrap_s64(sign * self.expect_int("an address offset"))
        elif tok.kind in INT_KINDS or tok.text == "-":
            offset = wrap_s64(self.expect_int("an address"))
        else:
            raise self.error(tok, "expected a register, a variable name or a number inside [ ]")
        self.expect("]", "']' to close the address")
        return Operand("addr", open_tok.loc, base=base, value=offset)


def parse_ptx(text: str, file: str = "<string>") -> Module:
    """Parse PTX source text into a Module; raises InputError with file:line:column."""
    return Parser(text, file).parse_module()
