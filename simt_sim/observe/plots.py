"""Plots of study results (matplotlib, Agg; no pyplot state).

    speedup_plot(rows, "ilp-speedups.png")                       # simulated vs measured speed-ups
    side_by_side_histories([base, regrouped], ["base", "regrouped"], "histories.png")

`speedup_plot` takes the rows of a study (`simt-sim study`, calibrate/study.py): each row a dict
with "variant", "sim_speedup", "hw_speedup" and "base"; a point per variant that has both
speed-ups and is not its own base.  `side_by_side_histories` draws two or more execution
histories (timed runs recorded with trace=True) as panels of one figure on one cycle axis, so a
shorter run is visibly shorter.  The file format follows the suffix: .png, .svg or .pdf; the same
input gives the same bytes.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simt_sim.errors import InputError
from simt_sim.observe.pictures import (DEFAULT_MAX_CYCLES, DEFAULT_MAX_WARPS, Selection, cell_states,
                                       history_axes_labels, legend_handles, make_layout, require_trace, save_figure,
                                       select, state_image, warp_labels)

PLOT_DPI = 100
BAND_PP = 5.0                 # the target: simulated within 5 percentage points of measured
INSIDE_COLOR, OUTSIDE_COLOR = "#1d7a3a", "#c0392b"


@dataclass
class SpeedupPoint:
    name: str
    measured: float
    simulated: float

    @property
    def diff_pp(self) -> float:
        return 100 * (self.simulated - self.measured)


def speedup_points(rows: list[dict]) -> list[SpeedupPoint]:
    """The variants with a simulated and a measured speed-up, bases left out (always 1.0)."""
    points = []
    for r in rows:
        if r.get("variant") == r.get("base") or r.get("sim_speedup") is None or r.get("hw_speedup") is None:
            continue
        points.append(SpeedupPoint(str(r["variant"]), float(r["hw_speedup"]), float(r["sim_speedup"])))
    return points


def speedup_plot(rows: list[dict], path, title: str = "Simulated vs measured speed-up",
                 band_pp: float = BAND_PP) -> list[SpeedupPoint]:
    """Scatter of simulated (y) against measured (x) speed-ups per variant, with the y = x line and
    a band of +-band_pp percentage points around it; points inside the band green, outside red,
    each labelled with its variant.  Rows without a measured speed-up are left out (the figure
    says so when none has one).  Returns the points drawn."""
    fig, points = speedup_figure(rows, title, band_pp)
    save_figure(fig, path)
    return points


def speedup_figure(rows: list[dict], title: str = "Simulated vs measured speed-up", band_pp: float = BAND_PP):
    """speedup_plot's Figure and points, unsaved."""
    from matplotlib.figure import Figure
    points = speedup_points(rows)
    fig = Figure(figsize=(6.4, 5.6), dpi=PLOT_DPI, facecolor="white")
    ax = fig.add_subplot()
    values = [v for p in points for v in (p.measured, p.simulated)] or [1.0]
    lo = min(min(values), 1.0)
    hi = max(max(values), 1.0)
    pad = max(0.08 * (hi - lo), 0.1)
    lo, hi = max(lo - pad, 0.0), hi + pad
    line = np.array([lo, hi])
    band = band_pp / 100
    ax.fill_between(line, line - band, line + band, color="#d9d9d9", label=f"within {band_pp:g} pp")
    ax.plot(line, line, color="black", linewidth=1, label="simulated = measured")
    ax.axhline(1.0, color="#888888", linewidth=0.6, linestyle=":")
    ax.axvline(1.0, color="#888888", linewidth=0.6, linestyle=":")
    inside = [abs(p.diff_pp) <= band_pp for p in points]
    ax.scatter([p.measured for p in points], [p.simulated for p in points], s=28, zorder=3,
               c=[INSIDE_COLOR if ok else OUTSIDE_COLOR for ok in inside], edgecolors="black", linewidths=0.5)
    for p in points:
        ax.annotate(f"{p.name} ({p.diff_pp:+.1f} pp)", (p.measured, p.simulated), xytext=(5, 4),
                    textcoords="offset points", fontsize=8)
    if not points:
        ax.text(0.5, 0.5, "no measured speed-ups (no H100 references recorded)", transform=ax.transAxes,
                ha="center", va="center", fontsize=9)
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_aspect("equal")
    ax.set_xlabel("measured speed-up (H100): base cycles / cycles")
    ax.set_ylabel("simulated speed-up")
    ax.set_title(f"{title}\n{sum(inside)} of {len(points)} within {band_pp:g} pp", fontsize=10)
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    fig.tight_layout()
    return fig, points


def side_by_side_histories(results, names, path, cycles=None, warps=None, cell=None,
                           max_cycles: int = DEFAULT_MAX_CYCLES, max_warps: int = DEFAULT_MAX_WARPS,
                           title: str | None = None) -> list[Selection]:
    """Two or more execution histories as panels of one figure, top to bottom, sharing the cycle
    axis (so runs of different length compare at a glance), each titled with its name and cycles,
    with one legend of the cell states.  results: timed runs recorded with trace=True (api Results
    or SimResults); cycles / warps / max_* choose what each panel shows, as for write_picture.
    Returns each panel's selection."""
    fig, sels = histories_figure(results, names, cycles, warps, cell, max_cycles, max_warps, title)
    save_figure(fig, path)
    return sels


def histories_figure(results, names, cycles=None, warps=None, cell=None, max_cycles: int = DEFAULT_MAX_CYCLES,
                     max_warps: int = DEFAULT_MAX_WARPS, title: str | None = None):
    """side_by_side_histories' Figure and selections, unsaved."""
    from matplotlib.figure import Figure
    runs = [getattr(r, "raw", r) for r in results]
    names = [str(n) for n in names]
    if len(runs) < 2 or len(names) != len(runs):
        raise InputError(f"side_by_side_histories: needs two or more results and one name each "
                         f"(found {len(runs)} results, {len(names)} names)")
    for run, name in zip(runs, names):
        require_trace(run, f"side_by_side_histories: {name!r}")
    sels = [select(run, cycles, warps, max_cycles, max_warps) for run in runs]
    c0 = min(s.c0 for s in sels)
    c1 = max(s.c1 for s in sels)
    rows = [len(s.gids) * int(run.config.get("warp_size")) for s, run in zip(sels, runs)]
    panel_in = [max(0.9, min(n / 40, 4.0)) for n in rows]          # panel heights in inches
    fig_h = 1.3 + sum(h + 0.45 for h in panel_in)
    fig = Figure(figsize=(9.0, fig_h), dpi=PLOT_DPI, facecolor="white")
    axes = fig.subplots(len(runs), 1, sharex=True, height_ratios=panel_in)
    for ax, run, sel, name, inches in zip(axes, runs, sels, names, panel_in):
        draw_history_panel(ax, run, sel, c0, c1, cell, inches * PLOT_DPI)
        ax.set_title(f"{name}: {run.cycles} cycles", fontsize=9, loc="left")
    axes[-1].set_xlabel("cycle")
    fig.suptitle(title or " vs ".join(names), fontsize=11, fontweight="bold")
    fig.legend(handles=legend_handles(), loc="lower center", ncol=6, fontsize=8, frameon=False,
               handlelength=1.2, columnspacing=1.0)
    fig.subplots_adjust(left=0.12, right=0.98, top=1 - 0.55 / fig_h, bottom=0.85 / fig_h, hspace=0.45)
    return fig, sels


def draw_history_panel(ax, run, sel: Selection, c0: int, c1: int, cell=None, height_px: float = 100.0) -> None:
    """One run's cells on ax over the common cycle range [c0, c1) (cycles past its own end black);
    height_px: the panel's height in output pixels (to space the warp labels)."""
    ws = int(run.config.get("warp_size"))
    own = cell_states(run, sel.gids, sel.c0, sel.c1)
    states = np.zeros((own.shape[0], c1 - c0), np.uint8)          # INACTIVE outside its window
    states[:, sel.c0 - c0:sel.c1 - c0] = own
    lay = make_layout(ws, len(sel.gids), c1 - c0, cell or (1, 1), left=0, top=0)
    ax.imshow(state_image(states, lay), interpolation="nearest", aspect="auto", resample=False,
              extent=(c0, c1, lay.plot_h, 0))
    history_axes_labels(ax, warp_labels(run, sel.gids), lay, height_px / max(lay.plot_h, 1))
    ax.tick_params(labelsize=8)
