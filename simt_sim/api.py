"""The public Python API, re-exported by `import simt_sim` (docs/api.md).

    result = simt_sim.run_program("programs/examples/data-loop")
    print(result.cycles, result.outputs["out"][:4])

Load a program and a GPU config, run it functionally (`run_functional`) or cycle by cycle
(`simulate`, one or more `Launch`es), or run a program directory as `simt-sim run DIR` does
(`run_program`).  Every run returns a `Result`: outputs, metrics, the mask history and the
exports the command line writes (JSON, pictures, Perfetto traces).
"""
from __future__ import annotations

import dataclasses
import json
import warnings
from dataclasses import dataclass
from pathlib import Path

from simt_sim.errors import InputError, Interrupted
from simt_sim.frontend.assembler import Program
from simt_sim.frontend.sass_lower import load_kernel
from simt_sim.frontend.manifest import Manifest, default_isa, load_manifest
from simt_sim.frontend.ptxas import RegisterCount
from simt_sim.frontend import ptxas
from simt_sim.machine import config as machine_config
from simt_sim.machine.config import GPUConfig
from simt_sim.files import atomic_open
from simt_sim.observe import export
from simt_sim.observe.export import materialize, write_document
from simt_sim.observe.history import format_masks, warp_label
from simt_sim.observe.metrics import metrics_json
from simt_sim.observe.pictures import write_picture
from simt_sim.observe.stalls import stalls_by_pc
from simt_sim.observe.trace import write_perfetto
from simt_sim.run import timed
from simt_sim.run.functional import RunResult, launch
from simt_sim.run.memcheck import MODES as MEMCHECK_MODES, BadAccess
from simt_sim.run.timed import KernelLaunch, SimResult

# One kernel launch for simulate(): Launch(program, grid, block, args, stream=0, registers=None,
# dynamic_shared=0).  grid and block: N, (X, Y) or (X, Y, Z); args: buffer names or numbers;
# registers=None: as ptxas allocates them.
Launch = KernelLaunch


def load_program(path, kernel: str | None = None, isa: str | None = None, *, isa_given_by: str = "the isa argument"
                 ) -> Program:
    """A kernel from a PTX file or a CUDA source (.cu, compiled with `nvcc -ptx -arch=sm_90 -O3`;
    `kernel` names the entry when the file has several), or the main kernel of a program directory
    (or its manifest.yaml); isa="sass" runs the sm_90 SASS ptxas makes of it, "ptx" the PTX
    (default: the manifest's `isa`, else SASS for nvcc-compiled kernels and PTX for hand-written
    ones: frontend.manifest.default_isa).  The program's `isa_reason` says why it runs as it does
    (isa_given_by names what gave `isa`, e.g. "--isa")."""
    path = Path(path)
    if not (path.is_dir() or path.suffix in (".yaml", ".yml")):
        chosen, reason = isa_choice(path, isa, isa_given_by=isa_given_by)
        return _with_reason(load_kernel(str(ptx_of(path)), kernel, chosen), reason)
    manifest = load_manifest(str(path))
    chosen, reason = isa_choice(manifest.kernel_file, isa, manifest, isa_given_by)
    return _with_reason(load_kernel(str(manifest.kernel_file), kernel or manifest.kernel, chosen), reason)


def ptx_of(path: Path) -> Path:
    """A kernel file's PTX: a CUDA source compiled by nvcc (cached), a .ptx file itself."""
    if path.suffix == ".cu":
        if not path.is_file():
            raise InputError(f"cannot read {path}: no such file")
        from simt_sim.frontend.sass import cuda_to_ptx
        return cuda_to_ptx(path)
    return path


def isa_choice(kernel_file, isa: str | None = None, manifest: Manifest | None = None,
               isa_given_by: str = "the isa argument") -> tuple[str, str]:
    """(isa, why) for a kernel file: `isa` when given, else the manifest's `isa` key, else SASS for
    nvcc-compiled kernels (a CUDA source, or a .cu beside the PTX) and PTX for hand-written PTX."""
    path = Path(kernel_file)
    if isa:
        return isa, f"{isa_given_by} {isa}" if isa_given_by.startswith("--") else f"{isa_given_by} says {isa}"
    if manifest is not None and manifest_names_isa(manifest):
        return manifest.isa, f"the manifest's isa key ({manifest.path})"
    chosen = default_isa(path)
    if path.suffix == ".cu":
        return chosen, f"CUDA source {path.name}, compiled by nvcc: nvcc-compiled kernels run as SASS"
    if chosen == "sass":
        return chosen, f"nvcc-compiled: {path.with_suffix('.cu').name} beside {path.name}"
    return chosen, f"hand-written PTX: no .cu beside {path.name}"


def manifest_names_isa(manifest: Manifest) -> bool:
    """Whether the manifest file sets `isa` itself (else it defaults from its kernel file)."""
    import yaml
    try:
        data = yaml.safe_load(Path(manifest.path).read_text())
    except (OSError, yaml.YAMLError):
        return False
    return isinstance(data, dict) and bool(data.get("isa"))


def _with_reason(program: Program, reason: str) -> Program:
    program.isa_reason = reason
    return program


def isa_reason(program: Program) -> str:
    """Why `program` runs as its isa: what load_program recorded, else what its file implies."""
    if program.isa_reason:
        return program.isa_reason
    path = Path(program.file.split(":")[0])
    if program.isa == "ptx" and not path.is_file():
        return "PTX given as text"
    if program.isa == "sass":
        return "SASS, as its caller loaded it"
    return isa_choice(path)[1] if path.suffix == ".ptx" else "PTX, as its caller loaded it"


def allocated_registers(program: Program) -> RegisterCount:
    """Registers per thread of a program loaded from a PTX file, as ptxas allocates them (cached
    by the PTX's hash), or the `.reg` declarations' count with a warning when ptxas cannot say."""
    require_program(program)
    return ptxas.allocated_registers(program)


def with_allocated_registers(launch: KernelLaunch, warn=None) -> KernelLaunch:
    """The launch with ptxas's register count when it gives none; an estimate is reported through
    warn(message) (default: warnings.warn)."""
    if launch.registers is not None:
        return launch
    if not Path(launch.program.file).is_file():      # assembled from text: no PTX file for ptxas
        return dataclasses.replace(launch, registers=launch.program.declared_regs)
    count = ptxas.allocated_registers(launch.program)
    if count.warning:
        message = f"kernel {launch.program.name}: {count.warning}"
        warn(message) if warn else warnings.warn(message, stacklevel=3)
    return dataclasses.replace(launch, registers=count.registers)


def load_config(name_or_path="h100", overrides=None) -> GPUConfig:
    """A GPU config by name (configs/NAME.yaml) or YAML path, with overrides applied and validated:
    a list of "key=value" strings (as `--set`) or a dict {"scheduler.policy": "lrr", ...}."""
    return configure(str(name_or_path), overrides)


def configure(config, overrides=None) -> GPUConfig:
    """A config name, path or GPUConfig, with overrides, as a GPUConfig."""
    items = override_items(overrides)
    if isinstance(config, GPUConfig):
        return config.with_overrides(items) if items else config
    return machine_config.load_config(str(config), items)


def override_items(overrides) -> list[str]:
    """None, ["key=value", ...] or {key: value} -> ["key=value", ...]."""
    if overrides is None:
        return []
    if isinstance(overrides, str):
        raise InputError(f"overrides: expected a list of 'key=value' strings or a dict, found the string "
                         f"{overrides!r}")
    if isinstance(overrides, dict):
        # a string is read as YAML, as after --set; other values are written as JSON (which is YAML)
        return [f"{key}={value if isinstance(value, str) else json.dumps(value)}"
                for key, value in overrides.items()]
    return [str(item) for item in overrides]


def simulate(launches, buffers=None, config="h100", *, history=False, trace=False, progress=None,
             memcheck: str | None = None) -> Result:
    """Cycle-level run of one Launch or a list of them.  Launches share the buffers (name -> numpy
    array, copied in and out); those of one stream run one after the other, different streams
    concurrently.  history records the mask history (masks(), to_json()), trace the issue trace
    (picture(), trace()); progress(cycle, warp_instructions, seconds) is called now and then.
    A Launch without `registers` gets what ptxas allocates (allocated_registers), as on the command
    line; a program assembled from text (no PTX file) its `.reg` declarations' count.
    memcheck: "fault" or "report" (default: the config's simt.memcheck, fault): see Result.memcheck."""
    launches = [with_allocated_registers(kl) for kl in launch_list(launches)]
    cfg = configure(config, memcheck_override(memcheck))
    try:
        raw = timed.simulate(launches, buffers, cfg, record_history=history, record_trace=trace, progress=progress)
    except Interrupted as e:               # Ctrl-C: the statistics so far, as a Result
        raise Interrupted(Result(e.result, cfg, history, trace)) from None
    return Result(raw, cfg, history, trace)


def run_functional(program: Program, grid, block, args, buffers=None, config="h100", *, dynamic_shared=0,
                   history=False, memcheck: str | None = None) -> Result:
    """Functional run (no timing model: faster; %clock counts instructions) of one launch.
    memcheck: as for simulate()."""
    require_program(program)
    cfg = configure(config, memcheck_override(memcheck))
    launch_config = cfg.launch_config()
    launch_config.record_history = history
    try:
        raw = launch(program, grid, block, list(args), buffers, launch_config, dynamic_shared=dynamic_shared)
    except Interrupted as e:               # Ctrl-C: the statistics so far, as a Result
        raise Interrupted(Result(e.result, cfg, history, False)) from None
    return Result(raw, cfg, history, False)


def run_program(directory, *, functional=False, config=None, overrides=None, history=False,
                trace=False, isa=None, memcheck: str | None = None) -> Result:
    """What `simt-sim run DIR` does: the manifest's kernel, buffers, launches and config (or
    `config`), with its `set` and then `overrides` applied (memcheck: as for simulate())."""
    manifest = load_manifest(str(directory))
    cfg = configure(config or manifest.config,
                    manifest.overrides + override_items(overrides) + memcheck_override(memcheck))
    buffers = {spec.name: spec.make() for spec in manifest.buffers}
    main, *more = timed.manifest_launches(manifest, program=load_program(directory, isa=isa), isa=isa)
    if not functional:
        launches = [with_allocated_registers(kl) for kl in [main, *more]]
        return simulate(launches, buffers, cfg, history=history, trace=trace)
    if trace:
        raise InputError("trace=True needs the timing model (functional=False)")
    if manifest.more_launches:
        raise InputError(f"{manifest.path}: more_launches need the timing model (functional=False)")
    return run_functional(main.program, main.grid, main.block, main.args, buffers, cfg,
                          dynamic_shared=main.dynamic_shared, history=history)


def memcheck_override(memcheck: str | None) -> list[str]:
    """memcheck="fault" / "report" as a config override (None: the config's simt.memcheck)."""
    if memcheck is None:
        return []
    if memcheck not in MEMCHECK_MODES:
        raise InputError(f"memcheck must be one of {', '.join(MEMCHECK_MODES)}, found {memcheck!r}")
    return [f"simt.memcheck={memcheck}"]


def launch_list(launches) -> list[KernelLaunch]:
    """One Launch or a list of them, checked."""
    launches = list(launches) if isinstance(launches, (list, tuple)) else [launches]
    for item in launches:
        if not isinstance(item, KernelLaunch):
            raise InputError(f"simulate() takes a Launch or a list of them, found {described(item)}")
        require_program(item.program)
    return launches


def require_program(program) -> None:
    # a path where the Program belongs is an easy slip; say so instead of failing deep in the run driver
    if not isinstance(program, Program):
        raise InputError(f"expected a Program from simt_sim.load_program(), found {described(program)}")


def described(value) -> str:
    return repr(str(value)) if isinstance(value, (str, Path)) else f"a {type(value).__name__}"


def more_launches(manifest: Manifest, isa: str | None = None) -> list[KernelLaunch]:
    """The launches a manifest's more_launches adds after / beside its main one."""
    return timed.more_launches(manifest, isa)


@dataclass(repr=False, eq=False)
class Result:
    """What a run gives: outputs, metrics, the recordings and their exports.  `raw` is the run
    driver's RunResult (functional) or SimResult (timed), for the observe/* functions and detail
    such as the issue trace array."""
    raw: RunResult | SimResult
    config: GPUConfig
    recorded_history: bool
    recorded_trace: bool

    @property
    def timed(self) -> bool:
        return isinstance(self.raw, SimResult)

    @property
    def outputs(self) -> dict:
        """Buffer name -> numpy array after the run."""
        return self.raw.buffers

    @property
    def interrupted(self) -> bool:
        """Ctrl-C stopped the run (the Result an `Interrupted` carries): statistics so far only,
        outputs not to be trusted; to_json() and trace() write "complete": false."""
        return bool(self.raw.interrupted)

    @property
    def isa(self) -> str:
        """What ran (the first launch's kernel): "sass" (ptxas's sm_90 SASS) or "ptx"."""
        return self._first_program().isa

    @property
    def isa_reason(self) -> str:
        """Why it ran as `isa`: "--isa sass", "the manifest's isa key (...)", "nvcc-compiled:
        kernel.cu beside kernel.ptx", "hand-written PTX: ...", ..."""
        return isa_reason(self._first_program())

    def _first_program(self) -> Program:
        return self.raw.launches[0].program if self.timed else self.raw.program

    @property
    def memcheck(self) -> list[BadAccess]:
        """With memcheck="report": the out-of-bounds and misaligned accesses, the first
        MEMCHECK_LIMIT (1000) in execution order (kernel, block, thread, pc, instruction, access,
        address, size, nearest buffer and distance); [] otherwise."""
        report = self.raw.memcheck
        return list(report.accesses) if report else []

    @property
    def memcheck_total(self) -> int:
        """How many bad accesses memcheck="report" found (memcheck keeps the first 1000)."""
        report = self.raw.memcheck
        return report.total if report else 0

    def memcheck_lines(self) -> list[str]:
        """The memcheck report as `simt-sim run --memcheck report` prints it ([] in fault mode)."""
        report = self.raw.memcheck
        return report.lines() if report else []

    @property
    def cycles(self) -> int | None:
        """Cycles until the last kernel finished; None for a functional run."""
        return self.raw.cycles if self.timed else None

    @property
    def metrics(self) -> list[dict]:
        """Per kernel launch: cycles, IPC, CFE, unit busy, stall reasons, ... (timed runs); a
        functional run's instruction counts and efficiencies as one entry."""
        return self.raw.kernels if self.timed else [self.raw.stats]

    def metrics_table(self) -> list[dict]:
        """metrics with nested values flattened ("unit_busy.fp32"): one row per kernel launch."""
        return [flat(m) for m in self.metrics]

    def to_dataframe(self):
        """metrics_table() as a pandas DataFrame."""
        try:
            import pandas
        except ImportError:
            raise ImportError("Result.to_dataframe() needs pandas (pip install pandas); "
                              "Result.metrics_table() gives the same rows as dicts") from None
        return pandas.DataFrame(self.metrics_table())

    @property
    def history(self):
        """int64[n, 4]: warp, pc, active mask, executing (guard-true) mask per issued instruction,
        when recorded (history=True).  In a timed run warp ids count over all launches."""
        return self.raw.history

    def masks(self, warp=None, launch: int = 0) -> str:
        """The mask history as `simt-sim run --masks` prints it: every warp, or the warp (or list
        of warps) given, of one launch."""
        if not self.recorded_history:
            raise InputError("masks() needs a run recorded with history=True")
        warps = [warp] if isinstance(warp, int) else warp
        return format_masks(self._launch_view(launch), warps)

    def _launch_view(self, k: int = 0):
        """Launch k seen like a functional run: its own program, grid, block and warp ids."""
        n = len(self.raw.launches) if self.timed else 1
        if not 0 <= k < n:
            raise InputError(f"no launch {k}: the run had {n}")
        return self.raw.view(k) if self.timed else self.raw

    def to_json(self, path=None) -> dict:
        """The document `simt-sim run --json` writes (to path, when given): kernel, config, grid,
        block, statistics or metrics, outputs, instruction texts and the mask history (empty
        unless recorded with history=True)."""
        doc = self._document()
        if path is not None:
            with atomic_open(path) as f:
                write_document(f, doc)
        return materialize(doc)

    @property
    def raw_history_rows(self) -> int:
        """limits.history_rows of the run's config: the history and issue-trace rows kept at most."""
        return int(self.config.get("limits.history_rows", machine_config.DEFAULTS["limits"]["history_rows"]))

    def write_json(self, path) -> None:
        """Write the to_json() document to path as a stream (its buffers and history a chunk at a
        time: observe/export.py), without building it in memory; what `simt-sim run --json` does."""
        with atomic_open(path) as f:
            write_document(f, self._document())

    def _document(self) -> dict:
        doc = self._timed_document() if self.timed else self._functional_document()
        # an interrupted run's document says so first: its statistics stop where Ctrl-C came
        dropped = int(getattr(self.raw, "history_dropped", 0))
        return {"complete": not self.interrupted, **doc,
                "history_complete": dropped == 0, "history_dropped": dropped}

    def _functional_document(self) -> dict:
        run = self.raw
        return {"kernel": run.program.name, **self._isa_json(), "config": self.config.name, "grid": dims(run.grid),
                "block": dims(run.block), "warp_size": run.config.warp_size, "policy": run.config.policy,
                "stats": run.stats, "interrupted": run.interrupted,
                "outputs": {} if run.interrupted else outputs_json(run.buffers), "history": history_document(run),
                "texts": run.program.texts, "memcheck": self._memcheck_json()}

    def _isa_json(self) -> dict:
        return {"isa": self.isa, "isa_reason": self.isa_reason}

    def _memcheck_json(self) -> dict:
        report = self.raw.memcheck
        return report.as_dict() if report else {"mode": self.config.get("simt.memcheck", "fault"), "total": 0,
                                                 "recorded": 0, "accesses": []}

    def _timed_document(self) -> dict:
        run, first = self.raw, self.raw.view(0)
        return {"kernel": first.program.name, **self._isa_json(), "config": run.config.name, "grid": dims(first.grid),
                "block": dims(first.block), "warp_size": run.config.get("warp_size"),
                "metrics": metrics_json(run), "texts": first.program.texts,
                "outputs": {} if run.interrupted else outputs_json(run.buffers),
                "history": history_document(first), "memcheck": self._memcheck_json()}

    def stalls_by_pc(self, launch: int = 0) -> list[dict]:
        """Timed runs: the warp-cycles one launch's warps spent waiting to issue each instruction
        and issuing it, by stall reason (Nsight Compute's names), most first: [{"pc",
        "instruction", "cycles", "sample_share", "stalls": {reason: cycles}}], sample_share being
        the share of Nsight Compute's PC samples the model expects there (observe/stalls.py)."""
        if not self.timed:
            raise InputError("stalls_by_pc() needs the timing model: use simulate() or run_program()")
        view = self._launch_view(launch)
        return stalls_by_pc(view.program.texts, self.raw.pc_stalls[launch], self.raw.pc_samples[launch])

    def picture(self, path, cycles=None, warps=None, *, title=None, cell=None) -> None:
        """Draw the execution history to path (.svg, .html or .png): x = cycle, y = each warp's
        lanes.  cycles=(first, end) (end exclusive, None = to the end) and warps=[global warp ids]
        choose a window; cell=(width, height) in pixels.  Needs a timed run with trace=True."""
        self._require_trace("picture()")
        write_picture(self.raw, path, cycles=cycles, warps=warps, title=title, cell=cell)

    def trace(self, path) -> None:
        """Write a Perfetto / Chrome trace (JSON; 1 us in the viewer = 1 cycle) of warps and unit
        pipes.  Needs a timed run with trace=True."""
        self._require_trace("trace()")
        write_perfetto(self.raw, path)

    def _require_trace(self, what: str) -> None:
        if not self.timed:
            raise InputError(f"{what} needs the timing model: use simulate() or run_program(), "
                             f"not a functional run")
        if not self.recorded_trace:
            raise InputError(f"{what} needs a run recorded with trace=True")

    def __repr__(self) -> str:
        kind = f"timed, {self.cycles} cycles" if self.timed else "functional"
        programs = [kl.program for kl in self.raw.launches] if self.timed else [self.raw.program]
        return (f"<Result {kind}: {', '.join(p.name for p in programs)} on {self.config.name}; "
                f"outputs {', '.join(self.outputs) or 'none'}>")


def flat(metrics: dict, prefix: str = "") -> dict:
    """{"unit_busy": {"fp32": 0.5}} -> {"unit_busy.fp32": 0.5}."""
    row = {}
    for key, value in metrics.items():
        if isinstance(value, dict):
            row.update(flat(value, f"{prefix}{key}."))
        else:
            row[f"{prefix}{key}"] = value
    return row


def dims(d) -> list[int]:
    return [d.x, d.y, d.z]


def outputs_json(buffers: dict) -> dict:
    return {name: export.Buffer(arr) for name, arr in buffers.items()}


def history_document(run) -> export.History:
    return export.History(run.history, run.config.warp_size if hasattr(run.config, "warp_size")
                          else run.config.get("warp_size"), lambda gid: warp_label(run, gid))
