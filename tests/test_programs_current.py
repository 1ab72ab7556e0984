"""Programs with a kernel.cu: committed PTX is what nvcc makes of it now (tools/build_programs.py
--check), the timing model reproduces the manifest's `expect`, and the mask-trace variant
(kernel.trace.ptx) runs and records, for every warp, the entry site first.  Skipped without nvcc."""
import shutil
import sys
from pathlib import Path

import pytest
from simt_sim.programs import program_dir, program_dirs

ROOT = Path(__file__).resolve().parent.parent
nvcc = shutil.which("nvcc")
pytestmark = pytest.mark.skipif(nvcc is None, reason="nvcc not installed")

# Programs whose PTX uses something the simulator does not accept yet: name -> reason.
# Remove an entry once the ISA table covers it (the test then runs the program).
UNSUPPORTED = {
}

ENTRY_SITE = 1     # every kernel.cu marks its entry with SIMT_SITE(1)

ALL = [d.name for d in program_dirs(needs="kernel.cu")]


def _param(name):
    marks = [pytest.mark.skip(reason=f"simulator lacks: {UNSUPPORTED[name]}")] if name in UNSUPPORTED else []
    return pytest.param(name, marks=marks, id=name)


def _expect_param(name):
    """Programs whose outputs test_validate.py already compares with the H100's (the validation
    suite and the seed workloads, in the same default mode) check their `expect` with --run-slow."""
    from simt_sim.calibrate.compare import reference_programs
    compared = {d.name for d in reference_programs(ROOT, workloads=True)}
    if name in compared and name not in UNSUPPORTED:
        return pytest.param(name, marks=pytest.mark.slow, id=name)
    return _param(name)


def test_ptx_current():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import build_programs
    finally:
        sys.path.pop(0)
    stale = build_programs.stale(build_programs.program_dirs(), nvcc)
    assert not stale, "stale PTX (run python tools/build_programs.py): " + ", ".join(stale)


@pytest.mark.parametrize("name", [_expect_param(n) for n in ALL])
def test_program_runs_and_matches_expect(name, capsys):
    # `python -m simt_sim run programs/PURPOSE/NAME --quiet`, in-process (a subprocess per program costs
    # about a second of start-up each); exit code 0 means the outputs match `expect`.
    from simt_sim.cli.main import main
    from simt_sim.frontend.manifest import load_manifest
    # outputs do not depend on timing: one launch runs functionally (its default ISA, SASS for nvcc
    # programs); several launches need the timing model.  Timing is tested against the H100 in
    # test_validate.py and test_probes.py.
    functional = [] if load_manifest(str(program_dir(name))).more_launches else ["--functional"]
    rc = main(["run", str(program_dir(name)), "--quiet", *functional])
    out = capsys.readouterr()
    assert rc == 0, f"{name}: exit {rc}\n{out.out[-2000:]}\n{out.err[-2000:]}"


@pytest.mark.parametrize("name", [_param(n) for n in ALL])
def test_trace_variant(name):
    from simt_sim.machine.config import load_config
    from simt_sim.frontend.assembler import load_program
    from simt_sim.run.functional import launch
    from simt_sim.frontend.manifest import load_manifest
    from simt_sim.calibrate.masktrace import decode

    m = load_manifest(str(program_dir(name)))
    program = load_program(str(program_dir(name) / "kernel.trace.ptx"), m.kernel)
    config = load_config(m.config, m.overrides)
    buffers = {s.name: s.make() for s in m.buffers}
    res = launch(program, m.grid, m.block, list(m.args), buffers, config.launch_config(), m.dynamic_shared)
    g = res.module_globals
    trace = decode(g["simt_trace"], g["simt_trace_count"])
    assert trace, f"{name}: empty mask trace"
    for warp, entries in trace.items():
        assert entries[0][0] == ENTRY_SITE, f"{name}: warp {warp} starts at site {entries[0][0]}"
