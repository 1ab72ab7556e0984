"""Where a program's global sectors go (L1 hits, L2 reads and hits, DRAM reads, stores), as
Nsight Compute counts them on the GPU, beside the simulator's own counts (a kernel's
`global_sectors` metrics, layout.SECTOR_FIELDS).

    python -m simt_sim.calibrate.memory_counters record NAME...   # on the GPU machine
    python -m simt_sim.calibrate.memory_counters compare [NAME...] # the simulator beside them
    ... record --warm NAME... / compare --warm [NAME...]             # caches not flushed, as the block clocks

`record` profiles every launch of each program once (ncu's default cache control: caches flushed
before each launch, as `validate` simulates) and writes programs/PURPOSE/NAME/reference/GPU-memory.json
(GPU: h100, h200, ... from the device's name), every launch's counters and their sum.
`compare` runs each recorded program as ncu ran it (compare.simulate_as_profiled) and prints the
two side by side: sectors loaded, the share of them that hit L1, sectors read from L2 and the
share that hit there, sectors read from DRAM, sectors stored.

The counts differ in what they cover: Nsight Compute's loads are plain global loads
(`op_ld`); the simulator's are every load-like access through its cache model (cp.async,
local memory and atomics as well), so the comparison holds for kernels whose loads are plain
ones.  L2 reads are every read from the SMs' L1s on both sides.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from simt_sim.files import write_atomic
from simt_sim.calibrate.source_counts import ROOT, action_parser
from simt_sim.errors import InputError
from simt_sim.calibrate.reference import load_reference
from simt_sim.programs import program_dir, program_dirs as all_program_dirs

# name -> Nsight Compute metric (sm_90); the first six are compared, the rest kept for context
METRICS = {
    "load": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1_hit": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum",
    "l2_read": "lts__t_sectors_srcunit_tex_op_read.sum",
    "l2_hit": "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
    "dram_read": "dram__sectors_read.sum",
    "store": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "ldgsts": "l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum",
    "local_load": "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
    "atom": "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum",
    "red": "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
    "l2_write": "lts__t_sectors_srcunit_tex_op_write.sum",
    "dram_write": "dram__sectors_write.sum",
}
COMPARED = ("load", "l1_hit", "l2_read", "l2_hit", "dram_read", "store")
SUFFIX = "-memory.json"
WARM_SUFFIX = "-memory-warm.json"


def gpu_tag() -> str:
    """h100, h200, ...: the recording GPU's model (file names carry it)."""
    from simt_sim.calibrate.record import device_name, require_gpu
    name = device_name(require_gpu())
    return next((w.lower() for w in name.split() if w[:1] in "HABL" and w[1:].isdigit()), "gpu")


def record(names: list[str], root: Path = ROOT, warm: bool = False) -> list[Path]:
    """Profile every launch of each program once with METRICS (with `warm` not flushed, the second
    of two runs, as pc_stalls records them); write GPU-memory[-warm].json beside its references."""
    from simt_sim.calibrate.record import (WARM_CONDITIONS, WARM_NCU_OPTIONS, WARM_REPEATS, launch_count, ncu_output,
                                           ncu_rows, program_dirs)
    dirs = program_dirs(names, root)
    metrics = list(METRICS.values())
    options, repeats = ["--csv", "--page", "raw", "--metrics", ",".join(metrics)], 1
    if warm:
        options, repeats = options + WARM_NCU_OPTIONS, WARM_REPEATS
    rows = ncu_rows(ncu_output(options, dirs, repeats, root), metrics)
    counts = [launch_count(d) for d in dirs]
    if len(rows) != sum(counts) * repeats:
        raise RuntimeError(f"ncu returned {len(rows)} launches, expected {sum(counts) * repeats}")
    tag, paths, i = gpu_tag(), [], 0
    for d, n in zip(dirs, counts):
        last = rows[i + (repeats - 1) * n:i + repeats * n]
        launches = [{"kernel": r["kernel"], **{k: r[m] for k, m in METRICS.items()}} for r in last]
        doc = {"metrics": METRICS, "launches": launches, "total": summed(launches)}
        if warm:
            doc["conditions"] = WARM_CONDITIONS
        path = d / "reference" / f"{tag}{suffix(warm)}"
        path.parent.mkdir(exist_ok=True)
        write_atomic(path, json.dumps(doc, indent=1) + "\n")
        paths.append(path)
        i += n * repeats
    return paths


def suffix(warm: bool) -> str:
    return WARM_SUFFIX if warm else SUFFIX


def summed(launches: list[dict]) -> dict:
    """The launches' counters added (None where any launch lacks one)."""
    out = {}
    for k in METRICS:
        vals = [lc.get(k) for lc in launches]
        out[k] = None if any(v is None for v in vals) else sum(vals)
    return out


def recording(pdir: Path, warm: bool = False) -> tuple[str, dict] | None:
    """(GPU tag, document) of the program's memory recording, the H100's where there is one."""
    found = sorted(pdir.glob(f"reference/*{suffix(warm)}"), key=lambda p: not p.name.startswith("h100"))
    return (found[0].name[:-len(suffix(warm))], load_reference(found[0])) if found else None


def simulated(pdir: Path, overrides: tuple[str, ...] = (), warm: bool = False) -> dict:
    """The simulator's global sectors over the program's launches, run as ncu ran them."""
    from simt_sim.calibrate.compare import simulate_as_profiled
    res = simulate_as_profiled(pdir, overrides, warm)
    out: dict[str, int] = {}
    for k in res.kernels:
        for name, v in k["global_sectors"].items():
            out[name] = out.get(name, 0) + v
    return out


def share(part, whole) -> float | None:
    return 100.0 * part / whole if part is not None and whole else None


def compared_row(name: str, hw: dict, sim: dict) -> dict:
    """One program's figures, GPU and simulator: sectors loaded, L1 hit %, L2 reads, L2 hit %,
    DRAM reads, stores (the simulator's L1 hits on lines still being filled as well)."""
    return {"program": name,
            "load": (hw["load"], sim["load"]),
            "l1_hit_pct": (share(hw["l1_hit"], hw["load"]), share(sim["l1_hit"], sim["load"])),
            "l1_pending_pct": share(sim["l1_hit_pending"], sim["load"]),
            "l2_read": (hw["l2_read"], sim["l2_read"]),
            "l2_hit_pct": (share(hw["l2_hit"], hw["l2_read"]), share(sim["l2_hit"], sim["l2_read"])),
            "dram_read": (hw["dram_read"], sim["dram_read"]),
            "store": (hw["store"], sim["store"])}


def _pct(v) -> str:
    return "-" if v is None else f"{v:.1f}"


def _count(v) -> str:
    return "-" if v is None else f"{int(v)}"


def format_rows(rows: list[dict], tag: str) -> str:
    head = (f"{'program':32} {'load ' + tag:>10} {'sim':>8} {'L1 hit%':>8} {'sim':>6} {'(pend)':>6} "
            f"{'L2 read':>9} {'sim':>8} {'L2 hit%':>8} {'sim':>6} {'DRAM rd':>9} {'sim':>8} {'store':>8} {'sim':>8}")
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(f"{r['program']:32} {_count(r['load'][0]):>10} {_count(r['load'][1]):>8} "
                     f"{_pct(r['l1_hit_pct'][0]):>8} {_pct(r['l1_hit_pct'][1]):>6} {_pct(r['l1_pending_pct']):>6} "
                     f"{_count(r['l2_read'][0]):>9} {_count(r['l2_read'][1]):>8} "
                     f"{_pct(r['l2_hit_pct'][0]):>8} {_pct(r['l2_hit_pct'][1]):>6} "
                     f"{_count(r['dram_read'][0]):>9} {_count(r['dram_read'][1]):>8} "
                     f"{_count(r['store'][0]):>8} {_count(r['store'][1]):>8}")
    gaps = [abs(r["l1_hit_pct"][0] - r["l1_hit_pct"][1]) for r in rows if None not in r["l1_hit_pct"]]
    if gaps:
        lines.append(f"L1 hit rate of loads: mean absolute difference {sum(gaps) / len(gaps):.1f} pp over "
                     f"{len(gaps)} programs, largest {max(gaps):.1f} pp")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = action_parser("python -m simt_sim.calibrate.memory_counters")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="config override for the simulator's runs (compare)")
    ap.add_argument("--warm", action="store_true",
                    help="caches not flushed: the second of two runs, as the block clocks were recorded")
    ns = ap.parse_args(argv)
    if ns.action == "record":
        print("\n".join(str(p) for p in record(ns.programs, warm=ns.warm)))
        return 0
    end = suffix(ns.warm)
    names = ns.programs or [d.name for d in all_program_dirs(needs=f"reference/*{end}")]
    rows, tags = [], set()
    for name in names:
        pdir = program_dir(name)
        rec = recording(pdir, ns.warm)
        if rec is None:
            raise InputError(f"{name}: no memory counters recorded (programs/{name}/reference/*{end}; "
                             "record them on the GPU machine with `record`)")
        tags.add(rec[0])
        rows.append(compared_row(name, rec[1]["total"], simulated(pdir, tuple(ns.set), ns.warm)))
    print(format_rows(rows, "/".join(sorted(tags))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
