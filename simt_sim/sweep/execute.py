"""One sweep run -> one table row, and the two ways of running many: in this process, or on a
Dask cluster (a LocalCluster on this machine's cores, or an existing scheduler's workers).

`run_one` never raises but on Ctrl-C: a run that fails (bad config value, runtime fault,
anything) comes back as a row with status "error" and the message, so one failure never costs
the others; Ctrl-C (errors.Interrupted, a KeyboardInterrupt) passes through, so the cut-short run
gives no row.
"""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator

import numpy as np

from simt_sim import api
from simt_sim.errors import InputError, SimError
from simt_sim.frontend.manifest import load_manifest, with_seed_offset
from simt_sim.machine.layout import STALL_NAMES
from simt_sim.calibrate.compare import kernels_together
from simt_sim.run.timed import manifest_launches
from simt_sim.sweep.plan import RunSpec

STATUS_OK, STATUS_MISMATCH, STATUS_ERROR = "ok", "mismatch", "error"
WORKER_FAILED = "worker failed: "     # an error row's message when the worker, not the run, failed


def run_one(spec: RunSpec) -> dict:
    """Simulate one RunSpec; its key columns, the metrics, status, error and wall time."""
    start = time.perf_counter()
    try:
        row = simulate_spec(spec)
    except SimError as e:
        row = {"status": STATUS_ERROR, "error": str(e)}
    except Exception as e:          # a bug must not stop the sweep: report it in the row
        row = {"status": STATUS_ERROR, "error": f"{type(e).__name__}: {e}"}
    row["wall_s"] = round(time.perf_counter() - start, 3)
    return {**spec.columns(), **row}


def simulate_spec(spec: RunSpec) -> dict:
    manifest = load_manifest(spec.path)
    overrides = [*manifest.overrides, *(f"{k}={v}" for k, v in spec.sets),
                 f"scheduler.policy={spec.scheduler}"]
    config = api.load_config(spec.config, overrides)
    launches = manifest_launches(manifest)
    launches[0] = resized(launches[0], spec.grid, spec.block)
    buffers = {s.name: with_seed_offset(s, spec.seed).make() for s in manifest.buffers}
    result = api.simulate(launches, buffers, config)
    differ = differing_outputs(result.outputs, manifest.expect) if spec.seed == 0 else None
    row = metrics_columns(result.raw)
    row["outputs"] = "unchecked" if differ is None else ("differ" if differ else "match")
    row["status"] = STATUS_MISMATCH if differ else STATUS_OK
    row["error"] = f"outputs differ from the manifest's expect: {', '.join(differ)}" if differ else ""
    return row


def resized(launch, grid: str, block: str):
    """The main launch with the sweep's --grid / --block ("N" or "X,Y,Z", checked by the command
    line; "" keeps the manifest's)."""
    changes = {what: [int(x) for x in text.split(",")] for what, text in (("grid", grid), ("block", block)) if text}
    return dataclasses.replace(launch, **changes) if changes else launch


def differing_outputs(outputs: dict, expect: dict) -> list[str] | None:
    """Buffers whose values differ from the manifest's explicit `expect` values; None when it has
    none to check (`oracle` expectations are checked by `simt-sim run`, not in a sweep)."""
    explicit = {name: want for name, want in expect.items() if want != "oracle"}
    if not explicit:
        return None
    differ = []
    for name, want in explicit.items():
        got = outputs[name]
        ref = np.array(want, dtype=got.dtype)
        if ref.shape != got.shape or not np.array_equal(ref.view(np.uint8), got.view(np.uint8)):
            differ.append(name)
    return differ


def metrics_columns(run) -> dict:
    """The run's metrics as flat columns; several launches count as one run (instructions and
    stalls added, CFE and SIMD efficiency weighted by warp-instructions)."""
    kernels = run.kernels
    together = kernels_together(kernels, run.cycles)
    insts = together["warp_instructions"]
    row = {"cycles": int(run.cycles), "kernels": len(kernels), "warp_instructions": int(insts),
           "thread_instructions": int(sum(k["thread_instructions"] for k in kernels)),
           "ipc": insts / max(run.cycles, 1), "cfe": float(together["cfe"]),
           "simd_efficiency": (sum(k["simd_efficiency"] * k["warp_instructions"] for k in kernels) / insts
                               if insts else 0.0),
           "issue_slot_use": float(together["issue_slot_use"])}
    for name in STALL_NAMES:
        row[f"stall.{name}"] = int(sum(k["stall_cycles"][name] for k in kernels))
    return row


# ---------------------------------------------------------------- running many
def run_in_process(specs: list[RunSpec]) -> Iterator[dict]:
    """Rows in spec order, one run after the other."""
    for spec in specs:
        yield run_one(spec)


def start_client(workers: int | None = None, address: str | None = None, timeout: str = "20s"):
    """A dask.distributed Client: on the scheduler at `address` (given up after `timeout`), or on
    a new LocalCluster of `workers` single-threaded worker processes (default: one per core)."""
    import logging
    import os
    from distributed import Client, LocalCluster
    if address:
        try:
            return Client(address, timeout=timeout)
        except (OSError, TimeoutError) as e:
            raise InputError(f"--cluster {address}: cannot reach the Dask scheduler ({e})") from None
    # dashboard on a free port: a second sweep (or any Dask cluster) may hold the default one
    cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                           dashboard_address=":0", silence_logs=logging.ERROR)
    return Client(cluster)


def run_on_cluster(specs: list[RunSpec], client) -> Iterator[dict]:
    """Rows as the runs finish (any order).  A worker that dies or a task that cannot run gives
    an error row for its spec."""
    from distributed import as_completed
    futures = {client.submit(run_one, spec, pure=False): spec for spec in specs}
    try:
        for future in as_completed(futures):
            spec = futures[future]
            try:
                yield future.result()
            except Exception as e:          # the worker, not the run, failed
                yield {**spec.columns(), "status": STATUS_ERROR, "error": f"{WORKER_FAILED}{type(e).__name__}: {e}",
                       "wall_s": None}
    finally:
        client.cancel(list(futures))


def close_client(client) -> None:
    cluster = client.cluster
    client.close()
    if cluster is not None:
        cluster.close()


RowSource = Callable[[list[RunSpec]], Iterator[dict]]
