"""Issue 62, point 2: one host-memory budget for a run (limits.host_memory_mib), checked before
anything is allocated; config values bounded to ranges a GPU sits in; a block's shared memory
checked against the SM in functional runs as in timed ones; the kept history bounded by
limits.history_rows, and --json streamed.  Every test uses a small budget or a small kernel:
none allocates more than a few MiB."""
import json
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from simt_sim import api
from simt_sim.cli.main import main
from simt_sim.errors import InputError
from simt_sim.frontend.yamlschema import Field
from simt_sim.machine.config import SCHEMA, load_config

ROOT = Path(__file__).resolve().parents[1]

KERNEL = """.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  DECL
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  BODY
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
"""


def kernel_file(tmp_path, decl="", body="") -> Path:
    path = tmp_path / "k.ptx"
    path.write_text(KERNEL.replace("DECL", decl).replace("BODY", body))
    return path


def leaves(schema, prefix=""):
    for key, value in schema.items():
        if isinstance(value, dict):
            yield from leaves(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def test_every_numeric_config_field_has_an_upper_bound():
    unbounded = [name for name, field in leaves(SCHEMA) if isinstance(field, Field) and field.kind in (int, float)
                 and (field.check is None or field.check(2**41) is None)]
    assert unbounded == []


@pytest.mark.parametrize("item,message", [
    ("memory.shared.banks=2147483648", "memory.shared.banks must be between 1 and 64"),
    ("sass.global_store_line_passes=2147483647", "sass.global_store_line_passes must be between 0 and 64"),
    ("num_sms=100000", "num_sms must be between 1 and 1,024"),
    ("units.fp32.latency=100000000", "at most 1,000,000"),
    ("limits.host_memory_mib=1", "limits.host_memory_mib must be between 64"),
])
def test_config_values_out_of_range_are_refused_with_the_reason(item, message, capsys):
    start = time.monotonic()
    rc = main(["run", str(ROOT / "programs" / "examples" / "data-loop"), "--functional", "--quiet", "--set", item])
    err = capsys.readouterr().err
    assert rc == 2 and message in err and "(found" in err and "Traceback" not in err, err
    assert "(" in err.split(message, 1)[1]           # the reason follows the range
    assert time.monotonic() - start < 60


@pytest.mark.parametrize("mode", [["--functional"], []], ids=["functional", "timed"])
@pytest.mark.parametrize("isa", ["ptx", "sass"])
def test_shared_memory_beyond_the_sm_is_refused_before_allocation(tmp_path, capsys, mode, isa):
    # 40,000 bytes static (ptxas takes up to 48 KiB) and 2 GB dynamic: far beyond the H100's 228 KiB
    # per SM (a functional run allocated it for every resident block)
    path = kernel_file(tmp_path, ".shared .align 4 .b8 sh[40000];", "st.shared.u32 [sh+39000], %r1;")
    tracemalloc.start()
    try:
        rc = main(["run", str(path), "--isa", isa, "--grid", "1", "--block", "32", "--buffer", "p=u32[32]",
                   "--shared-bytes", "2000000000", "--quiet", *mode])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    err = capsys.readouterr().err
    assert rc == 2, err
    assert "kernel k: a block needs" in err and "more than one SM holds (sm.shared_memory = 233,472)" in err
    assert peak < 64 * 2**20


def test_buffers_over_the_budget_are_refused_before_they_are_made(capsys):
    tracemalloc.start()
    try:
        rc = main(["run", str(ROOT / "tests" / "data" / "robust" / "numbers.ptx"), "--grid", "1", "--block", "1",
                   "--buffer", "out=u32[16]", "--buffer", "inp=f32[50000000]", "--functional", "--quiet",
                   "--set", "limits.host_memory_mib=64"])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    err = capsys.readouterr().err
    assert rc == 2, err
    assert "more than its budget of 64.0 MiB (limits.host_memory_mib = 64)" in err
    assert "buffer inp (3 x 190.7 MiB)" in err and "Traceback" not in err
    assert peak < 16 * 2**20, f"{peak / 2**20:.0f} MiB allocated before the refusal"


def test_resident_state_over_the_budget_is_refused_naming_it(tmp_path):
    # 96 KiB of local memory per thread x 1024 resident threads: 96 MiB > 64 MiB
    path = kernel_file(tmp_path, ".local .align 4 .b8 lo[98304];", "st.local.u32 [lo+98000], %r1;")
    program = api.load_program(path, isa="ptx")
    with pytest.raises(InputError, match=r"local memory \(1,024 resident threads x 98,304 bytes\) 96.0 MiB"):
        api.run_functional(program, 1, 1024, ["p"], {"p": np.zeros(1024, np.uint32)},
                           api.load_config("h100", ["limits.host_memory_mib=64"]))
    # within the default budget the same run goes
    out = api.run_functional(program, 1, 1024, ["p"], {"p": np.zeros(1024, np.uint32)}).outputs["p"]
    assert list(out[:4]) == [0, 1, 2, 3]


@pytest.mark.parametrize("mode", [["--functional"], []], ids=["functional", "timed"])
def test_history_is_bounded_and_says_so(tmp_path, mode, capsys):
    full, cut = tmp_path / "full.json", tmp_path / "cut.json"
    program = str(ROOT / "programs" / "examples" / "article-ex3-mask")
    assert main(["run", program, "--quiet", "--json", str(full), *mode]) == 0
    assert "warning" not in capsys.readouterr().err
    assert main(["run", program, "--quiet", "--json", str(cut), "--set", "limits.history_rows=5", *mode]) == 0
    assert "warning: the history keeps its first 5 rows;" in capsys.readouterr().err
    a, b = json.loads(full.read_text()), json.loads(cut.read_text())
    rows = sum(len(w["pc"]) for w in a["history"].values())
    assert rows > 5 and a["history_complete"] is True and a["history_dropped"] == 0
    assert b["history_complete"] is False and b["history_dropped"] == rows - 5
    assert sum(len(w["pc"]) for w in b["history"].values()) == 5
    for gid, w in b["history"].items():        # the first rows in issue order: a prefix of each warp's
        n = len(w["pc"])
        assert w["pc"] == a["history"][gid]["pc"][:n] and w["mask"] == a["history"][gid]["mask"][:n]
    assert b["outputs"] == a["outputs"]


def test_streamed_json_is_the_document(tmp_path):
    res = api.run_program(ROOT / "programs" / "examples" / "article-ex3-mask", functional=True, history=True)
    path = tmp_path / "doc.json"
    doc = res.to_json(path)
    res.write_json(tmp_path / "again.json")
    assert json.loads(path.read_text()) == json.loads(json.dumps(doc, default=float))
    assert path.read_bytes() == (tmp_path / "again.json").read_bytes()
    assert doc["history"]["0"]["mask"][3] == "11110000"
    big = np.arange(200_000, dtype=np.float32)
    big[7] = np.inf
    from simt_sim.observe.export import Buffer, write_document
    import io
    f = io.StringIO()
    write_document(f, {"outputs": {"x": Buffer(big)}})
    back = json.loads(f.getvalue())["outputs"]["x"]
    assert len(back) == 200_000 and back[7] == "inf" and back[199_999] == 199999.0


def test_issue_trace_is_bounded_and_says_so(tmp_path, capsys):
    program = str(ROOT / "programs" / "examples" / "article-ex3-mask")
    full, cut = tmp_path / "full.trace.json", tmp_path / "cut.trace.json"
    assert main(["run", program, "--quiet", "--trace", str(full)]) == 0
    assert "warning" not in capsys.readouterr().err
    assert main(["run", program, "--quiet", "--trace", str(cut), "--set", "limits.history_rows=3"]) == 0
    err = capsys.readouterr().err
    assert "warning: the issue trace keeps its first 3 rows;" in err and "limits.history_rows" in err
    res = api.run_program(ROOT / "programs" / "examples" / "article-ex3-mask", trace=True, overrides=["limits.history_rows=3"])
    assert len(res.raw.trace) == 3 and res.raw.trace_dropped > 0


def test_many_declared_registers_are_counted_in_the_budget(tmp_path, capsys):
    # within the parser's 2^18, but 100,000 registers for each of 1,024 resident threads is 400 MB
    path = kernel_file(tmp_path, ".reg .b32 %q<100000>;")
    rc = main(["run", str(path), "--isa", "ptx", "--grid", "4", "--block", "256", "--buffer", "p=u32[1024]",
               "--functional", "--quiet", "--set", "limits.host_memory_mib=256"])
    err = capsys.readouterr().err
    assert rc == 2 and "registers (1,024 resident threads x (100,004 32-bit" in err, err
