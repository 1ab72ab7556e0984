"""Execution-history pictures (simt_sim/observe/pictures.py) and Perfetto traces (trace.py)."""
import json
import re

import numpy as np
import pytest

from simt_sim.machine.config import load_config
from simt_sim.machine import layout as L
from simt_sim.frontend.assembler import assemble_text
from simt_sim.observe import pictures as P
from simt_sim.observe.trace import perfetto_events, pipe_assignment, write_perfetto
from simt_sim.run.timed import KernelLaunch, simulate

# One 4-lane warp and one partial warp (2 threads): a dependent fp32 chain (latency 3), a
# divergent if/else on lane parity, then a store.
TINY = r"""
.version 9.0
.target sm_90
.address_size 64
.visible .entry tiny(.param .u64 tiny_param_0)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<4>;
	.reg .f32 	%f<4>;
	.reg .b64 	%rd<4>;
	mov.u32 	%r0, %laneid;
	add.f32 	%f1, %f0, 0f3F800000;
	mul.f32 	%f2, %f1, %f1;
	and.b32 	%r1, %r0, 1;
	setp.eq.u32 	%p1, %r1, 1;
	@%p1 bra 	$ODD;
	mov.u32 	%r2, 10;
	bra.uni 	$END;
$ODD:
	mov.u32 	%r2, 20;
$END:
	ld.param.u64 	%rd1, [tiny_param_0];
	mul.wide.u32 	%rd2, %r0, 4;
	add.s64 	%rd3, %rd1, %rd2;
	st.global.u32 	[%rd3], %r2;
	ret;
}
"""

# Hand-checked: '.' inactive, '#' active, 'p' predicated off, 'g' masked off (divergence),
# 'b' stalled (dependency), 'r' waiting (unit / not selected).  GTO, issue width 1.
# warp 0: cycles 0-1 mov, add; 2-3 wait for the add (latency 3); 4-6 mul, and, setp; 7 the branch
# (even lanes' guard false); 8-9 even side (odd lanes grey); 10 odd side (even lanes grey); 11-15
# the tail; then finished.  warp 1 (threads 4, 5; lanes 2, 3 have no thread): waits while warp 0
# issues at 0-1, issues 2-3, waits for its add 4-5, is not selected 6-15 (GTO keeps warp 0), runs 16-27.
EXPECTED = [
    "##bb###p##g#####............",
    "##bb####gg######............",
    "##bb###p##g#####............",
    "##bb####gg######............",
    "rr##bbrrrrrrrrrr###p##g#####",
    "rr##bbrrrrrrrrrr####gg######",
    "............................",
    "............................",
]


@pytest.fixture(scope="module")
def tiny():
    prog = assemble_text(TINY, "tiny")
    cfg = load_config("teaching-w4", ["units.fp32.latency=3", "memory.param_latency=2"])
    res = simulate([KernelLaunch(prog, 1, 6, ["out"])], {"out": np.zeros(8, np.int32)}, cfg, record_trace=True)
    assert list(res.buffers["out"][:4]) == [10, 20, 10, 20]       # (out is indexed by %laneid)
    return res


@pytest.fixture(scope="module")
def loop_run():
    """A bigger run: the data-dependent loop, 8 warps of 8 lanes."""
    from simt_sim.frontend.assembler import load_program
    from simt_sim.frontend.manifest import load_manifest
    m = load_manifest("programs/examples/data-loop")
    prog = load_program(str(m.kernel_file))
    cfg = load_config("teaching-w8")
    return simulate([KernelLaunch(prog, m.grid, m.block, m.args)], {s.name: s.make() for s in m.buffers}, cfg,
                    record_trace=True)


def as_text(states):
    return ["".join(".#pgbr"[x] for x in row) for row in states]


def test_state_matrix_hand_checked(tiny):
    states = P.cell_states(tiny, [0, 1], 0, 28)
    assert states.shape == (8, 28)
    assert as_text(states) == EXPECTED


def test_state_matrix_after_the_end_is_black(tiny):
    states = P.cell_states(tiny, [0, 1], 0, tiny.cycles)
    assert states.shape == (8, tiny.cycles)
    assert (states[:, 28:] == P.INACTIVE).all()
    assert (states[6:8] == P.INACTIVE).all()          # lanes without threads


def test_state_matrix_window_and_selection(tiny):
    full = P.cell_states(tiny, [0, 1], 0, 28)
    assert np.array_equal(P.cell_states(tiny, [1], 5, 20), full[4:8, 5:20])


def test_state_matrix_agrees_with_trace(loop_run):
    """Every issue cycle: lanes in the exec mask white, mask-only lanes predicated; every logged
    stall cycle of a warp: no lane white."""
    ws = 8
    gids = list(range(8))
    states = P.cell_states(loop_run, gids, 0, loop_run.cycles)
    for row in loop_run.trace[::7]:
        c, g, m, e = (int(row[f]) for f in (L.TR_CYCLE, L.TR_GID, L.TR_MASK, L.TR_EXEC))
        for lane in range(ws):
            s = states[g * ws + lane, c]
            if (e >> lane) & 1:
                assert s == P.ACTIVE
            elif (m >> lane) & 1:
                assert s == P.PREDICATED
            else:
                assert s in (P.DIVERGED, P.INACTIVE)
    for g, a, b, r in loop_run.stall_log[::5]:
        block = states[g * ws:(g + 1) * ws, a:b]
        assert not (block == P.ACTIVE).any()
        want = P.WAITING if r in P.WAIT_REASONS else P.STALLED
        assert (block == want).any()
    # every warp is live (non-black somewhere) exactly between its first and last issue
    for g in gids:
        live = (states[g * ws:(g + 1) * ws] != P.INACTIVE).any(axis=0)
        first, end = loop_run.warp_spans[g]
        assert live[first] and live[end - 1] and not live[end:].any()


def svg_cells(svg, ws, n_warps, n_cycles, lay):
    """Rasterise the SVG's state rectangles back into a matrix."""
    out = np.zeros((n_warps * ws, n_cycles), np.uint8)
    for x, y, w, h, s in re.findall(r'<rect x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)" class="s(\d)"/>', svg):
        x, y, w, h, s = map(int, (x, y, w, h, s))
        if y < lay.top or x < lay.left:
            continue
        band, dy = divmod(y - lay.top, lay.band + lay.gap)
        lane = dy // lay.ch
        c = (x - lay.left) // lay.cw
        out[band * ws + lane: band * ws + lane + h // lay.ch, c:c + w // lay.cw] = s
    return out


def test_svg_encodes_the_matrix(loop_run, tmp_path):
    sel = P.select(loop_run, cycles=(0, 700))
    states = P.cell_states(loop_run, sel.gids, sel.c0, sel.c1)
    svg = P.render_svg(states, sel, P.warp_labels(loop_run, sel.gids), 8, "t", cell=(2, 3))
    lay = P.make_layout(8, len(sel.gids), sel.c1 - sel.c0, (2, 3))
    assert np.array_equal(svg_cells(svg, 8, len(sel.gids), 700, lay), states)
    for name in P.STATE_NAMES:                       # the legend
        assert f">{name}</text>" in svg


def read_png(data):
    """RGB pixels uint8[h, w, 3] of PNG bytes."""
    import io
    from PIL import Image
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


def test_files_written_valid_and_deterministic(tiny, loop_run, tmp_path):
    for res, tag in ((tiny, "a"), (loop_run, "b")):
        for ext in ("svg", "html", "png"):
            p1, p2 = tmp_path / f"{tag}1.{ext}", tmp_path / f"{tag}2.{ext}"
            P.write_picture(res, p1)
            P.write_picture(res, p2)
            assert p1.read_bytes() == p2.read_bytes()
        svg = (tmp_path / f"{tag}1.svg").read_text()
        assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
        import xml.etree.ElementTree as ET
        ET.fromstring(svg)
        page = (tmp_path / f"{tag}1.html").read_text()
        assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "Legend" in page and "<h1>" in page
        px = read_png((tmp_path / f"{tag}1.png").read_bytes())
        assert px.shape[1] > res.cycles and px.shape[0] > 8


def cell_centre(geo, ws, w, lane, c):
    lay = geo.lay
    return (lay.top + w * (lay.band + lay.gap) + lane * lay.ch + lay.ch // 2,
            lay.left + c * lay.cw + lay.cw // 2)


def test_png_cells_have_the_legend_colours(tiny):
    """Every cell of the hand-checked matrix, read back from the PNG, has the colour of its
    state's legend entry; the figure has the title, the cycle axis and the legend text."""
    from matplotlib.colors import to_hex
    sel = P.select(tiny, cycles=(0, 28))
    states = P.cell_states(tiny, sel.gids, 0, 28)
    fig, geo = P.png_figure(states, sel, ["b0 w0", "b0 w1"], 4, "tiny run", cell=(5, 4))
    px = read_png(P.figure_png(fig))
    assert px.shape == (geo.height, geo.width, 3)
    legend = fig.legends[0]
    assert [t.get_text() for t in legend.get_texts()] == list(P.STATE_NAMES)
    legend_rgb = [P.hex_rgb(to_hex(h.get_facecolor())) for h in legend.legend_handles]
    for w in range(2):
        for lane in range(4):
            for c in range(28):
                y, x = cell_centre(geo, 4, w, lane, c)
                assert tuple(px[y, x]) == legend_rgb[states[w * 4 + lane, c]], (w, lane, c)
    # the gap between the two warps' bands
    y = geo.lay.top + geo.lay.band + geo.lay.gap // 2
    assert tuple(px[y, geo.lay.left + 2]) == P.hex_rgb(P.GAP_COLOR)
    ax = fig.axes[0]
    assert ax.get_xlabel() == "cycle" and ax.get_xlim() == (0.0, 28.0)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["b0 w0", "b0 w1"]
    assert fig._suptitle.get_text() == "tiny run"


def test_png_size_follows_the_cells(tiny):
    """The plot area is the cells at their pixel size (one image pixel per PNG pixel), inside
    the image; the image grows with the cell size."""
    sel = P.select(tiny, cycles=(0, 28))
    states = P.cell_states(tiny, sel.gids, 0, 28)
    shapes = []
    for cell in ((3, 2), (30, 20)):
        fig, geo = P.png_figure(states, sel, ["a", "b"], 4, "x", cell=cell)
        lay = geo.lay
        gap = max(2, min(4, cell[1]))
        assert (lay.plot_w, lay.plot_h) == (28 * cell[0], 2 * 4 * cell[1] + gap)
        px = read_png(P.render_png(states, sel, ["a", "b"], 4, "x", cell=cell))
        assert px.shape == (geo.height, geo.width, 3)
        assert lay.left + lay.plot_w < geo.width and lay.top + lay.plot_h < geo.height
        shapes.append(px.shape)
    assert shapes[1][0] - shapes[0][0] == (2 * 4 * 20 + 4) - (2 * 4 * 2 + 2)
    assert shapes[1][1] > shapes[0][1]


def test_bounded_output(loop_run, tmp_path, capsys):
    sel = P.write_picture(loop_run, tmp_path / "x.svg", max_cycles=100, max_warps=3)
    assert (sel.c0, sel.c1, sel.gids) == (0, 100, [0, 1, 2])
    assert "showing cycles 0-99" in capsys.readouterr().err
    sel = P.write_picture(loop_run, tmp_path / "y.png", cycles=(200, None), warps=[5, 3])
    assert sel.gids == [3, 5] and sel.c0 == 200 and sel.c1 == sel.total_cycles
    with pytest.raises(Exception):
        P.write_picture(loop_run, tmp_path / "z.gif")


def test_perfetto_has_every_instruction(loop_run, tmp_path):
    path = tmp_path / "t.json"
    write_perfetto(loop_run, path)
    doc = json.loads(path.read_text())
    ev = doc["traceEvents"]
    issues = [e for e in ev if e.get("cat") == "issue"]
    assert len(issues) == len(loop_run.trace)
    units = [e for e in ev if e.get("cat") == "unit"]
    assert len(units) == len(loop_run.trace)
    stalls = [e for e in ev if e.get("cat") == "stall"]
    assert len(stalls) == int((loop_run.stall_log[:, 2] > loop_run.stall_log[:, 1]).sum())
    texts = loop_run.launches[0].program.texts
    got = sorted((e["ts"], e["tid"] - 1, e["args"]["pc"]) for e in issues)
    want = sorted((int(r[L.TR_CYCLE]), int(r[L.TR_GID]), int(r[L.TR_PC])) for r in loop_run.trace)
    assert got == want
    assert all(e["name"] == texts[e["args"]["pc"]] for e in issues)
    assert all(e["ph"] == "X" and e["dur"] >= 1 for e in issues + units + stalls)
    names = {e["args"]["name"] for e in ev if e.get("name") == "thread_name"}
    assert "warp 0 (b0 w0)" in names and any(n.startswith("sp0 int pipe") for n in names)
    assert {e["args"]["name"] for e in ev if e.get("name") == "process_name"} == {"SM 0"}
    assert "1 us" in doc["otherData"]["time_unit"]
    # unit tracks never overlap on one pipe
    by_tid = {}
    for e in units:
        by_tid.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    for spans in by_tid.values():
        spans.sort()
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
    assert write_perfetto(loop_run, tmp_path / "u.json") is None
    assert (tmp_path / "u.json").read_bytes() == path.read_bytes()


def test_pipe_assignment_two_pipes():
    """With two ALU pipes and issue width 2 both pipes are used; with issue width 1 only pipe 0."""
    from simt_sim.frontend.assembler import load_program
    prog = load_program("programs/examples/article-fig1-shader/kernel.ptx", "shade")
    tex = np.zeros(192, np.float32)
    used = []
    for width in (1, 2):
        cfg = load_config("article-4waves", [f"scheduler.issue_width={width}"])
        res = simulate([KernelLaunch(prog, 1, 32, ["tex", "out", 6])], {"tex": tex, "out": np.zeros(32, np.float32)},
                       cfg, record_trace=True)
        pipe, _ = pipe_assignment(res)
        alu = res.trace[:, L.TR_UNIT] == 0
        used.append(set(pipe[alu].tolist()))
        assert len(perfetto_events(res)) > len(res.trace)
    assert used == [{0}, {0, 1}]


def test_default_window_starts_at_the_first_issue():
    """On the h100 config a launch takes ~3600 cycles before the first issue: the default window
    starts there (rounded down to 100), not in the black start; a run starting at once keeps 0."""
    import simt_sim
    res = simt_sim.run_program("programs/examples/data-loop", trace=True).raw
    first = int(res.warp_spans[res.warp_spans[:, 1] >= 0, 0].min())
    assert first > 1000
    sel = P.select(res, max_cycles=500)
    assert sel.c0 == first // 100 * 100 and sel.c1 == sel.c0 + 500 and sel.truncated
    states = P.cell_states(res, sel.gids, sel.c0, sel.c1)
    assert (states[:, first - sel.c0:] != P.INACTIVE).any()
    assert (states[:, :first - sel.c0] != P.ACTIVE).all()


def test_pipe_slices_last_as_long_as_the_engine_held_the_pipe():
    """A shared-memory STS.64 holds the LD/ST pipe 6 cycles in an h100 SASS run (its 256 bytes at
    sass.units.ldst.shared_bytes_per_cycle 64 and shared_store_cycles 2; one warp, so the SM's port
    never makes it wait), 10 at 32 bytes per cycle: the trace records what the engine booked, and
    the Perfetto pipe events last that long."""
    import simt_sim
    prog = simt_sim.load_program("tools/kernels/shared_ops.ptx", "k_sts64", isa="sass")
    cfg = simt_sim.load_config("h100", ["num_sms=1"])
    bufs = {"clk": np.zeros(64, np.int64), "out": np.zeros(1024, np.uint32)}
    res = simt_sim.simulate(simt_sim.Launch(prog, 1, 32, ["clk", "out"]), bufs, cfg, trace=True).raw
    texts = res.launches[0].program.texts
    sts = np.array(["STS.64" in texts[pc] for pc in res.trace[:, L.TR_PC]])
    _, busy = pipe_assignment(res)
    assert sts.sum() == 512 and set(busy[sts].tolist()) == {6}
    durations = {e["dur"] for e in perfetto_events(res)
                 if e.get("cat") == "unit" and "STS.64" in e["name"]}
    assert durations == {6}
    slower = simt_sim.simulate(simt_sim.Launch(prog, 1, 32, ["clk", "out"]), bufs,
                               cfg.with_overrides(["sass.units.ldst.shared_bytes_per_cycle=32"]), trace=True).raw
    assert set(pipe_assignment(slower)[1][sts].tolist()) == {10}
    assert {e["dur"] for e in perfetto_events(slower) if e.get("cat") == "unit" and "STS.64" in e["name"]} == {10}
