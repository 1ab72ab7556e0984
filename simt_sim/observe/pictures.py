"""Execution-history pictures of a timing run, drawn like the branching article's Figures 1-3.

x is the cycle, y the lane within its warp; warps are stacked top to bottom with a thin gap and
labelled on the left.  Each cell (lane, cycle) has one state:

  inactive     black      the warp is not resident yet, has finished, or the lane has exited / has
                          no thread (a partial warp)
  active       white      the warp issued an instruction this cycle and the lane executes it
  predicated   light grey the lane is in the active mask but the instruction's guard is false
  masked off   grey       the warp issued, the lane is alive but not in the active mask (divergence)
  stalled      blue       the warp waits on a dependency or event (scoreboard, fixed latency, branch,
                          barrier, block launch): stall reasons other than math_pipe_throttle
  waiting      red        operands ready, but no unit pipe was free or the scheduler chose other
                          warps (math_pipe_throttle / not_selected)

During a stall, the lanes of the mask the warp will issue with next take the stall colour; the
other live lanes are grey.  `cell_states` computes the matrix (warps*lanes x cycles, small ints);
`write_picture` draws it as .svg, .html (self-contained: SVG inline with title, legend and metrics)
or .png (matplotlib, Agg: axes in cycles and lanes, a legend of the states).  Output is bounded (a cycle range and a warp
selection, defaults DEFAULT_MAX_CYCLES / DEFAULT_MAX_WARPS) and deterministic: the same run gives
byte-identical files.
"""
from __future__ import annotations

import html
import io
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simt_sim.files import atomic_path, write_atomic
from simt_sim.isa.encoding import UNIT_NAMES
from simt_sim.machine import layout as L
from simt_sim.errors import InputError

# ---------------------------------------------------------------- cell states
INACTIVE, ACTIVE, PREDICATED, DIVERGED, STALLED, WAITING = range(6)
STATE_NAMES = ("inactive", "active", "predicated off", "masked off", "stalled", "waiting for unit")
STATE_HELP = (
    "warp not resident yet / finished, or lane exited or without a thread",
    "issued this cycle, the lane executes",
    "issued, lane in the active mask but its guard predicate is false",
    "issued (or stalled), lane alive but not in the active mask (divergence)",
    "waiting on a dependency or event (scoreboard, latency, branch, barrier, launch)",
    "operands ready, waiting for a unit pipe or not selected by the scheduler",
)
STATE_COLORS = ("#000000", "#ffffff", "#c8c8c8", "#808080", "#2f6bd8", "#e02b2b")
WAIT_REASONS = (L.R_PIPE, L.R_NOT_SELECTED, L.R_LG, L.R_MIO)

DEFAULT_MAX_CYCLES = 3000
DEFAULT_MAX_WARPS = 64
WINDOW_ALIGN = 100


@dataclass
class Selection:
    """Which warps (global warp ids) and cycles [c0, c1) a picture shows."""
    gids: list[int]
    c0: int
    c1: int
    total_warps: int
    total_cycles: int

    @property
    def truncated(self) -> bool:
        return len(self.gids) < self.total_warps or self.c0 > 0 or self.c1 < self.total_cycles


def select(result, cycles=None, warps=None, max_cycles: int = DEFAULT_MAX_CYCLES,
           max_warps: int = DEFAULT_MAX_WARPS) -> Selection:
    """Resolve a cycle range (a, b) (b exclusive, None = to the end) and a warp selection
    (iterable of global warp ids; default: the warps that issued, in id order) under the limits."""
    spans = result.warp_spans
    issued = [int(g) for g in np.flatnonzero(spans[:, 1] >= 0)]
    total = max(int(result.cycles), int(spans[:, 1].max()) if len(spans) else 0, 1)
    if warps is None:
        gids = issued[:max_warps]
    else:
        gids = sorted({int(g) for g in warps})
        bad = [g for g in gids if g < 0 or g >= len(spans)]
        if bad:
            raise InputError(f"picture: no warp {bad[0]} (global warp ids 0..{len(spans) - 1})")
    if cycles is None:
        c0 = default_first_cycle(spans, gids)
        c1 = min(total, c0 + max_cycles)
    else:
        c0 = int(cycles[0] or 0)
        c1 = total if cycles[1] is None else int(cycles[1])
        if c1 <= c0 or c0 < 0:
            raise InputError(f"picture: empty cycle range {c0}..{c1}")
    return Selection(gids, c0, c1, len(issued), total)


def default_first_cycle(spans: np.ndarray, gids: list[int]) -> int:
    """Where a picture without a cycle range starts: the first issue of the warps shown, rounded
    down to a multiple of WINDOW_ALIGN (0 for a run that starts at once; on the h100 config,
    whose launch takes ~3600 cycles, the window skips the black start)."""
    firsts = [int(spans[g, 0]) for g in gids if spans[g, 1] >= 0]
    return (min(firsts) // WINDOW_ALIGN) * WINDOW_ALIGN if firsts else 0


def cell_states(result, gids=None, c0: int = 0, c1: int | None = None) -> np.ndarray:
    """uint8[len(gids) * warp_size, c1 - c0]: the state of every (warp, lane) row in every cycle.
    Row w * warp_size + l is lane l of gids[w].  Needs a run with record_trace=True."""
    ws = int(result.config.get("warp_size"))
    spans = result.warp_spans
    if gids is None:
        gids = [int(g) for g in np.flatnonzero(spans[:, 1] >= 0)]
    if c1 is None:
        c1 = max(int(result.cycles), 1)
    gids = np.asarray(list(gids), np.int64)
    W, C = len(gids), c1 - c0
    widx = np.full(max(len(spans), int(gids.max()) + 1 if W else 0, 1), -1, np.int64)
    widx[gids] = np.arange(W)
    tr = result.trace
    sl = result.stall_log

    def chosen(g):
        ok = (g >= 0) & (g < len(widx))
        ok[ok] = widx[g[ok]] >= 0
        return ok

    t = tr[chosen(tr[:, L.TR_GID])]
    tw = widx[t[:, L.TR_GID]]
    tc = t[:, L.TR_CYCLE]
    tm = t[:, L.TR_MASK]
    te = t[:, L.TR_EXEC]

    # lifetimes: a warp is live from its first logged cycle (block start) to its last issue;
    # a lane until the last instruction issued with it in the mask
    wstart = np.full(W, np.iinfo(np.int64).max, np.int64)
    lane_last = np.full((W, ws), -1, np.int64)
    if len(t):
        np.minimum.at(wstart, tw, tc)
        for lane in range(ws):
            on = ((tm >> lane) & 1) == 1
            np.maximum.at(lane_last[:, lane], tw[on], tc[on])
    s = sl[chosen(sl[:, 0])]
    sw = widx[s[:, 0]]
    if len(s):
        np.minimum.at(wstart, sw, s[:, 1])

    wst = np.zeros((W, C), np.uint8)          # per warp and cycle: 0, ACTIVE (issued), STALLED, WAITING
    wmask = np.zeros((W, C), np.int64)
    wexec = np.zeros((W, C), np.int64)

    # stalls: the mask is that of the warp's next issue (the instruction it waits to issue)
    if len(s):
        order = np.lexsort((tc, tw))
        key = tw[order] * (np.int64(1) << 40) + tc[order]
        skey = sw * (np.int64(1) << 40) + s[:, 2]
        j = np.searchsorted(key, skey)
        jn = np.minimum(j, max(len(key) - 1, 0))
        has_next = (j < len(key)) & (tw[order][jn] == sw) if len(key) else np.zeros(len(s), bool)
        nmask = np.where(has_next, tm[order][jn] if len(key) else 0, -1)
        cs = np.maximum(s[:, 1], c0)
        ce = np.minimum(s[:, 2], c1)
        keep = ce > cs
        cs, ce, w_, nm = cs[keep], ce[keep], sw[keep], nmask[keep]
        code = np.where(np.isin(s[keep, 3], WAIT_REASONS), WAITING, STALLED).astype(np.uint8)
        lengths = ce - cs
        if lengths.sum():
            rep = np.repeat(np.arange(len(cs)), lengths)
            offs = np.cumsum(lengths) - lengths
            cols = cs[rep] + (np.arange(len(rep)) - offs[rep]) - c0
            wst[w_[rep], cols] = code[rep]
            wmask[w_[rep], cols] = nm[rep]
    # issues (after stalls: an issue cycle wins); several issues of one warp in a cycle merge
    inr = (tc >= c0) & (tc < c1)
    iw, ic = tw[inr], tc[inr] - c0
    wst[iw, ic] = ACTIVE
    wmask[iw, ic] = 0
    np.bitwise_or.at(wmask, (iw, ic), tm[inr])
    np.bitwise_or.at(wexec, (iw, ic), te[inr])

    out = np.zeros((W, ws, C), np.uint8)
    cyc = np.arange(c0, c1, dtype=np.int64)[None, :]
    issued = wst == ACTIVE
    for lane in range(ws):
        alive = (cyc >= wstart[:, None]) & (cyc <= lane_last[:, lane][:, None])
        inm = ((wmask >> lane) & 1) == 1
        ex = ((wexec >> lane) & 1) == 1
        st = np.zeros((W, C), np.uint8)
        st[alive & ~inm & (wst != 0)] = DIVERGED
        stalled = (wst == STALLED) | (wst == WAITING)
        st[stalled & inm & alive] = wst[stalled & inm & alive]
        st[issued & inm] = PREDICATED
        st[issued & ex] = ACTIVE
        out[:, lane, :] = st
    return out.reshape(W * ws, C)


# ---------------------------------------------------------------- labels and summaries
def warp_labels(result, gids) -> list[str]:
    """'b<block> w<warp in block>' (with 'k<launch>:' in front for several launches)."""
    slot_warps = int(result.summary.get("slot_warps", 1))
    bases, base = [], 0
    for kl in result.launches:
        bases.append(base)
        base += kl.grid.count * slot_warps
    out = []
    for g in gids:
        k = max(i for i, b in enumerate(bases) if b <= g)
        blk, wib = divmod(g - bases[k], slot_warps)
        out.append((f"k{k}:" if len(bases) > 1 else "") + f"b{blk} w{wib}")
    return out


def default_title(result, sel: Selection) -> str:
    names = ", ".join(dict.fromkeys(kl.program.name for kl in result.launches))
    t = f"{names} on {result.config.name}: {result.cycles} cycles"
    if sel.truncated:
        t += f" (cycles {sel.c0}-{sel.c1 - 1}, {len(sel.gids)} of {sel.total_warps} warps)"
    return t


def state_counts(states: np.ndarray) -> dict[str, int]:
    counts = np.bincount(states.reshape(-1), minlength=len(STATE_NAMES))
    return {name: int(counts[i]) for i, name in enumerate(STATE_NAMES)}


# ---------------------------------------------------------------- geometry
@dataclass
class Layout:
    cw: int          # cell width (px)
    ch: int          # cell (lane) height (px)
    gap: int         # between warps
    left: int
    top: int
    ws: int
    n_warps: int
    n_cycles: int

    @property
    def band(self) -> int:
        return self.ws * self.ch

    def warp_y(self, w: int) -> int:
        return self.top + w * (self.band + self.gap)

    @property
    def plot_w(self) -> int:
        return self.n_cycles * self.cw

    @property
    def plot_h(self) -> int:
        return self.n_warps * self.band + max(self.n_warps - 1, 0) * self.gap


def make_layout(ws, n_warps, n_cycles, cell=None, left=70, top=40) -> Layout:
    if cell is None:
        cw = max(1, min(8, 1600 // max(n_cycles, 1)))
        ch = max(1, min(8, 900 // max(n_warps * ws, 1)))
    else:
        cw, ch = int(cell[0]), int(cell[1])
    gap = max(2, min(4, ch))
    return Layout(cw, ch, gap, left, top, ws, n_warps, n_cycles)


def nice_step(span: int, target: int = 10) -> int:
    raw = max(span / max(target, 1), 1)
    mag = 10 ** int(math.floor(math.log10(raw)))
    for m in (1, 2, 5, 10):
        if m * mag >= raw:
            return int(m * mag)
    return int(10 * mag)


def merged_rects(rows: np.ndarray) -> list[tuple[int, int, int, int, int]]:
    """Rectangles covering rows (lanes x cycles) of one warp: run-length encoded per row, runs with
    the same start, length and state in consecutive rows merged.  [(x, y, w, h, state)] in cells,
    inactive (black) runs left out, sorted by (y, x)."""
    done, open_ = [], {}
    for y, row in enumerate(rows):
        now = {}
        for a, n, s in row_runs(row):
            if s == INACTIVE:
                continue
            key = (a, n, s)
            now[key] = (open_.pop(key)[0], y) if key in open_ else (y, y)
        for (a, n, s), (y0, y1) in open_.items():
            done.append((a, y0, n, y1 - y0 + 1, s))
        open_ = now
    for (a, n, s), (y0, y1) in open_.items():
        done.append((a, y0, n, y1 - y0 + 1, s))
    return sorted(done, key=lambda r: (r[1], r[0]))


def row_runs(row: np.ndarray) -> list[tuple[int, int, int]]:
    """Run-length encoding of one row: [(start, length, state)]."""
    if len(row) == 0:
        return []
    change = np.flatnonzero(row[1:] != row[:-1]) + 1
    starts = np.concatenate(([0], change))
    ends = np.concatenate((change, [len(row)]))
    return [(int(a), int(b - a), int(row[a])) for a, b in zip(starts, ends)]


# ---------------------------------------------------------------- SVG
def _svg_legend(x: int, y: int) -> tuple[list[str], int]:
    parts, cx = [], x
    for i, name in enumerate(STATE_NAMES):
        parts.append(f'<rect x="{cx}" y="{y}" width="12" height="12" class="s{i}" stroke="#000" stroke-width="0.5"/>')
        parts.append(f'<text x="{cx + 16}" y="{y + 10}">{html.escape(name)}</text>')
        cx += 16 + 7 * len(name) + 18
    return parts, cx


def render_svg(states: np.ndarray, sel: Selection, labels: list[str], ws: int, title: str,
               cell=None) -> str:
    lay = make_layout(ws, len(sel.gids), sel.c1 - sel.c0, cell)
    legend_w = sum(16 + 7 * len(n) + 18 for n in STATE_NAMES)
    width = max(lay.left + lay.plot_w + 20, legend_w + lay.left, 400)
    height = lay.top + lay.plot_h + 60
    p = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
         f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" font-size="11">',
         "<style>" + "".join(f".s{i}{{fill:{c}}}" for i, c in enumerate(STATE_COLORS)) + "</style>",
         f'<rect width="{width}" height="{height}" fill="#fff"/>',
         f'<text x="{lay.left}" y="16" font-size="13" font-weight="bold">{html.escape(title)}</text>']
    # cycle axis on top
    step = nice_step(sel.c1 - sel.c0)
    first = -(-sel.c0 // step) * step
    axis_y = lay.top - 6
    p.append('<g fill="#333" stroke="#888" stroke-width="0.5">')
    for c in range(first, sel.c1, step):
        x = lay.left + (c - sel.c0) * lay.cw
        p.append(f'<line x1="{x}" y1="{axis_y}" x2="{x}" y2="{lay.top - 1}"/>'
                 f'<text x="{x}" y="{axis_y - 3}" stroke="none" text-anchor="middle">{c}</text>')
    p.append("</g>")
    p.append(f'<text x="{lay.left - 6}" y="{axis_y - 3}" text-anchor="end" fill="#333">cycle</text>')
    p.append('<g shape-rendering="crispEdges">')
    for w, gid in enumerate(sel.gids):
        y0 = lay.warp_y(w)
        p.append(f'<text x="{lay.left - 6}" y="{y0 + lay.band / 2 + 4:.0f}" text-anchor="end">'
                 f'{html.escape(labels[w])}</text>')
        p.append(f'<rect x="{lay.left}" y="{y0}" width="{lay.plot_w}" height="{lay.band}" class="s0"/>')
        rows = states[w * ws:(w + 1) * ws]
        for x, y, n, h, st in merged_rects(rows):
            p.append(f'<rect x="{lay.left + x * lay.cw}" y="{y0 + y * lay.ch}" width="{n * lay.cw}" '
                     f'height="{h * lay.ch}" class="s{st}"/>')
    p.append("</g>")
    ly = lay.top + lay.plot_h + 14
    p.append(f'<text x="{lay.left}" y="{ly + 10}" fill="#333">lanes top to bottom within each warp</text>')
    parts, _ = _svg_legend(lay.left, ly + 22)
    p.extend(parts)
    p.append("</svg>")
    return "\n".join(p) + "\n"


def render_html(svg: str, result, title: str, states: np.ndarray) -> str:
    rows = []
    for k, km in enumerate(result.kernels):
        busy = ", ".join(f"{u} {km['unit_busy'][u]:.3f}" for u in UNIT_NAMES if km["unit_busy"][u] > 0)
        rows.append(f"<tr><td>{k}</td><td>{html.escape(km['kernel'])}</td><td>{km['cycles']}</td>"
                    f"<td>{km['warp_instructions']}</td><td>{km['ipc']:.3f}</td><td>{html.escape(busy)}</td></tr>")
    legend = "".join(f'<tr><td><span class="sw" style="background:{STATE_COLORS[i]}"></span></td>'
                     f"<td>{html.escape(STATE_NAMES[i])}</td><td>{html.escape(STATE_HELP[i])}</td></tr>"
                     for i in range(len(STATE_NAMES)))
    counts = state_counts(states)
    total = max(sum(counts.values()), 1)
    cnt = "".join(f"<tr><td>{html.escape(n)}</td><td>{c}</td><td>{c / total:.3f}</td></tr>"
                  for n, c in counts.items())
    cfg = result.config
    desc = html.escape(str(cfg.get("description", "")))
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{html.escape(title)}</title>\n<style>\nbody{{font-family:Helvetica,Arial,sans-serif;"
            "margin:1.5em}} table{{border-collapse:collapse;margin:0.6em 0}} td,th{{border:1px solid #ccc;"
            "padding:2px 8px;text-align:left}} .sw{{display:inline-block;width:14px;height:14px;"
            "border:1px solid #000}} .pic{{overflow-x:auto}}\n</style>\n</head>\n<body>\n"
            f"<h1>{html.escape(title)}</h1>\n<p>config <b>{html.escape(cfg.name)}</b>: {desc}; warp size "
            f"{cfg.get('warp_size')}, issue width {cfg.get('scheduler.issue_width')}, scheduler "
            f"{html.escape(str(cfg.get('scheduler.policy')))}.  x = cycle, y = lane within each warp.</p>\n"
            f"<div class=\"pic\">\n{svg}</div>\n<h2>Legend</h2>\n<table>{legend}</table>\n"
            "<h2>Kernels</h2>\n<table><tr><th>launch</th><th>kernel</th><th>cycles</th><th>warp instructions</th>"
            f"<th>IPC</th><th>unit busy</th></tr>{''.join(rows)}</table>\n"
            f"<h2>Cells shown</h2>\n<table><tr><th>state</th><th>cells</th><th>fraction</th></tr>{cnt}</table>\n"
            "</body>\n</html>\n")


# ---------------------------------------------------------------- PNG (matplotlib)
PNG_DPI = 100
GAP_COLOR = "#4a4a66"            # between warp bands
LABEL_SPACING_PX = 11            # at least this far apart, or warp labels are thinned out


def hex_rgb(color: str) -> tuple[int, int, int]:
    c = color.lstrip("#")
    return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)


STATE_RGB = np.array([hex_rgb(c) for c in STATE_COLORS], np.uint8)


def state_image(states: np.ndarray, lay: Layout) -> np.ndarray:
    """uint8[plot_h, plot_w, 3]: the cells scaled to lay's cell size, warps separated by gap rows
    (the PNG shows it at one image pixel per output pixel: every cell in its exact colour)."""
    img = np.empty((lay.plot_h, lay.plot_w, 3), np.uint8)
    img[:] = hex_rgb(GAP_COLOR)
    for w in range(lay.n_warps):
        band = states[w * lay.ws:(w + 1) * lay.ws]
        y0 = lay.warp_y(w) - lay.top
        img[y0:y0 + lay.band] = STATE_RGB[np.repeat(np.repeat(band, lay.ch, axis=0), lay.cw, axis=1)]
    return img


def legend_handles():
    """One patch per cell state, for matplotlib legends (with an edge: 'active' is white)."""
    from matplotlib.patches import Patch
    return [Patch(facecolor=c, edgecolor="black", linewidth=0.5, label=n) for c, n in zip(STATE_COLORS, STATE_NAMES)]


FIGURE_KINDS = ("png", "svg", "pdf")
# no date, tool or version in the files: the same figure gives the same bytes
REPRODUCIBLE_METADATA = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None},
                         "pdf": {"CreationDate": None, "Creator": None, "Producer": None}}


def save_figure(fig, target, kind: str | None = None) -> None:
    """Write a matplotlib Figure through the Agg canvas (no pyplot, no global state) to a path or a
    binary file object; kind ('png', 'svg', 'pdf') defaults to the path's suffix."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    kind = kind or Path(target).suffix.lower().lstrip(".")
    if kind not in FIGURE_KINDS:
        raise InputError(f"{target}: expected a .png, .svg or .pdf file name")
    FigureCanvasAgg(fig)
    with matplotlib.rc_context({"svg.hashsalt": "simt-sim"}):      # SVG ids from a fixed salt, not random
        if isinstance(target, (str, Path)):
            with atomic_path(target) as tmp:
                fig.savefig(tmp, format=kind, dpi=fig.dpi, metadata=REPRODUCIBLE_METADATA[kind])
        else:
            fig.savefig(target, format=kind, dpi=fig.dpi, metadata=REPRODUCIBLE_METADATA[kind])


def figure_png(fig) -> bytes:
    buffer = io.BytesIO()
    save_figure(fig, buffer, "png")
    return buffer.getvalue()


@dataclass
class PngGeometry:
    """Where the cells lie in the PNG (pixels, origin top left): the plot area starts at
    (left, top) and cell (row r of warp w, cycle c) covers x = left + (c - c0) * cw ... + cw,
    y = top + w * (band + gap) + r * ch ... + ch, as in Layout."""
    width: int
    height: int
    lay: Layout


def png_geometry(labels: list[str], lay: Layout) -> PngGeometry:
    """Margins around the plot area, from the longest warp label, title and legend."""
    longest = max((len(s) for s in labels), default=4)
    lay.left = 36 + 6 * longest             # warp labels (8 pt) + the y axis title
    lay.top = 60                            # title, the cycle axis and its label on top
    bottom = 66                             # lane note and legend below
    right = 24
    legend_w = 130 * 3 + 40                 # three legend columns
    width = max(lay.left + lay.plot_w + right, legend_w + lay.left, 420)
    return PngGeometry(width, lay.top + lay.plot_h + bottom, lay)


def history_axes_labels(ax, labels: list[str], lay: Layout, scale: float = 1.0) -> None:
    """Warp labels at the band centres, y = image pixels from the plot's top; thinned out when the
    bands, shown at `scale` output pixels per image pixel, are too narrow for them."""
    every = max(1, math.ceil(LABEL_SPACING_PX / ((lay.band + lay.gap) * scale)))
    ticks = [w * (lay.band + lay.gap) + lay.band / 2 for w in range(0, lay.n_warps, every)]
    ax.set_yticks(ticks, [labels[w] for w in range(0, lay.n_warps, every)], fontsize=8)
    ax.set_ylabel("warp", fontsize=9)


def png_figure(states: np.ndarray, sel: Selection, labels: list[str], ws: int, title: str, cell=None):
    """The execution history as a matplotlib Figure: the cells as an image at one pixel per pixel,
    x axis in cycles (on top), y axis the warps' lanes, title and a legend of the cell states."""
    from matplotlib.figure import Figure
    lay = make_layout(ws, len(sel.gids), sel.c1 - sel.c0, cell)
    geo = png_geometry(labels, lay)
    fig = Figure(figsize=(geo.width / PNG_DPI, geo.height / PNG_DPI), dpi=PNG_DPI, facecolor="white")
    ax = fig.add_axes((lay.left / geo.width, 1 - (lay.top + lay.plot_h) / geo.height,
                       lay.plot_w / geo.width, lay.plot_h / geo.height))
    ax.imshow(state_image(states, lay), interpolation="nearest", aspect="auto", resample=False,
              extent=(sel.c0, sel.c1, lay.plot_h, 0))
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    ax.tick_params(labelsize=8, length=3)
    ax.set_xlabel("cycle", fontsize=9)
    history_axes_labels(ax, labels, lay)
    fig.suptitle(title, x=4 / geo.width, y=1 - 4 / geo.height, ha="left", va="top", fontsize=10,
                 fontweight="bold")
    fig.text(lay.left / geo.width, 1 - (lay.top + lay.plot_h + 6) / geo.height,
             f"lanes 0-{ws - 1} top to bottom within each warp", ha="left", va="top", fontsize=8)
    fig.legend(handles=legend_handles(), loc="lower left", bbox_to_anchor=(lay.left / geo.width, 2 / geo.height),
               ncol=3, fontsize=8, frameon=False, handlelength=1.2, columnspacing=1.2)
    return fig, geo


def render_png(states: np.ndarray, sel: Selection, labels: list[str], ws: int, title: str, cell=None) -> bytes:
    fig, _ = png_figure(states, sel, labels, ws, title, cell)
    return figure_png(fig)


# ---------------------------------------------------------------- entry point
def require_trace(result, what: str) -> None:
    """A picture needs the issue trace: refuse a run simulated without record_trace=True."""
    if result.trace is None or (len(result.trace) == 0 and result.summary.get("warp_instructions", 0)):
        raise InputError(f"{what}: the run was not recorded with record_trace=True")


def write_picture(result, path, cycles=None, warps=None, title: str | None = None, cell=None,
                  max_cycles: int = DEFAULT_MAX_CYCLES, max_warps: int = DEFAULT_MAX_WARPS,
                  quiet: bool = False) -> Selection:
    """Draw result's execution history to path (.svg, .html or .png).

    cycles: (first, end) with end exclusive (None = to the end); warps: global warp ids; without
    them at most max_cycles cycles from 0 and the first max_warps warps that issued are drawn
    (a note goes to stderr).  cell: (width, height) of one cell in pixels.  Returns the selection."""
    path = Path(path)
    kind = path.suffix.lower()
    if kind not in (".svg", ".html", ".htm", ".png"):
        raise InputError(f"--picture {path}: expected a .svg, .html or .png file name")
    require_trace(result, "picture")
    sel = select(result, cycles, warps, max_cycles, max_warps)
    if sel.truncated and cycles is None and warps is None and not quiet:
        print(f"picture {path}: showing cycles {sel.c0}-{sel.c1 - 1} of {sel.total_cycles} and "
              f"{len(sel.gids)} of {sel.total_warps} warps (pass cycles= / warps= to choose)", file=sys.stderr)
    ws = int(result.config.get("warp_size"))
    states = cell_states(result, sel.gids, sel.c0, sel.c1)
    labels = warp_labels(result, sel.gids)
    title = title if title is not None else default_title(result, sel)
    if kind == ".png":
        write_atomic(path, render_png(states, sel, labels, ws, title, cell))
    else:
        svg = render_svg(states, sel, labels, ws, title, cell)
        write_atomic(path, svg if kind == ".svg" else render_html(svg, result, title, states))
    return sel
