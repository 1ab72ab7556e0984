"""Bad input -> one message with file:line:column, exit 2; runtime faults -> exit 3 naming
kernel, block, warp, thread and pc.  Never a traceback."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import simt_sim
from simt_sim.cli.main import main
from simt_sim.errors import InputError, RuntimeFault
from simt_sim.frontend.assembler import assemble_text

ROOT = Path(__file__).resolve().parents[1]
HEAD = ".version 9.0\n.target sm_90\n.address_size 64\n"


def kernel(body, params=".param .u64 k_param_0"):
    return HEAD + f".visible .entry k({params})\n{{\n.reg .pred %p<4>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n{body}\n}}\n"


@pytest.mark.parametrize("body,line,col,message", [
    ("  frob.u32 %r1, %r2;", 9, 3, "unknown opcode 'frob'"),
    ("  add.u32 %r1, %r2;", 9, 3, "add takes 3 operands, found 2"),
    ("  add.q32 %r1, %r2, %r3;", 9, 3, "unknown modifier .q32 for add"),
    ("  add.u32 %r1, %r2, %r99;", 9, 21, "undeclared register %r99"),
    ("  add.u32 %rd1, %r2, %r3;", 9, 11, "expected a 32-bit (or narrower) register"),
    ("  bra NOWHERE;", 9, 7, "undefined label 'NOWHERE'"),
    ("  mov.u32 %r1, 5\n  ret;", 10, 3, "expected ',' or ';' after an operand"),
    ("  ld.global.u32 %r1, %rd1;", 9, 22, "expected a memory operand"),
    ("  @%r1 bra L;\nL: ret;", 9, 3, "expected a predicate register for a guard"),
])
def test_assembler_errors_name_file_line_column(body, line, col, message):
    with pytest.raises(InputError) as e:
        assemble_text(kernel(body), file="bad.ptx")
    text = str(e.value)
    assert text.startswith(f"bad.ptx:{line}:{col}: error: ")
    assert message in text


def test_parser_error_position():
    with pytest.raises(InputError, match=r"^x.ptx:4:1: error: expected a directive"):
        assemble_text(HEAD + "garbage\n", file="x.ptx")


def run_cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "simt_sim", *args], capture_output=True, text=True, cwd=cwd)


def test_cli_bad_program_exit_2_without_traceback(tmp_path):
    bad = tmp_path / "bad.ptx"
    bad.write_text(kernel("  add.u32 %r1, %r2;"))
    r = run_cli("run", str(bad), "--grid", "1", "--block", "1", "--buffer", "o=u32[1]")
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert f"{bad}:9:3: error: add takes 3 operands" in r.stderr


def test_cli_bad_manifest_and_config(tmp_path):
    (tmp_path / "kernel.ptx").write_text((ROOT / "programs/article-ex1-mask/kernel.ptx").read_text())
    (tmp_path / "manifest.yaml").write_text("kernel_file: kernel.ptx\ngrid: 1\nblock: 8\nargs: [out]\n"
                                            "buffers:\n  out: u32[8]\nbogus: 1\n")
    assert main(["run", str(tmp_path)]) == 2
    r = run_cli("run", str(tmp_path))
    assert r.returncode == 2 and f"{tmp_path / 'manifest.yaml'}:7:1: error: unknown key 'bogus'" in r.stderr
    (tmp_path / "manifest.yaml").write_text("kernel_file: kernel.ptx\ngrid: 1\nblock: 8\nargs: [out]\n"
                                            "buffers:\n  out: u32[eight]\n")
    r = run_cli("run", str(tmp_path))
    assert r.returncode == 2 and "manifest.yaml:6:8: error: buffer 'out': expected DTYPE[SIZE]" in r.stderr
    cfg = tmp_path / "gpu.yaml"
    cfg.write_text("name: x\nwarp_size: 100\n")
    r = run_cli("run", "programs/article-ex1-mask", "--config", str(cfg))
    assert r.returncode == 2 and f"{cfg}:2:12: error: warp_size must be between 1 and 64" in r.stderr
    r = run_cli("run", "programs/article-ex1-mask", "--set", "simt.divergence_policy=random")
    assert r.returncode == 2 and "divergence_policy must be one of" in r.stderr


def test_out_of_bounds_names_kernel_block_thread_pc_address():
    src = kernel("""
  ld.param.u64 %rd1, [k_param_0];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;""")
    out = np.zeros(40, np.uint32)
    with pytest.raises(RuntimeFault) as e:
        simt_sim.run_functional(assemble_text(src, file="oob.ptx"), 2, 64, ["out"], {"out": out})
    msg = str(e.value)
    assert "out-of-bounds access of 4 bytes at address 0x1000000a0" in msg
    assert "kernel k, block (0,0,0), warp 1, thread (40,0,0) (lane 8), pc 4 `st.global.u32 [%rd3], %r1;` (oob.ptx:14:3)" in msg


BARRIER = kernel("""
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, {split};
  @%p1 bra SKIP;
  bar.sync 0;
SKIP:
  ret;""", params="")


def test_barrier_deadlock_is_reported_not_hung():
    # only part of warp 0 reaches the barrier; its other lanes went to SKIP and exited
    prog = assemble_text(BARRIER.replace("{split}", "4"))
    with pytest.raises(RuntimeFault, match=r"barrier deadlock in kernel k, block \(0,0,0\).*warp 0 waits at pc 3"):
        simt_sim.run_functional(prog, 1, 64, [], {})


def test_barrier_ignores_warps_that_finished_entirely():
    # warp 0 exits as a whole before the barrier; as on hardware, warp 1 passes it alone
    res = simt_sim.run_functional(assemble_text(BARRIER.replace("{split}", "32")), 1, 64, [], {})
    assert res.metrics[0]["warp_instructions"] == 4 + 5


def test_barrier_after_threads_exited_deadlocks():
    src = kernel("""
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 3;
  @%p1 ret;
  bar.sync 0;
  ret;""", params="")
    with pytest.raises(RuntimeFault, match=r"warp 0 waits at pc 3 with mask 00011111 of 11111111"):
        simt_sim.run_functional(assemble_text(src), 1, 8, [], {}, simt_sim.load_config("h100", {"warp_size": 8}))


def test_barrier_completes_when_whole_block_arrives():
    src = kernel("""
  mov.u32 %r1, %tid.x;
  bar.sync 0;
  ret;""", params="")
    res = simt_sim.run_functional(assemble_text(src), 2, 96, [], {})
    assert res.metrics[0]["warp_instructions"] == 2 * 3 * 3


def test_instruction_limit_exit_3():
    src = kernel("L:\n  bra L;", params="")
    with pytest.raises(RuntimeFault, match="instruction limit of 1000 warp-instructions reached"):
        simt_sim.run_functional(assemble_text(src), 1, 32, [], {},
                                simt_sim.load_config("h100", {"limits.max_warp_instructions": 1000}))


def test_cli_runtime_fault_exit_3():
    r = run_cli("run", "programs/data-loop", "--set", "limits.max_warp_instructions=10")
    assert r.returncode == 3
    assert "instruction limit of 10 warp-instructions reached; kernel while_loop" in r.stderr
    assert "Traceback" not in r.stderr


def test_cli_run_manifest_and_json(tmp_path):
    out = tmp_path / "r.json"
    r = run_cli("run", "programs/article-ex3-mask", "--masks", "--json", str(out))
    assert r.returncode == 0, r.stderr
    assert "   2  br_push %r1, ELSE, CONVERGE;            11111111" in r.stdout
    import json
    doc = json.loads(out.read_text())
    assert doc["outputs"]["out"] == [10] * 4 + [20] * 4
    assert doc["history"]["0"]["mask"][3] == "11110000"
