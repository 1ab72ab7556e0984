"""simt-sim command line.  Exit codes: 0 ok, 1 outputs differ from the manifest's expectations,
2 bad input (program, manifest, config, arguments), 3 runtime fault."""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

from simt_sim.errors import InputError, Interrupted, RuntimeFault, SimError
from simt_sim.files import write_atomic
from simt_sim.frontend.dims import MAX_DYNAMIC_SHARED, MAX_REGS_PER_THREAD, DimsError, check_dims
from simt_sim.isa.table import ISAS
from simt_sim.machine.layout import SCHEDULER_NAMES
from simt_sim.observe.progress import step_lines
from simt_sim.run.memcheck import MODES as MEMCHECK_MODES


EXIT_MISMATCH = 1


class ArgParser(argparse.ArgumentParser):
    def error(self, message):           # argparse errors are input errors: exit 2, no traceback
        self.print_usage(sys.stderr)
        raise InputError(message)


def build_parser() -> argparse.ArgumentParser:
    p = ArgParser(prog="simt-sim", description="Cycle-level SIMT GPU simulator")
    sub = p.add_subparsers(dest="command", required=True, parser_class=ArgParser)

    run = sub.add_parser("run", help="run a program directory, a manifest, a PTX file or a CUDA source")
    run.add_argument("target", help="programs/PURPOSE/NAME, a manifest.yaml, a .ptx file or a .cu file (compiled with "
                                    "nvcc -ptx -arch=sm_90 -O3)")
    run.add_argument("--kernel", help="entry name (for a PTX file with several)")
    run.add_argument("--isa", choices=ISAS,
                     help="run the sm_90 SASS ptxas makes of the PTX, or the PTX itself (default: the manifest's isa, "
                          "else sass for nvcc-compiled kernels, ptx for hand-written PTX)")
    run.add_argument("--memcheck", choices=MEMCHECK_MODES,
                     help="an out-of-bounds or misaligned access: fault stops the run there (exit 3; the default, "
                          "config key simt.memcheck); report lists every one (kernel, block, thread, pc, address, "
                          "size, nearest buffer) as compute-sanitizer does, reads zeros, drops the writes and "
                          "finishes the run")
    run.add_argument("--grid", help="blocks: N or X,Y,Z")
    run.add_argument("--block", help="threads per block: N or X,Y,Z")
    run.add_argument("--buffer", action="append", default=[], metavar="NAME=SPEC",
                     help="a global buffer, e.g. out=i32[128] or in=f32[64]:random(seed=1)")
    run.add_argument("--args", help="kernel arguments in parameter order: buffer names or numbers, "
                                    "comma separated (default: the buffers in the order given)")
    run.add_argument("--config", help="GPU config name or YAML path (default h100, or the manifest's)")
    run.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                     help="override one config value, e.g. simt.divergence_policy=taken-first")
    run.add_argument("--masks", action="store_true", help="print every warp's execution-mask history")
    run.add_argument("--warp", type=int, action="append",
                     help="with --masks or --picture: only this global warp id (repeatable)")
    run.add_argument("--json", metavar="FILE", help="write outputs, statistics and the history as JSON")
    run.add_argument("--show", metavar="NAME", action="append", default=[],
                     help="print every value of output buffer NAME (repeatable; the summary shows a buffer's "
                          "first 16); with --quiet only these are printed")
    run.add_argument("--quiet", action="store_true",
                     help="print nothing but errors and --show buffers (no progress or compile line)")
    run.add_argument("--functional", action="store_true",
                     help="functional simulation only (no timing model): faster, %%clock counts instructions")
    run.add_argument("--scheduler", choices=SCHEDULER_NAMES,
                     help="warp scheduling policy (overrides the config's scheduler.policy)")
    run.add_argument("--picture", metavar="FILE", action="append", default=[],
                     help="draw the execution history (x = cycle, y = lane of each warp): .svg, .html or .png")
    run.add_argument("--registers", type=int, metavar="N",
                     help="registers per thread for occupancy (default: the manifest's, else what ptxas allocates, "
                          "else the PTX .reg declarations)")
    run.add_argument("--shared-bytes", type=int, metavar="N",
                     help="dynamic (extern .shared) memory per block in bytes (default: the manifest's dynamic_shared, "
                          "else 0)")
    run.add_argument("--cycles", metavar="FIRST:END", help="with --picture: draw only these cycles (END exclusive)")
    run.add_argument("--trace", metavar="FILE", help="write a Perfetto / Chrome trace (JSON) of warps and units")
    run.add_argument("--stalls-by-pc", metavar="N", type=int, default=0,
                     help="print the N instructions whose warps waited longest, with their stall reasons")

    cfgs = sub.add_parser("configs", help="list the GPU configs")
    cfgs.add_argument("--show", metavar="NAME", help="print one config (a name or a .yaml path) with every value "
                                                     "and where it comes from: the file, a base config or the default")
    cfgs.add_argument("--keys", action="store_true", help="print every config key with its type, bounds, default and "
                                                          "meaning (docs/config-keys.md)")
    dis = sub.add_parser("disasm", help="print a kernel with pcs and reconvergence points")
    dis.add_argument("ptx", help="a .ptx file (with --isa sass also a .cu file or a program directory)")
    dis.add_argument("--kernel")
    dis.add_argument("--isa", choices=ISAS, default="ptx",
                     help="sass: the SASS ptxas makes for sm_90, with pipes, control codes and PTX lines "
                          "(docs/sass.md)")
    doc = sub.add_parser("isa-doc", help="print docs/isa.md (or with --isa sass docs/sass.md), generated from isa/")
    doc.add_argument("--isa", choices=ISAS, default="ptx")
    val = sub.add_parser("validate", help="compare the simulator with recorded hardware references")
    val.add_argument("programs", nargs="*", help="program names or directories (default: all with references)")
    report_options(val, "the comparison", "program")
    val.add_argument("--quiet", action="store_true", help="no progress lines (one per program) on stderr")
    val.add_argument("--workloads", action="store_true",
                     help="also the seed workload programs (programs/workloads/w-*; `simt-sim study` compares them per study)")
    val.add_argument("--max-cycle-mae", type=float, metavar="PCT",
                     help="also fail (exit 1) when the suite's cycle mean absolute error exceeds PCT")
    st = sub.add_parser("study", help="run a seed workload's variants and compare them with the H100")
    st.add_argument("name", nargs="?", help="study name (studies/NAME.yaml) or a study file; none: list them")
    report_options(st, "the table", "variant")
    st.add_argument("--quiet", action="store_true", help="no progress lines (one per variant) on stderr")
    st.add_argument("--csv", metavar="FILE", help="write the table as CSV")
    st.add_argument("--plot", metavar="FILE", help="draw simulated against measured speed-ups (.png, .svg, .pdf)")
    st.add_argument("--pictures", metavar="DIR",
                    help="draw each variant's execution history beside its base's (DIR/VARIANT.png)")
    sw = sub.add_parser("sweep", help="run programs x configs x schedulers x --set values on a Dask cluster "
                                      "into one CSV / Parquet table")
    sw.add_argument("programs", nargs="+", help="program directories, manifests, names under programs/ or globs "
                                                "('programs/workloads/w-*')")
    sw.add_argument("--config", action="append", metavar="NAME[,NAME]",
                    help="GPU configs (repeatable, comma separated; default: each manifest's)")
    sw.add_argument("--scheduler", action="append", metavar="POLICY[,POLICY]",
                    help=f"warp scheduling policies: {', '.join(SCHEDULER_NAMES)} (default: the config's)")
    sw.add_argument("--set", action="append", default=[], metavar="KEY[,KEY]=V1,V2",
                    help="one axis of config values, e.g. scheduler.issue_width=1,2; keys joined by commas take "
                         "each value together; several --set cross each other")
    sw.add_argument("--seed", action="append", metavar="S[,S]",
                    help="input seed offsets: random() buffers use seed + S (default 0: the manifest's inputs)")
    sw.add_argument("--grid", help="blocks of every program's main launch: N or X,Y,Z (default: the manifest's)")
    sw.add_argument("--block", help="threads per block of the main launch: N or X,Y,Z (default: the manifest's)")
    sw.add_argument("--out", metavar="FILE", help="results table, .csv or .parquet; runs already in it are skipped")
    sw.add_argument("--retry-failed", action="store_true", help="run again the runs --out holds with status error")
    sw.add_argument("--workers", type=int, metavar="N",
                    help="worker processes of the local Dask cluster (default: one per core; 0: run in this process)")
    sw.add_argument("--cluster", metavar="ADDRESS", help="use the Dask scheduler at ADDRESS (tcp://host:8786)")
    sw.add_argument("--quiet", action="store_true", help="no progress counter and no table")
    from simt_sim.calibrate.probes.runner import add_arguments as probe_arguments
    probe_arguments(sub.add_parser("probe", help="calibration probes: --list them, replay one against its recording, "
                                                 "--fit the keys it pins, --gpu measure it"))
    hw = sub.add_parser("hw", help="hardware runs (needs a CUDA GPU, nvcc and cupy)")
    hws = hw.add_subparsers(dest="hw_command", required=True, parser_class=ArgParser)
    rec = hws.add_parser("record", help="run programs on the GPU; save programs/PURPOSE/NAME/reference/h100.json")
    rec.add_argument("programs", nargs="*", help="program names or directories (default: all with kernel.cu)")
    rec.add_argument("--repeats", type=int, default=3, help="profiled launches per program (the spread)")
    rec.add_argument("--bundle", metavar="FILE", help="also write all references into one JSON file")
    rec.add_argument("--no-ncu", action="store_true", help="skip Nsight Compute counters")
    return p


def report_options(parser: argparse.ArgumentParser, what: str, unit: str) -> None:
    """What validate and study share: --json, --html and the ISA each program runs as."""
    parser.add_argument("--json", metavar="FILE", help=f"write {what} as JSON")
    parser.add_argument("--html", metavar="FILE", help="write an HTML report")
    parser.add_argument("--isa", choices=ISAS,
                        help=f"run each {unit}'s sm_90 SASS (default for nvcc-compiled programs) or its PTX")


def parse_dims(text: str, what: str):
    """--grid / --block: N or X,Y,Z within CUDA's limits for `what` ("grid" or "block") -> Dim3."""
    try:
        parts = [int(x) for x in text.split(",")]
    except ValueError:
        raise InputError(f"--{what} expects N or X,Y,Z, found {text!r}") from None
    try:
        return check_dims(parts, what)
    except DimsError as e:
        raise InputError(f"--{what}: {e.message}") from None


def parse_cycles(text: str | None):
    if not text:
        return None
    first, sep, end = text.partition(":")
    try:
        return int(first or 0), (int(end) if end else None)
    except ValueError:
        raise InputError(f"--cycles expects FIRST:END, found {text!r}") from None


def parse_arg_value(text: str, buffer_names: set[str]):
    text = text.strip()
    if text in buffer_names:
        return text
    try:
        return int(text, 0)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            raise InputError(f"--args: {text!r} is neither a buffer name nor a number") from None


def parse_buffer_options(items: list[str]) -> list:
    """--buffer NAME=SPEC, each name once."""
    from simt_sim.frontend.manifest import parse_buffer_spec
    specs = []
    for item in items:
        name, eq, spec = item.partition("=")
        name = name.strip()
        if not eq or not name:
            raise InputError(f"--buffer expects NAME=SPEC, found {item!r}")
        if name in {s.name for s in specs}:
            raise InputError(f"--buffer: buffer {name!r} is given twice")
        try:
            specs.append(parse_buffer_spec(name, spec))
        except ValueError as e:
            raise InputError(f"--buffer: {e}") from None
    return specs


def check_output_paths(ns) -> None:
    """Refuse an output file that cannot be written before the run, not after it."""
    for path in filter(None, [ns.json, ns.trace, *ns.picture]):
        target = Path(path)
        folder = target.parent
        if not folder.is_dir():
            raise InputError(f"cannot write {path}: no folder {str(folder)!r}")
        if target.is_dir() or not os.access(target if target.exists() else folder, os.W_OK):
            raise InputError(f"cannot write {path}: {'a folder' if target.is_dir() else 'permission denied'}")


def check_registers(registers: int | None) -> None:
    if registers is not None and not 1 <= registers <= MAX_REGS_PER_THREAD:
        raise InputError(f"--registers must be between 1 and {MAX_REGS_PER_THREAD}, found {registers}")


def check_shared_bytes(shared_bytes: int | None) -> None:
    # as in CUDA, a kernel without an extern .shared array may be given some (occupancy counts it)
    if shared_bytes is not None and not 0 <= shared_bytes <= MAX_DYNAMIC_SHARED:
        raise InputError(f"--shared-bytes must be between 0 and {MAX_DYNAMIC_SHARED}, found {shared_bytes}")


def prepare_run(ns):
    """-> (program, grid, block, args, buffer specs, config, expect, dynamic_shared)."""
    from simt_sim import api
    from simt_sim.frontend.manifest import load_manifest

    target = Path(ns.target)
    check_registers(ns.registers)
    ns.registers_given = ns.registers is not None
    check_output_paths(ns)
    ns.cycle_range = parse_cycles(ns.cycles)
    if target.suffix in (".ptx", ".cu"):
        if not ns.grid or not ns.block:
            raise InputError(f"running a {'CUDA source' if target.suffix == '.cu' else 'PTX file'} needs --grid "
                             "and --block")
        specs = parse_buffer_options(ns.buffer)
        names = {s.name for s in specs}
        args = ([parse_arg_value(a, names) for a in ns.args.split(",")] if ns.args
                else [s.name for s in specs])
        program = api.load_program(target, ns.kernel, ns.isa, isa_given_by="--isa")
        check_shared_bytes(ns.shared_bytes)
        config = api.load_config(ns.config or "h100", ns.set)
        return (program, parse_dims(ns.grid, "grid"), parse_dims(ns.block, "block"), args, specs,
                config, {}, ns.shared_bytes or 0)
    m = load_manifest(str(target))
    if ns.registers is None:
        ns.registers = m.registers
    ns.stream = m.stream
    ns.more_launches = api.more_launches(m, ns.isa)
    program = api.load_program(m.path, ns.kernel or m.kernel, ns.isa, isa_given_by="--isa")
    config = api.load_config(ns.config or m.config, m.overrides + ns.set)
    grid = parse_dims(ns.grid, "grid") if ns.grid else m.grid
    block = parse_dims(ns.block, "block") if ns.block else m.block
    check_shared_bytes(ns.shared_bytes)
    dynamic = m.dynamic_shared if ns.shared_bytes is None else ns.shared_bytes
    return program, grid, block, list(m.args), m.buffers, config, m.expect, dynamic


def check_expectations(result, expect: dict, program, grid, block, args, inputs, warp_size) -> list[str]:
    problems = []
    oracle_out = None
    for name, want in expect.items():
        got = result.buffers[name]
        if want == "oracle":
            if oracle_out is None:
                from simt_sim.frontend.assembler import load_program
                from simt_sim.oracle.interpreter import run_oracle
                # the oracle interprets PTX: a SASS run is checked against its PTX's meaning
                ptx = load_program(program.file, program.name) if program.isa == "sass" else program
                try:
                    oracle_out = run_oracle(ptx, grid, block, args, inputs, warp_size=warp_size).buffers
                except NotImplementedError as e:       # e.g. a clock read: no timing in the oracle
                    raise InputError(f"expect: oracle cannot check kernel {program.name}: {e}") from None
            ref = oracle_out[name]
        else:
            ref = np.array(want, dtype=got.dtype)
        if ref.shape != got.shape or not np.array_equal(ref.view(np.uint8), got.view(np.uint8)):
            bad = np.flatnonzero(ref.reshape(-1) != got.reshape(-1)) if ref.shape == got.shape else []
            first = f" first at [{bad[0]}]: got {got.reshape(-1)[bad[0]]}, expected {ref.reshape(-1)[bad[0]]}" \
                if len(bad) else ""
            problems.append(f"output {name} differs from the expected values:{first}")
    return problems


def cmd_run(ns) -> int:
    program, grid, block, args, specs, config, expect, dyn = prepare_run(ns)
    check_show(ns.show, specs)
    check_applicable(ns)
    from simt_sim.run.compile_notice import silenced
    with silenced(ns.quiet):           # --quiet: no compile notice either
        return run_checked(ns, program, grid, block, args, specs, config, expect, dyn)


def run_checked(ns, program, grid, block, args, specs, config, expect, dyn) -> int:
    """`simt-sim run` once its options are checked: the config overrides, the buffers, the run."""
    if ns.scheduler:
        config = config.with_overrides([f"scheduler.policy={ns.scheduler}"])
    if ns.memcheck:
        config = config.with_overrides([f"simt.memcheck={ns.memcheck}"])
    # the host-memory budget of the buffers before any is made (run/budget.py): the input kept
    # here, global memory and the output read back
    from simt_sim.frontend.manifest import DTYPES
    from simt_sim.run import budget
    budget.check(budget.buffer_parts({s.name: s.size * np.dtype(DTYPES[s.dtype]).itemsize for s in specs}),
                 config.get("limits.host_memory_mib", 8192) * 2**20)
    inputs = {s.name: s.make() for s in specs}
    if ns.functional:
        return run_functional_cli(ns, program, grid, block, args, inputs, config, expect, dyn)
    return run_timed_cli(ns, program, grid, block, args, inputs, config, expect, dyn)


def check_show(names: list[str], specs) -> None:
    """--show NAME names a buffer of the run."""
    known = [s.name for s in specs]
    for name in names:
        if name not in known:
            raise InputError(f"--show {name}: the run has no buffer {name!r} "
                             f"(buffers: {', '.join(known) if known else 'none'})")


def functional_keys() -> set[str]:
    """The config keys a functional run reads: the launch settings' keys (machine/config.LAUNCH_KEYS,
    what GPUConfig.launch_config() reads), and the config's name, description and sources."""
    from simt_sim.machine.config import LAUNCH_KEYS
    return set(LAUNCH_KEYS.values()) | {"name", "description", "sources"}


def timing_only_keys(items: list[str]) -> list[str]:
    """Of --set KEY=VALUE items, the keys a functional run does not read (timing-model keys)."""
    used = functional_keys()
    keys = [item.partition("=")[0].strip() for item in items]
    return [k for k in keys if k not in used and not any(u.startswith(k + ".") for u in used)]


def check_applicable(ns) -> None:
    """Options that cannot apply to this run are an error (as --picture under --functional always
    was), never silently ignored: the user asked for something the run would not do."""
    problems = []
    if ns.functional:
        timing = [("--picture", ns.picture), ("--trace", ns.trace), ("--scheduler", ns.scheduler),
                  ("--stalls-by-pc", ns.stalls_by_pc), ("--registers", ns.registers_given)]
        named = [option for option, value in timing if value]
        if named:
            problems.append(f"{', '.join(named)} need{'s' if len(named) == 1 else ''} the timing model "
                            "(drop --functional)")
        if getattr(ns, "more_launches", None):
            problems.append("more_launches need the timing model (drop --functional)")
        keys = timing_only_keys(ns.set)
        if keys:
            reads = ", ".join(sorted(functional_keys() - {"name", "description", "sources"}))
            problems.append(f"--set {', '.join(keys)}: timing-model key{'s' if len(keys) > 1 else ''} that a "
                            f"--functional run does not read (drop --functional; a functional run reads {reads})")
    if Path(ns.target).suffix not in (".ptx", ".cu") and (ns.buffer or ns.args):
        given = " and ".join(option for option, value in (("--buffer", ns.buffer), ("--args", ns.args)) if value)
        problems.append(f"{given}: a program's buffers and arguments come from its manifest (edit its manifest.yaml, "
                        "or run its kernel file with --buffer and --args)")
    if ns.cycles and not ns.picture:
        problems.append("--cycles selects the cycles of --picture: give --picture FILE too")
    if ns.warp and not (ns.masks or ns.picture):
        problems.append("--warp selects the warps of --masks or --picture: give one of them too")
    if problems:
        raise InputError("; ".join(problems))


def run_functional_cli(ns, program, grid, block, args, inputs, config, expect, dyn) -> int:
    from simt_sim import api
    try:
        result = api.run_functional(program, grid, block, args, dict(inputs), config,
                                    dynamic_shared=dyn, history=bool(ns.masks or ns.json))
    except RuntimeFault as e:
        raise fault_without_exports(e, ns) from None
    except Interrupted as e:
        result = e.result
    run, lc = result.raw, result.raw.config
    problems = [] if run.interrupted else check_expectations(run, expect, program, grid, block, args, inputs,
                                                             lc.warp_size)
    stats = result.metrics[0]

    def header():
        print(f"kernel {program.name}: grid {run.grid} block {run.block}, warp size {lc.warp_size}, "
              f"config {config.name}, divergence {lc.policy} (functional)")
        print_isa(result)
        print(f"  warp instructions {stats['warp_instructions']}, thread instructions (guard true) "
              f"{stats['thread_instructions']}, CFE {stats['cfe']:.4f} (share of lanes with guard true)"
              + ("  (interrupted)" if run.interrupted else ""))
    return report_run(ns, result, run.interrupted, header, expect, problems)


def report_run(ns, result, interrupted: bool, header, expect, problems) -> int:
    """What `run` prints after a simulation, functional or timed: --masks; unless --quiet (or when
    interrupted) header() (kernel, config, metrics) and the output buffers; under --quiet the
    buffers --show names; the memcheck report; then the exports (--json, ...).  Its exit status."""
    if ns.masks:
        print(result.masks(ns.warp))
    if not ns.quiet or interrupted:
        header()
        if not interrupted:
            print_outputs(result.outputs, expect, problems, ns.show)
    elif not interrupted:
        print_shown(result.outputs, ns.show)
    if not interrupted:
        print_memcheck(result, ns.quiet)
    return write_exports(ns, result) or report_problems(problems)


def export_paths(ns) -> list[tuple[str, str]]:
    """(option, path) of every file `simt-sim run` was asked to write."""
    return ([("--json", ns.json)] if ns.json else []) + ([("--trace", ns.trace)] if getattr(ns, "trace", None) else []) \
        + [("--picture", p) for p in getattr(ns, "picture", [])]


def fault_without_exports(fault: RuntimeFault, ns) -> RuntimeFault:
    """A run that faulted writes none of its exports; its message says so."""
    paths = export_paths(ns)
    if not paths:
        return fault
    named = ", ".join(f"{option} {path}" for option, path in paths)
    return RuntimeFault(f"{fault}\nnot written (the run faulted): {named}")


def write_exports(ns, result) -> int:
    """--json, --trace and --picture.  After Ctrl-C: --json and --trace are written with
    "complete": false, pictures (which cannot say so) are not; the message names each file.
    -> 130 after Ctrl-C, else 0."""
    interrupted = result.interrupted
    written, skipped = [], []
    if ns.json:
        result.write_json(ns.json)
        written.append(ns.json)
    for path in getattr(ns, "picture", []):
        if interrupted:
            skipped.append(path)
        else:
            result.picture(path, cycles=ns.cycle_range, warps=ns.warp)
    if getattr(ns, "trace", None):
        result.trace(ns.trace)
        written.append(ns.trace)
    dropped = {"history": getattr(result.raw, "history_dropped", 0) if ns.json or getattr(ns, "masks", False) else 0,
               "issue trace": getattr(result.raw, "trace_dropped", 0)}
    for what, n in dropped.items():
        if n:          # bounded by limits.history_rows (docs/errors.md): say so, never silently
            print(f"warning: the {what} keeps its first {result.raw_history_rows:,} rows; {n:,} later rows "
                  f"were not kept (limits.history_rows)", file=sys.stderr)
    if not interrupted:
        return 0
    parts = ["interrupted: statistics so far are shown; outputs were not checked"]
    if written:
        parts.append(f'written with "complete": false: {", ".join(written)}')
    if skipped:
        parts.append(f"not written: {', '.join(skipped)}")
    print("; ".join(parts), file=sys.stderr)
    return Interrupted.exit_code


def print_isa(result) -> None:
    print(f"  isa {result.isa}: {result.isa_reason}")


def print_memcheck(result, quiet: bool) -> None:
    """The memcheck report (report mode): on stdout, or its first line on stderr with --quiet."""
    lines = result.memcheck_lines()
    if not lines:
        return
    if not quiet:
        print("\n".join(lines))
    elif result.memcheck_total:
        print(f"warning: {lines[0]}", file=sys.stderr)


SUMMARY_VALUES = 16         # values of each output buffer in the run summary (--show NAME: all)


def print_outputs(buffers, expect, problems, show=()) -> None:
    for name, arr in buffers.items():
        if name in show:
            print_shown(buffers, [name])
            continue
        shown = np.array2string(arr[:SUMMARY_VALUES], separator=" ", max_line_width=200)
        more = f" ... ({arr.size:,} values; --show {name} prints them all)" if arr.size > SUMMARY_VALUES else ""
        print(f"  {name} = {shown}{more}")
    if expect and not problems:
        print(f"  outputs match the expected values ({', '.join(expect)})")


def print_shown(buffers, names) -> None:
    """--show: every value of each named buffer, in order, as `NAME (dtype[n]) = [...]`."""
    for name in dict.fromkeys(names):
        arr = buffers[name]
        head = f"  {name} ({arr.dtype}[{arr.size}]) = "
        print(head + np.array2string(arr, separator=" ", max_line_width=120, threshold=arr.size + 1, prefix=head))


def report_problems(problems) -> int:
    for p in problems:
        print(f"error: {p}", file=sys.stderr)
    return EXIT_MISMATCH if problems else 0


class Progress:
    """A progress line on stderr (only on a terminal): simulated cycles and rates."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.shown = False

    def __call__(self, cycle: int, warp_insts: int, seconds: float) -> None:
        if not self.enabled or seconds <= 0:
            return
        sys.stderr.write(f"\r  cycle {cycle:,}  warp-instructions {warp_insts:,}  "
                         f"({warp_insts / seconds:,.0f}/s, {cycle / seconds:,.0f} cycles/s)   ")
        sys.stderr.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\n")


def run_timed_cli(ns, program, grid, block, args, inputs, config, expect, dyn) -> int:
    from simt_sim import api
    from simt_sim.observe.metrics import format_metrics
    from simt_sim.observe.stalls import format_stalls_by_pc
    progress = Progress(sys.stderr.isatty() and not ns.quiet)
    launches = [api.Launch(program, grid, block, args, dynamic_shared=dyn, registers=ns.registers,
                           stream=getattr(ns, "stream", 0)), *getattr(ns, "more_launches", [])]
    # no register count given: what ptxas allocates (cached), else an estimate with a warning
    warn = (lambda message: None) if ns.quiet else (lambda message: print(f"warning: {message}", file=sys.stderr))
    launches = [api.with_allocated_registers(kl, warn) for kl in launches]
    try:
        result = api.simulate(launches, dict(inputs), config,
                              history=bool(ns.masks or ns.json), trace=bool(ns.picture or ns.trace),
                              progress=progress)
    except RuntimeFault as e:
        progress.close()
        raise fault_without_exports(e, ns) from None
    except Interrupted as e:
        result = e.result
    progress.close()
    run = result.raw
    view = run.view(0)
    problems = [] if run.interrupted else check_expectations(
        view, expect, program, grid, block, args, inputs, config.get("warp_size"))

    def header():
        mode = "sm_90 SASS" if program.isa == "sass" else "PTX"
        print(f"kernel {program.name} ({mode}): grid {view.grid} block {view.block}, config {config.name}, "
              f"scheduler {config.get('scheduler.policy')}, divergence {config.get('simt.divergence_policy')}")
        print_isa(result)
        print(format_metrics(run))
        if ns.stalls_by_pc > 0:
            print(format_stalls_by_pc(result.stalls_by_pc(), ns.stalls_by_pc))
    return report_run(ns, result, run.interrupted, header, expect, problems)


def cmd_configs(ns) -> int:
    from simt_sim.machine.config import config_reference, list_configs, load_config, show_config
    if ns.keys:
        print(config_reference(), end="")
        return 0
    if ns.show:
        print(show_config(load_config(ns.show)), end="")
        return 0
    for path in list_configs():
        c = load_config(str(path))
        print(f"{c.name:<18} warp {c.get('warp_size'):>2}  {c.get('num_sms'):>3} SMs x {c.get('sm.sub_partitions')} "
              f"schedulers ({c.get('scheduler.policy')}, issue {c.get('scheduler.issue_width')})  "
              f"{c.get('description', '')}")
    return 0


def cmd_disasm(ns) -> int:
    if ns.isa == "sass":
        return cmd_disasm_sass(ns)
    from simt_sim.isa import encoding as E
    from simt_sim.frontend.assembler import load_program
    program = load_program(ns.ptx, ns.kernel)
    from simt_sim.isa import isa
    table = isa()
    for pc, text in enumerate(program.texts):
        row = program.code[pc]
        info = table.ops[int(row[E.F_OP])]
        note = ""
        if row[E.F_GUARD] >= 0 and row[E.F_OP] in (E.OP_BRA, E.OP_RET, E.OP_EXIT):
            r = int(row[E.F_RECONV])
            note = f"  // reconverges at {r if r >= 0 else 'exit'}"
        labels = [n for n, p in program.labels.items() if p == pc]
        for lab in labels:
            print(f"{lab}:")
        print(f"{pc:>5}  {text:<48} [{info.unit_for(E.TYPE_NAMES[row[E.F_TYPE]] if row[E.F_TYPE] >= 0 else None)}]{note}")
    return 0


def cmd_disasm_sass(ns) -> int:
    from simt_sim.frontend.sass import format_kernel, sass_listing
    listing = sass_listing(ns.ptx)
    kernels = [listing.kernel(ns.kernel)] if ns.kernel else listing.kernels
    for i, kernel in enumerate(kernels):
        if i:
            print()
        print("\n".join(format_kernel(listing, kernel)))
    return 0


def cmd_validate(ns) -> int:
    from simt_sim.calibrate.compare import format_table, html_report, run_validation
    root = Path(__file__).resolve().parents[2]
    errors: list = []               # programs that could not be compared: reported, the others go on
    rows, summary = run_validation(root, ns.programs or None, workloads=ns.workloads, isa=ns.isa, errors=errors,
                                   progress=step_lines(ns.quiet))
    if rows:
        print(format_table(rows, summary))
    if ns.json:
        write_atomic(ns.json, json.dumps({"summary": summary, "programs": rows,
                                          "errors": [{"program": p, "error": str(e), "exit_code": e.exit_code}
                                                     for p, e in errors]}, indent=1, default=float))
    if ns.html:
        write_atomic(ns.html, html_report(rows, summary))
    failed = [r["program"] for r in rows if not r["outputs_match"] or r["mask_trace_match"] is False]
    for program, e in errors:
        print(f"{program}: {e}", file=sys.stderr)
    if errors:
        if failed:
            print(f"error: outputs or mask traces differ from the hardware: {', '.join(failed)}", file=sys.stderr)
        print(f"error: {len(errors)} of {len(errors) + len(rows)} programs could not be compared: "
              f"{', '.join(p for p, _ in errors)}", file=sys.stderr)
        return max(e.exit_code for _, e in errors)
    if failed:
        print(f"error: outputs or mask traces differ from the hardware: {', '.join(failed)}", file=sys.stderr)
        return EXIT_MISMATCH
    if ns.max_cycle_mae is not None and summary["cycle_mae_pct"] is not None \
            and summary["cycle_mae_pct"] > ns.max_cycle_mae:
        print(f"error: cycle MAE {summary['cycle_mae_pct']:.1f}% exceeds {ns.max_cycle_mae}%", file=sys.stderr)
        return EXIT_MISMATCH
    return 0


def cmd_study(ns) -> int:
    from simt_sim.calibrate import study as S
    root = Path(__file__).resolve().parents[2]
    if not ns.name:
        for st in S.list_studies(root):
            print(f"{st.name:<22} {len(st.variants):>2} variants  {st.title}")
        return 0
    spec = S.find_study(root, ns.name)
    doc = S.run_study(root, spec, isa=ns.isa, progress=step_lines(ns.quiet))
    print(S.format_table(doc))
    if ns.json:
        write_atomic(ns.json, json.dumps(doc, indent=1, default=float))
    if ns.csv:
        write_atomic(ns.csv, S.to_csv(doc))
    pictures = S.history_pictures(root, spec, Path(ns.pictures), progress=step_lines(ns.quiet)) if ns.pictures else []
    if ns.plot:
        from simt_sim.observe.plots import speedup_plot
        speedup_plot(doc["rows"], ns.plot, title=doc["title"])
    if ns.html:
        write_atomic(ns.html, S.to_html(doc, [os.path.relpath(p, Path(ns.html).parent) for p in pictures]))
    differ = [r["variant"] for r in doc["rows"] if r["outputs"] is False]
    if differ:
        print(f"error: outputs differ from the H100: {', '.join(differ)}", file=sys.stderr)
        return EXIT_MISMATCH
    return 0


def cmd_sweep(ns) -> int:
    from simt_sim import sweep
    if ns.workers is not None and ns.workers < 0:
        raise InputError(f"--workers must be 0 or more, found {ns.workers}")
    if ns.workers is not None and ns.cluster:
        raise InputError("give --workers (a local cluster) or --cluster (an existing one), not both")
    dims = {what: text.replace(" ", "") if text and parse_dims(text, what) else ""
            for what, text in (("grid", ns.grid), ("block", ns.block))}
    root = Path(__file__).resolve().parents[2]
    plan = sweep.make_plan(ns.programs, root, ns.config, ns.scheduler, ns.set, ns.seed, dims["grid"], dims["block"])
    out = Path(ns.out) if ns.out else None
    progress = sweep.ProgressCounter(len(plan.runs), enabled=not ns.quiet)
    report = sweep.run_sweep(plan, out, ns.workers, ns.cluster, ns.retry_failed, progress)
    progress.close()
    if not ns.quiet:
        print(sweep.format_rows(report.rows))
        kept = f", {report.skipped} already in {out}" if out else ""
        print(f"{len(plan.runs)} runs: {report.ran} run now{kept}, {len(report.failed)} failed"
              + (f"; table {out}" if out else ""))
    for row in report.failed:
        print(f"error: {row['program']} {row['config']} {row['scheduler']} {row['set']} seed {row['seed']}: "
              f"{row['error']}", file=sys.stderr)
    if report.interrupted:
        print("interrupted: the finished runs are in the table", file=sys.stderr)
        return 130
    return EXIT_MISMATCH if report.failed else 0


def cmd_hw(ns) -> int:
    from simt_sim.calibrate.record import main as record_main
    argv = [*ns.programs, "--repeats", str(ns.repeats)]
    if ns.bundle:
        argv += ["--bundle", ns.bundle]
    if ns.no_ncu:
        argv.append("--no-ncu")
    return record_main(argv)


def cmd_probe(ns) -> int:
    from simt_sim.calibrate.probes.runner import run
    return run(ns)


def cmd_isa_doc(ns) -> int:
    if ns.isa == "sass":
        from simt_sim.isa.sass_doc import render_sass_doc
        sys.stdout.write(render_sass_doc())
        return 0
    from simt_sim.isa.doc import render_isa_doc
    sys.stdout.write(render_isa_doc())
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    command = "simt-sim"
    try:
        ns = parser.parse_args(argv)
        command = f"simt-sim {ns.command}"
        handler = {"run": cmd_run, "configs": cmd_configs, "disasm": cmd_disasm, "isa-doc": cmd_isa_doc, "hw": cmd_hw,
                   "validate": cmd_validate, "study": cmd_study, "sweep": cmd_sweep,
                   "probe": cmd_probe}
        return handler[ns.command](ns)
    except SimError as e:
        print(str(e), file=sys.stderr)
        return e.exit_code
    except MemoryError:                # a safety net: sizes are checked where they are read
        print(f"runtime error: out of host memory while running {command}", file=sys.stderr)
        return RuntimeFault.exit_code
    except BrokenPipeError:            # output piped into `head`
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:          # run and sweep report their own; elsewhere nothing was written
        print(f"interrupted: {command} stopped; it wrote no results", file=sys.stderr)
        return Interrupted.exit_code


if __name__ == "__main__":
    sys.exit(main())
