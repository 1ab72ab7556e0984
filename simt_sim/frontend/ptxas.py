"""Registers per thread as the hardware allocates them: asked of ptxas, cached by the PTX's hash.

A PTX `.reg` declaration names a virtual register; nvcc declares one per value, so the count of
declarations is often several times what ptxas allocates (a 1024-thread block could then never
fit on an SM).  When a run gives no register count, the quick form and program manifests use
`ptxas -arch=sm_XX -O3 -v FILE.ptx -o /dev/null`, which prints "Used N registers" per function.

The answer is cached as JSON in `$SIMT_SIM_CACHE/ptxas-registers/SHA256.json` (default
`$XDG_CACHE_HOME/simt-sim`, else `~/.cache/simt-sim`), keyed by the sha256 of the PTX text and the
architecture, so an edited file is asked again and the source tree stays clean.  Without ptxas (or
when it rejects the file: the explicit mask-stack instructions are not PTX) the count falls back
to the `.reg` declarations, with a warning that says so.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

DEFAULT_ARCH = "sm_90"
_TARGET_RE = re.compile(rb"^\s*\.target\s+(sm_\d+)", re.M)
_ENTRY_RE = re.compile(r"Compiling entry function '([^']+)'")
_USED_RE = re.compile(r"Used (\d+) registers")


@dataclass(frozen=True)
class RegisterCount:
    registers: int
    source: str                 # "ptxas", "cache" (an earlier ptxas answer) or "estimate"
    warning: str | None = None  # why it is an estimate


def cache_root() -> Path:
    """$SIMT_SIM_CACHE, else $XDG_CACHE_HOME/simt-sim, else ~/.cache/simt-sim."""
    root = os.environ.get("SIMT_SIM_CACHE")
    if not root:
        root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "simt-sim"
    return Path(root)


def cache_dir() -> Path:
    return cache_root() / "ptxas-registers"


def parse_ptxas_output(text: str) -> dict[str, int]:
    """`ptxas -v` output -> {entry name: registers used}."""
    counts: dict[str, int] = {}
    current = None
    for line in text.splitlines():
        m = _ENTRY_RE.search(line)
        if m:
            current = m.group(1)
        m = _USED_RE.search(line)
        if m and current is not None:
            counts[current] = int(m.group(1))
            current = None
    return counts


def ptxas_counts(path: Path, arch: str) -> tuple[dict[str, int] | None, str]:
    """Ask ptxas -> ({entry: registers}, "") or (None, why not)."""
    ptxas = shutil.which("ptxas")
    if ptxas is None:
        return None, "ptxas not found on PATH"
    try:
        r = subprocess.run([ptxas, f"-arch={arch}", "-O3", "-v", str(path), "-o", os.devnull],
                           capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"ptxas did not run ({e})"
    if r.returncode != 0:
        first = next((line for line in r.stderr.splitlines() if "error" in line), r.stderr.strip()[:200])
        return None, f"ptxas rejected {path.name} ({first.strip()})"
    return parse_ptxas_output(r.stderr + r.stdout), ""


def read_cache(file: Path) -> dict[str, int] | None:
    try:
        data = json.loads(file.read_text())
        return {str(k): int(v) for k, v in data["registers"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def write_cache(file: Path, path: Path, arch: str, counts: dict[str, int]) -> None:
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        tmp = file.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"ptx": str(path), "arch": arch, "registers": counts}, indent=1))
        tmp.replace(file)          # atomic: concurrent runs never read half a file
    except OSError:
        pass                       # an unwritable cache only costs a ptxas run next time


def allocated_registers(program) -> RegisterCount:
    """Registers per thread of `program` (a frontend Program loaded from a file) as ptxas
    allocates them, or the `.reg` declarations' count with a warning."""
    path = Path(program.file)
    try:
        text = path.read_bytes()
    except OSError:
        return estimate(program, f"no PTX file to give ptxas ({program.file})")
    m = _TARGET_RE.search(text)
    arch = m.group(1).decode() if m and int(m.group(1)[3:]) > int(DEFAULT_ARCH[3:]) else DEFAULT_ARCH
    key = hashlib.sha256(arch.encode() + b"\0" + text).hexdigest()
    file = cache_dir() / f"{key}.json"
    counts, source = read_cache(file), "cache"
    if counts is None:
        counts, why = ptxas_counts(path, arch)
        if counts is None:
            return estimate(program, why)
        write_cache(file, path, arch, counts)
        source = "ptxas"
    if program.name not in counts:
        return estimate(program, f"ptxas reported no register count for {program.name}")
    return RegisterCount(counts[program.name], source)


def estimate(program, why: str) -> RegisterCount:
    n = program.declared_regs
    return RegisterCount(n, "estimate", f"{why}; registers per thread estimated from the PTX .reg "
                                        f"declarations ({n}), usually more than ptxas allocates "
                                        "(give the count with --registers or the manifest's `registers:`)")
