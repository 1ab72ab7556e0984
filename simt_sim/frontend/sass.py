"""The SASS that ptxas makes of a PTX file: a listing per kernel with pcs, operands, encodings and
decoded control codes.

Pipeline: PTX (or CUDA, through `nvcc -ptx`) -> `ptxas -arch=sm_90 -O3 -lineinfo` -> cubin ->
`nvdisasm -json` (structured opcode, operands, predicate, control-flow attribute per instruction)
and `nvdisasm -c -hex -gp` (the byte offset and 128-bit encoding of each instruction, and the PTX
line it came from).  The two are joined by position inside each function; a count mismatch is an
error, never a guess.  Cubins and PTX made from CUDA are cached in `$SIMT_SIM_CACHE/sass/` keyed by
the sha256 of the input and the flags, like ptxas.py's register counts.

nvdisasm and cuobjdump are not part of the nvcc install used here; they come from NVIDIA's PyPI
wheels `nvidia-cuda-nvdisasm` / `nvidia-cuda-cuobjdump` (binaries under
site-packages/nvidia/cu13/bin/), found there first and then on PATH.

Control codes (Volta and later, sm_70 .. sm_90 share the layout).  Each instruction is 128 bits;
nvdisasm -hex prints them as two little-endian 64-bit words (low, high).  Bits 105..125 of the
instruction, i.e. bits 41..61 of the high word, are the scheduling control code:

    bits 105-108  stall count: cycles the scheduler waits before issuing this warp's next instruction
    bit  109      yield bit, printed "Y" when 0 as CuAssembler and maxas do (a hint to the warp
                  scheduler; what the H100 does with it is for the control-code timing issue to measure)
    bits 110-112  write barrier (scoreboard) set when this variable-latency instruction's result is
                  written; 7 = none
    bits 113-115  read barrier set when this instruction has read its source registers; 7 = none
    bits 116-121  wait mask: the barriers (bit i = barrier i, six barriers) that must be clear
                  before this instruction issues
    bits 122-125  register reuse flags, one per source operand slot (operand cache)

Sources: the maxas wiki "Control-Codes" page (Maxwell layout of the same fields), Jia et al.,
"Dissecting the NVIDIA Turing T4 GPU via Microbenchmarking" (arXiv:1903.07486) §2, and
CuAssembler's decodeCtrlCodes (which reads the same 21 bits as `code >> 105`).  Checked on ptxas
13.0 sm_90 listings (tests/test_sass_frontend.py): in programs/validation/v-lat-dram each
`LDG.E.STRONG.GPU` sets write barrier 2 and the IMAD.WIDE that consumes its result waits on mask
0b000100; `LDC.64 R4` sets write barrier 0 and the IMAD reading R4 waits on mask 0b000001.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from simt_sim.files import write_atomic
from simt_sim.errors import InputError, SourceLoc
from simt_sim.isa import encoding as E
from simt_sim.frontend.ptxas import DEFAULT_ARCH, cache_root
from simt_sim.frontend.sass_patch import SassPatch, apply_patch, check_patched, find_patch

TOOL_WHEELS = {"nvdisasm": "nvidia-cuda-nvdisasm", "cuobjdump": "nvidia-cuda-cuobjdump"}
TOOL_TIMEOUT_S = 300
# nvdisasm takes about half a second on the cubins ptxas writes here; on a damaged cubin it can
# loop: its limit grows with the cubin's size instead of the compilers' 300 s
NVDISASM_BASE_TIMEOUT_S = 60.0
NVDISASM_BYTES_PER_S = 20_000


def nvdisasm_timeout(size: int) -> float:
    """Seconds nvdisasm may take on a cubin of `size` bytes before its run counts as failed."""
    return min(float(TOOL_TIMEOUT_S), NVDISASM_BASE_TIMEOUT_S + size / NVDISASM_BYTES_PER_S)


@dataclass(frozen=True)
class ControlCodes:
    stall: int                   # 0..15 cycles
    yield_bit: int               # raw bit 109; printed "Y" when 0 (CuAssembler's convention)
    write_barrier: int | None    # 0..5, None for no barrier
    read_barrier: int | None
    wait_mask: int               # 6 bits, bit i = wait on barrier i
    reuse: int                   # 4 bits, bit i = operand slot i kept in the reuse cache

    @staticmethod
    def raw(high: int) -> int:
        """The 21 control bits (instruction bits 105..125) of an encoding's high word."""
        return (high >> 41) & 0x1FFFFF

    @classmethod
    def from_high_word(cls, high: int) -> "ControlCodes":
        code = cls.raw(high)
        wbar, rbar = (code >> E.CTRL_WBAR_SHIFT) & 7, (code >> E.CTRL_RBAR_SHIFT) & 7
        return cls(stall=code & E.CTRL_STALL_MASK, yield_bit=(code >> E.CTRL_YIELD_SHIFT) & 1,
                   write_barrier=None if wbar == E.CTRL_NO_BARRIER else wbar,
                   read_barrier=None if rbar == E.CTRL_NO_BARRIER else rbar,
                   wait_mask=(code >> E.CTRL_WAIT_SHIFT) & 0x3F, reuse=(code >> E.CTRL_REUSE_SHIFT) & 0xF)

    def text(self) -> str:
        """CuAssembler-style `B0-2---:R-:W2:Y:S02` (wait mask, read, write, yield, stall)."""
        wait = "".join(str(i) if self.wait_mask >> i & 1 else "-" for i in range(6))
        r = "-" if self.read_barrier is None else str(self.read_barrier)
        w = "-" if self.write_barrier is None else str(self.write_barrier)
        return f"B{wait}:R{r}:W{w}:{'-' if self.yield_bit else 'Y'}:S{self.stall:02d}"


@dataclass(frozen=True)
class SassInstruction:
    pc: int                          # byte offset in the function
    predicate: str                   # "@P0", "@!PT", or "" when unguarded
    opcode: str                      # with modifiers, as nvdisasm prints it: "ISETP.GE.AND"
    operands: tuple[str, ...]
    encoding: tuple[int, int]        # (low, high) 64-bit words
    control: ControlCodes
    control_flow: bool = False       # nvdisasm's `control-flow` attribute
    ptx_line: int | None = None      # line in the PTX the instruction came from (-lineinfo)

    @property
    def family(self) -> str:
        return self.opcode.split(".")[0]

    @property
    def modifiers(self) -> tuple[str, ...]:
        return tuple(self.opcode.split(".")[1:])

    def text(self) -> str:
        guard = f"{self.predicate} " if self.predicate else ""
        return f"{guard}{self.opcode} {', '.join(self.operands)}".rstrip()


@dataclass(frozen=True)
class SassKernel:
    name: str
    instructions: tuple[SassInstruction, ...]
    # label -> pc, from the listing: the device functions ptxas places after the kernel's code
    # ($KERNEL$FUNC, the targets of CALL.REL) and its branch labels (.L_x_N)
    labels: dict[str, int] = field(default_factory=dict)

    def label_pc(self, label: str) -> int | None:
        return self.labels.get(label.strip("`() "))

    def function_at(self, pc: int) -> str:
        """The name of the function whose code holds pc: the kernel, or a device function
        ($KERNEL$_Z3mixPjjj) that ptxas appended to it."""
        starts = sorted((p, n) for n, p in self.labels.items() if n.startswith(f"${self.name}$"))
        name = self.name
        for start, label in starts:
            if start <= pc:
                name = label
        return name

    def reconvergence_points(self) -> dict[int, int]:
        """{pc of BSSY: the pc it names}: where the region's threads continue once reconverged (ptxas
        places the region's BSYNC just before it)."""
        return {i.pc: int(i.operands[-1], 16) for i in self.instructions
                if i.family == "BSSY" and len(i.operands) == 2 and i.operands[-1].startswith("0x")}


@dataclass
class SassListing:
    ptx_file: Path                   # the PTX ptxas compiled (generated from CUDA for a .cu)
    cubin: Path
    kernels: list[SassKernel] = field(default_factory=list)
    ptx_lines: list[str] = field(default_factory=list)

    def kernel(self, name: str | None) -> SassKernel:
        if name is None:
            return self.kernels[0]
        for k in self.kernels:
            if k.name == name:
                return k
        raise InputError(f"no kernel {name!r} in {self.ptx_file} "
                         f"(kernels: {', '.join(k.name for k in self.kernels)})")

    def ptx_text(self, line: int | None) -> str:
        if line is None or not 0 < line <= len(self.ptx_lines):
            return ""
        return " ".join(self.ptx_lines[line - 1].split())


# ---- finding and running the tools ------------------------------------------------------------

def tool_path(name: str) -> str:
    """Path of nvdisasm/cuobjdump: NVIDIA's wheel first (its package dir), then PATH."""
    try:
        import nvidia  # namespace package installed by the nvidia-cuda-* wheels
        roots = [Path(p) for p in nvidia.__path__]
    except ImportError:
        roots = []
    for root in roots:
        for candidate in sorted(root.glob(f"cu*/bin/{name}"), reverse=True):
            if os.access(candidate, os.X_OK):
                return str(candidate)
    found = shutil.which(name)
    if found is None:
        raise InputError(f"{name} not found: install NVIDIA's wheel with `pip install {TOOL_WHEELS[name]}` "
                         f"(or put {name} on PATH)")
    return found


def tools_available() -> bool:
    """Whether SASS can be made here: ptxas on PATH and nvdisasm (NVIDIA's wheel or PATH)."""
    if shutil.which("ptxas") is None:
        return False
    try:
        tool_path("nvdisasm")
    except InputError:
        return False
    return True


def _run(cmd: list[str], what: str, cwd: Path | None = None,
         timeout: float = TOOL_TIMEOUT_S) -> subprocess.CompletedProcess:
    try:
        # a damaged cubin can make nvdisasm print bytes that are not UTF-8 (symbol names): decode them
        # as U+FFFD, so the listing's own checks report the damage instead of a UnicodeDecodeError
        return subprocess.run(cmd, capture_output=True, text=True, encoding="utf-8", errors="replace",
                              timeout=timeout, cwd=cwd)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise InputError(f"{what} did not run ({e})") from None


_PTXAS_ERR_RE = re.compile(r"ptxas\s+(?P<file>.*?), line (?P<line>\d+); (?:error|fatal)\s*:\s*(?P<msg>.*)")


def _ptxas_error(path: Path, stderr: str) -> InputError:
    """ptxas's first error as file:line:column (ptxas reports no column: 1)."""
    for line in stderr.splitlines():
        m = _PTXAS_ERR_RE.search(line)
        if m:
            return InputError(f"ptxas: {m.group('msg').strip()}", SourceLoc(str(path), int(m.group("line")), 1))
    first = next((l for l in stderr.splitlines() if l.strip()), "no message")
    return InputError(f"ptxas rejected the file: {first.strip()}", SourceLoc(str(path), 1, 1))


def _cached(kind: str, data: bytes, flags: list[str], suffix: str) -> Path:
    key = hashlib.sha256("\0".join(flags).encode() + b"\0" + data).hexdigest()
    return cache_root() / "sass" / kind / f"{key}{suffix}"


def _atomic_output(out: Path) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    return out.with_name(f"{out.stem}.{os.getpid()}.tmp{out.suffix}")


def cuda_to_ptx(cu: Path, arch: str = DEFAULT_ARCH) -> Path:
    """`nvcc -ptx -arch=ARCH -O3 -lineinfo` (build_programs' flags plus line info), cached."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        raise InputError("nvcc not found on PATH (needed to compile CUDA to PTX)")
    flags = ["-ptx", f"-arch={arch}", "-O3", "-lineinfo"]
    out = _cached("ptx", _read_bytes(cu), flags, ".ptx")
    if not out.exists():
        tmp = _atomic_output(out)
        # in the source's directory, as tools/build_programs.py does, so includes resolve alike
        r = _run([nvcc, *flags, "-o", str(tmp.resolve()), cu.name], "nvcc", cwd=cu.parent)
        if r.returncode != 0:
            tmp.unlink(missing_ok=True)
            first = next((l for l in r.stderr.splitlines() if "error" in l), r.stderr.strip()[:300])
            raise InputError(f"nvcc rejected {cu}: {first.strip()}")
        tmp.replace(out)
    return out


_DEBUG_PTX_RE = re.compile(rb"^\s*\.section\s+\.debug_info\b", re.M)


def ptxas_flags(ptx_text: bytes, arch: str) -> list[str]:
    """-O3 as the hardware runs release code; PTX from `nvcc -G` carries DWARF (.debug_info) and
    ptxas refuses to optimise it ("Optimized debugging not supported"), so it gets -O0 as nvcc -G
    itself passes."""
    level = "-O0" if _DEBUG_PTX_RE.search(ptx_text) else "-O3"
    return [f"-arch={arch}", level, "-lineinfo"]


def refuse_mask_stack_isa(ptx: Path, text: bytes) -> None:
    """The article programs' explicit mask-stack instructions are this simulator's extension of PTX;
    ptxas has no SASS for them, so say so rather than pass on ptxas's "unknown instruction"."""
    m = _MASK_ISA_RE.search(text)
    if m:
        line = text.count(b"\n", 0, m.start()) + 1
        word = m.group(0).split()[-1].decode()
        raise InputError(f"{word} is the simulator's mask-stack ISA, not PTX: ptxas cannot compile it, so "
                         "there is no SASS (use `simt-sim disasm` without --isa sass)", SourceLoc(str(ptx), line, 1))


def cubin_key(text: bytes, flags: list[str]) -> str:
    return hashlib.sha256("\0".join(flags).encode() + b"\0" + text).hexdigest()


def committed_cubin_path(ptx: Path, arch: str = DEFAULT_ARCH) -> Path:
    """Where a program keeps the cubin of its PTX (kernel.ptx -> kernel.sm_90.cubin), with the key
    of the PTX and flags it was made from in kernel.sm_90.cubin.key."""
    return ptx.with_name(f"{ptx.stem}.{arch}.cubin")


def committed_cubin(ptx: Path, text: bytes, flags: list[str], arch: str) -> Path | None:
    """The committed cubin when it was made from this very PTX (and SASS patch) with these flags
    (so machines without ptxas run the SASS that the H100 ran), else None."""
    cubin = committed_cubin_path(ptx, arch)
    key = cubin.with_name(cubin.name + ".key")
    if cubin.is_file() and key.is_file() and key.read_text().strip() == cubin_key(cubin_source(ptx, text), flags):
        return cubin
    return None


def cubin_source(ptx: Path, text: bytes) -> bytes:
    """What a cubin is made from besides the flags: the PTX, and the SASS patch beside it if any."""
    patch = find_patch(ptx)
    return text if patch is None else text + b"\0sass-patch\0" + patch.source


def commit_cubin(ptx: Path, arch: str = DEFAULT_ARCH) -> Path:
    """Write kernel.sm_90.cubin (+ .key) beside a program's PTX (tools/build_programs.py --cubin)."""
    text = _read_bytes(ptx)
    flags = ptxas_flags(text, arch)
    made = ptx_to_cubin(ptx, arch)
    cubin = committed_cubin_path(ptx, arch)
    if made != cubin:
        write_atomic(cubin, made.read_bytes())
    write_atomic(cubin.with_name(cubin.name + ".key"), cubin_key(cubin_source(ptx, text), flags) + "\n")
    return cubin


def ptx_to_cubin(ptx: Path, arch: str = DEFAULT_ARCH) -> Path:
    """`ptxas -arch=ARCH -O3 -lineinfo`: the program's committed cubin when it matches the PTX,
    else compiled and cached by the PTX's hash (then patched, for a probe with a SASS patch)."""
    text = _read_bytes(ptx)
    refuse_mask_stack_isa(ptx, text)
    flags = ptxas_flags(text, arch)
    found = committed_cubin(ptx, text, flags, arch)
    if found is not None:
        return found
    ptxas = shutil.which("ptxas")
    if ptxas is None:
        raise InputError("ptxas not found on PATH (it comes with the CUDA toolkit's nvcc)")
    out = _cached("cubin", text, flags, ".cubin")
    if not out.exists():
        tmp = _atomic_output(out)
        r = _run([ptxas, *flags, str(ptx), "-o", str(tmp)], "ptxas")
        if r.returncode != 0:
            tmp.unlink(missing_ok=True)
            raise _ptxas_error(ptx, r.stderr + r.stdout)
        tmp.replace(out)
    patch = find_patch(ptx)
    return out if patch is None else patched_cubin(out, patch, cubin_source(ptx, text), flags)


def patched_cubin(cubin: Path, patch: SassPatch, source: bytes, flags: list[str]) -> Path:
    """ptxas's cubin with its SASS patch applied and read back (frontend/sass_patch.py), cached."""
    out = _cached("cubin", source, flags, ".cubin")
    if not out.exists():
        from simt_sim.frontend.cubin_elf import read_cubin
        kernels = disassemble_cubin(cubin)
        offsets = read_cubin(cubin).offsets
        data = apply_patch(cubin.read_bytes(), {k.name: offsets[f".text.{k.name}"] for k in kernels},
                           kernels, patch)
        tmp = _atomic_output(out)
        tmp.write_bytes(data)
        try:
            check_patched(disassemble_cubin(tmp), patch)
        except InputError:
            tmp.unlink(missing_ok=True)
            raise
        tmp.replace(out)
    return out


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror}") from None


# ---- parsing nvdisasm ---------------------------------------------------------------------------

_FUNC_RE = re.compile(r"^\.text\.(?P<name>[^:\s]+):\s*$")
_LINE_RE = re.compile(r'^\s*//## File ".*?", line (?P<line>\d+)')
_INST_RE = re.compile(r"^\s*/\*(?P<pc>[0-9a-f]{4,})\*/\s+(?P<text>.*?)\s*;?\s*/\*\s*(?P<lo>0x[0-9a-f]{16})\s*\*/\s*$")
_HIGH_RE = re.compile(r"^\s*/\*\s*(?P<hi>0x[0-9a-f]{16})\s*\*/\s*$")
_LABEL_RE = re.compile(r"^(?P<label>[$.\w]+):\s*$")


def parse_hex_listing(text: str) -> dict[str, list[tuple[int, int, int, int | None]]]:
    """`nvdisasm -c -hex -gp` -> {function: [(pc, low word, high word, PTX line or None)]}."""
    out: dict[str, list] = {}
    current: list | None = None
    line_no: int | None = None
    pending: tuple[int, int] | None = None
    for raw in text.splitlines():
        if m := _FUNC_RE.match(raw):
            current, line_no = out.setdefault(m.group("name"), []), None
        elif m := _LINE_RE.match(raw):
            line_no = int(m.group("line"))
        elif (m := _INST_RE.match(raw)) and current is not None:
            pending = (int(m.group("pc"), 16), int(m.group("lo"), 16))
        elif (m := _HIGH_RE.match(raw)) and pending is not None and current is not None:
            current.append((pending[0], pending[1], int(m.group("hi"), 16), line_no))
            pending = None
    return out


def parse_labels(text: str) -> dict[str, dict[str, int]]:
    """`nvdisasm -c -hex` -> {function: {label: pc}}: each label names the pc of the instruction
    after it (a label at the end of a function, like its closing `.L_x_N`, the pc after its last
    instruction).  The function's own name and section label are left out."""
    out: dict[str, dict[str, int]] = {}
    current: dict[str, int] | None = None
    pending: list[str] = []
    next_pc = 0
    for raw in text.splitlines():
        if m := _FUNC_RE.match(raw):
            current, pending, next_pc = out.setdefault(m.group("name"), {}), [], 0
        elif (m := _LABEL_RE.match(raw)) and current is not None:
            pending.append(m.group("label"))
        elif (m := _INST_RE.match(raw)) and current is not None:
            pc = int(m.group("pc"), 16)
            current.update((label, pc) for label in pending)
            pending, next_pc = [], pc + 16
        elif raw.startswith("//---") and current is not None:     # the next section's banner
            current.update((label, next_pc) for label in pending)
            pending = []
    if current is not None:
        current.update((label, next_pc) for label in pending)
    return out


def split_operands(text: str) -> tuple[str, ...]:
    """'R2,desc[UR4][R6.64],{R4,R5}' -> operands split at top-level commas only."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    return tuple(parts)


def parse_json_listing(text: str) -> dict[str, list[dict]]:
    """`nvdisasm -json` -> {function: [instruction dicts]} (schema 13.x: [header, [functions]])."""
    try:
        data = json.loads(text)
        return {f["function-name"]: f["sass-instructions"] for f in data[1]}
    except (ValueError, KeyError, IndexError, TypeError) as e:
        raise InputError(f"nvdisasm -json printed an unexpected document ({e})") from None


def build_kernel(name: str, structured: list[dict], encoded: list[tuple],
                 labels: dict[str, int] | None = None) -> SassKernel:
    if len(structured) != len(encoded):
        raise InputError(f"nvdisasm listings disagree for {name}: {len(structured)} instructions in -json, "
                         f"{len(encoded)} in -hex")
    insts = []
    for k, (s, (pc, lo, hi, line)) in enumerate(zip(structured, encoded)):
        if not (isinstance(s, dict) and isinstance(s.get("opcode"), str)
                and all(isinstance(s.get(key, ""), str) for key in ("operands", "predicate"))
                and isinstance(s.get("other-attributes") or {}, dict)):
            raise InputError(f"nvdisasm -json printed an unexpected instruction {k} of {name} at pc {pc:#x}: "
                             f"{str(s)[:120]}")
        attrs = s.get("other-attributes") or {}
        insts.append(SassInstruction(
            pc=pc, predicate=s.get("predicate", ""), opcode=s["opcode"],
            operands=split_operands(s.get("operands", "")), encoding=(lo, hi),
            control=ControlCodes.from_high_word(hi),
            control_flow=str(attrs.get("control-flow", "")).lower() == "true", ptx_line=line))
    return SassKernel(name, tuple(insts), dict(labels or {}))


NVDISASM_LISTINGS = (("-json",), ("-c", "-hex", "-gp"))      # structured; encodings and labels


def disassemble_cubin(cubin: Path) -> list[SassKernel]:
    js, hx = nvdisasm_listings(cubin)
    structured, encoded = parse_json_listing(js), parse_hex_listing(hx)
    labels = parse_labels(hx)
    kernels = {name: build_kernel(name, insts, encoded.get(name, []), labels.get(name))
               for name, insts in structured.items()}
    return [link_functions(k, kernels) for k in kernels.values()]


# operands that hold a code address (section-relative) of the instruction's own function
_CODE_ADDRESS_FAMILIES = ("BRA", "BSSY", "WARPSYNC", "CALL", "JMP")


def _called_functions(kernel: SassKernel, functions: dict[str, SassKernel]) -> list[str]:
    return [op.strip("`() ") for i in kernel.instructions if i.family == "CALL" and "ABS" in i.modifiers
            for op in i.operands if op.strip("`() ") in functions]


def link_functions(kernel: SassKernel, functions: dict[str, SassKernel]) -> SassKernel:
    """A kernel compiled with -G calls its device functions, each in a .text section of its own,
    with `CALL.ABS.NOINC `(FUNC)` (the return address comes from `32@lo((SYM + 0xOFF))` /
    `32@hi(...)`: OFF bytes into SYM's section).  Append every function it reaches (transitively)
    after its code, as ptxas does for -O3 device functions: each instruction's pc and its code
    addresses (branch / BSSY targets) move by the function's base, its labels too, and the labels
    `FUNC` and `$KERNEL$FUNC` name the base, so that CALL.ABS and the relocation operands resolve
    (sass_lower.RowBuilder.operand)."""
    order: list[str] = []
    todo = _called_functions(kernel, functions)
    while todo:
        name = todo.pop(0)
        if name == kernel.name or name in order:
            continue
        order.append(name)
        todo.extend(_called_functions(functions[name], functions))
    if not order:
        return kernel
    insts = list(kernel.instructions)
    labels = dict(kernel.labels)
    base = (insts[-1].pc + 16) if insts else 0
    for name in order:
        f = functions[name]
        labels[name] = labels[f"${kernel.name}${name}"] = base
        labels.update((label, base + pc) for label, pc in f.labels.items())
        for i in f.instructions:
            ops = i.operands
            if i.family in _CODE_ADDRESS_FAMILIES and ops and ops[-1].startswith("0x"):
                ops = ops[:-1] + (hex(int(ops[-1], 16) + base),)
            insts.append(replace(i, pc=i.pc + base, operands=ops))
        base = (f.instructions[-1].pc + 16 + base) if f.instructions else base
    return replace(kernel, instructions=tuple(insts), labels=labels)


def nvdisasm_listings(cubin: Path) -> tuple[str, str]:
    """nvdisasm's two listings of a cubin (run side by side), cached by the cubin's bytes: a
    listing depends on nothing else, and each run costs about half a second."""
    data = _read_bytes(cubin)
    cached = [_cached("listing", data, list(flags), ".txt") for flags in NVDISASM_LISTINGS]
    if all(c.exists() for c in cached):
        return cached[0].read_text(), cached[1].read_text()
    nvdisasm = tool_path("nvdisasm")
    with ThreadPoolExecutor(max_workers=2) as pool:
        limit = nvdisasm_timeout(len(data))
        runs = list(pool.map(lambda flags: _run([nvdisasm, *flags, str(cubin)], f"nvdisasm {flags[-1]}",
                                                timeout=limit), NVDISASM_LISTINGS))
    for r in runs:
        if r.returncode != 0:
            raise InputError(f"nvdisasm failed on {cubin}: {r.stderr.strip()[:300]}")
    for out, r in zip(cached, runs):
        tmp = _atomic_output(out)
        tmp.write_text(r.stdout)
        tmp.replace(out)
    return runs[0].stdout, runs[1].stdout


# ---- the entry point -----------------------------------------------------------------------------

def resolve_source(target: str) -> Path:
    """A .ptx or .cu file, or a program directory (its manifest's kernel file) -> the PTX path."""
    path = Path(target)
    if path.is_dir() or (not path.suffix and (path / "manifest.yaml").exists()):
        from simt_sim.frontend.manifest import load_manifest
        return load_manifest(target).kernel_file
    if not path.exists():
        raise InputError(f"cannot read {target}: no such file or directory")
    if path.suffix == ".cu":
        return cuda_to_ptx(path)
    if path.suffix != ".ptx":
        raise InputError(f"{target}: expected a .ptx or .cu file or a program directory")
    return path


def sass_listing(target: str, arch: str = DEFAULT_ARCH) -> SassListing:
    """The SASS of `target` (.ptx, .cu or programs/PURPOSE/NAME) as ptxas compiles it for `arch`."""
    ptx = resolve_source(target)
    cubin = ptx_to_cubin(ptx, arch)
    lines = _read_bytes(ptx).decode("utf-8", "replace").splitlines()
    return SassListing(ptx, cubin, disassemble_cubin(cubin), lines)


# ---- printing ----------------------------------------------------------------------------------

def format_kernel(listing: SassListing, kernel: SassKernel) -> list[str]:
    """One line per instruction: pc, instruction, pipe (isa/sass.yaml), control codes, PTX line,
    and the convergence regions BSSY opens (its reconvergence pc, marked again at that pc)."""
    from simt_sim.isa.sass_table import hopper_table, sass_table
    table, hopper = sass_table(), hopper_table()
    regions = kernel.reconvergence_points()
    opened_at = {target: bssy for bssy, target in regions.items()}
    width = max((len(i.text()) for i in kernel.instructions), default=0)
    lines = [f"// {kernel.name}: {len(kernel.instructions)} SASS instructions (ptxas sm_90 -O3), "
             f"from {listing.ptx_file}",
             f"{'pc':>6}  {'instruction':<{width}}  {'pipe':<8} {'control':<20} PTX line"]
    for inst in kernel.instructions:
        op = table.family(inst.opcode)
        pipe = op.pipe if op else "?"
        control = inst.control.text() + (f" reuse={inst.control.reuse:04b}" if inst.control.reuse else "")
        ptx = f"{inst.ptx_line}: {listing.ptx_text(inst.ptx_line)}" if inst.ptx_line else ""
        notes = []
        if inst.pc in regions:
            notes.append(f"reconverges at {regions[inst.pc]:#06x}")
        notes += call_notes(kernel, inst)
        if inst.pc in opened_at:
            notes.append(f"<- reconvergence of BSSY at {opened_at[inst.pc]:#06x}")
        refused = hopper.get(inst.family)
        if refused is not None and refused.status == "refused":
            notes.append(f"not simulated: {refused.description}")
        elif op is None:
            notes.append("not in isa/sass.yaml")
        note = f"  // {'; '.join(notes)}" if notes else ""
        lines.append(f"{inst.pc:#06x}  {inst.text():<{width}}  {pipe:<8} {control:<20} {ptx}{note}".rstrip())
    return lines


def call_notes(kernel: SassKernel, inst: SassInstruction) -> list[str]:
    """Where a CALL goes (its label resolved to a pc) and the start of each device function."""
    notes = []
    if inst.family == "CALL" and inst.operands:
        target = kernel.label_pc(inst.operands[0])
        notes.append(f"calls {inst.operands[0]} at {target:#06x}" if target is not None
                     else f"calls the address in {inst.operands[0]}")
    if inst.family == "RET" and inst.operands:
        notes.append(f"returns to the address in {inst.operands[0]}")
    starts = [n for n, p in kernel.labels.items() if p == inst.pc and n.startswith(f"${kernel.name}$")]
    notes += [f"function {n} starts here" for n in starts]
    return notes


# ---- the repository's opcode inventory ---------------------------------------------------------

def corpus_files(root: Path) -> list[Path]:
    """The PTX the SASS table must cover: programs/*/*/kernel.ptx and tests/cuda/*.ptx, less files
    ptxas cannot read (the mask-stack ISA's push_mask/br_push programs are not PTX)."""
    files = sorted(root.glob("programs/*/*/kernel.ptx")) + sorted(root.glob("tests/cuda/*.ptx"))
    return [f for f in files if not _MASK_ISA_RE.search(f.read_bytes())]


_MASK_ISA_RE = re.compile(rb"^\s*(?:@\S+\s+)?(?:push_mask|pop_mask|mask_nz|br_push)\b", re.M)


def opcode_inventory(files: list[Path], root: Path) -> dict[str, dict]:
    """{family: {count, modifiers, write_barriers, read_barriers, example, first_seen}} over `files`:
    what ptxas emits, and how often each family sets a scoreboard (variable latency)."""
    # ptxas and nvdisasm run as subprocesses: threads overlap them; results are taken in file order
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        listings = list(pool.map(lambda f: sass_listing(str(f)), files))
    inv: dict[str, dict] = {}
    for f, listing in zip(files, listings):
        for kernel in listing.kernels:
            for inst in kernel.instructions:
                entry = inv.setdefault(inst.family, {"count": 0, "modifiers": set(), "write_barriers": 0,
                                                     "read_barriers": 0, "example": inst.text(),
                                                     "first_seen": str(f.relative_to(root))})
                entry["count"] += 1
                entry["modifiers"].update(inst.modifiers)
                entry["write_barriers"] += inst.control.write_barrier is not None
                entry["read_barriers"] += inst.control.read_barrier is not None
    return {k: dict(v, modifiers=sorted(v["modifiers"])) for k, v in sorted(inv.items())}
