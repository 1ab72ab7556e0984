"""Study plots (simt_sim/observe/plots.py): simulated vs measured speed-ups, and execution
histories side by side."""
import io

import numpy as np
import pytest
from matplotlib.colors import to_hex
from PIL import Image

import simt_sim
from simt_sim.errors import InputError
from simt_sim.programs import program_dir
from simt_sim.observe import pictures as P
from simt_sim.observe import plots

ROWS = [   # the shape of calibrate/study.py rows
    {"variant": "plain", "base": "plain", "sim_speedup": 1.0, "hw_speedup": 1.0},
    {"variant": "ilp", "base": "plain", "sim_speedup": 1.52, "hw_speedup": 1.49},       # +3 pp: inside
    {"variant": "split", "base": "plain", "sim_speedup": 0.80, "hw_speedup": 0.95},     # -15 pp: outside
    {"variant": "unrecorded", "base": "plain", "sim_speedup": 1.3, "hw_speedup": None},
]


def test_speedup_points_leave_out_bases_and_unmeasured():
    points = plots.speedup_points(ROWS)
    assert [(p.name, p.measured, p.simulated) for p in points] == [("ilp", 1.49, 1.52), ("split", 0.95, 0.80)]
    assert [round(p.diff_pp, 6) for p in points] == [3.0, -15.0]


def test_speedup_figure_draws_points_band_and_labels():
    fig, points = plots.speedup_figure(ROWS, "ILP study")
    ax = fig.axes[0]
    scatter = ax.collections[-1]
    assert np.allclose(scatter.get_offsets(), [[1.49, 1.52], [0.95, 0.80]])
    colours = [to_hex(c) for c in scatter.get_facecolors()]
    assert colours == [plots.INSIDE_COLOR, plots.OUTSIDE_COLOR]
    texts = [t.get_text() for t in ax.texts]
    assert "ilp (+3.0 pp)" in texts and "split (-15.0 pp)" in texts
    assert "1 of 2 within 5 pp" in ax.get_title()
    band = ax.collections[0].get_paths()[0].vertices          # fill_between: y = x +- 0.05
    for x, y in band:
        assert abs(y - x) == pytest.approx(0.05, abs=1e-9)
    lo, hi = ax.get_xlim()
    assert lo < 0.80 and hi > 1.52 and ax.get_ylim() == (lo, hi)
    assert ax.get_xlabel().startswith("measured speed-up") and ax.get_ylabel() == "simulated speed-up"


def test_speedup_plot_writes_reproducible_files(tmp_path):
    for ext in ("png", "svg"):
        a, b = tmp_path / f"a.{ext}", tmp_path / f"b.{ext}"
        assert len(plots.speedup_plot(ROWS, a)) == 2
        plots.speedup_plot(ROWS, b)
        assert a.read_bytes() == b.read_bytes()
    assert Image.open(tmp_path / "a.png").size == (640, 560)
    assert "split (-15.0 pp)" in (tmp_path / "a.svg").read_text()
    with pytest.raises(InputError):
        plots.speedup_plot(ROWS, tmp_path / "a.gif")


def test_speedup_plot_without_references(tmp_path):
    fig, points = plots.speedup_figure([dict(r, hw_speedup=None) for r in ROWS])
    assert points == []
    assert any("no measured speed-ups" in t.get_text() for t in fig.axes[0].texts)


@pytest.fixture(scope="module")
def figure2_runs():
    """Figure 2 as written and after regrouping (teaching-w4: 2 warps of 4 lanes)."""
    return [simt_sim.run_program(program_dir(name), trace=True) for name in ("figure2-ifelse", "figure2-regrouped")]


def test_side_by_side_panels_show_each_run(figure2_runs):
    base, regrouped = figure2_runs
    fig, sels = plots.histories_figure(figure2_runs, ["base", "regrouped"])
    assert len(fig.axes) == 2
    top, bottom = fig.axes
    assert top.get_title(loc="left") == f"base: {base.cycles} cycles"
    assert bottom.get_title(loc="left") == f"regrouped: {regrouped.cycles} cycles"
    end = max(base.cycles, regrouped.cycles)
    assert top.get_xlim() == bottom.get_xlim() == (0.0, float(end))       # one cycle axis
    assert [t.get_text() for t in fig.legends[0].get_texts()] == list(P.STATE_NAMES)
    assert [t.get_text() for t in top.get_yticklabels()] == ["b0 w0", "b0 w1"]
    # each panel's image holds that run's cell states (gap rows aside), black after its own end
    for ax, run, sel in zip(fig.axes, figure2_runs, sels):
        img = ax.images[0].get_array()
        lay = P.make_layout(4, len(sel.gids), end, (1, 1), left=0, top=0)
        states = P.cell_states(run.raw, sel.gids, 0, run.cycles)
        for w in range(len(sel.gids)):
            band = img[w * (lay.band + lay.gap):w * (lay.band + lay.gap) + lay.band]
            assert np.array_equal(band[:, :run.cycles], P.STATE_RGB[states[w * 4:(w + 1) * 4]])
            assert (band[:, run.cycles:] == 0).all()


def test_side_by_side_file_and_errors(figure2_runs, tmp_path):
    path = tmp_path / "h.png"
    plots.side_by_side_histories(figure2_runs, ["base", "regrouped"], path)
    again = tmp_path / "h2.png"
    plots.side_by_side_histories(figure2_runs, ["base", "regrouped"], again)
    assert path.read_bytes() == again.read_bytes()
    image = Image.open(io.BytesIO(path.read_bytes()))
    assert image.size[0] == 900
    with pytest.raises(InputError, match="two or more"):
        plots.side_by_side_histories(figure2_runs[:1], ["base"], path)
    untraced = simt_sim.run_program("programs/examples/figure2-ifelse")
    with pytest.raises(InputError, match="record_trace=True"):
        plots.side_by_side_histories([figure2_runs[0], untraced], ["a", "b"], path)
