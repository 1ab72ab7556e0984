#!/usr/bin/env python
"""Regenerate the branching article's Figures 1-3 and 8-9 (see docs/figures.md).

    python docs/figures.py                 # everything into docs/img, tables on stdout
    python docs/figures.py --only 1-3      # or --only 8-9; --out DIR for another folder

Figures 1-3: programs/examples/article-fig1-shader on configs/article-4waves.yaml with issue width 2
(Figure 1, "4:2"), 1 (Figure 2, "4:1") and 4 (Figure 3, "4:4"), drawn as execution histories.
Figures 8-9: programs/examples/article-fig8-loop on configs/article-simd.yaml for SIMD widths 1-64, with
random loop counts and with the same counts sorted; one wave per block and one block resident at
a time, so a wave's span is its own runtime.  Everything is deterministic (fixed seeds).
"""
from __future__ import annotations

import argparse
import html
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import simt_sim  # noqa: E402
from simt_sim.machine.config import UNIT_NAMES  # noqa: E402
from simt_sim.machine import layout as L  # noqa: E402
from simt_sim.frontend.manifest import load_manifest  # noqa: E402
from simt_sim.observe.pictures import WAITING, cell_states, figure_png  # noqa: E402
from simt_sim.observe.trace import pipe_assignment  # noqa: E402

SHADER = ROOT / "programs/examples/article-fig1-shader"
LOOP = ROOT / "programs/examples/article-fig8-loop"
# (file stem, issue width, article figure)
SHADER_FIGURES = (("fig1-issue2", 2, "Figure 1 (4:2)"), ("fig2-issue1", 1, "Figure 2 (4:1)"),
                  ("fig3-issue4", 4, "Figure 3 (4:4)"))
WIDTHS = (1, 2, 4, 8, 16, 32, 64)
N_THREADS = 256
LANE_UNITS = ("fp32", "int", "control", "ldst")


# ---------------------------------------------------------------- Figures 1-3
def run_shader(issue_width: int, extra: list[str] | None = None) -> simt_sim.Result:
    return simt_sim.run_program(SHADER, overrides=[f"scheduler.issue_width={issue_width}", *(extra or [])],
                                trace=True)


def shader_numbers(res: simt_sim.Result) -> dict:
    """Cycles, ALU (fp32 pipes, int shares them) busy fractions, and how often waves wait."""
    m = res.metrics[0]
    cycles = m["cycles"]
    pipes, busy = pipe_assignment(res.raw)
    alu = res.raw.trace[:, L.TR_UNIT] == UNIT_NAMES.index("fp32")
    n_pipes = int(res.config.get("units.fp32.pipes"))
    per_pipe = [float(busy[alu & (pipes == p)].sum()) / cycles for p in range(n_pipes)]
    st = m["stall_cycles"]
    states = cell_states(res.raw)
    ws = int(res.config.get("warp_size"))
    n_w = states.shape[0] // ws
    waiting = (states.reshape(n_w, ws, -1) == WAITING).any(axis=1)       # waves in red, per cycle
    n_wait = waiting.sum(axis=0)
    return {
        "issue_width": int(res.config.get("scheduler.issue_width")),
        "cycles": int(res.cycles),
        "warp_instructions": int(m["warp_instructions"]),
        "alu_busy": float(m["unit_busy"]["fp32"]),
        "alu_busy_per_pipe": per_pipe,
        "sampler_busy": float(m["unit_busy"]["ldst"]),
        "unit_wait_warp_cycles": int(st["math_pipe_throttle"] + st["lg_throttle"] + st["mio_throttle"]),
        "not_selected_warp_cycles": int(st["not_selected"]),
        "waiting_waves_per_cycle": float(n_wait.mean()),
        "cycles_with_2plus_waiting": float((n_wait >= 2).mean()),
        "stall_warp_cycles": int(sum(v for k, v in st.items()
                                     if k not in ("selected", "not_selected", "math_pipe_throttle",
                                                  "lg_throttle", "mio_throttle"))),
    }


def shader_figures(out: Path | None) -> list[dict]:
    rows = []
    for stem, width, label in SHADER_FIGURES:
        res = run_shader(width)
        num = shader_numbers(res)
        num["figure"], num["file"] = label, stem
        rows.append(num)
        if out is not None:
            title = (f"{label}: 4 waves, 2 ALUs, 1 sampler, issue width {width} - {res.cycles} cycles, "
                     f"ALU busy {num['alu_busy']:.2f}")
            for ext in (".svg", ".png"):
                res.picture(out / f"{stem}{ext}", title=title, cell=(4, 6))
    return rows


def shader_table(rows: list[dict]) -> str:
    lines = ["| figure | issue width | cycles | ALU busy (both pipes) | ALU pipe 0 / pipe 1 | sampler busy "
             "| unit-wait warp-cycles | not-selected warp-cycles | waves waiting per cycle "
             "| cycles with >= 2 waiting |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: r["file"]):
        lines.append(f"| {r['figure']} | {r['issue_width']} | {r['cycles']} | {r['alu_busy']:.3f} | "
                     + " / ".join(f"{b:.3f}" for b in r["alu_busy_per_pipe"])
                     + f" | {r['sampler_busy']:.3f} | {r['unit_wait_warp_cycles']} | "
                     f"{r['not_selected_warp_cycles']} | {r['waiting_waves_per_cycle']:.2f} | "
                     f"{r['cycles_with_2plus_waiting']:.2f} |")
    return "\n".join(lines)


# ---------------------------------------------------------------- Figures 8-9
def loop_counts() -> np.ndarray:
    m = load_manifest(str(LOOP))
    spec = next(s for s in m.buffers if s.name == "counts")
    return spec.make()


def run_loop(width: int, counts: np.ndarray):
    """One wave of `width` lanes per block, 256 / width blocks, one block resident at a time.
    Returns (result, per-wave durations)."""
    program = simt_sim.load_program(LOOP / "kernel.ptx", "loop_count")
    sets = [f"warp_size={width}"] + [f"units.{u}.lanes={width}" for u in LANE_UNITS]
    cfg = simt_sim.load_config("article-simd", sets)
    blocks = N_THREADS // width
    buffers = {"counts": counts.astype(np.uint32).copy(), "out": np.zeros(N_THREADS, np.uint32)}
    res = simt_sim.simulate(simt_sim.Launch(program, blocks, width, ["counts", "out"]), buffers, cfg, trace=True)
    want = (counts.astype(np.uint64) * np.arange(N_THREADS, dtype=np.uint64)).astype(np.uint32)
    if not np.array_equal(res.outputs["out"], want):
        raise AssertionError(f"width {width}: wrong outputs")
    spans = res.raw.warp_spans[:blocks]           # one warp per block: gid = block
    return res, spans[:, 1] - spans[:, 0]


def loop_numbers() -> dict:
    counts = loop_counts()
    out = {"counts_unsorted": counts.tolist(), "widths": {}}
    for width in WIDTHS:
        entry = {}
        for name, c in (("unsorted", counts), ("sorted", np.sort(counts))):
            res, waves = run_loop(width, c)
            entry[name] = {"cycles": int(res.cycles), "wave_cycles": waves.tolist(),
                           "thread_cycles": np.repeat(waves, width).tolist(),
                           "simd_efficiency": float(res.metrics[0]["simd_efficiency"])}
        entry["speedup"] = entry["unsorted"]["cycles"] / entry["sorted"]["cycles"]
        out["widths"][width] = entry
    return out


def loop_table(num: dict) -> str:
    """Totals, speed-up, and the mean per-thread duration (its wave's cycles) relative to running
    alone (SIMD1): how much time grouping threads into waves wastes."""
    own = np.mean(num["widths"][1]["unsorted"]["thread_cycles"])
    own_sorted = np.mean(num["widths"][1]["sorted"]["thread_cycles"])
    lines = ["| SIMD width | unsorted cycles | sorted cycles | speed-up sorted/unsorted "
             "| thread duration vs SIMD1, unsorted / sorted | SIMD efficiency unsorted / sorted |",
             "|---|---|---|---|---|---|"]
    for width, e in num["widths"].items():
        ru = np.mean(e["unsorted"]["thread_cycles"]) / own
        rs = np.mean(e["sorted"]["thread_cycles"]) / own_sorted
        lines.append(f"| {width} | {e['unsorted']['cycles']} | {e['sorted']['cycles']} | {e['speedup']:.2f} | "
                     f"{ru:.2f} / {rs:.2f} | {e['unsorted']['simd_efficiency']:.3f} / "
                     f"{e['sorted']['simd_efficiency']:.3f} |")
    return "\n".join(lines)


# charts: one panel per width; bars = the thread's wave duration, dark step line = the thread's
# own duration at width 1 (the part that is not wasted)
PANEL_W, PANEL_H, BAR_W = 512, 70, 2
CHART_COLORS = ("#ffffff", "#000000", "#8fb3e8", "#1d3f8f", "#888888")   # bg, text, bar, own, axis


def duration_chart_svg(num: dict, which: str, title: str) -> str:
    widths = list(num["widths"])
    ymax = max(max(num["widths"][w][k]["thread_cycles"]) for w in widths for k in ("unsorted", "sorted"))
    own = num["widths"][1][which]["thread_cycles"]
    left, top, gap = 70, 34, 22
    width = left + N_THREADS * BAR_W + 30
    height = top + len(widths) * (PANEL_H + gap) + 30
    p = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} '
         f'{height}" font-family="Helvetica, Arial, sans-serif" font-size="11">',
         f'<rect width="{width}" height="{height}" fill="#fff"/>',
         f'<text x="{left}" y="16" font-size="13" font-weight="bold">{html.escape(title)}</text>']
    for i, w in enumerate(widths):
        e = num["widths"][w][which]
        y0 = top + i * (PANEL_H + gap)
        base = y0 + PANEL_H
        p.append(f'<text x="{left - 8}" y="{y0 + PANEL_H // 2 + 4}" text-anchor="end">SIMD{w}</text>')
        p.append(f'<text x="{left + N_THREADS * BAR_W + 4}" y="{y0 + 10}" fill="#555">{e["cycles"]} cycles</text>')
        waves = e["wave_cycles"]
        for j, d in enumerate(waves):
            h = PANEL_H * d / ymax
            p.append(f'<rect x="{left + j * w * BAR_W}" y="{base - h:.1f}" width="{w * BAR_W}" height="{h:.1f}" '
                     f'fill="{CHART_COLORS[2]}" stroke="#fff" stroke-width="0.3"/>')
        pts = []
        for t, d in enumerate(own):
            y = base - PANEL_H * d / ymax
            pts.append(f"{left + t * BAR_W},{y:.1f} {left + (t + 1) * BAR_W},{y:.1f}")
        p.append(f'<polyline points="{" ".join(pts)}" fill="none" stroke="{CHART_COLORS[3]}" stroke-width="1"/>')
        p.append(f'<line x1="{left}" y1="{base}" x2="{left + N_THREADS * BAR_W}" y2="{base}" stroke="#888"/>')
        p.append(f'<line x1="{left}" y1="{y0}" x2="{left}" y2="{base}" stroke="#888"/>')
        p.append(f'<text x="{left - 3}" y="{y0 + 8}" text-anchor="end" font-size="9" fill="#555">{ymax}</text>')
    yb = top + len(widths) * (PANEL_H + gap) - gap + 14
    for t in range(0, N_THREADS + 1, 32):
        p.append(f'<text x="{left + t * BAR_W}" y="{yb}" text-anchor="middle" font-size="9">{t}</text>')
    p.append(f'<text x="{left}" y="{yb + 14}">x: thread id; y: cycles of the thread\'s wave (bars); dark line: '
             f'the thread alone (SIMD1)</text>')
    p.append("</svg>")
    return "\n".join(p) + "\n"


def duration_chart_png(num: dict, which: str, title: str) -> bytes:
    """The same chart drawn with matplotlib: one panel per SIMD width, bars = each wave's cycles over
    its threads, step line = each thread alone (SIMD1)."""
    from matplotlib.figure import Figure
    widths = list(num["widths"])
    ymax = max(max(num["widths"][w][k]["thread_cycles"]) for w in widths for k in ("unsorted", "sorted"))
    own = num["widths"][1][which]["thread_cycles"]
    fig = Figure(figsize=(7.2, 1.0 + 0.95 * len(widths)), dpi=100, facecolor="white")
    axes = fig.subplots(len(widths), 1, sharex=True, sharey=True)
    for ax, w in zip(axes, widths):
        e = num["widths"][w][which]
        starts = np.arange(len(e["wave_cycles"])) * w
        ax.bar(starts, e["wave_cycles"], width=w, align="edge", color=CHART_COLORS[2], edgecolor="white",
               linewidth=0.3 if w > 1 else 0)
        ax.stairs(own, np.arange(N_THREADS + 1), color=CHART_COLORS[3], linewidth=1)
        ax.set_ylabel(f"SIMD{w}", rotation=0, ha="right", va="center", fontsize=9)
        ax.text(1.01, 0.5, f"{e['cycles']} cycles", transform=ax.transAxes, fontsize=8, va="center")
        ax.set_ylim(0, ymax * 1.05)
        ax.tick_params(labelsize=7)
    axes[-1].set_xlim(0, N_THREADS)
    axes[-1].set_xticks(range(0, N_THREADS + 1, 32))
    axes[-1].set_xlabel("thread id;  bars: cycles of the thread's wave;  line: the thread alone (SIMD1)",
                        fontsize=8)
    fig.suptitle(title, fontsize=11, fontweight="bold")
    fig.subplots_adjust(left=0.14, right=0.86, top=1 - 0.45 / fig.get_figheight(), bottom=0.6 / fig.get_figheight(),
                        hspace=0.25)
    return figure_png(fig)


def loop_figures(out: Path | None) -> dict:
    num = loop_numbers()
    if out is not None:
        for stem, which, label in (("fig8-unsorted", "unsorted", "Figure 8: durations of divergent threads"),
                                   ("fig9-sorted", "sorted", "Figure 9: durations with sorted loop counts")):
            (out / f"{stem}.svg").write_text(duration_chart_svg(num, which, label), encoding="utf-8")
            (out / f"{stem}.png").write_bytes(duration_chart_png(num, which, label))
    return num


# ---------------------------------------------------------------- main
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "docs/img"), help="output folder (default docs/img)")
    ap.add_argument("--only", choices=("1-3", "8-9"), help="only these figures")
    ns = ap.parse_args(argv)
    out = Path(ns.out)
    out.mkdir(parents=True, exist_ok=True)
    numbers = {}
    if ns.only in (None, "1-3"):
        rows = shader_figures(out)
        numbers["figures_1_3"] = rows
        print("Figures 1-3 (programs/examples/article-fig1-shader, configs/article-4waves.yaml)\n")
        print(shader_table(rows) + "\n")
    if ns.only in (None, "8-9"):
        num = loop_figures(out)
        numbers["figures_8_9"] = {"widths": {str(w): {k: (v if k == "speedup" else
                                                          {kk: vv for kk, vv in v.items() if kk != "thread_cycles"})
                                                      for k, v in e.items()} for w, e in num["widths"].items()},
                                  "counts_unsorted": num["counts_unsorted"]}
        print("Figures 8-9 (programs/examples/article-fig8-loop, configs/article-simd.yaml)\n")
        print(loop_table(num) + "\n")
    name = "figures.json" if ns.only is None else f"figures-{ns.only}.json"
    (out / name).write_text(json.dumps(numbers, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote pictures and {name} to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
