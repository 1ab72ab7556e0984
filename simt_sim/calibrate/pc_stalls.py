"""Where warps wait, per SASS instruction, on the H100 and in the simulator.

Nsight Compute's PC sampling (its SourceCounters and WarpStateStats sections, source page) counts
for every SASS instruction how often a warp was seen there and why it could not issue; the
simulator's timed run attributes every warp-cycle between two issues to the instruction then
issued and its stall reason (observe/stalls.py).  Nsight Compute's sampler takes one of the active
warps of each SM at a fixed interval, so a warp-cycle is sampled in proportion to 1 / the warps
its SM then had (an SM's lone last warp as often as 32 warps together); the model weighs its
warp-cycles so (SimResult.pc_samples, engine/cycle/stalls.py) and the two are compared as shares
of their kernel's total samples.

    python -m simt_sim.calibrate.pc_stalls record NAME...    # on the GPU machine
    python -m simt_sim.calibrate.pc_stalls compare NAME... [--top 12]
    python -m simt_sim.calibrate.pc_stalls compare --table    # one row per recorded program (docs/timing.md)
    python -m simt_sim.calibrate.pc_stalls compare NAME... --gaps 12   # where the two differ most

`record` writes programs/PURPOSE/NAME/reference/h100-pc-stalls.json (the main launch: the SASS text and
the samples per reason of every instruction); `compare` runs the program's SASS timed and prints,
for the instructions with the most samples, both shares and their largest reasons, the kernel's
reasons side by side, and the agreement: the sum over instructions and reasons of the smaller of
the two shares (1: the same profile, 0: nothing in common).  `--gaps N` lists instead the N
instructions whose shares differ most, each as warp-cycles per execution on the model's scale
(the H100's share of the model's expected samples, times the model's warp-cycles per sample at
that instruction, over the model's executions of it): where the model misses a cost (how the
16-cycle BSYNC group switch was found, docs/timing.md).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from simt_sim.files import write_atomic
from simt_sim.calibrate.source_counts import action_parser, parse_source_page, recorded_programs
from simt_sim.errors import InputError
from simt_sim.calibrate.reference import load_reference
from simt_sim.machine.layout import STALL_NAMES
from simt_sim.observe.progress import step_lines, steps
from simt_sim.programs import program_dir

FILE_NAME = "h100-pc-stalls.json"
WARM_FILE_NAME = "h100-pc-stalls-warm.json"
ROOT = Path(__file__).resolve().parents[2]
NCU_OPTIONS = ["--section", "SourceCounters", "--section", "WarpStateStats", "--page", "source",
               "--print-source", "sass", "--csv", "--import-source", "no", "--warp-sampling-interval", "0"]
# Nsight Compute's source-page sampling columns -> the simulator's stall names (layout.STALL_NAMES);
# the last four have no counterpart in the model
NCU_REASONS = {"stall_selected": "selected", "stall_not_selected": "not_selected", "stall_wait": "wait",
               "stall_short_sb": "short_scoreboard", "stall_long_sb": "long_scoreboard",
               "stall_math": "math_pipe_throttle", "stall_lg": "lg_throttle", "stall_mio": "mio_throttle",
               "stall_branch_resolving": "branch_resolving", "stall_barrier": "barrier",
               "stall_no_inst": "no_instruction", "stall_drain": "drain", "stall_dispatch": "dispatch_stall",
               "stall_imc": "imc_miss", "stall_membar": "membar", "stall_misc": "misc", "stall_sleep": "sleeping",
               "stall_tex": "tex_throttle"}


def printed_once(launches: list[dict]) -> list[dict]:
    """The launches without a repeat of the one before: ncu 2025.3's source page prints a launch of
    a module holding a second, unlaunched kernel twice, word for word (w-fusion-cd-only,
    -tc-only), where two real launches never sample alike."""
    return [x for i, x in enumerate(launches) if i == 0 or x != launches[i - 1]]


def from_source_page(text: str, launches_per_program: list[int], repeats: int = 1) -> list[dict]:
    """ncu's source page for the programs' launches, each program's `repeats` times in a row ->
    each program's main launch of its last run: {"kernel", "sass", "reasons", "samples"}
    (samples[pc] per reason)."""
    launches = printed_once(parse_source_page(text, tuple(NCU_REASONS)))
    if len(launches) != sum(launches_per_program) * repeats:
        raise RuntimeError(f"ncu returned {len(launches)} launches, expected {sum(launches_per_program) * repeats}")
    out, i = [], 0
    for n in launches_per_program:
        main = launches[i + n * (repeats - 1)]
        out.append({"kernel": main["kernel"], "sass": main["sass"], "reasons": list(NCU_REASONS.values()),
                    "samples": main["counts"]})
        i += n * repeats
    return out


def record(names: list[str], root: Path = ROOT, warm: bool = False) -> list[Path]:
    """Sample the programs' main launches under Nsight Compute: caches flushed before the launch
    (validate's conditions), or with `warm` not flushed, the second of two runs (its inputs copied
    afresh onto the first run's addresses: the conditions of the references' block clocks)."""
    from simt_sim.calibrate.record import WARM_CONDITIONS, WARM_NCU_OPTIONS, WARM_REPEATS, launch_count, ncu_output, program_dirs
    dirs = program_dirs(names, root)
    options, repeats = (NCU_OPTIONS + WARM_NCU_OPTIONS, WARM_REPEATS) if warm else (NCU_OPTIONS, 1)
    docs = from_source_page(ncu_output(options, dirs, repeats, root), [launch_count(d) for d in dirs], repeats)
    paths = []
    for d, doc in zip(dirs, docs):
        if warm:
            doc["conditions"] = WARM_CONDITIONS
        path = d / "reference" / file_name(warm)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps(doc, indent=0) + "\n")
        paths.append(path)
    return paths


def file_name(warm: bool) -> str:
    return WARM_FILE_NAME if warm else FILE_NAME


def simulated(pdir: Path, overrides: tuple[str, ...] = (), warm: bool = False
              ) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The main launch's SASS texts, warp-cycles and the PC samples Nsight Compute would take of
    them (SimResult.pc_samples), per pc and reason (layout.STALL_NAMES), from the manifest's
    launches run as Nsight Compute ran them (compare.simulate_as_profiled)."""
    from simt_sim.calibrate.compare import simulate_as_profiled
    res = simulate_as_profiled(pdir, overrides, warm)
    return list(res.launches[0].program.texts), res.pc_stalls[0], res.pc_samples[0]


def shares(recorded: dict, samples: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(H100 shares, model shares) [pc, reason] over the recording's reasons, each summing to 1: the
    recorded samples against the model's expected samples."""
    reasons = recorded["reasons"]
    hw = np.array(recorded["samples"], np.float64)
    sim = np.zeros_like(hw)
    for j, name in enumerate(reasons):
        if name in STALL_NAMES:
            sim[:, j] = samples[:, STALL_NAMES.index(name)]
    return hw / max(hw.sum(), 1.0), sim / max(sim.sum(), 1.0), reasons


def opcode_of(text: str) -> str:
    """A SASS instruction's guard and opcode with its modifiers: what identifies it in both listings
    (ncu prints branch targets as absolute addresses, no reuse flags, and LDGSTS's operands in
    another order than nvdisasm)."""
    words = text.split()
    return " ".join(words[:2] if words and words[0].startswith("@") else words[:1])


def agreement(hw: np.ndarray, sim: np.ndarray) -> float:
    return float(np.minimum(hw, sim).sum())


def largest(row: np.ndarray, reasons: list[str], n: int = 2) -> str:
    total = row.sum()
    picked = [j for j in np.argsort(-row, kind="stable")[:n] if row[j] > 0]
    return ", ".join(f"{reasons[j]} {row[j] / total:.0%}" for j in picked) or "-"


def compared(pdir: Path, warm: bool = False
             ) -> tuple[dict, list[str], np.ndarray, np.ndarray, list[str], np.ndarray, np.ndarray]:
    """(recording, SASS texts, H100 shares, model shares, reasons, the model's warp-cycles and
    expected samples per pc and stall reason) of one program, under the flushed or the `warm`
    recording's conditions."""
    path = pdir / "reference" / file_name(warm)
    if not path.exists():
        how = " --warm" if warm else ""
        raise InputError(f"{path}: not recorded (python -m simt_sim.calibrate.pc_stalls record{how} {pdir.name})")
    rec = load_reference(path)
    texts, cycles, samples = simulated(pdir, warm=warm)
    if [opcode_of(t) for t in texts] != [opcode_of(t) for t in rec["sass"]]:
        raise InputError(f"{pdir.name}: the SASS here differs from the recorded one (recompiled?)")
    return (rec, texts, *shares(rec, samples), cycles, samples)


def kernel_reasons(hw: np.ndarray, sim: np.ndarray, reasons: list[str], n: int) -> str:
    """The n reasons with the most warps on the H100 and in the model together, as H100 / model."""
    by_reason = sorted(range(len(reasons)), key=lambda j: -(hw[:, j].sum() + sim[:, j].sum()))
    return ", ".join(f"{reasons[j]} {hw[:, j].sum():.0%} / {sim[:, j].sum():.0%}"
                     for j in by_reason[:n] if hw[:, j].sum() + sim[:, j].sum() >= 0.01)


def table(names: list[str], warm: bool = False, progress=None) -> str:
    """A markdown table of the programs' agreements, highest first, with the median (progress:
    told of each finished program, observe/progress.steps)."""
    rows = []
    for name in steps(names, progress):
        rec, _, hw, sim, reasons, _, _ = compared(program_dir(name), warm)
        rows.append((agreement(hw, sim), name, int(np.sum(rec["samples"])), kernel_reasons(hw, sim, reasons, 3)))
    rows.sort(key=lambda r: (-round(r[0], 2), r[1]))
    lines = ["| program | H100 samples | agreement | largest reasons, H100 / model |", "|---|---|---|---|"]
    lines += [f"| {name} | {samples:,} | {a:.2f} | {reasons} |" for a, name, samples, reasons in rows]
    values = [r[0] for r in rows]
    lines.append(f"\nmedian {np.median(values):.2f}, {min(values):.2f}-{max(values):.2f} over {len(rows)} programs")
    return "\n".join(lines)


def executions(cycles: np.ndarray) -> np.ndarray:
    """How often the model issued each pc (one selected cycle an issue; at least 1)."""
    return np.maximum(cycles[:, STALL_NAMES.index("selected")], 1)


def h100_warp_cycles(hw: np.ndarray, cycles: np.ndarray, samples: np.ndarray) -> np.ndarray:
    """The H100's warp-cycles per pc on the model's scale: its share of the samples times the
    model's expected samples, times the model's warp-cycles per sample at that pc (how many warps
    its SM then held: a lone warp's sample stands for one warp-cycle, a full SM's for 32+)."""
    per_sample = cycles.sum(axis=1) / np.maximum(samples.sum(axis=1), 1e-12)
    return hw.sum(axis=1) * samples.sum() * per_sample


def gaps(pdir: Path, top: int, warm: bool = False) -> str:
    """The `top` instructions whose H100 and model shares differ most, as warp-cycles per execution
    on the model's scale (the H100's samples of an instruction turned into warp-cycles by the
    model's cycles per sample there), with each side's largest reasons."""
    _, texts, hw, sim, reasons, cycles, samples = compared(pdir, warm)
    runs = executions(cycles)
    lines = [f"{pdir.name}: warp-cycles per execution, the H100's on the model's scale (its share of the "
             f"model's {samples.sum():,.0f} expected samples, at the model's warp-cycles per sample there)",
             f"{'pc':>5} {'runs':>7} {'H100':>8} {'model':>8} {'gap':>9}  {'instruction':<36} {'H100 reasons':<34} model reasons"]
    hw_cycles = h100_warp_cycles(hw, cycles, samples)
    gap = hw_cycles - cycles.sum(axis=1)
    for pc in np.argsort(-np.abs(gap), kind="stable")[:top]:
        lines.append(f"{pc:>5} {int(runs[pc]):>7} {hw_cycles[pc] / runs[pc]:>8.1f} "
                     f"{cycles[pc].sum() / runs[pc]:>8.1f} {gap[pc]:>+9.0f}  {texts[pc][:36]:<36} "
                     f"{largest(hw[pc], reasons):<34} {largest(sim[pc], reasons)}")
    return "\n".join(lines)


def comparison(pdir: Path, top: int, warm: bool = False) -> str:
    rec, texts, hw, sim, reasons, _, _ = compared(pdir, warm)
    lines = [f"{pdir.name}: agreement {agreement(hw, sim):.2f} "
             f"(sum over instructions and reasons of the smaller share; H100 {int(np.sum(rec['samples']))} samples)",
             f"{'pc':>5} {'H100':>6} {'model':>6}  {'instruction':<36} {'H100 reasons':<34} model reasons"]
    for pc in np.argsort(-hw.sum(axis=1), kind="stable")[:top]:
        lines.append(f"{pc:>5} {hw[pc].sum():>6.1%} {sim[pc].sum():>6.1%}  {texts[pc][:36]:<36} "
                     f"{largest(hw[pc], reasons):<34} {largest(sim[pc], reasons)}")
    lines.append("kernel: " + kernel_reasons(hw, sim, reasons, len(reasons)))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = action_parser("python -m simt_sim.calibrate.pc_stalls")
    ap.add_argument("--top", type=int, default=12, help="instructions shown, most H100 samples first")
    ap.add_argument("--table", action="store_true",
                    help="compare: one markdown row per program (agreement, the kernel's largest reasons)")
    ap.add_argument("--gaps", type=int, metavar="N",
                    help="compare: the N instructions where the H100 and the model differ most, in warp-cycles per execution")
    ap.add_argument("--warm", action="store_true",
                    help="caches not flushed: the second of two runs, as the references' block clocks (h100-pc-stalls-warm.json)")
    ap.add_argument("--quiet", action="store_true", help="compare: no progress lines on stderr")
    ns = ap.parse_intermixed_args(argv)      # options before or after the program names
    if ns.action == "record":
        print("\n".join(str(p) for p in record(ns.programs, warm=ns.warm)))
        return 0
    names = recorded_programs(ns.programs, file_name(ns.warm))
    progress = step_lines(ns.quiet)
    if ns.table:
        print(table(names, ns.warm, progress))
        return 0
    for name in steps(names, progress):
        pdir = program_dir(name)
        print(gaps(pdir, ns.gaps, ns.warm) if ns.gaps else comparison(pdir, ns.top, ns.warm))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except InputError as e:
        print(e, file=sys.stderr)
        sys.exit(2)
