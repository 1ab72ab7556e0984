"""Record hardware references: run programs/PURPOSE/NAME on a CUDA GPU and save outputs, mask traces,
per-block clock spans and Nsight Compute counters as programs/PURPOSE/NAME/reference/<gpu>.json.

Runs only where a CUDA GPU, nvcc and cupy are present.  The GPU runs the committed kernel.ptx
(and kernel.trace.ptx for the mask trace), assembled by ptxas for sm_90: the same PTX the
simulator reads, and the same bytes `--isa sass` runs: each variant's committed cubin
(kernel.sm_90.cubin, kernel.trace.sm_90.cubin; tools/commit_cubins.py) when it matches its PTX,
named with its sha256 in the reference's `cubins`.  Counters come from one `ncu` process that profiles every program's launches in
order (`--launches-only` mode of this module), repeated `repeats` times for a spread.

A manifest with `more_launches` runs every launch, each in its stream (one CUDA stream per
manifest stream number: same stream = in order, different streams = concurrently), queued
behind a blocker kernel (after a run that loads every kernel) so that they start as the GPU
frees, not as the host enqueues them, and the outputs are read after all of them.  Every
program's whole launch sequence is also timed with CUDA events (`elapsed`: median of ELAPSED_REPEATS runs after ELAPSED_WARMUP, converted to SM
cycles with the SM clock measured by a clock64() spin kernel), so that fused and unfused
variants are timed alike.  ncu profiles each kernel launch on its own: a multi-launch program
stores the per-launch counters (`ncu_launches`) and their sum (`ncu`).
"""
from __future__ import annotations

import csv
import dataclasses
import datetime
import hashlib
import io
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from simt_sim.files import write_atomic
from simt_sim.errors import InputError
from simt_sim.frontend.dims import Dim3
from simt_sim.programs import program_dir, program_dirs as all_program_dirs

NCU_METRICS = [
    "sm__cycles_elapsed.max", "smsp__inst_executed.sum", "smsp__thread_inst_executed.sum",
    "smsp__thread_inst_executed_pred_on.sum", "sm__inst_executed_pipe_fma.sum", "sm__inst_executed_pipe_alu.sum",
    "sm__inst_executed_pipe_fp64.sum", "sm__inst_executed_pipe_xu.sum", "sm__inst_executed_pipe_tensor.sum",
    "sm__inst_executed_pipe_cbu.sum", "sm__inst_executed_pipe_lsu.sum", "sm__inst_executed_pipe_adu.sum",
    "sm__inst_executed_pipe_uniform.sum",
    "gpc__cycles_elapsed.avg.per_second",       # the SM clock ncu ran at (validate simulates at it)
]
STALL_REASONS = ["barrier", "branch_resolving", "dispatch_stall", "drain", "imc_miss", "lg_throttle",
                 "long_scoreboard", "math_pipe_throttle", "membar", "mio_throttle", "misc", "no_instruction",
                 "not_selected", "selected", "short_scoreboard", "sleeping", "tex_throttle", "wait"]
STALL_METRICS = [f"smsp__average_warps_issue_stalled_{r}_per_issue_active.ratio" for r in STALL_REASONS]
ELAPSED_REPEATS = 20                 # timed runs of a program's launch sequence (median kept)
ELAPSED_WARMUP = 3                   # untimed runs before them (module load, caches, clocks)
SPIN_CYCLES = 200_000                # the blocker kernel before each timed run (about 0.1 ms)
# counters that add up over launches; the stall ratios are averaged weighted by instructions
SUMMED_METRICS = [m for m in NCU_METRICS if m.endswith(".sum") or m == "sm__cycles_elapsed.max"]
# clock64() spin: the SM clock (kHz) from cycles / event time, and a blocker that keeps the GPU busy
# while the host enqueues the timed launches (so the events time the GPU's work, not the host's)
SPIN_SOURCE = r"""
extern "C" __global__ void spin(long long cycles, long long* spun) {
    long long t0 = clock64(), t;
    do { t = clock64(); } while (t - t0 < cycles);
    if (threadIdx.x == 0 && blockIdx.x == 0) spun[0] = t - t0;
}
"""
PARAM_DTYPES = {"u8": np.uint8, "s8": np.int8, "b8": np.uint8, "u16": np.uint16, "s16": np.int16, "b16": np.uint16,
                "u32": np.uint32, "s32": np.int32, "b32": np.uint32, "u64": np.uint64, "s64": np.int64,
                "b64": np.uint64, "f32": np.float32, "f64": np.float64}


# Nsight Compute's warm conditions (pc_stalls, memory_counters): caches not flushed, the second of
# two runs, whose inputs the host copied afresh onto the first run's addresses, as the block clocks
WARM_NCU_OPTIONS = ["--cache-control", "none"]
WARM_REPEATS = 2
WARM_CONDITIONS = "warm: ncu --cache-control none, the second of two runs (fresh input copies)"


def device_name(cupy) -> str:
    """Device 0's name as the CUDA runtime gives it (NVIDIA H100 80GB HBM3, ...)."""
    name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


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
        dirs = [Path(n) if Path(n).is_dir() else program_dir(n, root) for n in names]
    else:
        dirs = [d for d in all_program_dirs(root) if (d / "kernel.cu").exists() or shares_cuda_source(d)]
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


def committed_cubin_of(source: Path) -> Path | None:
    """The committed cubin of a PTX variant (kernel.ptx -> kernel.sm_90.cubin, kernel.trace.ptx ->
    kernel.trace.sm_90.cubin) when its key matches the PTX, else None."""
    if source.suffix != ".ptx":
        return None
    from simt_sim.frontend.sass import DEFAULT_ARCH, committed_cubin, ptxas_flags
    text = source.read_bytes()
    return committed_cubin(source, text, ptxas_flags(text, DEFAULT_ARCH), DEFAULT_ARCH)


def cubin_provenance(source: Path) -> str:
    """What ran on the device for a variant: its committed cubin and the cubin's sha256, or nvcc."""
    import hashlib
    committed = committed_cubin_of(source)
    if committed is None:
        return f"nvcc -cubin -arch=sm_90 -O3 {source.name}"
    return f"{committed.name} sha256:{hashlib.sha256(committed.read_bytes()).hexdigest()}"


def compile_module(cupy, source: Path, cubin: Path):
    """PTX or CUDA source -> a loaded cupy RawModule: the program's committed sm_90 cubin when it
    matches the PTX (the very SASS that `--isa sass` simulates; tools/commit_cubins.py), else
    nvcc -cubin for sm_90, as ptxas assembles it."""
    committed = committed_cubin_of(source)
    if committed is not None:
        return cupy.RawModule(path=str(committed))
    subprocess.run(["nvcc", "-cubin", "-arch=sm_90", "-O3", "-o", str(cubin), str(source)], check=True,
                   capture_output=True)
    return cupy.RawModule(path=str(cubin))


@dataclasses.dataclass
class LaunchStep:
    """One kernel launch of a program: the manifest's main launch or one of its more_launches."""
    name: str                      # the PTX entry
    kernel: object                 # cupy RawKernel
    params: list                   # PTX parameters (.dtype), to pack numeric arguments
    grid: Dim3
    block: Dim3
    args: list
    stream: int = 0
    dynamic_shared: int = 0


def launch_program(path: Path, kernel: str | None):
    """The entry's parameter list, from the simulator's loader or (PTX it cannot read yet) a regex."""
    from simt_sim.frontend.assembler import load_program
    try:
        return load_program(str(path), kernel)
    except InputError:
        return entry_signature(path.read_text(), kernel)


class Prepared:
    """One program's launches: modules, kernels, host buffers and packed arguments."""

    def __init__(self, cupy, pdir: Path, variant: str, workdir: Path):
        from simt_sim.frontend.manifest import load_manifest
        self.cupy = cupy
        self.dir = pdir
        self.variant = variant
        self.manifest = load_manifest(str(pdir))
        ptx = self.manifest.trace_kernel_file if variant == "trace" else self.manifest.kernel_file
        self.program = launch_program(ptx, self.manifest.kernel)   # PTX the simulator cannot read still runs
        self.module = compile_module(cupy, ptx, workdir / f"{pdir.name}.{variant}.cubin")
        self.kernel = self.module.get_function(self.program.name)
        self.inputs = {s.name: s.make() for s in self.manifest.buffers}
        self.steps = self.launch_steps(ptx, workdir)
        self.streams = {n: cupy.cuda.Stream(non_blocking=True) for n in sorted({s.stream for s in self.steps})}

    def launch_steps(self, ptx: Path, workdir: Path) -> list[LaunchStep]:
        """The main launch, then (plain variant) each of more_launches, a launch from the manifest's
        own PTX file in the same module.  The mask trace is the main launch's alone: warp ids of
        different kernels would share one trace, interleaved as concurrent streams happen to run."""
        m = self.manifest
        steps = [LaunchStep(self.program.name, self.kernel, self.program.params, Dim3.of(m.grid),
                            Dim3.of(m.block), list(m.args), m.stream, m.dynamic_shared)]
        if self.variant == "trace":
            return steps
        modules = {Path(m.kernel_file).resolve(): (self.module, ptx)}
        for i, entry in enumerate(m.more_launches):
            path = Path(entry["kernel_file"]).resolve()
            if path not in modules:
                cubin = workdir / f"{self.dir.name}.{self.variant}.{i}.cubin"
                modules[path] = (compile_module(self.cupy, path, cubin), path)
            module, source = modules[path]
            program = launch_program(source, entry.get("kernel"))
            steps.append(LaunchStep(program.name, module.get_function(program.name), program.params,
                                    Dim3.of(entry["grid"]), Dim3.of(entry["block"]), list(entry["args"]),
                                    entry.get("stream", 0), entry.get("dynamic_shared", 0)))
        return steps

    def launch(self, spin=None):
        """Fresh device buffers, every launch of the manifest in its stream, then a device-wide
        synchronisation; returns (device buffers by name).  With `spin` (the blocker kernel) and
        more than one launch, the launches wait behind it as in `elapsed`, so that they start as
        the GPU frees, not as the host enqueues them: the per-block clocks then show concurrent
        streams running together.  (Enqueued directly, a second launch can start after a short
        first kernel has ended.)  Run it once without first, so that every kernel is loaded."""
        cp = self.cupy
        dev = {n: cp.asarray(a) for n, a in self.inputs.items()}
        self.reset_trace()
        cp.cuda.runtime.deviceSynchronize()       # the copies are done before any stream starts
        if spin is not None and len(self.steps) > 1:
            hold_streams(cp, spin, self.streams.values())
        self.enqueue(dev)
        cp.cuda.runtime.deviceSynchronize()
        return dev

    def reset_trace(self):
        if self.variant == "trace":            # the trace fills from entry 0 on every launch
            self.cupy.cuda.runtime.memset(self.module.get_global("simt_trace_count").ptr, 0, 4)

    def enqueue(self, dev: dict):
        """Every launch in manifest order, each on its stream's CUDA stream (no waiting)."""
        for step in self.steps:
            with self.streams[step.stream]:
                step.kernel(xyz(step.grid), xyz(step.block), packed_args(step, dev),
                            shared_mem=step.dynamic_shared)

    def elapsed(self, spin, clock_khz: float, repeats: int = ELAPSED_REPEATS, warmup: int = ELAPSED_WARMUP) -> dict:
        """Wall time of the whole launch sequence with CUDA events: inputs restored before each run
        (a kernel writing its inputs does the same work every time), a spin kernel first so that the
        launches are queued before the start event fires, start -> every stream -> stop."""
        cp = self.cupy
        pristine = {n: cp.asarray(a) for n, a in self.inputs.items()}
        dev = {n: a.copy() for n, a in pristine.items()}
        times = []
        for run in range(warmup + repeats):
            for n, a in dev.items():
                a[...] = pristine[n]
            self.reset_trace()
            cp.cuda.runtime.deviceSynchronize()
            ms = timed_sequence(cp, spin, self.streams.values(), lambda: self.enqueue(dev))
            if run >= warmup:
                times.append(ms)
        return elapsed_summary(times, clock_khz, warmup, len(self.steps))

    def read_global(self, name: str, nbytes: int) -> np.ndarray:
        ptr = self.module.get_global(name)
        out = np.empty(nbytes, np.uint8)
        self.cupy.cuda.runtime.memcpy(out.ctypes.data, ptr.ptr, nbytes, 2)     # device to host
        return out


def xyz(d: Dim3) -> tuple[int, int, int]:
    return (d.x, d.y, d.z)


def packed_args(step: LaunchStep, dev: dict) -> tuple:
    """A launch's arguments: device buffers by name, numbers as their PTX parameter's type."""
    return tuple(dev[a] if isinstance(a, str) else PARAM_DTYPES[p.dtype](a) for p, a in zip(step.params, step.args))


_SCRATCH = {}


def dev_scratch(cp):
    """One device int64 for the spin kernel's result (allocated once)."""
    if "spun" not in _SCRATCH:
        _SCRATCH["spun"] = cp.zeros(1, dtype=np.int64)
    return _SCRATCH["spun"]


def hold_streams(cp, spin, streams):
    """A blocker kernel on a stream of its own, every stream of `streams` waiting for it; returns
    that stream and the event its end records."""
    master = cp.cuda.Stream(non_blocking=True)
    with master:
        spin((1, 1, 1), (1, 1, 1), (np.int64(SPIN_CYCLES), dev_scratch(cp)))
    start = cp.cuda.Event()
    start.record(master)
    for stream in streams:
        stream.wait_event(start)
    return master, start


def timed_sequence(cp, spin, streams, enqueue) -> float:
    """Milliseconds of one launch sequence with CUDA events, as `elapsed` times a program: the
    streams held behind the blocker while `enqueue()` queues their launches, the start event at the
    blocker's end, the stop event once every stream has finished."""
    streams = list(streams)
    master, start = hold_streams(cp, spin, streams)
    stop = cp.cuda.Event()
    enqueue()
    for stream in streams:
        done = cp.cuda.Event()
        done.record(stream)
        master.wait_event(done)
    stop.record(master)
    stop.synchronize()
    return float(cp.cuda.get_elapsed_time(start, stop))


def elapsed_summary(times_ms: list[float], clock_khz: float, warmup: int, launches: int) -> dict:
    """{"ms", "cycles", "repeats", ...} of timed runs: the median, in ms and in SM cycles."""
    if not times_ms:
        raise ValueError("no timed runs")
    ms = float(np.median(times_ms))
    return {"ms": ms, "cycles": int(round(ms * clock_khz)), "repeats": len(times_ms), "warmup": warmup,
            "ms_spread": [min(times_ms), max(times_ms)], "sm_clock_khz": clock_khz, "launches": launches}


def spin_kernel(cupy, workdir: Path):
    source = workdir / "spin.cu"
    source.write_text(SPIN_SOURCE)
    return compile_module(cupy, source, workdir / "spin.cubin").get_function("spin")


def measure_sm_clock_khz(cupy, spin, sm_count: int, cycles: int = 20_000_000, repeats: int = 5) -> float:
    """The SM clock while every SM spins clock64() for `cycles`: cycles / event time (median)."""
    cp = cupy
    spun = cp.zeros(1, dtype=np.int64)
    rates = []
    for _ in range(repeats + 1):                       # the first run wakes the clocks up
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        spin((sm_count, 1, 1), (32, 1, 1), (np.int64(cycles), spun))
        stop.record()
        stop.synchronize()
        rates.append(int(cp.asnumpy(spun)[0]) / float(cp.cuda.get_elapsed_time(start, stop)))
    return float(np.median(rates[1:]))


def launches_only(names: list[str], root: Path, repeats: int) -> None:
    """Launch every program's plain kernel `repeats` times, in order (profiled by ncu)."""
    cupy = require_gpu()
    with tempfile.TemporaryDirectory() as tmp:
        prepared = [Prepared(cupy, d, "plain", Path(tmp)) for d in program_dirs(names, root)]
        for p in prepared:
            for _ in range(repeats):
                p.launch()


def launch_count(pdir: Path) -> int:
    """Kernel launches one run of the program makes: the main one and its more_launches."""
    from simt_sim.frontend.manifest import load_manifest
    return 1 + len(load_manifest(str(pdir)).more_launches)


def ncu_output(options: list[str], dirs: list[Path], repeats: int, root: Path) -> str:
    """ncu's standard output for every program's launches, `repeats` times each, in order
    (launches_only in a child process, profiled with the given ncu options)."""
    cmd = ["ncu", *options, sys.executable, "-m", "simt_sim.calibrate.record", "--launches-only",
           "--repeats", str(repeats), *[str(d) for d in dirs]]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=root)
    if r.returncode != 0:
        raise RuntimeError(f"ncu failed ({r.returncode}): {r.stderr[-2000:]}")
    return r.stdout


def profile(names: list[str], root: Path, repeats: int) -> list[list[list[dict]]]:
    """ncu counters per program, repeat and kernel launch: [program][repeat][launch] -> {metric: value}.
    ncu profiles (and so serialises) every launch on its own, in the order they were made."""
    dirs = program_dirs(names, root)
    counts = [launch_count(d) for d in dirs]
    values = ncu_rows(ncu_output(["--csv", "--page", "raw", "--metrics", ",".join(NCU_METRICS + STALL_METRICS)],
                                 dirs, repeats, root))
    expected = sum(counts) * repeats
    if len(values) != expected:
        raise RuntimeError(f"ncu returned {len(values)} profiled launches, expected {expected} "
                           f"({repeats} repeats of {sum(counts)} launches)")
    out, i = [], 0
    for n in counts:
        out.append([values[i + k * n:i + (k + 1) * n] for k in range(repeats)])
        i += n * repeats
    return out


def ncu_rows(stdout: str, metrics: list[str] | None = None) -> list[dict]:
    """ncu --csv --page raw output -> one {metric: value or None, "kernel": name} per profiled launch
    (metrics: those to read, by default NCU_METRICS and STALL_METRICS)."""
    text = stdout[stdout.index('"ID"'):] if '"ID"' in stdout else stdout
    rows = [row for row in csv.DictReader(io.StringIO(text)) if row.get("ID", "").strip().isdigit()]
    values = []
    for row in rows:
        d = {}
        for m in metrics or NCU_METRICS + STALL_METRICS:
            try:
                d[m] = float(row.get(m, "").replace(",", ""))
            except ValueError:
                d[m] = None
        d["kernel"] = row.get("Kernel Name", "")
        values.append(d)
    return values


def summed_counters(launches: list[dict]) -> dict:
    """One repeat's launches as one record: counters added (sm__cycles_elapsed.max as the launches
    ran under ncu, one after the other), stall ratios averaged weighted by instructions issued."""
    if len(launches) == 1:
        return launches[0]
    out = {"kernel": "+".join(d.get("kernel", "") for d in launches)}
    for m in SUMMED_METRICS:
        vals = [d.get(m) for d in launches]
        out[m] = None if any(v is None for v in vals) else sum(vals)
    weights = [d.get("smsp__inst_executed.sum") or 0.0 for d in launches]
    for m in STALL_METRICS:
        pairs = [(d.get(m), w) for d, w in zip(launches, weights) if d.get(m) is not None]
        total = sum(w for _, w in pairs)
        out[m] = sum(v * w for v, w in pairs) / total if pairs and total else None
    return out


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
    """programs/PURPOSE/NAME/reference/<gpu>.json for each recorded program."""
    paths = []
    for name, ref in refs.items():
        d = program_dir(name, root) / "reference"
        d.mkdir(parents=True, exist_ok=True)
        path = d / f"{gpu_tag}.json"
        write_atomic(path, json.dumps(ref, indent=1, sort_keys=True) + "\n")
        paths.append(path)
    return paths


def record(names: list[str], root: Path, repeats: int = 3, with_ncu: bool = True) -> dict:
    """Run the programs on the GPU; returns {program: reference dict}."""
    cupy = require_gpu()
    dirs = program_dirs(names, root)
    counters = profile(names, root, repeats) if with_ncu else [[] for _ in dirs]
    props = cupy.cuda.runtime.getDeviceProperties(0)
    nvcc = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    provenance = {
        "gpu": device_name(cupy),
        "sm_count": int(props["multiProcessorCount"]), "sm_clock_khz": int(props["clockRate"]),
        "memory_clock_khz": int(props["memoryClockRate"]),
        "driver": cupy.cuda.runtime.driverGetVersion(), "runtime": cupy.cuda.runtime.runtimeGetVersion(),
        "nvcc": nvcc, "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join(["simt-sim", "hw", "record", *names]),
        "ncu_repeats": repeats, "ptxas": "nvcc -cubin -arch=sm_90 -O3 kernel.ptx",
        "elapsed": f"CUDA events around every launch, median of {ELAPSED_REPEATS} after {ELAPSED_WARMUP} warm-up",
    }
    refs = {}
    with tempfile.TemporaryDirectory() as tmp:
        spin = spin_kernel(cupy, Path(tmp))
        clock_khz = measure_sm_clock_khz(cupy, spin, provenance["sm_count"])
        provenance["measured_sm_clock_khz"] = clock_khz
        for d, ctr in zip(dirs, counters):
            refs[d.name] = record_program(cupy, d, Path(tmp), ctr, provenance, spin, clock_khz)
    return refs


FULL_RECORD_BYTES = 64 * 1024     # larger buffers are kept as a SHA-256 digest and their first elements


def buffer_record(after: np.ndarray, before: np.ndarray) -> dict:
    """How one buffer is kept in a reference: all its bytes when small; otherwise its digest, its
    first FULL_RECORD_BYTES (where a difference is usually found) and whether the GPU changed it,
    so that megabyte inputs do not fill the repository."""
    data = np.ascontiguousarray(after).tobytes()
    if len(data) <= FULL_RECORD_BYTES:
        return {"dtype": str(after.dtype), "hex": data.hex()}
    return {"dtype": str(after.dtype), "size": int(after.size), "sha256": hashlib.sha256(data).hexdigest(),
            "head_hex": data[:FULL_RECORD_BYTES].hex(),
            "unchanged": bool(data == np.ascontiguousarray(before).tobytes())}


def record_program(cupy, d: Path, workdir: Path, counters: list[list[dict]], provenance: dict, spin,
                   clock_khz: float) -> dict:
    """One program's reference: outputs after all its launches, their elapsed time, the ncu
    counters (per launch as well when there are several) and the mask trace."""
    from simt_sim.calibrate.masktrace import decode
    plain = Prepared(cupy, d, "plain", workdir)
    if len(plain.steps) > 1:
        plain.launch()                 # loads every kernel before the queued run
    dev = plain.launch(spin)
    outputs = {n: cupy.asnumpy(a) for n, a in dev.items()}
    ref = {"program": d.name, "kernel": plain.program.name, "provenance": provenance,
           "outputs": {n: buffer_record(a, plain.inputs[n]) for n, a in outputs.items()},
           "ncu": [summed_counters(launches) for launches in counters],
           "elapsed": plain.elapsed(spin, clock_khz),
           "cubins": {"kernel": cubin_provenance(plain.manifest.kernel_file)}}
    if len(plain.steps) > 1:
        ref["ncu_launches"] = counters
        ref["launch_kernels"] = [s.name for s in plain.steps]
    if plain.manifest.trace_kernel_file.exists():
        tr = Prepared(cupy, d, "trace", workdir)
        ref["cubins"]["trace"] = cubin_provenance(tr.manifest.trace_kernel_file)
        tr.launch()
        words = tr.read_global("simt_trace", 16 * 65536)
        count = tr.read_global("simt_trace_count", 4)
        trace = decode(words, count)
        ref["mask_trace"] = {str(w): [[s, m] for s, m, _ in e] for w, e in trace.items()}
        ref["trace_clocks"] = {str(w): [c for _, _, c in e] for w, e in trace.items()}
        ref["trace_count"] = int(count.view(np.uint32)[0])
        wpb = -(-Dim3.of(tr.manifest.block).count // 32)
        ref["block_clock_spans"] = block_spans(trace, wpb)
    return ref


def main(argv: list[str] | None = None) -> int:
    import argparse
    p = argparse.ArgumentParser(prog="python -m simt_sim.calibrate.record")
    p.add_argument("programs", nargs="*")
    p.add_argument("--launches-only", action="store_true")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--bundle", help="also write all references into this one JSON file")
    p.add_argument("--unbundle", help="split a bundle into programs/PURPOSE/NAME/reference/h100.json and stop")
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
        write_atomic(ns.bundle, json.dumps(refs, sort_keys=True))
    for path in save_references(refs, root):
        print(path)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except InputError as e:
        print(str(e), file=sys.stderr)
        sys.exit(e.exit_code)
