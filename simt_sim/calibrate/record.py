"""Record hardware references: run programs/NAME on a CUDA GPU and save outputs, mask traces,
per-block clock spans and Nsight Compute counters as programs/NAME/reference/<gpu>.json.

Runs only where a CUDA GPU, nvcc and cupy are present.  The GPU runs the committed kernel.ptx
(and kernel.trace.ptx for the mask trace), assembled by ptxas for sm_90: the same PTX the
simulator reads.  Counters come from one `ncu` process that profiles every program's launches in
order (`--launches-only` mode of this module), repeated `repeats` times for a spread.
"""
from __future__ import annotations

import csv
import datetime
import io
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from simt_sim.errors import InputError
from simt_sim.frontend.dims import Dim3

NCU_METRICS = [
    "sm__cycles_elapsed.max", "smsp__inst_executed.sum", "smsp__thread_inst_executed.sum",
    "smsp__thread_inst_executed_pred_on.sum", "sm__inst_executed_pipe_fma.sum", "sm__inst_executed_pipe_alu.sum",
    "sm__inst_executed_pipe_fp64.sum", "sm__inst_executed_pipe_xu.sum", "sm__inst_executed_pipe_tensor.sum",
    "sm__inst_executed_pipe_cbu.sum", "sm__inst_executed_pipe_lsu.sum", "sm__inst_executed_pipe_adu.sum",
    "sm__inst_executed_pipe_uniform.sum",
]
STALL_REASONS = ["barrier", "branch_resolving", "dispatch_stall", "drain", "imc_miss", "lg_throttle",
                 "long_scoreboard", "math_pipe_throttle", "membar", "mio_throttle", "misc", "no_instruction",
                 "not_selected", "selected", "short_scoreboard", "sleeping", "tex_throttle", "wait"]
STALL_METRICS = [f"smsp__average_warps_issue_stalled_{r}_per_issue_active.ratio" for r in STALL_REASONS]
PARAM_DTYPES = {"u8": np.uint8, "s8": np.int8, "b8": np.uint8, "u16": np.uint16, "s16": np.int16, "b16": np.uint16,
                "u32": np.uint32, "s32": np.int32, "b32": np.uint32, "u64": np.uint64, "s64": np.int64,
                "b64": np.uint64, "f32": np.float32, "f64": np.float64}


def require_gpu():
    """cupy and a CUDA device, or a clear InputError saying why not."""
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()
    except Exception as e:                      # ImportError, CUDARuntimeError: no GPU here
        raise InputError(f"`simt-sim hw record` needs a CUDA GPU with cupy installed ({type(e).__name__}: "
                         f"{str(e).splitlines()[0] if str(e) else 'unavailable'}); references are recorded on "
                         "the H100 machine and committed, and `simt-sim validate` compares against them") from None
    if shutil.which("nvcc") is None:
        raise InputError("`simt-sim hw record` needs nvcc (ptxas) on PATH")
    return cupy


def program_dirs(names: list[str], root: Path) -> list[Path]:
    """The program directories to run on hardware: those named, or every program whose kernel file
    was compiled from CUDA (kernel.cu beside it, in its own directory or, for a manifest running
    another program's PTX, in that one's)."""
    from simt_sim.frontend.manifest import load_manifest
    if names:
        dirs = [Path(n) if Path(n).is_dir() else root / "programs" / n for n in names]
    else:
        dirs = sorted(p.parent for p in (root / "programs").glob("*/manifest.yaml")
                      if (p.parent / "kernel.cu").exists() or shares_cuda_source(p.parent))
    for d in dirs:
        if not (d / "kernel.cu").exists() and not load_manifest(str(d)).cuda_source.exists():
            raise InputError(f"{d}: no kernel.cu (only programs with a CUDA source are run on hardware)")
    return dirs


def shares_cuda_source(pdir: Path) -> bool:
    """A program without its own kernel.cu whose manifest runs PTX compiled from CUDA elsewhere."""
    from simt_sim.frontend.manifest import load_manifest
    try:
        m = load_manifest(str(pdir))
    except InputError:             # not a program `hw record` can run; `simt-sim validate` reports it
        return False
    return m.kernel_file.parent.resolve() != pdir.resolve() and m.cuda_source.exists()


def entry_signature(text: str, kernel: str | None):
    """Name and parameter types of a PTX entry, read with a regular expression (fallback)."""
    import re
    from types import SimpleNamespace
    entries = re.findall(r"\.entry\s+(\w+)\s*\((.*?)\)", text, re.S)
    name, params = next(((n, p) for n, p in entries if kernel in (None, n)), entries[0])
    types = re.findall(r"\.param\s+\.(\w+)", params)
    return SimpleNamespace(name=name, params=[SimpleNamespace(dtype=t) for t in types])


class Prepared:
    """One program's launch: module, kernel, host buffers and packed arguments."""

    def __init__(self, cupy, pdir: Path, variant: str, workdir: Path):
        from simt_sim.frontend.assembler import load_program
        from simt_sim.frontend.manifest import load_manifest
        self.cupy = cupy
        self.dir = pdir
        self.variant = variant
        self.manifest = load_manifest(str(pdir))
        ptx = self.manifest.trace_kernel_file if variant == "trace" else self.manifest.kernel_file
        try:
            self.program = load_program(str(ptx), self.manifest.kernel)
        except InputError:         # PTX the simulator cannot read yet still runs on the GPU
            self.program = entry_signature(ptx.read_text(), self.manifest.kernel)
        cubin = workdir / f"{pdir.name}.{variant}.cubin"
        subprocess.run(["nvcc", "-cubin", "-arch=sm_90", "-O3", "-o", str(cubin), str(ptx)], check=True,
                       capture_output=True)
        self.module = cupy.RawModule(path=str(cubin))
        self.kernel = self.module.get_function(self.program.name)
        self.inputs = {s.name: s.make() for s in self.manifest.buffers}

    def launch(self):
        """Fresh device buffers, one launch; returns (device buffers by name)."""
        cp = self.cupy
        dev = {n: cp.asarray(a) for n, a in self.inputs.items()}
        args = []
        for p, a in zip(self.program.params, self.manifest.args):
            args.append(dev[a] if isinstance(a, str) else PARAM_DTYPES[p.dtype](a))
        if self.variant == "trace":            # the trace fills from entry 0 on every launch
            cp.cuda.runtime.memset(self.module.get_global("simt_trace_count").ptr, 0, 4)
        grid, block = Dim3.of(self.manifest.grid), Dim3.of(self.manifest.block)
        self.kernel((grid.x, grid.y, grid.z), (block.x, block.y, block.z), tuple(args),
                    shared_mem=self.manifest.dynamic_shared)
        cp.cuda.runtime.deviceSynchronize()
        return dev

    def read_global(self, name: str, nbytes: int) -> np.ndarray:
        ptr = self.module.get_global(name)
        out = np.empty(nbytes, np.uint8)
        self.cupy.cuda.runtime.memcpy(out.ctypes.data, ptr.ptr, nbytes, 2)     # device to host
        return out


def launches_only(names: list[str], root: Path, repeats: int) -> None:
    """Launch every program's plain kernel `repeats` times, in order (profiled by ncu)."""
    cupy = require_gpu()
    with tempfile.TemporaryDirectory() as tmp:
        prepared = [Prepared(cupy, d, "plain", Path(tmp)) for d in program_dirs(names, root)]
        for p in prepared:
            for _ in range(repeats):
                p.launch()


def profile(names: list[str], root: Path, repeats: int) -> list[list[dict]]:
    """ncu counters per program launch: [program][repeat] -> {metric: value}."""
    dirs = program_dirs(names, root)
    cmd = ["ncu", "--csv", "--page", "raw", "--metrics", ",".join(NCU_METRICS + STALL_METRICS),
           sys.executable, "-m", "simt_sim.calibrate.record", "--launches-only", "--repeats", str(repeats),
           *[str(d) for d in dirs]]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=root)
    if r.returncode != 0:
        raise RuntimeError(f"ncu failed ({r.returncode}): {r.stderr[-2000:]}")
    text = r.stdout[r.stdout.index('"ID"'):] if '"ID"' in r.stdout else r.stdout
    rows = list(csv.DictReader(io.StringIO(text)))
    rows = [row for row in rows if row.get("ID", "").strip().isdigit()]
    values = []
    for row in rows:
        d = {}
        for m in NCU_METRICS + STALL_METRICS:
            v = row.get(m, "")
            try:
                d[m] = float(v.replace(",", ""))
            except ValueError:
                d[m] = None
        d["kernel"] = row.get("Kernel Name", "")
        values.append(d)
    if len(values) != len(dirs) * repeats:
        raise RuntimeError(f"ncu returned {len(values)} profiled launches, expected {len(dirs) * repeats}")
    return [values[i * repeats:(i + 1) * repeats] for i in range(len(dirs))]


def block_spans(trace: dict, warps_per_block: int) -> dict[str, list[int]]:
    """Per block: [first clock, last clock] over its warps' trace entries (one SM, one clock)."""
    spans: dict[str, list[int]] = {}
    for w, entries in trace.items():
        clocks = [c for _, _, c in entries]
        b = str(w // warps_per_block)
        lo, hi = spans.get(b, [min(clocks), max(clocks)])
        spans[b] = [min(lo, min(clocks)), max(hi, max(clocks))]
    return spans


def save_references(refs: dict, root: Path, gpu_tag: str = "h100") -> list[Path]:
    """programs/NAME/reference/<gpu>.json for each recorded program."""
    paths = []
    for name, ref in refs.items():
        d = root / "programs" / name / "reference"
        d.mkdir(parents=True, exist_ok=True)
        path = d / f"{gpu_tag}.json"
        path.write_text(json.dumps(ref, indent=1, sort_keys=True) + "\n")
        paths.append(path)
    return paths


def record(names: list[str], root: Path, repeats: int = 3, with_ncu: bool = True) -> dict:
    """Run the programs on the GPU; returns {program: reference dict}."""
    cupy = require_gpu()
    from simt_sim.calibrate.masktrace import decode
    dirs = program_dirs(names, root)
    counters = profile(names, root, repeats) if with_ncu else [[] for _ in dirs]
    props = cupy.cuda.runtime.getDeviceProperties(0)
    nvcc = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    provenance = {
        "gpu": props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"]),
        "sm_count": int(props["multiProcessorCount"]), "sm_clock_khz": int(props["clockRate"]),
        "memory_clock_khz": int(props["memoryClockRate"]),
        "driver": cupy.cuda.runtime.driverGetVersion(), "runtime": cupy.cuda.runtime.runtimeGetVersion(),
        "nvcc": nvcc, "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join(["simt-sim", "hw", "record", *names]),
        "ncu_repeats": repeats, "ptxas": "nvcc -cubin -arch=sm_90 -O3 kernel.ptx",
    }
    refs = {}
    with tempfile.TemporaryDirectory() as tmp:
        for d, ctr in zip(dirs, counters):
            plain = Prepared(cupy, d, "plain", Path(tmp))
            dev = plain.launch()
            outputs = {n: cupy.asnumpy(a) for n, a in dev.items()}
            ref = {"program": d.name, "kernel": plain.program.name, "provenance": provenance,
                   "outputs": {n: {"dtype": str(a.dtype), "hex": a.tobytes().hex()} for n, a in outputs.items()},
                   "ncu": ctr}
            if plain.manifest.trace_kernel_file.exists():
                tr = Prepared(cupy, d, "trace", Path(tmp))
                tr.launch()
                words = tr.read_global("simt_trace", 16 * 65536)
                count = tr.read_global("simt_trace_count", 4)
                trace = decode(words, count)
                ref["mask_trace"] = {str(w): [[s, m] for s, m, _ in e] for w, e in trace.items()}
                ref["trace_clocks"] = {str(w): [c for _, _, c in e] for w, e in trace.items()}
                ref["trace_count"] = int(count.view(np.uint32)[0])
                wpb = -(-Dim3.of(tr.manifest.block).count // 32)
                ref["block_clock_spans"] = block_spans(trace, wpb)
            refs[d.name] = ref
    return refs


def main(argv: list[str] | None = None) -> int:
    import argparse
    p = argparse.ArgumentParser(prog="python -m simt_sim.calibrate.record")
    p.add_argument("programs", nargs="*")
    p.add_argument("--launches-only", action="store_true")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--bundle", help="also write all references into this one JSON file")
    p.add_argument("--unbundle", help="split a bundle into programs/NAME/reference/h100.json and stop")
    p.add_argument("--no-ncu", action="store_true")
    ns = p.parse_args(argv)
    root = Path(__file__).resolve().parents[2]
    if ns.unbundle:
        for path in save_references(json.loads(Path(ns.unbundle).read_text()), root):
            print(path)
        return 0
    if ns.launches_only:
        launches_only(ns.programs, root, ns.repeats)
        return 0
    refs = record(ns.programs, root, ns.repeats, not ns.no_ncu)
    if ns.bundle:
        Path(ns.bundle).write_text(json.dumps(refs, sort_keys=True))
    for path in save_references(refs, root):
        print(path)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except InputError as e:
        print(str(e), file=sys.stderr)
        sys.exit(e.exit_code)
