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
import simt_sim.cli.main as cli_main
from simt_sim.frontend.manifest import MAX_BUFFER_BYTES, load_manifest, parse_buffer_spec
from simt_sim.frontend import dims as D
from simt_sim.frontend.dims import Dim3, DimsError, check_dims
from simt_sim.run.functional import LaunchConfig, launch
from simt_sim.run.timed import KernelLaunch

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
    (tmp_path / "kernel.ptx").write_text((ROOT / "programs/examples/article-ex1-mask/kernel.ptx").read_text())
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
    r = run_cli("run", "programs/examples/article-ex1-mask", "--config", str(cfg))
    assert r.returncode == 2 and f"{cfg}:2:12: error: warp_size must be between 1 and 64" in r.stderr
    r = run_cli("run", "programs/examples/article-ex1-mask", "--set", "simt.divergence_policy=random")
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
    r = run_cli("run", "programs/examples/data-loop", "--set", "limits.max_warp_instructions=10")
    assert r.returncode == 3
    assert "instruction limit of 10 warp-instructions reached; kernel while_loop" in r.stderr
    assert "Traceback" not in r.stderr


def test_cli_run_manifest_and_json(tmp_path):
    out = tmp_path / "r.json"
    r = run_cli("run", "programs/examples/article-ex3-mask", "--masks", "--json", str(out))
    assert r.returncode == 0, r.stderr
    assert "   2  br_push %r1, ELSE, CONVERGE;            11111111" in r.stdout
    import json
    doc = json.loads(out.read_text())
    assert doc["outputs"]["out"] == [10] * 4 + [20] * 4
    assert doc["history"]["0"]["mask"][3] == "11110000"


# ---- CUDA launch limits: the largest legal value passes, one more is an input error ----------

LIMITS = [   # kind, largest legal, one beyond, the message for the one beyond
    ("grid", [D.MAX_GRID_X], [D.MAX_GRID_X + 1], "grid x is 2147483648; CUDA allows 1 to 2147483647"),
    ("grid", [1, D.MAX_GRID_YZ], [1, D.MAX_GRID_YZ + 1], "grid y is 65536; CUDA allows 1 to 65535"),
    ("grid", [1, 1, D.MAX_GRID_YZ], [1, 1, D.MAX_GRID_YZ + 1], "grid z is 65536; CUDA allows 1 to 65535"),
    ("grid", [1, 1, 1], [1, 0, 1], "grid y is 0; CUDA allows 1 to 65535"),
    ("block", [D.MAX_BLOCK_XY], [D.MAX_BLOCK_XY + 1], "block x is 1025; CUDA allows 1 to 1024"),
    ("block", [1, D.MAX_BLOCK_XY], [1, D.MAX_BLOCK_XY + 1], "block y is 1025; CUDA allows 1 to 1024"),
    ("block", [1, 1, D.MAX_BLOCK_Z], [1, 1, D.MAX_BLOCK_Z + 1], "block z is 65; CUDA allows 1 to 64"),
    ("block", [4, 256, 1], [5, 205, 1], "block 5 x 205 x 1 has 1025 threads; CUDA allows at most 1024 per block"),
]


@pytest.mark.parametrize("kind,largest,beyond,message", LIMITS)
def test_launch_limit_boundaries(kind, largest, beyond, message):
    assert check_dims(largest, kind) == Dim3(*largest)
    with pytest.raises(DimsError) as e:
        check_dims(beyond, kind)
    assert e.value.message == message


@pytest.mark.parametrize("value,message", [
    (1.5, "grid x must be an integer, found 1.5"),
    (True, "grid x must be an integer, found True"),
    ("4", "grid x must be an integer, found '4'"),
    ([2, 2.0], "grid y must be an integer, found 2.0"),
    ([1, 1, None], "grid z must be an integer, found None"),
    ([], "grid must be N or [x, y, z] (1 to 3 integers), found 0 values"),
    ([1, 1, 1, 1], "grid must be N or [x, y, z] (1 to 3 integers), found 4 values"),
    (2**63, "grid x is 9223372036854775808; CUDA allows 1 to 2147483647"),
])
def test_launch_dims_must_be_one_to_three_integers(value, message):
    with pytest.raises(DimsError) as e:
        check_dims(value, "grid")
    assert e.value.message == message


def test_launch_dims_accept_numpy_integers_and_dim3():
    assert check_dims(np.int64(4), "block") == Dim3(4)
    assert check_dims((np.int32(2), 3), "grid") == Dim3(2, 3)
    assert check_dims(Dim3(8, 8, 16), "block") == Dim3(8, 8, 16)


def test_python_entry_points_check_limits_before_allocating():
    prog = assemble_text(kernel("  ret;", params=""))
    with pytest.raises(InputError, match="grid y is 65536"):
        launch(prog, [1, 65536], 1, [], {})
    with pytest.raises(InputError, match="block x is 1025"):
        KernelLaunch(prog, 1, 1025, [])


MANIFEST = """kernel_file: kernel.ptx
grid: 1
block: 8
args: [out]
buffers:
  out: u32[8]
"""


def write_program(folder: Path, manifest: str) -> Path:
    (folder / "kernel.ptx").write_text((ROOT / "programs/examples/article-ex1-mask/kernel.ptx").read_text())
    (folder / "manifest.yaml").write_text(manifest)
    return folder


@pytest.mark.parametrize("old,new,position,message", [
    ("grid: 1", "grid: 9223372036854775808", "2:7", "grid x is 9223372036854775808; CUDA allows 1 to 2147483647"),
    ("grid: 1", "grid: 2147483648", "2:7", "grid x is 2147483648; CUDA allows 1 to 2147483647"),
    ("grid: 1", "grid:\n- 1\n- 65536", "4:3", "grid y is 65536; CUDA allows 1 to 65535"),
    ("grid: 1", "grid: [1, 1, 65536]", "2:14", "grid z is 65536; CUDA allows 1 to 65535"),
    ("grid: 1", "grid: [1, 2.5]", "2:11", "grid y must be an integer, found 2.5"),
    ("block: 8", "block: 1025", "3:8", "block x is 1025; CUDA allows 1 to 1024"),
    ("block: 8", "block: [1, 1, 65]", "3:15", "block z is 65; CUDA allows 1 to 64"),
    ("block: 8", "block: [32, 32, 2]", "3:8", "block 32 x 32 x 2 has 2048 threads; CUDA allows at most 1024"),
    ("block: 8", "block: true", "3:8", "block: expected int or list, found bool True"),
    ("block: 8", "block: 8\nregisters: 256", "4:12", "registers must be between 1 and 255 (found 256)"),
    ("block: 8", "block: 8\nregisters: 0", "4:12", "registers must be between 1 and 255 (found 0)"),
    ("block: 8", "block: 8\ndynamic_shared: 2147483648", "4:17", "dynamic_shared must be between 0 and 2147483647"),
    ("block: 8", "block: 8\ndynamic_shared: -1", "4:17", "dynamic_shared must be between 0 and 2147483647"),
    ("block: 8", "block: 8\nstream: 2147483648", "4:9", "stream must be between 0 and 2147483647"),
    ("block: 8", "block: 8\nmore_launches:\n- grid: 1\n  block: 1025\n  args: [out]", "6:10",
     "block x is 1025; CUDA allows 1 to 1024"),
    ("block: 8", "block: 8\nmore_launches:\n- grid: [1, 70000]\n  block: 1\n  args: [out]", "5:13",
     "grid y is 70000; CUDA allows 1 to 65535"),
])
def test_manifest_launch_limits_name_line_and_column(tmp_path, capsys, old, new, position, message):
    write_program(tmp_path, MANIFEST.replace(old, new))
    assert main(["run", str(tmp_path)]) == 2
    assert f"{tmp_path / 'manifest.yaml'}:{position}: error: {message}" in capsys.readouterr().err


def test_manifest_accepts_the_largest_legal_launch(tmp_path):
    largest = (MANIFEST.replace("grid: 1", "grid: [2147483647, 65535, 65535]").replace("block: 8", "block: [1, 1, 64]")
               + "registers: 255\ndynamic_shared: 2147483647\nstream: 2147483647\n")
    m = load_manifest(str(write_program(tmp_path, largest)))     # loaded, not run
    assert (m.grid, m.block, m.registers, m.dynamic_shared) == ([2147483647, 65535, 65535], [1, 1, 64], 255, 2**31 - 1)


@pytest.mark.parametrize("option,value,message", [
    ("--grid", "2147483648", "error: --grid: grid x is 2147483648; CUDA allows 1 to 2147483647"),
    ("--grid", "1,65536", "error: --grid: grid y is 65536; CUDA allows 1 to 65535"),
    ("--block", "1025", "error: --block: block x is 1025; CUDA allows 1 to 1024"),
    ("--block", "32,32,2", "error: --block: block 32 x 32 x 2 has 2048 threads"),
    ("--block", "1,1,65", "error: --block: block z is 65; CUDA allows 1 to 64"),
    ("--registers", "256", "error: --registers must be between 1 and 255, found 256"),
    ("--registers", "0", "error: --registers must be between 1 and 255, found 0"),
])
def test_cli_launch_limits(capsys, option, value, message):
    for mode in ([], ["--functional"]):
        assert main(["run", "programs/examples/article-ex1-mask", option, value, *mode]) == 2
        assert message in capsys.readouterr().err


def test_cli_accepts_the_largest_legal_values(capsys):
    assert cli_main.parse_dims("2147483647,65535,65535", "grid") == Dim3(2147483647, 65535, 65535)
    assert cli_main.parse_dims("1,1024", "block") == Dim3(1, 1024)
    assert main(["run", "programs/examples/article-ex1-mask", "--registers", "255", "--block", "8,1,1", "--quiet"]) == 0


def test_buffer_size_limit():
    parse_buffer_spec("a", f"u8[{MAX_BUFFER_BYTES}]")                  # zeros: not touched, not slow
    for spec in (f"u8[{MAX_BUFFER_BYTES + 1}]", f"i32[{MAX_BUFFER_BYTES // 4 + 1}]", "i32[99999999999999]"):
        with pytest.raises(ValueError, match=r"a buffer holds at most 1073741824 bytes \(1 GiB\)"):
            parse_buffer_spec("a", spec)


# ---- values that used to end in a traceback ------------------------------------------------------

VEC_ADD = ["run", "tests/cuda/vec_add_int.ptx", "--grid", "1", "--block", "4"]


@pytest.mark.parametrize("argv,message", [
    (VEC_ADD[:2] + ["--grid", "99999999999999999999999", "--block", "4"], "--grid: grid x is 99999999999999999999999"),
    (VEC_ADD + ["--buffer", "a=i32[99999999999999]"], "a buffer holds at most 1073741824 bytes"),
    (VEC_ADD + ["--buffer", "a=i32[4]", "--args", "a,a,a,nan"], "parameter vec_add_int_param_3 (.u32) cannot hold nan"),
    (VEC_ADD + ["--buffer", "a=i32[4]", "--args", "a,a,a,1e400"], "(.u32) cannot hold inf"),
    (VEC_ADD + ["--buffer", "a=i32[4]:lane_id(0)"], "lane_id width must be at least 1, found 0"),
    (VEC_ADD + ["--buffer", "a=i32[4]", "--buffer", "a=i32[8]"], "--buffer: buffer 'a' is given twice"),
    (VEC_ADD + ["--buffer", "=i32[4]"], "--buffer expects NAME=SPEC, found '=i32[4]'"),
    (["run", "programs/examples/article-ex1-mask", "--set", "simt.stack_depth=100000000000"],
     "simt.stack_depth must be between 1 and 1024 (found 100000000000)"),
    (["run", "programs/examples/article-ex1-mask", "--set", "units.fp32.pipes=100000000000"],
     "units.fp32.pipes must be between 1 and 64"),
    (["run", "programs/examples/article-ex1-mask", "--set", "memory.l2.size_kb=100000000000"],
     "memory.l2.size_kb must be between 1 and 1048576"),
    (["run", "programs/examples/article-ex1-mask", "--set", "num_sms=100000000000000000000"],
     "num_sms must be between 1 and 1,024 (the engine keeps caches, ports and block slots for every SM"),
    (["run", "programs/examples/article-ex1-mask", "--set", "units.fp32.lanes=1.0e-300"],
     "units.fp32.lanes must be positive (at least 0.001) and at most 64"),
    (["run", "programs/examples/article-ex1-mask", "--functional", "--registers", "0"], "--registers must be between 1 and 255"),
    (["run", "programs/examples/article-ex1-mask", "--cycles", "a:b"], "--cycles expects FIRST:END, found 'a:b'"),
    (["run", "programs/examples/article-ex1-mask", "--json", "/nonexistent-folder/r.json"],
     "cannot write /nonexistent-folder/r.json: no folder '/nonexistent-folder'"),
])
def test_former_tracebacks_are_input_errors(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize("text,position,message", [
    ("", "1:1", "expected a mapping"),
    ("kernel_file: kernel.ptx\ngrid: 1\x1f\n", "2:8", "invalid YAML: character 0x1f is not allowed"),
    (MANIFEST + "expect:\n  out: [1, 2]\n", "8:8", "expected output 'out' is u32[8]; found 2 values"),
    (MANIFEST + "expect:\n  out: [0, 0, 0, -1, 0, 0, 0, 0]\n", "8:18", "-1 is not a u32 value"),
    (MANIFEST + "expect:\n  out: [0, 0, 0, x, 0, 0, 0, 0]\n", "8:18", "'x' is not a u32 value"),
])
def test_manifest_text_errors_have_positions(tmp_path, capsys, text, position, message):
    write_program(tmp_path, text)
    assert main(["run", str(tmp_path)]) == 2
    assert f"{tmp_path / 'manifest.yaml'}:{position}: error: {message}" in capsys.readouterr().err


def test_non_utf8_manifest_is_an_input_error(tmp_path, capsys):
    write_program(tmp_path, "")
    (tmp_path / "manifest.yaml").write_bytes(b"grid: \xff\n")
    assert main(["run", str(tmp_path)]) == 2
    assert "manifest.yaml: not UTF-8 text (byte 6)" in capsys.readouterr().err


def test_out_of_host_memory_is_a_clean_exit_3(monkeypatch, capsys):
    def exhaust(ns):
        raise MemoryError
    monkeypatch.setattr(cli_main, "cmd_run", exhaust)
    assert main(["run", "programs/examples/article-ex1-mask"]) == 3
    assert "runtime error: out of host memory while running simt-sim run" in capsys.readouterr().err
