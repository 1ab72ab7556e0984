#!/usr/bin/env python
"""Calibrate configs/h100.yaml from the recorded H100 references (a script, not hand edits).

Each latency comes from one microbenchmark's recorded clock span: the simulator runs the same
program with the current config, and the value moves by (hardware span - simulated span) / steps
(the span is linear in the latency; the spans also contain other latencies, so the
update runs memory first and repeats until it settles).  The launch
overhead comes from the empty kernel's sm__cycles_elapsed.max.  The edits keep the YAML's comments.

L2 and DRAM latencies are SM cycles plus nanoseconds on the memory side's clocks.  The
nanoseconds are the slope of v-lat-dram's chase timed at two SM clocks (tools/profiled_chase.py:
plain launches at 1980 MHz, Nsight Compute's at 1590): lines a kernel filled (L2 hits), lines
the host copied in (the first touch in a plain launch) and flushed lines (DRAM).  The spans then
set the cycles of the first two; DRAM's cycles are the host copy's plus the difference of the
two fits at zero clock, since no plain span times a flushed line; DRAM's nanoseconds less what
the refreshes (`memory.dram.refresh_*`, tools/dram_lines.py) add to the chase's mean load.  An L2 hit's spread
(`memory.l2.latency_spread_ns`) is the quantiles of 132 SMs' chases through L2
(tools/latency_spread.py), less their mean, in ns at the clock they ran at; the latency chases
are simulated without it, so that `l2.latency` stays the mean of all SM/line pairs.  The LD/ST
pipe's shared-memory bytes per cycle and the latency of a pass through the banks come from
tools/shared_ops.py's recording (rates of two- and four-pass accesses, chains one pass apart).

    python tools/calibrate_h100.py            # update configs/h100.yaml, print the table
    python tools/calibrate_h100.py --check    # exit 1 if the config is not what calibration gives
"""
import json
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from simt_sim.machine.config import load_config  # noqa: E402
from simt_sim.frontend.assembler import load_program  # noqa: E402
from simt_sim.frontend.manifest import load_manifest  # noqa: E402
from simt_sim.run.timed import manifest_launch, simulate  # noqa: E402
from simt_sim.calibrate.compare import clock_spans, recorded_array  # noqa: E402
from simt_sim.programs import program_dir

CONFIG = ROOT / "configs" / "h100.yaml"
# program, dependent steps timed, config key calibrated
# Memory first: the ALU chains' spans include the wait for their input load.
LATENCIES = [
    ("v-lat-dram", 32, "memory.l2.host_copy_latency"),     # a plain launch: the copy left the chain in L2
    ("v-lat-l2", 32, "memory.l2.latency"),
    ("v-lat-l1", 32, "memory.l1.latency"),
    ("v-lat-shared", 128, "memory.shared.latency"),
    ("v-lat-fp32", 128, "units.fp32.latency"),
    ("v-lat-int", 128, "units.int.latency"),
    ("v-lat-fp64", 128, "units.fp64.latency"),
    ("v-lat-sfu", 128, "units.sfu.latency"),          # the chain is MUFU.RSQ + FFMA per step
]
PASSES = 4
LAUNCH = ("launch-empty", "sm.kernel_launch_latency")
CHASE = ROOT / "programs" / "validation" / "v-lat-dram" / "reference" / "h100-profiled-chase.json"
SPREAD = ROOT / "programs" / "validation" / "v-lat-l2" / "reference" / "h100-latency-spread.json"
SHARED_OPS = ROOT / "programs" / "probes" / "t-mio-w1" / "reference" / "h100-shared-ops.json"
# tools/shared_ops.py's kernels: passes through the banks of a conflict-free warp access (32 warps)
SHARED_PASSES = {"k_lds64": 2, "k_lds128": 4, "k_sts64": 2, "k_sts128": 4, "k_ldsm4": 4, "k_lds32_2way": 2}
# ... and its dependent chains: (chain, the chain one pass shorter or more, extra passes)
SHARED_CHAIN_PASSES = (("k_chain_lds64", "k_chain_lds32", 1), ("k_chain_lds128_bcast", "k_chain_lds32", 1),
                       ("k_chain_ldsm2", "k_chain_ldsm1", 1), ("k_chain_ldsm4", "k_chain_ldsm1", 3),
                       ("k_chain_lds128", "k_chain_lds32", 3))
# which chase launches time which kind of line: (ncu control or "plain", cache state); ncu's
# default and clock-none controls flush before every launch, so all their states time DRAM
FLUSHING = [(control, state) for control in ("default", "clock-none") for state in ("fresh", "flushed", "warm")]
CHASE_LINES = {"l2.latency": [("plain", "warm"), ("cache-none", "warm"), ("both-none", "warm")],
               "l2.host_copy_latency": [("plain", "fresh"), ("cache-none", "fresh"), ("both-none", "fresh")],
               "dram.latency": [("plain", "flushed"), ("cache-none", "flushed"), ("both-none", "flushed"), *FLUSHING]}


def chase_fits() -> dict[str, tuple[float, float]]:
    """{memory key: (cycles at zero clock, ns)}: per-load chase cycles against the SM clock,
    least squares over every launch that timed that kind of line."""
    rec = json.loads(CHASE.read_text())
    fits = {}
    for key, launches in CHASE_LINES.items():
        blocks = [rec["plain"][s] if c == "plain" else rec["under_ncu"][c][s] for c, s in launches]
        ghz = np.array([b["sm_clock_mhz"] / 1000 for b in blocks for _ in b["launches"]])
        per_load = np.array([r["chase"] / 32 for b in blocks for r in b["launches"]])
        ns, cycles = np.polyfit(ghz, per_load, 1)
        fits[key] = (float(cycles), float(ns))
    return fits


def set_memory_side(text: str, fits: dict) -> tuple[str, list]:
    """The ns of each L2/DRAM latency from the chase fits (one decimal), DRAM's less what its
    refreshes add to the mean load (the chase's loads waited for them); returns the table rows."""
    rows = []
    for key, (_, ns) in fits.items():
        dotted = f"memory.{key}_ns"
        if key == "dram.latency":
            ns -= load_config(str(CONFIG)).dram_refresh_mean_ns()
        text = set_value(text, dotted, round(ns, 1))
        rows.append((dotted, None, round(ns, 1), "profiled chase", None, None))
    return text, rows


def set_dram_cycles(text: str, host_copy: int, fits: dict) -> tuple[str, tuple]:
    """DRAM's SM cycles: the host copy's plus the difference of the fits at zero clock."""
    value = host_copy + round(fits["dram.latency"][0] - fits["l2.host_copy_latency"][0])
    return set_value(text, "memory.dram.latency", value), ("memory.dram.latency", None, value, "profiled chase",
                                                           None, None)


def set_l2_spread(text: str) -> tuple[str, tuple]:
    """memory.l2.latency_spread_ns from the recorded chases through L2 (SM cycles at clock_mhz -> ns)."""
    cycles = json.loads(SPREAD.read_text())["chase_k1"]["l2"]["quantiles_less_mean"]
    mhz = load_config(str(CONFIG)).get("clock_mhz")
    ns = [round(c * 1000.0 / mhz, 1) for c in cycles]
    lines = [", ".join(f"{v:g}" for v in ns[i:i + 16]) for i in range(0, len(ns), 16)]
    listed = "[" + (",\n" + " " * 10).join(lines) + "]"
    new, n = re.subn(r"latency_spread_ns:\s*\[[^\]]*\]", lambda _: f"latency_spread_ns: {listed}", text, count=1)
    if n != 1:
        raise SystemExit(f"cannot find memory.l2.latency_spread_ns in {CONFIG}")
    return new, ("memory.l2.latency_spread_ns", None, f"{min(ns):g}..{max(ns):g}", "latency spread", None, None)


def set_shared_passes(text: str) -> tuple[str, list]:
    """units.ldst.shared_bytes_per_cycle and memory.shared.wavefront_latency from tools/shared_ops.py's
    recording: a sub-partition's cycles per pass (four sub-partitions over the SM's rate times the
    passes, 32 warps) and the cycles a chain step grows per extra pass, less the shared port's one."""
    rec = json.loads(SHARED_OPS.read_text())
    rates, chains = rec["warp_insts_per_cycle_per_sm"], rec["chain_cycles_per_step"]
    cfg = load_config(str(CONFIG))
    sub_partitions = cfg.get("sm.sub_partitions")
    pass_bytes = cfg.get("memory.shared.banks") * cfg.get("memory.shared.bank_bytes")
    per_pass = np.mean([sub_partitions / (rates[f"{k}/32"] * n) for k, n in SHARED_PASSES.items()])
    rate = int(round(pass_bytes / per_pass))
    growth = np.mean([(chains[k] - chains[base]) / n for k, base, n in SHARED_CHAIN_PASSES])
    latency = max(0, int(round(growth)) - 1)
    rows = []
    for key, value, what in (("units.ldst.shared_bytes_per_cycle", rate, f"{per_pass:.2f} cycles/pass"),
                             ("memory.shared.wavefront_latency", latency, f"+{growth:.2f} cycles/pass")):
        rows.append((key, cfg.get(key), value, what, None, None))
        text = set_value(text, key, value)
    return text, rows


def reference(name):
    return json.loads((program_dir(name) / "reference" / "h100.json").read_text())


def simulate_program(name, cfg):
    d = program_dir(name)
    m = load_manifest(str(d))
    prog = load_program(str(d / "kernel.ptx"), m.kernel)
    cfg = cfg.with_overrides(m.overrides) if m.overrides else cfg
    return simulate([manifest_launch(m, prog)], {s.name: s.make() for s in m.buffers}, cfg)


def hw_span(name):
    ref = reference(name)
    return max(clock_spans(recorded_array(ref["outputs"]["clk"]).view(np.int64)))


def set_value(text, dotted, value):
    """Replace one value in the h100.yaml text (inline {..} maps for units and memory levels)."""
    section, *rest = dotted.split(".")
    if section == "sm":
        key = rest[0]
        if re.search(rf"^  {key}:", text, re.M):
            return re.sub(rf"^(  {key}:\s*)\d+", rf"\g<1>{value}", text, count=1, flags=re.M)
        return re.sub(r"^(  block_launch_latency:.*)$", rf"\1\n  {key}: {value}", text, count=1, flags=re.M)
    name, field = rest[-2], rest[-1]
    pattern = rf"^(\s+{name}:\s*\{{[^}}]*\b{field}:\s*)[\d.]+"
    new, n = re.subn(pattern, rf"\g<1>{value}", text, count=1, flags=re.M)
    if n != 1:
        raise SystemExit(f"cannot find {dotted} in {CONFIG}")
    return new


def calibrate():
    rows = []
    fits = chase_fits()
    text, memory_side = set_memory_side(CONFIG.read_text(), fits)
    text, row = set_l2_spread(text)
    memory_side.append(row)
    text, shared = set_shared_passes(text)
    memory_side.extend(shared)
    for _ in range(PASSES):
        rows = list(memory_side)
        cfg = load_config(str(CONFIG))
        # the chases time a few lines each: without the spread, so that its draw for those lines
        # does not move the mean
        mean_only = cfg.with_overrides(["memory.l2.latency_spread_ns=[]"])
        for name, steps, key in LATENCIES:
            sim = max(clock_spans(simulate_program(name, mean_only).buffers["clk"]))
            hw = hw_span(name)
            old = cfg.get(key)
            new = max(1, int(round(old + (hw - sim) / steps)))
            rows.append((key, old, new, name, hw, sim))
            text = set_value(text, key, new)
        host_copy = next(new for key, _, new, *_ in rows if key == "memory.l2.host_copy_latency")
        text, row = set_dram_cycles(text, host_copy, fits)
        rows.append(row)
        name, key = LAUNCH
        ncu = reference(name)["ncu"]
        hw = float(np.median([r["sm__cycles_elapsed.max"] for r in ncu]))
        sim = simulate_program(name, cfg.under_profiler()).cycles
        old = cfg.get(key)
        new = max(0, int(round(old + hw - sim)))
        rows.append((key, old, new, name, hw, sim))
        text = set_value(text, key, new)
        CONFIG.write_text(text)
    return rows


def main():
    check = "--check" in sys.argv
    before = CONFIG.read_text()
    rows = calibrate()
    after = CONFIG.read_text()
    print(f"{'config key':<31} {'value':>6}  {'source program':<16} {'hw span':>9} {'sim span':>9}")
    for key, old, new, name, hw, sim in rows:
        spans = f"{hw:>9.0f} {sim:>9.0f}" if hw is not None else ""
        print(f"{key:<31} {new:>6}  {name:<16} {spans}")
    if check:
        CONFIG.write_text(before)
        if after != before:
            print("configs/h100.yaml is not calibrated: run python tools/calibrate_h100.py", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
