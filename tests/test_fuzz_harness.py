"""The fuzz harness's own guarantees (tools/fuzz.py, docs/fuzzing.md): a killed worker takes the
tools it started with it, and a damaged cubin that makes nvdisasm loop ends in a clean error
within a limit set by the cubin's size."""
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from simt_sim.errors import InputError
from simt_sim.frontend import sass as S

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie (exited, not yet reaped) counts as gone
    with open(f"/proc/{pid}/stat") as f:
        return f.read().split(")")[-1].split()[0] != "Z"


def test_a_restarted_worker_takes_its_children_with_it():
    """Before: killing a timed-out worker left its nvdisasm running (two ran on for 35 minutes)."""
    import fuzz
    w = fuzz.Worker(multiprocessing.get_context("spawn"), mem_bytes=0, jit=False)
    try:
        deadline = time.monotonic() + 60
        while os.getpgid(w.proc.pid) != w.proc.pid:        # the worker makes its own group first
            assert time.monotonic() < deadline
            time.sleep(0.05)
        old = w.proc.pid
        child = subprocess.Popen(["sleep", "120"], preexec_fn=lambda: os.setpgid(0, old))
        assert os.getpgid(child.pid) == old
        w.restart()
        child.wait(timeout=10)
        assert child.returncode == -signal.SIGKILL
        assert not alive(old) and w.proc.pid != old
    finally:
        w.stop()


def test_nvdisasm_limit_grows_with_the_cubin():
    assert S.nvdisasm_timeout(0) == S.NVDISASM_BASE_TIMEOUT_S
    assert S.nvdisasm_timeout(200_000) == S.NVDISASM_BASE_TIMEOUT_S + 10
    assert S.nvdisasm_timeout(10**12) == S.TOOL_TIMEOUT_S


def test_an_nvdisasm_that_never_ends_is_an_input_error(tmp_path, monkeypatch):
    fake = tmp_path / "nvdisasm"
    fake.write_text("#!/bin/sh\nexec sleep 60\n")
    fake.chmod(0o755)
    cubin = tmp_path / "damaged.cubin"
    cubin.write_bytes(os.urandom(64))                      # bytes no cached listing has seen
    monkeypatch.setattr(S, "tool_path", lambda name: str(fake))
    monkeypatch.setattr(S, "NVDISASM_BASE_TIMEOUT_S", 0.5)
    t0 = time.monotonic()
    with pytest.raises(InputError, match="nvdisasm .* did not run .*timed out"):
        S.nvdisasm_listings(cubin)
    assert time.monotonic() - t0 < 30
