"""State is sized by what can be resident, never by the grid: a grid of 10^8 blocks starts, runs
until the instruction limit stops it with the usual runtime-fault message, and stays small."""
import tracemalloc
from pathlib import Path

import pytest

from simt_sim.cli.main import main
from simt_sim.isa import encoding as E
from simt_sim.machine.config import load_config

ROOT = Path(__file__).resolve().parents[1]
HUGE_GRID = "100000000"
LIMIT = 20000


def resident_bound(isa: str) -> int:
    """200 MiB, plus in SASS mode the register file of every thread that can be resident: a SASS
    warp keeps all of R0-R255 and UR0-UR63 (not yet sized by the registers the kernel uses)."""
    cfg = load_config("h100")
    rows = E.SASS_N_R32 * 4 * cfg.get("num_sms") * cfg.get("sm.max_threads") if isa == "sass" else 0
    return 200 * 2**20 + rows


@pytest.mark.parametrize("isa", ["ptx", "sass"])
@pytest.mark.parametrize("mode", [[], ["--functional"]], ids=["timed", "functional"])
def test_huge_grid_stops_at_the_instruction_limit_in_bounded_memory(mode, isa, capsys):
    tracemalloc.start()
    try:
        rc = main(["run", str(ROOT / "programs" / "data-loop"), "--grid", HUGE_GRID, "--quiet", "--isa", isa,
                   "--set", f"limits.max_warp_instructions={LIMIT}"] + mode)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    err = capsys.readouterr().err
    assert rc == 3
    assert f"instruction limit of {LIMIT} warp-instructions reached" in err
    assert "kernel" in err and "block" in err and "warp" in err and "pc" in err
    assert peak < resident_bound(isa), f"peak {peak / 2**20:.0f} MiB: something is sized by the grid"
