"""`simt-sim sweep`: many independent simulations (programs x configs x schedulers x `--set`
values x seeds) in this process or on a Dask cluster, streamed into one CSV or Parquet table;
a rerun with the same table skips the runs already in it (docs/sweeps.md).

    plan = make_plan(["programs/examples/data-loop"], root, schedulers=["lrr,gto"], sets=["scheduler.issue_width=1,2"])
    report = run_sweep(plan, Path("results.parquet"), workers=2)

The sweep sits above the API (it runs programs through simt_sim.api) and below the command line.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from simt_sim.sweep.execute import (STATUS_ERROR, STATUS_MISMATCH, WORKER_FAILED, close_client, run_in_process, run_on_cluster,
                                    start_client)
from simt_sim.sweep.plan import Plan, RunSpec, make_plan
from simt_sim.sweep.table import TableWriter, check_writable, columns_for, read_table, row_key, typed

__all__ = ["Plan", "RunSpec", "SweepReport", "make_plan", "run_sweep", "ProgressCounter", "format_rows"]


@dataclass
class SweepReport:
    rows: list[dict]                      # every run of the plan, in plan order (run now or found in the file)
    columns: list[str]
    ran: int = 0
    skipped: int = 0
    failed: list[dict] = field(default_factory=list)      # rows of this sweep with status error / mismatch
    interrupted: bool = False


class ProgressCounter:
    """'12/40 runs, 1 failed, 00:35' on a stream: rewritten in place on a terminal, otherwise a
    line at every tenth of the runs."""

    def __init__(self, total: int, stream=None, enabled: bool = True):
        self.total, self.stream, self.enabled = total, stream or sys.stderr, enabled and total > 0
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.start = time.monotonic()
        self.shown = -1

    def __call__(self, done: int, failed: int) -> None:
        if not self.enabled:
            return
        tenth = done * 10 // self.total
        if not self.tty and tenth == self.shown and done != self.total:
            return
        self.shown = tenth
        seconds = int(time.monotonic() - self.start)
        text = f"{done}/{self.total} runs, {failed} failed, {seconds // 60:02d}:{seconds % 60:02d}"
        self.stream.write(f"\r  {text}   " if self.tty else f"  {text}\n")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.tty:
            self.stream.write("\n")


def run_sweep(plan: Plan, out: Path | None = None, workers: int | None = None, cluster: str | None = None,
              retry_failed: bool = False, progress=None) -> SweepReport:
    """Run the plan's runs that `out` does not hold yet (all of them without `out`); workers=0:
    in this process; else a LocalCluster of `workers` processes (None: one per core), or the Dask
    scheduler at `cluster`.  progress(done, failed) after each run.  Ctrl-C (KeyboardInterrupt,
    errors.Interrupted from a run in this process) stops the sweep: the runs that finished are
    in the table, the one cut short is not (the next sweep runs it)."""
    existing, names = read_table(out) if out else ([], [])
    plan_keys = {spec.key for spec in plan.runs}
    if retry_failed:
        existing = [r for r in existing if not (r["status"] == STATUS_ERROR and row_key(r) in plan_keys)]
    columns = columns_for(plan.set_keys, names)
    existing = [complete(r, columns) for r in existing]
    present = {row_key(r): r for r in existing}
    todo = [spec for spec in plan.runs if spec.key not in present]
    report = SweepReport([], columns, skipped=len(plan.runs) - len(todo))
    if out:
        check_writable(out)
    writer = TableWriter(out, report.columns, existing) if out else None
    new: dict[tuple, dict] = {}
    client = None
    try:
        if todo and not (workers == 0 and not cluster):
            client = start_client(workers, cluster)
        rows = run_on_cluster(todo, client) if client else run_in_process(todo)
        for row in rows:
            row = complete(row, columns)
            if row["status"] in (STATUS_ERROR, STATUS_MISMATCH):
                report.failed.append(row)
            if not str(row.get("error") or "").startswith(WORKER_FAILED):
                # a run's own result; a worker that died (e.g. on Ctrl-C) is not one: reported,
                # not stored, so that the next sweep runs it again
                new[row_key(row)] = row
                if writer:
                    writer.add(row)
            if progress:
                progress(len(new), len(report.failed))
    except KeyboardInterrupt:
        report.interrupted = True
    finally:
        if client is not None:
            close_client(client)
        report.ran = len(new)
        report.rows = [new.get(spec.key) or present[spec.key] for spec in plan.runs
                       if spec.key in new or spec.key in present]
        order = {spec.key: i for i, spec in enumerate(plan.runs)}
        report.failed.sort(key=lambda r: order[row_key(r)])
        if writer:
            others = [r for r in existing if row_key(r) not in plan_keys]
            writer.finish(others + report.rows)
    return report


def complete(row: dict, columns: list[str]) -> dict:
    """The row with every column of the table, each as its column's type (as read back)."""
    return {c: typed(c, row.get(c)) for c in columns}


KEY_SUMMARY = [("program", "{}"), ("config", "{}"), ("scheduler", "{}")]
RESULT_SUMMARY = [("seed", "{}"), ("cycles", "{}"), ("ipc", "{:.3f}"), ("cfe", "{:.3f}"), ("issue_slot_use", "{:.3f}"),
                  ("warp_instructions", "{}"), ("status", "{}")]
NUMERIC = {"seed", "cycles", "ipc", "cfe", "issue_slot_use", "warp_instructions"}


def set_summary_columns(rows: list[dict]) -> list[tuple[str, str]]:
    """(column, header) per --set key; a key that has the same value as an earlier one in every
    row (keys of one axis) is folded into that one's header as '+N'."""
    keys = list(dict.fromkeys(c for r in rows for c in r if c.startswith("set.")))
    kept: list[list[str]] = []
    for key in keys:
        same = next((group for group in kept if all(r.get(group[0]) == r.get(key) for r in rows)), None)
        same.append(key) if same else kept.append([key])
    return [(g[0], g[0][4:] + (f" +{len(g) - 1}" if len(g) > 1 else "")) for g in kept]


def format_rows(rows: list[dict]) -> str:
    """A plain-text table of the runs (one line each), as `simt-sim sweep` prints it."""
    columns = ([(k, k, f) for k, f in KEY_SUMMARY] + [(c, h, "{}") for c, h in set_summary_columns(rows)]
               + [(k, k.replace("issue_slot_use", "slots").replace("_", " "), f) for k, f in RESULT_SUMMARY])

    def cell(row, key, fmt):
        value = row.get(key)
        return "-" if value is None or value == "" else fmt.format(value)

    cells = [[cell(r, k, f) for k, _, f in columns] for r in rows]
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, (_, h, _) in enumerate(columns)]

    def line(values):
        return "  ".join(v.rjust(w) if columns[i][0] in NUMERIC or columns[i][0].startswith("set.") else v.ljust(w)
                         for i, (v, w) in enumerate(zip(values, widths))).rstrip()
    return "\n".join([line([h for _, h, _ in columns]), line(["-" * w for w in widths]), *(line(c) for c in cells)])
