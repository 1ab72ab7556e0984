"""SASS is the default for nvcc-compiled programs (issue 13, point 5); hand-written PTX runs as PTX."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from simt_sim import api
from simt_sim.frontend.manifest import default_isa, load_manifest
from simt_sim.programs import program_dir, program_dirs

ROOT = Path(__file__).resolve().parent.parent


def simt_sim(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "simt_sim", *args], capture_output=True, text=True, cwd=ROOT)


def test_a_cuda_source_beside_the_kernel_makes_it_sass():
    assert default_isa(program_dir("v-smem-reduce") / "kernel.ptx") == "sass"
    assert default_isa(program_dir("v-smem-reduce") / "kernel.cu") == "sass"
    assert default_isa(program_dir("article-ex1-mask") / "kernel.ptx") == "ptx"     # the mask-stack ISA
    assert load_manifest(str(program_dir("v-smem-reduce"))).isa == "sass"
    assert load_manifest(str(program_dir("figure2-ifelse"))).isa == "ptx"


def test_every_nvcc_program_defaults_to_sass_and_every_other_to_ptx():
    for d in program_dirs():
        m = load_manifest(str(d))
        assert m.isa == ("sass" if m.cuda_source.exists() else "ptx"), d.name


def test_the_manifest_and_the_caller_override_the_default(tmp_path):
    src = program_dir("v-smem-reduce")
    text = (src / "manifest.yaml").read_text().replace("kernel_file: kernel.ptx", f"kernel_file: {src}/kernel.ptx")
    (tmp_path / "manifest.yaml").write_text(text + "isa: ptx\n")
    assert load_manifest(str(tmp_path)).isa == "ptx"
    assert api.load_program(src).isa == "sass"
    assert api.load_program(src, isa="ptx").isa == "ptx"
    assert api.load_program(src / "kernel.ptx").isa == "sass"


def test_run_says_what_it_runs():
    sass = simt_sim("run", "programs/validation/v-smem-reduce", "--functional", "--quiet")
    assert sass.returncode == 0, sass.stderr
    out = simt_sim("run", "programs/validation/v-smem-reduce")
    assert out.returncode == 0 and "kernel smem_reduce (sm_90 SASS):" in out.stdout
    ptx = simt_sim("run", "programs/validation/v-smem-reduce", "--isa", "ptx")
    assert ptx.returncode == 0 and "kernel smem_reduce (PTX):" in ptx.stdout
    # SASS and PTX differ in instruction counts (ptxas's code is not the PTX's)
    count = lambda text: int(next(l for l in text.splitlines() if l.startswith("warp instructions")).split()[-1])  # noqa: E731
    assert count(out.stdout) == 3264 and count(ptx.stdout) != 3264


@pytest.mark.parametrize("config", ["teaching-w4"])
def test_a_narrow_warp_config_is_a_clear_error_with_the_way_out(config):
    r = simt_sim("run", "programs/validation/v-smem-reduce", "--config", config)
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "needs 32-lane warps" in r.stderr and "--isa ptx" in r.stderr
