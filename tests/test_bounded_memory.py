"""State is sized by what can be resident, never by the grid: a grid of 10^8 blocks starts, runs
until the instruction limit stops it with the usual runtime-fault message, and stays small."""
import tracemalloc
from pathlib import Path

import pytest

from simt_sim.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
HUGE_GRID = "100000000"
LIMIT = 20000


@pytest.mark.parametrize("mode", [[], ["--functional"]], ids=["timed", "functional"])
def test_huge_grid_stops_at_the_instruction_limit_in_bounded_memory(mode, capsys):
    tracemalloc.start()
    try:
        rc = main(["run", str(ROOT / "programs" / "data-loop"), "--grid", HUGE_GRID, "--quiet",
                   "--set", f"limits.max_warp_instructions={LIMIT}"] + mode)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    err = capsys.readouterr().err
    assert rc == 3
    assert f"instruction limit of {LIMIT} warp-instructions reached" in err
    assert "kernel" in err and "block" in err and "warp" in err and "pc" in err
    assert peak < 200 * 2**20, f"peak {peak / 2**20:.0f} MiB: something is sized by the grid"
