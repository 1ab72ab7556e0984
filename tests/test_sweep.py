"""`simt-sim sweep` (simt_sim/sweep): the plan, one run's row, failures kept, reruns skipping,
CSV / Parquet tables, and the same table in one process and on a two-worker Dask LocalCluster."""
from pathlib import Path

import numpy as np
import pytest

import simt_sim
from simt_sim.cli.main import main
from simt_sim.errors import InputError
from simt_sim.machine.layout import STALL_NAMES
from simt_sim.sweep import format_rows, make_plan, run_sweep
from simt_sim.sweep.execute import run_one
from simt_sim.sweep.table import read_table

ROOT = Path(__file__).resolve().parents[1]
FIG2 = ["programs/examples/figure2-ifelse", "programs/examples/figure2-regrouped"]      # teaching-w4: a few hundred cycles
GRID = dict(schedulers=["lrr,gto"], sets=["scheduler.issue_width=1,2"])


def without_wall_time(rows):
    return [{k: v for k, v in r.items() if k != "wall_s"} for r in rows]


def plan_of(programs=FIG2, **kw):
    return make_plan([str(ROOT / p) for p in programs], ROOT, **kw)


# ---------------------------------------------------------------- the plan
def test_plan_crosses_axes_and_ties_keys():
    plan = plan_of(schedulers=["lrr", "gto,oldest"], sets=["scheduler.issue_width=1,2",
                                                           "warp_size,units.fp32.lanes=4,8"], seeds=["0,3"])
    assert len(plan.runs) == 2 * 3 * 2 * 2 * 2
    first, second, last = plan.runs[0], plan.runs[1], plan.runs[-1]
    assert (first.program, first.config, first.scheduler, first.seed) == ("figure2-ifelse", "teaching-w4", "lrr", 0)
    assert first.set_text == "scheduler.issue_width=1; warp_size=4; units.fp32.lanes=4"
    assert second.seed == 3 and second.sets == first.sets                  # seeds innermost
    assert (last.program, last.scheduler, last.set_text, last.seed) == (
        "figure2-regrouped", "oldest", "scheduler.issue_width=2; warp_size=8; units.fp32.lanes=8", 3)
    assert plan.set_keys == ["scheduler.issue_width", "warp_size", "units.fp32.lanes"]
    assert len({r.key for r in plan.runs}) == len(plan.runs)


def test_plan_defaults_and_globs():
    plan = make_plan([str(ROOT / "programs/examples/figure2-*")], ROOT)
    assert [r.program for r in plan.runs] == ["figure2-ifelse", "figure2-regrouped"]
    assert [(r.config, r.scheduler, r.sets, r.seed) for r in plan.runs] == [("teaching-w4", "gto", (), 0)] * 2
    assert [r.program for r in make_plan(["data-loop"], ROOT).runs] == ["data-loop"]      # a name under programs/


@pytest.mark.parametrize("kw, message", [
    (dict(sets=["warp_size"]), "KEY=V1,V2"),
    (dict(sets=["warp_size=4,"]), "KEY=V1,V2"),
    (dict(sets=["scheduler.policy=lrr,gto"]), "--scheduler"),
    (dict(sets=["warp_size=4", "warp_size=8"]), "two --set"),
    (dict(schedulers=["lrr,fifo"]), "--scheduler fifo"),
    (dict(seeds=["one"]), "--seed expects integers"),
    (dict(configs=["no-such-gpu"]), "no config 'no-such-gpu'"),
])
def test_plan_refuses_bad_options(kw, message):
    with pytest.raises(InputError, match=message):
        plan_of(**kw)


def test_plan_refuses_missing_programs():
    with pytest.raises(InputError, match="no program 'nothing-here'"):
        make_plan(["nothing-here"], ROOT)
    with pytest.raises(InputError, match="matches"):
        make_plan([str(ROOT / "programs/zz-*")], ROOT)


# ---------------------------------------------------------------- one run
def test_row_holds_the_runs_metrics():
    spec = plan_of(FIG2[:1], schedulers=["lrr"]).runs[0]
    row = run_one(spec)
    want = simt_sim.run_program(ROOT / FIG2[0], overrides=["scheduler.policy=lrr"]).metrics[0]
    assert row["status"] == "ok" and row["error"] == "" and row["outputs"] == "match"
    assert row["cycles"] == want["cycles"] and row["warp_instructions"] == want["warp_instructions"]
    assert row["ipc"] == pytest.approx(want["ipc"]) and row["cfe"] == pytest.approx(want["cfe"])
    assert row["cfe"] < 1.0                                  # figure 2 diverges
    assert all(row[f"stall.{n}"] == want["stall_cycles"][n] for n in STALL_NAMES)
    assert row["wall_s"] > 0 and row["kernels"] == 1


def test_seed_offsets_draw_new_inputs():
    plan = plan_of(["programs/examples/article-fig8-loop"], seeds=["0,1"])
    rows = [run_one(spec) for spec in plan.runs]
    base = simt_sim.run_program(ROOT / "programs/examples/article-fig8-loop")
    assert rows[0]["cycles"] == base.cycles                  # seed 0: the manifest's own inputs
    assert rows[1]["cycles"] != base.cycles and rows[1]["status"] == "ok"
    assert rows[1]["outputs"] == "unchecked"


def test_grid_and_block_resize_the_main_launch():
    """article-fig8-loop is 32 blocks of 8 threads; --grid 1 --block 256 runs the same threads as
    one block (same work), and a block too big for the SM is that run's error."""
    path = [str(ROOT / "programs/examples/article-fig8-loop")]
    manifest_dims, one_block = (run_one(make_plan(path, ROOT, grid=g, block=b).runs[0])
                                for g, b in (("", ""), ("1", "256")))
    assert (one_block["grid"], one_block["block"], one_block["status"]) == ("1", "256", "ok")
    assert one_block["thread_instructions"] == manifest_dims["thread_instructions"]
    too_big = run_one(make_plan(path, ROOT, grid="1", block="1024").runs[0])
    assert too_big["status"] == "error" and "does not fit on an SM" in too_big["error"]


# ---------------------------------------------------------------- sweeps
def test_failed_run_is_reported_and_the_rest_kept(tmp_path):
    out = tmp_path / "r.csv"
    plan = plan_of(FIG2[:1], sets=["limits.max_warp_instructions=10,10000000", "warp_size=4,banana"])
    report = run_sweep(plan, out, workers=0)
    status = [(r["set"], r["status"]) for r in report.rows]
    assert status == [("limits.max_warp_instructions=10; warp_size=4", "error"),
                      ("limits.max_warp_instructions=10; warp_size=banana", "error"),
                      ("limits.max_warp_instructions=10000000; warp_size=4", "ok"),
                      ("limits.max_warp_instructions=10000000; warp_size=banana", "error")]
    assert "instruction limit of 10 warp-instructions" in report.rows[0]["error"]
    assert "warp_size: expected int" in report.rows[1]["error"]
    assert report.rows[0]["cycles"] is None and report.rows[2]["cycles"] > 0
    assert len(report.failed) == 3
    rows, _ = read_table(out)
    assert without_wall_time(rows) == without_wall_time(report.rows)


def test_rerun_skips_rows_present(tmp_path):
    out = tmp_path / "r.parquet"
    first = run_sweep(plan_of(FIG2[:1], **GRID), out, workers=0)
    assert (first.ran, first.skipped) == (4, 0)
    calls = []
    bigger = plan_of(FIG2, **GRID)
    second = run_sweep(bigger, out, workers=0, progress=lambda done, failed: calls.append(done))
    assert (second.ran, second.skipped) == (4, 4) and calls == [1, 2, 3, 4]
    rows, _ = read_table(out)
    assert [r["program"] for r in rows] == ["figure2-ifelse"] * 4 + ["figure2-regrouped"] * 4   # plan order
    assert [r["wall_s"] for r in rows[:4]] == [r["wall_s"] for r in first.rows]           # not run again
    third = run_sweep(bigger, out, workers=0)
    assert (third.ran, third.skipped) == (0, 8)
    assert read_table(out)[0] == rows


def test_retry_failed_runs_errors_again(tmp_path):
    out = tmp_path / "r.csv"
    plan = plan_of(FIG2[:1], sets=["limits.max_warp_instructions=10,10000000"])
    run_sweep(plan, out, workers=0)
    assert run_sweep(plan, out, workers=0).ran == 0
    again = run_sweep(plan, out, workers=0, retry_failed=True)
    assert again.ran == 1 and again.rows[0]["status"] == "error"
    assert len(read_table(out)[0]) == 2


def test_rows_of_other_sweeps_are_kept_first(tmp_path):
    out = tmp_path / "r.csv"
    run_sweep(plan_of(FIG2[1:]), out, workers=0)
    run_sweep(plan_of(FIG2[:1], sets=["scheduler.issue_width=2"]), out, workers=0)
    rows, columns = read_table(out)
    assert [(r["program"], r["set"]) for r in rows] == [("figure2-regrouped", ""),
                                                         ("figure2-ifelse", "scheduler.issue_width=2")]
    assert "set.scheduler.issue_width" in columns and rows[0]["set.scheduler.issue_width"] == ""


def test_same_table_in_process_and_on_a_two_worker_cluster(tmp_path):
    plan = plan_of(FIG2, **GRID)
    local = run_sweep(plan, tmp_path / "local.csv", workers=0)
    cluster = run_sweep(plan, tmp_path / "cluster.csv", workers=2)
    assert cluster.ran == len(plan.runs) == 8 and not cluster.failed
    a, cols_a = read_table(tmp_path / "local.csv")
    b, cols_b = read_table(tmp_path / "cluster.csv")
    assert cols_a == cols_b and without_wall_time(a) == without_wall_time(b)
    assert without_wall_time(local.rows) == without_wall_time(cluster.rows)
    assert len({r["cycles"] for r in a}) > 1                   # the axes change something


def test_csv_and_parquet_hold_the_same_table(tmp_path):
    plan = plan_of(FIG2[:1], sets=["limits.max_warp_instructions=10,10000000"])
    run_sweep(plan, tmp_path / "a.csv", workers=0)
    run_sweep(plan, tmp_path / "a.parquet", workers=0)
    a, cols_a = read_table(tmp_path / "a.csv")
    b, cols_b = read_table(tmp_path / "a.parquet")
    assert cols_a == cols_b and without_wall_time(a) == without_wall_time(b)


def test_bad_out_files(tmp_path):
    plan = plan_of(FIG2[:1])
    with pytest.raises(InputError, match=".csv or .parquet"):
        run_sweep(plan, tmp_path / "r.xlsx", workers=0)
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n")
    with pytest.raises(InputError, match="not a sweep table"):
        run_sweep(plan, other, workers=0)
    with pytest.raises(InputError, match="no folder"):
        run_sweep(plan, tmp_path / "missing" / "r.csv", workers=0)


# ---------------------------------------------------------------- command line
def test_cli_sweep(tmp_path, capsys):
    out = tmp_path / "r.csv"
    argv = ["sweep", *(str(ROOT / p) for p in FIG2), "--scheduler", "lrr", "--scheduler", "gto",
            "--set", "limits.max_warp_instructions=10,10000000", "--workers", "0", "--out", str(out)]
    assert main(argv) == 1                                   # a run failed
    captured = capsys.readouterr()
    assert "8 runs: 8 run now, 0 already in" in captured.out and "4 failed" in captured.out
    assert captured.err.count("error: figure2-") == 4 and "instruction limit" in captured.err
    assert format_rows(read_table(out)[0]).splitlines()[2:] == captured.out.splitlines()[2:10]
    assert main([*argv, "--quiet"]) == 0                     # nothing run again, so nothing failed now
    assert capsys.readouterr().out == ""
    assert main(["sweep", str(ROOT / FIG2[0]), "--workers", "-1"]) == 2
    assert main(["sweep", str(ROOT / FIG2[0]), "--workers", "1", "--cluster", "tcp://x:1"]) == 2
    assert main(["sweep", str(ROOT / FIG2[0]), "--block", "0"]) == 2


def test_figure9_sweep_matches_the_article_figures_script():
    """docs/sweeps.md: the SIMD-width sweep (one block of 256 threads, warp width and unit lanes as
    one axis) gives docs/figures.py's totals (one block per wave) for unsorted and sorted counts,
    and sorting pays off from SIMD4 on."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("article_figures", ROOT / "docs/figures.py")
    figures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(figures)
    lanes = ",".join(f"units.{u}.lanes" for u in figures.LANE_UNITS)
    plan = make_plan(["article-fig8-loop", "article-fig9-sorted"], ROOT, grid="1", block="256",
                     sets=[f"warp_size,{lanes}=4,16"])
    rows = {(r["program"], int(r["set.warp_size"])): r for r in run_sweep(plan, None, workers=0).rows}
    counts = figures.loop_counts()
    for width in (4, 16):
        unsorted, ordered = rows["article-fig8-loop", width], rows["article-fig9-sorted", width]
        assert unsorted["cycles"] == figures.run_loop(width, counts)[0].cycles
        assert ordered["cycles"] == figures.run_loop(width, np.sort(counts))[0].cycles
        assert unsorted["cycles"] / ordered["cycles"] > 1.5
        assert ordered["simd_efficiency"] > 0.9 > 0.7 > unsorted["simd_efficiency"]


def test_interrupted_sweep_keeps_finished_runs(tmp_path):
    """Ctrl-C (here raised from the progress callback after the second run) ends the sweep with
    the finished runs in the table; the next sweep runs only the rest."""
    out = tmp_path / "r.csv"
    plan = plan_of(FIG2, **GRID)

    def stop_after_two(done, failed):
        if done == 2:
            raise KeyboardInterrupt

    report = run_sweep(plan, out, workers=0, progress=stop_after_two)
    assert report.interrupted and report.ran == 2
    assert [r["set"] for r in read_table(out)[0]] == ["scheduler.issue_width=1", "scheduler.issue_width=2"]
    rest = run_sweep(plan, out, workers=0)
    assert (rest.ran, rest.skipped, rest.interrupted) == (6, 2, False)
    assert len(read_table(out)[0]) == 8


def test_existing_cluster_by_address(tmp_path):
    """--cluster ADDRESS: the runs go to that scheduler's workers, and the cluster is left running."""
    import logging
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0",
                      silence_logs=logging.ERROR) as cluster:
        plan = plan_of(FIG2[:1], **GRID)
        report = run_sweep(plan, tmp_path / "r.csv", cluster=cluster.scheduler_address)
        assert report.ran == 4 and not report.failed
        local = run_sweep(plan, None, workers=0)
        assert without_wall_time(report.rows) == without_wall_time(local.rows)
        with Client(cluster.scheduler_address) as client:          # still up
            assert len(client.scheduler_info()["workers"]) == 1
    from simt_sim.sweep.execute import start_client
    with pytest.raises(InputError, match="cannot reach the Dask scheduler"):
        start_client(address="tcp://127.0.0.1:1", timeout="1s")
