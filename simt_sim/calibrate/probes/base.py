"""What every kernel probe of the registry shares: where kernels and recordings live, the GPU side
(cupy: the median of eight launches after one that warms the instruction caches), the model side
(one block of the probe's committed sm_90 cubin on one SM of the h100 config, with `--set`
overrides) and the Probe that a probe module's declarations make.

A probe module (simt_sim/calibrate/probes/NAME.py) declares:

    MEANING     one line: what it measures
    KERNELS     the CUDA file's stem under tools/kernels/ (.cu, its PTX and the committed cubin)
    FUNCTIONS   {kernel function: what it runs} (or (what, a number the probe uses))
    SETS        {label: warp set} (threads, an active-warp mask, ...: what launch/simulate take)
    FIGURES     the recording's key of {"FUNCTION / SET": [figures]}, and FIGURE_NAMES their names
    RECORDING   its recording under references/ ("h100/NAME.json"), written by --gpu
    KEYS        the config keys it pins, FIT {key: candidate values} and FIT_ROWS (the rows that
                decide them, or {key: its rows}): --fit picks the candidate whose model comes
                closest to the recording (fit_error(key, rows), optionally: |model - recorded| of
                only the figures that decide the key, rows as replay's)
    CHECKS      {row: relative tolerance}: rows whose figures the model must match
                (tests/test_probes_registry.py)
    BUFFERS     {name: (dtype, words) zeroed, or an array}: the kernel's buffers, fresh each launch
                (or BUFFERS(name, set) -> that, where they differ by row)
    launch_of(name, set[, case]) -> (threads, args)   one block's threads and the kernel's
                arguments (a buffer's name stands for the buffer); with CASES, one launch per case
                and the row's figures in their order
    figures(outputs, name, set) -> [figures]  from the buffers after the launch (GPU or model)
    HEADER      the recording's other fields (what the figures mean), beside probe and device
optionally:
    row_key(name, set) -> the recording's name of a row (default "NAME / SET")
    recorded_rows(figures) -> {"NAME / SET": [figures]} where the recording nests its figures otherwise
    ALSO_RECORDED other recordings of the probe's --gpu run under references/ (under a profiler, ...)
    ROWS        the rows ("NAME / SET") where a probe runs only some sets of some functions
    shown(figures) -> the figures the replay's table shows of a row of many (FIGURE_NAMES names them)
    measure() -> the recording, for a probe that measures on the GPU its own way
    launches(name, set) -> how many launches in a row the model runs on the same buffers and
                caches (default 1; the figures come from the last)
    simulated(name, set, overrides) -> [figures], for a probe whose model side is not one block on
                one SM (a whole grid, a flushed cache): the row's figures its own way
    CUDA_SOURCE the CUDA source, from the repository's root, where it is not tools/kernels/KERNELS.cu
    kernel_of(name) -> (stem, kernel function): where a FUNCTIONS entry runs another file's kernel
                (tools/kernels/STEM.ptx and its committed cubin; default KERNELS and the name itself)
and, for a second recording by Nsight Compute beside the timing one (references/GPU/NAME-ncu.json):
    NCU         {"recording": "h100/NAME-ncu.json", "figures": its key, "metrics": what ncu collects,
                "launches": launches per row, optionally "rows": the rows profiled (default all)}
    ncu_figures(launches, name, set) -> {figure: value}  a row's figures from its profiled launches
                (each {metric: value}, in launch order)
    ncu_model(metrics, name, set) -> {figure: value}     optionally, the model's counterpart from the
                run's metrics (simt_sim's per-kernel metrics: stall_cycles, unit_busy, ...)
    The round trip: `simt-sim probe NAME --ncu-metrics` (what ncu collects), `ncu --csv --log-file
    F --metrics M simt-sim probe NAME --gpu --ncu-launches` (each profiled row NCU["launches"]
    times, rows in order), `simt-sim probe NAME --ncu-csv F` (the recording), `--ncu` (recorded
    beside the model).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from simt_sim.errors import InputError

ROOT = Path(__file__).resolve().parents[3]
KERNELS_DIR = ROOT / "tools" / "kernels"
REFERENCES = ROOT / "references"


def ptx_of(stem: str) -> Path:
    """A probe kernel's PTX (tools/kernels/STEM.ptx; its committed cubin lies beside it)."""
    return KERNELS_DIR / f"{stem}.ptx"


def write_result(result: dict, out) -> None:
    """Print the recording and, where `out` is given, write it there."""
    text = json.dumps(result, indent=1)
    if out:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(text + "\n")
    print(text)


def recorded(path, key: str) -> dict:
    """The figures a probe recorded under `key` ({} where nothing is recorded yet)."""
    return json.loads(Path(path).read_text())[key] if Path(path).exists() else {}


def gpu_name() -> str:
    """The name of the GPU the probe runs on (cupy's device 0), for its recording."""
    import cupy as cp
    return cp.cuda.runtime.getDeviceProperties(0)["name"].decode()


def gpu_medians(ptx, kernels, warp_sets: dict, launch, decimals: int) -> dict:
    """On the GPU, per kernel of the PTX and set of running warps ("NAME / LABEL"): the median over
    eight launches (after one that warms the instruction caches) of what launch(cupy, function,
    name, active) returns for one, a list of numbers."""
    import cupy as cp
    mod = cp.RawModule(path=str(ptx))
    out = {}
    for name in kernels:
        f = mod.get_function(name)
        for label, active in warp_sets.items():
            runs = [launch(cp, f, name, active) for _ in range(9)]
            out[f"{name} / {label}"] = np.median(np.array(runs[1:]), axis=0).round(decimals).tolist()
    return out


def running_warp_steps(times, warps: int, active: int, steps: int) -> np.ndarray:
    """Each running warp's (bit w of `active`) cycles per step, from the clock words it wrote
    before and after its steps (times[2w], times[2w + 1], 32 bits that may wrap)."""
    t = np.asarray(times).reshape(warps, 2).astype(np.int64)[[w for w in range(warps) if (active >> w) & 1]]
    return ((t[:, 1] - t[:, 0]) % (1 << 32)) / steps


def span_per_warp_step(clk, threads: int, steps: float) -> list[float]:
    """Cycles per warp-step on the busiest sub-partition: the span of all warps, from the first
    start to the last end ([start, end] clock pairs clk[2w], clk[2w + 1]), over the steps that
    sub-partition's warps ran (warp w runs on sub-partition w mod 4)."""
    warps = threads // 32
    c = np.asarray(clk)[: 2 * warps].reshape(-1, 2).astype(np.int64)
    return [round(float(c[:, 1].max() - c[:, 0].min()) / (-(-warps // 4) * steps), 3)]


def running_warps(at: tuple[int, int]) -> list[int]:
    """The warps that run their loop in a block of at = (threads, sub-partitions whose warps run):
    warp w sits on sub-partition w mod 4."""
    threads, sps = at
    return [w for w in range(threads // 32) if w % 4 < sps]


def busiest_sub_partition(clk, at: tuple[int, int], steps: int) -> list[float]:
    """[the busiest sub-partition's span / (its running warps x steps), the slowest warp's loop /
    steps] from each warp's [start, end] clock pair (clk[2w], clk[2w + 1]); at as running_warps'."""
    warps = running_warps(at)
    c = np.asarray(clk, np.int64).reshape(-1, 2)[warps]
    per_sp = max(sum(1 for w in warps if w % 4 == sp) for sp in range(4))
    span = float(c[:, 1].max() - c[:, 0].min())
    return [round(span / (per_sp * steps), 3), round(float((c[:, 1] - c[:, 0]).max()) / steps, 3)]


def warp_rate(clk, warps: int, per_warp: int) -> float:
    """Instructions per cycle of `warps` warps doing `per_warp` each, from their [start, end] clock
    pairs (clk[2w], clk[2w + 1]): over the span from the first start to the last end."""
    c = clk[: 2 * warps].reshape(-1, 2)
    return warps * per_warp / float(c[:, 1].max() - c[:, 0].min())


def run_block(ptx, kernel: str, threads: int, args: list, buffers: dict, overrides=(), launches: int = 1,
              grid: int = 1, machine=("num_sms=1",)) -> dict:
    """One block of a probe kernel's SASS (the cubin committed beside its PTX) on one SM of the
    h100 config with `overrides` (KEY=VALUE), `launches` times in a row sharing the buffers and
    the caches: the buffers afterwards (`grid` blocks on the machine `machine` sets instead, for a
    probe that runs a grid)."""
    return run_model(ptx, kernel, threads, args, buffers, overrides, launches, grid, machine).buffers


def run_model(ptx, kernel: str, threads: int, args: list, buffers: dict, overrides=(), launches: int = 1,
              grid: int = 1, machine=("num_sms=1",)):
    """run_block's run, the whole result: buffers, and per launch its metrics (`.kernels`) and the
    stalls by pc (observe.stalls).  What simt_sim.simulate does, through the layers below the API
    (the calibrate layer sits under it): ptxas's register count, then the timed run."""
    import dataclasses
    from simt_sim.frontend.ptxas import allocated_registers
    from simt_sim.frontend.sass_lower import load_kernel
    from simt_sim.machine.config import load_config
    from simt_sim.run.timed import KernelLaunch, simulate
    prog = load_kernel(str(ptx), kernel, "sass")
    launch = KernelLaunch(prog, grid, threads, args)
    launch = dataclasses.replace(launch, registers=allocated_registers(prog).registers)
    cfg = load_config("h100", [*machine, *overrides])
    return simulate([launch] * launches, buffers, cfg)


# Nsight Compute's metrics and its CSV (`ncu --csv`, a log file or its standard output)
STALL_METRIC = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"
PIPE_METRIC = "sm__inst_executed_pipe_{}.sum"


def ncu_stall_cycles(launch: dict, reason: str) -> float:
    """Warp-cycles one profiled launch's warps spent in a stall reason (ncu gives them per issued
    instruction)."""
    return launch[STALL_METRIC.format(reason)] * launch["smsp__inst_executed.sum"]


def ncu_pipes_and_stalls(launch: dict, pipes, reasons, iterations: int) -> dict:
    """One profiled launch's per-pipe instruction counts ("pipe_P") and warp-cycles per
    warp-iteration in each stall reason (`iterations`: the launch's warp-iterations)."""
    row = {f"pipe_{p}": launch[PIPE_METRIC.format(p)] for p in pipes}
    row.update({r: round(ncu_stall_cycles(launch, r) / iterations, 3) for r in reasons})
    return row


def ncu_csv_rows(path):
    """The metric rows of `ncu --csv` output (a log file, or its standard output with the
    profiler's own lines among them), each a dict of the CSV's columns."""
    import csv
    with open(path, newline="") as f:
        yield from csv.DictReader(line for line in f if line.startswith('"'))


def ncu_metric(row) -> float:
    return float(row["Metric Value"].replace(",", ""))


def ncu_csv_launches(path) -> list[dict[str, float]]:
    """Per profiled launch, in launch order, {metric: value} from `ncu --csv --log-file PATH`."""
    launches: dict[str, dict[str, float]] = {}
    for row in ncu_csv_rows(path):
        launches.setdefault(row["ID"], {})[row["Metric Name"]] = ncu_metric(row)
    return [launches[i] for i in sorted(launches, key=int)]


def ncu_csv_kernels(path) -> dict[str, dict[str, float]]:
    """{kernel name: {metric: value}} from `ncu --csv`, each kernel's last profiled launch."""
    kernels: dict[str, dict[str, float]] = {}
    for row in ncu_csv_rows(path):
        kernels.setdefault(row["Kernel Name"], {})[row["Metric Name"]] = ncu_metric(row)
    return kernels


def stalls_per(metrics: dict, reasons, iterations: int) -> dict:
    """The model's warp-cycles per warp-iteration in each stall reason, from a launch's metrics."""
    return {r: round(metrics["stall_cycles"].get(r, 0) / iterations, 3) for r in reasons}


def busiest_loop_hooks(steps: int, pipes, reasons):
    """figures, ncu_figures and ncu_model of a probe whose rows run a loop of `steps` iterations
    with at = (threads, sub-partitions whose warps run) (control_rate, alu_rate): the busiest
    sub-partition's cycles per warp-iteration; the second profiled launch's per-pipe counts and
    stall reasons per warp-iteration; the model's stall reasons per warp-iteration."""
    def figures(out, name: str, at) -> list[float]:
        return busiest_sub_partition(out["clk"], at, steps)

    def ncu_figures(launches, name: str, at) -> dict:
        return ncu_pipes_and_stalls(launches[-1], pipes, reasons, len(running_warps(at)) * steps)

    def ncu_model(metrics: dict, name: str, at) -> dict:
        return stalls_per(metrics, reasons, len(running_warps(at)) * steps)
    return figures, ncu_figures, ncu_model


# grids of one block an SM, a clock window per block or warp, several launches (constant_congestion,
# ldc_behind_stores): each kernel takes a result buffer, the clock rows and a Pad (unsigned v[256])
WINDOW_LAUNCHES = 9                     # on the GPU, the first dropped (the code's own first fetch)


def pad_argument():
    """The kernels' Pad (unsigned v[256]) as a numpy structured scalar, cupy's form of a struct."""
    return np.zeros(1, np.dtype([("v", np.uint32, 256)]))[0]


def window_figures(clk, windows: int) -> dict:
    """{"mean", "longest", "sms"} of one launch's first `windows` clock rows (t0, t1, %smid, -)."""
    rows = np.asarray(clk).reshape(-1, 4)[:windows].astype(np.int64)
    w = rows[:, 1] - rows[:, 0]
    return {"mean": float(w.mean()), "longest": float(w.max()), "sms": int(len(np.unique(rows[:, 2])))}


def windows_recorded(windows: dict) -> dict:
    """{"NAME / BLOCKS": [mean, longest, sms]} from a recording's {NAME: {BLOCKS: {...}}}."""
    return {f"{name} / {blocks}": [f["mean"], f["longest"], f["sms"]]
            for name, grids in windows.items() for blocks, f in grids.items()}


def windows_simulated(ptx, name: str, blocks: int, threads: int, buffers, windows: int, overrides=()) -> list:
    """The model's [mean, longest, sms] of a grid of `blocks` on the whole h100 config: the second
    of two launches, as the recording drops the first."""
    res, clk = buffers(blocks)
    out = run_block(ptx, name, threads, ["res", "clk", 0], {"res": res, "clk": clk}, overrides, launches=2,
                    grid=blocks, machine=())
    f = window_figures(out["clk"], windows)
    return [f["mean"], f["longest"], f["sms"]]


def windows_measured(probe: str, ptx, kernels: dict, grids, threads: int, buffers, windows) -> dict:
    """On the GPU, per kernel and grid: the medians over WINDOW_LAUNCHES launches, the first
    dropped, of window_figures(clock rows, windows(blocks)), each launch on fresh buffers(blocks)."""
    import cupy as cp
    mod = cp.RawModule(path=str(ptx))
    out = {}
    for name in kernels:
        f = mod.get_function(name)
        for blocks in grids:
            runs = []
            for _ in range(WINDOW_LAUNCHES):
                res, clk = (cp.asarray(b) for b in buffers(blocks))
                f((blocks,), (threads,), (res, clk, pad_argument()))
                cp.cuda.runtime.deviceSynchronize()
                runs.append(window_figures(clk.get(), windows(blocks)))
            out.setdefault(name, {})[str(blocks)] = {k: round(float(np.median([r[k] for r in runs[1:]])), 1)
                                                     for k in runs[0]}
            print(name, blocks, out[name][str(blocks)], flush=True)
    return {"probe": probe, "device": gpu_name(), "clock": "SM cycles at the plain launch's clock",
            "kernels": kernels, "windows": out}


def fresh(spec) -> np.ndarray:
    """A buffer for one launch: (dtype, words) zeroed, or a copy of the array given."""
    return np.zeros(spec[1], spec[0]) if isinstance(spec, tuple) else np.array(spec, copy=True)


class Probe:
    """A probe module's declarations, and what the runner and the test do with them."""

    def __init__(self, module):
        self.module = module
        self.name = module.__name__.rsplit(".", 1)[1]
        self.meaning: str = module.MEANING
        self.keys: tuple[str, ...] = tuple(getattr(module, "KEYS", ()))
        self.fit_candidates: dict = dict(getattr(module, "FIT", {}))
        # FIT_ROWS: the rows that decide every key of FIT, or {key: its rows}
        rows = getattr(module, "FIT_ROWS", ())
        self.fit_rows_of: dict = {k: tuple(rows[k] if isinstance(rows, dict) else rows) for k in self.fit_candidates}
        self.fit_rows: tuple[str, ...] = (tuple(dict.fromkeys(r for v in rows.values() for r in v))
                                          if isinstance(rows, dict) else tuple(rows))
        self.checks: dict = dict(getattr(module, "CHECKS", {}))
        self.recording = REFERENCES / module.RECORDING
        # the CUDA source: tools/kernels/KERNELS.cu, or CUDA_SOURCE (from the root) where the PTX came from elsewhere
        source = getattr(module, "CUDA_SOURCE", None)
        self.kernels = ROOT / source if source else KERNELS_DIR / f"{module.KERNELS}.cu"
        self.ptx = ptx_of(module.KERNELS)
        self.functions: dict = module.FUNCTIONS
        self.sets: dict = module.SETS
        self.ncu: dict = dict(getattr(module, "NCU", {}))
        self.ncu_recording = REFERENCES / self.ncu["recording"] if self.ncu else None
        # every recording of the probe: the timing one, ncu's, and ALSO_RECORDED (the same run recorded otherwise)
        self.recordings = [self.recording, *([self.ncu_recording] if self.ncu else []),
                           *(REFERENCES / r for r in getattr(module, "ALSO_RECORDED", ()))]
        self._cache: dict = {}

    def kernel_of(self, function: str):
        """(PTX, kernel function) a FUNCTIONS entry runs: KERNELS's unless the module says otherwise."""
        if hasattr(self.module, "kernel_of"):
            stem, kernel = self.module.kernel_of(function)
            return ptx_of(stem), kernel
        return self.ptx, function

    def what(self, function: str) -> str:
        w = self.functions[function]
        return w[0] if isinstance(w, tuple) else w

    def rows(self) -> list[str]:
        """Every "FUNCTION / SET" the probe runs: ROWS where it runs only some of them."""
        rows = getattr(self.module, "ROWS", None)
        return list(rows) if rows else [f"{f} / {s}" for f in self.functions for s in self.sets]

    def document(self) -> dict:
        if not self.recording.exists():
            raise InputError(f"{self.recording}: not recorded (simt-sim probe {self.name} --gpu on a GPU)")
        return json.loads(self.recording.read_text())

    def recorded(self) -> dict:
        """{"FUNCTION / SET": [figures]} as recorded (a probe whose recording names its rows
        otherwise maps them with row_key(function, set), a lone figure read as a list of one)."""
        figures = self.document()[self.module.FIGURES]
        if hasattr(self.module, "recorded_rows"):     # a recording nested its own way
            return self.module.recorded_rows(figures)
        row_key = getattr(self.module, "row_key", None)
        if row_key is None:
            return figures
        out = {}
        for f in self.functions:
            for s in self.sets:
                if row_key(f, s) in figures:
                    v = figures[row_key(f, s)]
                    out[f"{f} / {s}"] = v if isinstance(v, list) else [v]
        return out

    def buffers(self, function: str, active) -> dict:
        b = self.module.BUFFERS
        return {n: fresh(spec) for n, spec in (b(function, active) if callable(b) else b).items()}

    def cases(self) -> list:
        """CASES: the launches one row's figures come from, one after another (one launch each,
        launch_of(name, set, case)); without CASES one launch."""
        return list(getattr(self.module, "CASES", [None]))

    def launch_of(self, function: str, active, case):
        return self.module.launch_of(function, active) if case is None else self.module.launch_of(function, active, case)

    def simulated(self, row: str, overrides=()) -> list[float]:
        """The model's figures of one row: one block on one SM of h100 (plus `overrides`) per case."""
        key = (row, tuple(overrides))
        if key not in self._cache:
            function, label = row.split(" / ", 1)
            if function not in self.functions or label not in self.sets:
                raise InputError(f"probe {self.name}: no row {row!r}")
            active, figures = self.sets[label], []
            if hasattr(self.module, "simulated"):        # a probe that runs the model its own way
                self._cache[key] = [float(v) for v in self.module.simulated(function, active, tuple(overrides))]
                return self._cache[key]
            for case in self.cases():
                out = self.model_run(function, active, case, overrides).buffers
                figures += [float(v) for v in self.module.figures(out, function, active)]
            self._cache[key] = figures
        return self._cache[key]

    def model_run(self, function: str, active, case=None, overrides=()):
        """The model's run of one case of a row (run_model's result: buffers, metrics)."""
        threads, args = self.launch_of(function, active, case)
        runs = self.module.launches(function, active) if hasattr(self.module, "launches") else 1
        ptx, kernel = self.kernel_of(function)
        return run_model(ptx, kernel, threads, args, self.buffers(function, active), overrides, runs)

    def gpu_launch(self, cp, f, function: str, active) -> list[float]:
        """One launch of a function on the GPU (cupy) per case, their figures."""
        figures = []
        for case in self.cases():
            threads, args = self.launch_of(function, active, case)
            bufs = {n: cp.asarray(b) for n, b in self.buffers(function, active).items()}
            f((1,), (threads,), tuple(bufs[a] if isinstance(a, str) else a for a in args))
            cp.cuda.runtime.deviceSynchronize()
            figures += self.module.figures({n: b.get() for n, b in bufs.items()}, function, active)
        return figures

    def replay(self, overrides=(), rows=None) -> list[tuple[str, list[float], list[float]]]:
        """(row, recorded figures, the model's) for `rows` (default: all)."""
        rec = self.recorded()
        return [(r, list(rec.get(r, [])), self.simulated(r, overrides)) for r in (rows or self.rows())]

    def fit(self, overrides=()) -> dict:
        """Per pinned key of FIT: the candidate whose model of FIT_ROWS lies closest to the
        recording (the sum of |model - recorded| over their figures), and each candidate's error."""
        from simt_sim.machine.config import load_config
        cfg = load_config("h100", list(overrides))
        out = {}
        for key, candidates in self.fit_candidates.items():
            errors = {}
            for value in candidates:      # the config's own value: the plain replay (cached)
                sets = tuple(overrides) if value == cfg.get(key) else (*overrides, f"{key}={value}")
                rows = self.replay(sets, self.fit_rows_of[key])
                if hasattr(self.module, "fit_error"):     # only some of the rows' figures decide the key
                    errors[value] = round(self.module.fit_error(key, rows), 3)
                else:
                    errors[value] = round(sum(abs(m - r) for _, rec, model in rows for r, m in zip(rec, model)), 3)
            out[key] = {"best": min(errors, key=errors.get), "errors": errors}
        return out

    # Nsight Compute's recording beside the timing one (NCU)
    def ncu_rows(self) -> list[str]:
        """The rows ncu profiles, in launch order: NCU["rows"], or every row."""
        return list(self.ncu.get("rows") or self.rows())

    def ncu_recorded(self) -> dict:
        """{"FUNCTION / SET": {figure: value}} as ncu recorded them."""
        if not self.ncu:
            raise InputError(f"probe {self.name} has no Nsight Compute recording")
        if not self.ncu_recording.exists():
            raise InputError(f"{self.ncu_recording}: not recorded (simt-sim probe {self.name} --ncu-csv, on a GPU)")
        return json.loads(self.ncu_recording.read_text())[self.ncu["figures"]]

    def ncu_simulated(self, row: str, overrides=()) -> dict:
        """The model's counterpart of a row's ncu figures (ncu_model of the run's metrics; {} where
        the probe declares none)."""
        if not hasattr(self.module, "ncu_model"):
            return {}
        function, label = row.split(" / ", 1)
        run = self.model_run(function, self.sets[label], None, tuple(overrides))
        return dict(self.module.ncu_model(run.kernels[-1], function, self.sets[label]))

    def ncu_replay(self, overrides=()) -> list[tuple[str, dict, dict]]:
        """(row, ncu's recorded figures, the model's counterpart) per profiled row."""
        rec = self.ncu_recorded()
        return [(r, dict(rec.get(r, {})), self.ncu_simulated(r, overrides)) for r in self.ncu_rows()]

    def ncu_launches(self) -> None:
        """On the GPU (cupy), for ncu to profile: each profiled row NCU["launches"] times, in order."""
        import cupy as cp
        mod = cp.RawModule(path=str(self.ptx))
        for row in self.ncu_rows():
            function, label = row.split(" / ", 1)
            f = mod.get_function(function)
            for _ in range(self.ncu["launches"]):
                self.gpu_launch(cp, f, function, self.sets[label])

    def ncu_from_csv(self, path) -> dict:
        """The ncu recording from ncu's CSV of ncu_launches: each row's figures from its launches."""
        launches, rows, n = ncu_csv_launches(path), self.ncu_rows(), self.ncu["launches"]
        if len(launches) != n * len(rows):
            raise InputError(f"{path}: {len(launches)} profiled launches, expected {n * len(rows)} "
                             f"({len(rows)} rows x {n}: simt-sim probe {self.name} --gpu --ncu-launches)")
        figures = {}
        for j, row in enumerate(rows):
            function, label = row.split(" / ", 1)
            figures[row] = self.module.ncu_figures(launches[j * n:(j + 1) * n], function, self.sets[label])
        header = dict(getattr(self.module, "HEADER", {}))
        return {"probe": self.name, **header, "metrics": list(self.ncu["metrics"]), self.ncu["figures"]: figures}

    def measure(self) -> dict:
        """On the GPU (cupy): the recording, every function x set."""
        if hasattr(self.module, "measure"):          # a probe that measures its own way
            return self.module.measure()
        header = dict(getattr(self.module, "HEADER", {}))
        figures, rows = {}, set(self.rows())
        for f in self.functions:
            sets = {s: v for s, v in self.sets.items() if f"{f} / {s}" in rows}
            figures.update(gpu_medians(self.ptx, [f], sets, self.gpu_launch, getattr(self.module, "DECIMALS", 2)))
        row_key = getattr(self.module, "row_key", None)
        if row_key:
            figures = {row_key(*row.split(" / ", 1)): v for row, v in figures.items()}
        return {"probe": self.name, "device": gpu_name(), **header, self.module.FIGURES: figures}
