"""State is sized by what can be resident, never by the grid: a grid of 10^8 blocks starts, runs
until the instruction limit stops it with the usual runtime-fault message, and stays small."""
import tracemalloc
from pathlib import Path

import pytest

from simt_sim.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
HUGE_GRID = "100000000"
LIMIT = 20000
# In both modes: a SASS thread keeps the R registers its kernel uses (ptxas's register count) and
# UR0-UR63, not all 255 R registers (that was 330 MiB of resident threads on h100).
BOUND = 200 * 2**20


@pytest.mark.parametrize("isa", ["ptx", "sass"])
@pytest.mark.parametrize("mode", [[], ["--functional"]], ids=["timed", "functional"])
def test_huge_grid_stops_at_the_instruction_limit_in_bounded_memory(mode, isa, capsys):
    # one block first, so that compiling the engine (when the cache is cold) is not measured
    assert main(["run", str(ROOT / "programs" / "examples" / "data-loop"), "--grid", "1", "--quiet", "--isa", isa] + mode) == 0
    tracemalloc.start()
    try:
        rc = main(["run", str(ROOT / "programs" / "examples" / "data-loop"), "--grid", HUGE_GRID, "--quiet", "--isa", isa,
                   "--set", f"limits.max_warp_instructions={LIMIT}"] + mode)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    err = capsys.readouterr().err
    assert rc == 3
    assert f"instruction limit of {LIMIT} warp-instructions reached" in err
    assert "kernel" in err and "block" in err and "warp" in err and "pc" in err
    assert peak < BOUND, f"peak {peak / 2**20:.0f} MiB: something is sized by the grid"
