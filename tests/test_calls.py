"""Device functions: `.func` with parameters and return values, `call` / `call.uni`, `ret` from a
function, recursion with a per-thread call stack, .local arrays per function, and how calls
reconverge (docs/reconvergence.md).  nvcc-compiled kernels (tests/cuda/calls_*.cu, -O3 and -G)
agree with the oracle bit for bit and with numpy; hand-written PTX checks the mask histories."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import simt_sim
from simt_sim.errors import InputError, RuntimeFault
from simt_sim.frontend.assembler import assemble_text, load_program
from simt_sim.oracle import run_oracle
from simt_sim.run.functional import LaunchConfig, launch, mask_bits
from simt_sim.run.timed import KernelLaunch
from test_oracle import assert_bits_equal

CUDA = Path(__file__).parent / "cuda"


def both(program, grid, block, args, buffers, config=None):
    """Engine and oracle on copies of the buffers: every buffer and every thread's instruction
    count must agree."""
    config = config or LaunchConfig()
    eng = launch(program, grid, block, args, {k: v.copy() for k, v in buffers.items()}, config=config)
    orc = run_oracle(program, grid, block, args, {k: v.copy() for k, v in buffers.items()},
                     warp_size=config.warp_size)
    for name in buffers:
        assert_bits_equal(eng.buffers[name], orc.buffers[name], f"buffer {name}")
    np.testing.assert_array_equal(eng.thread_icount, orc.thread_icount)
    return eng


# ---------------------------------------------------------------- numpy references of the .cu files

def scale(x, k):
    return x * k + (x >> 2)


def early(x):
    if x < 0:
        return -x
    if x % 3 == 0:
        return int(x / 3) + 1000        # C division truncates toward zero (x >= 0 here)
    return sum(i * x for i in range(x & 7))


def window(x, k):
    a = [x * i - k for i in range(12)]
    j = (x + k) % 12
    return a[j] + a[k % 12]


def divergent_reference(inp):
    out = []
    for i, v in enumerate(int(x) for x in inp):
        r = scale(v, 3) if v & 1 else v
        r += early(v - 20)
        if i % 4:
            r += window(v & 1023, i & 15)
        out.append(np.int32(np.int64(r).astype(np.int32)))
    return np.array(out, np.int32)


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def walk(n, seed):
    a = [seed * (i + 1) + n for i in range(6)]
    if n <= 0:
        return a[seed % 6]
    return walk(n - 1, (seed * 7 + a[n % 6]) & 255) ^ a[(n + seed) % 6]


def recursive_reference(inp):
    return np.array([[fib(int(v) % 12), walk(int(v) % 9, int(v) & 255)] for v in inp], np.int32).reshape(-1)


# ---------------------------------------------------------------- nvcc kernels

@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_committed_ptx_is_what_nvcc_makes(tmp_path):
    def body(text: str) -> str:
        lines = text.splitlines()
        return "\n".join(lines[next(i for i, ln in enumerate(lines) if not ln.startswith("//")):])
    for name in ("calls_divergent", "calls_recursive"):
        out = tmp_path / f"{name}.ptx"
        subprocess.run(["nvcc", "-O3", "-arch=sm_90", "-ptx", "-o", str(out), f"{name}.cu"], cwd=CUDA,
                       check=True, capture_output=True)
        assert body(out.read_text()) == body((CUDA / f"{name}.ptx").read_text()), name


def test_divergent_calls_early_returns_and_a_local_array():
    p = load_program(str(CUDA / "calls_divergent.ptx"))
    assert set(p.functions) == {"_Z5scaleii", "_Z5earlyi", "_Z6windowii"} and p.call_levels == 1
    assert p.frame_bytes == 0                       # nothing recursive: no call stack in local memory
    n = 300
    inp = np.random.default_rng(5).integers(-40, 900, n).astype(np.int32)
    got = both(p, 3, 128, ["in", "out", n], {"in": inp, "out": np.zeros(n, np.int32)})
    assert got.buffers["out"].tolist() == divergent_reference(inp).tolist()


@pytest.mark.parametrize("variant", ["calls_recursive", "calls_recursive_g"])
def test_recursion_with_per_thread_depth(variant):
    """-O3 keeps fib's two recursive calls and walk's one; -G (calls_recursive_g.ptx, nvcc -G)
    adds the debug forms (generic local addresses through cvta.local, .section DWARF blocks)."""
    p = load_program(str(CUDA / f"{variant}.ptx"))
    assert p.call_levels == -1 and p.frame_bytes > 0
    n = 100
    inp = np.random.default_rng(7).integers(0, 1000, n).astype(np.int32)
    got = both(p, 2, 64, ["in", "out", n], {"in": inp, "out": np.zeros(2 * n, np.int32)})
    assert got.buffers["out"].tolist() == recursive_reference(inp).tolist()
    assert got.max_stack_depth.max() > 12          # call entries of the deepest lanes


def test_recursion_timed_equals_functional():
    p = load_program(str(CUDA / "calls_recursive.ptx"))
    n = 64
    inp = np.arange(n, dtype=np.int32) * 37 % 1000
    res = simt_sim.simulate(KernelLaunch(p, 1, 64, ["in", "out", n], registers=32),
                            {"in": inp, "out": np.zeros(2 * n, np.int32)})
    assert res.outputs["out"].tolist() == recursive_reference(inp).tolist()
    assert res.cycles > 0


def test_call_depth_limit_is_a_runtime_fault_naming_the_thread():
    p = load_program(str(CUDA / "calls_recursive.ptx"))
    inp = np.full(40, 11, np.int32)                 # fib(11) nests 11 calls (walk: 2)
    inp[:33] = 2
    bufs = {"in": inp, "out": np.zeros(80, np.int32)}
    cfg = simt_sim.load_config("h100", {"simt.call_depth": 8})
    with pytest.raises(RuntimeFault) as e:
        simt_sim.run_functional(p, 1, 40, ["in", "out", 40], bufs, cfg)
    message = str(e.value)
    assert "call stack overflow: a call nested deeper than simt.call_depth = 8" in message
    assert "kernel calls_recursive, block (0,0,0), warp 1, thread (33,0,0) (lane 1), pc " in message
    assert "call.uni (retval0~" in message and "calls_recursive.ptx:" in message
    with pytest.raises(RuntimeFault, match="call stack overflow: a call nested deeper than simt.call_depth = 8"):
        run_oracle(p, 1, 40, ["in", "out", 40], bufs, call_depth=8)
    ok = simt_sim.run_functional(p, 1, 40, ["in", "out", 40], bufs, simt_sim.load_config("h100"))
    assert ok.outputs["out"][66] == fib(11)


def test_module_with_call_stack_config_is_validated():
    with pytest.raises(InputError, match="call_depth"):
        simt_sim.load_config("h100", {"simt.call_depth": 0})


# ---------------------------------------------------------------- hand-written PTX: masks

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"

# f(x): lanes with x < 2 return at once (a guarded ret), lanes with x odd return from the middle,
# the rest at the end; the kernel calls f only in lanes with tid < 6 (@%p call).
EARLY = HEAD + """
.func (.param .b32 f_ret) f(.param .b32 f_x)
{
    .reg .pred %q<3>;
    .reg .b32 %s<4>;
    ld.param.u32 %s1, [f_x];
    mul.lo.s32 %s2, %s1, 10;
    st.param.b32 [f_ret], %s2;
    setp.lt.s32 %q1, %s1, 2;
@%q1 ret;
    add.s32 %s2, %s2, 1;
    st.param.b32 [f_ret], %s2;
    and.b32 %s3, %s1, 1;
    setp.eq.s32 %q2, %s3, 1;
@%q2 ret;
    add.s32 %s2, %s2, 1;
    st.param.b32 [f_ret], %s2;
    ret;
}
.visible .entry k(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, 7;
    setp.lt.u32 %p1, %r1, 6;
    {
    .param .b32 param0;
    st.param.b32 [param0], %r1;
    .param .b32 retval0;
@%p1 call (retval0), f, (param0);
    ld.param.b32 %r3, [retval0];
@%p1 mov.u32 %r2, %r3;
    }
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
"""


def rows_at(res, pc: int) -> list[tuple[str, str]]:
    return [(mask_bits(int(m), 8), mask_bits(int(x), 8))
            for _, p, m, x in res.history if p == pc]


def test_guarded_call_and_early_returns_reconverge_at_the_function_exit():
    p = assemble_text(EARLY, file="early.ptx")
    call = p.texts.index("@%p1 call (retval0~3), f, (param0~3);")
    entry = p.functions["f"]
    first_ret, second_ret, last_ret = [pc for pc in range(entry, len(p)) if p.texts[pc].endswith("ret;")]
    res = both(p, 1, 8, ["out"], {"out": np.zeros(8, np.int32)}, LaunchConfig(warp_size=8))
    assert res.buffers["out"].tolist() == [0, 10, 22, 31, 42, 51, 7, 7]
    assert rows_at(res, call) == [("11111111", "11111100")]
    assert rows_at(res, entry) == [("11111100", "11111100")]          # only the calling lanes enter
    assert rows_at(res, first_ret) == [("11111100", "11000000")]      # lanes 0, 1 leave early ...
    assert rows_at(res, second_ret) == [("00111100", "00010100")]     # ... then lanes 3, 5
    assert rows_at(res, last_ret) == [("00101000", "00101000")]
    # back in the kernel after the call with every lane that was active at the call, once
    assert rows_at(res, call + 1) == [("11111111", "11111111")]
    kinds = [int(k) for k in res.events[:, 1]]
    assert kinds.count(3) == 1 and kinds.count(4) == 1                # one call, one return


RECURSE = HEAD + """
.func (.param .b32 d_ret) depth(.param .b32 d_n)
{
    .reg .pred %q<2>;
    .reg .b32 %s<5>;
    ld.param.u32 %s1, [d_n];
    setp.lt.s32 %q1, %s1, 1;
@%q1 bra DONE;
    add.s32 %s2, %s1, -1;
    {
    .param .b32 param0;
    st.param.b32 [param0], %s2;
    .param .b32 retval0;
    call.uni (retval0), depth, (param0);
    ld.param.b32 %s3, [retval0];
    }
    add.s32 %s4, %s3, %s1;
    st.param.b32 [d_ret], %s4;
    ret;
DONE:
    st.param.b32 [d_ret], 0;
    ret;
}
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    mov.u32 %r1, %tid.x;
    {
    .param .b32 param0;
    st.param.b32 [param0], %r1;
    .param .b32 retval0;
    call.uni (retval0), depth, (param0);
    ld.param.b32 %r2, [retval0];
    }
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
"""


def test_recursion_masks_shrink_level_by_level_and_regrow_on_the_way_back():
    p = assemble_text(RECURSE, file="rec.ptx")
    call_in_kernel = p.texts.index("call.uni (retval0~4), depth, (param0~4);")
    call_in_depth = p.texts.index("call.uni (retval0~2), depth, (param0~2);")
    res = both(p, 1, 8, ["out"], {"out": np.zeros(8, np.int32)}, LaunchConfig(warp_size=8))
    assert res.buffers["out"].tolist() == [t * (t + 1) // 2 for t in range(8)]
    # level k is entered by lanes k..7; each recursive call leaves one lane behind
    assert [m for m, _ in rows_at(res, call_in_depth)] == ["0" * k + "1" * (8 - k) for k in range(1, 8)]
    # after each return the mask of that call is back: lanes k..7 at level k
    assert [m for m, _ in rows_at(res, call_in_depth + 1)] == ["0" * k + "1" * (8 - k) for k in range(7, 0, -1)]
    assert rows_at(res, call_in_kernel + 1) == [("11111111", "11111111")]
    assert res.max_stack_depth.max() == 8 + 7      # 8 call entries, 7 branch frames (DONE vs call)


# ---------------------------------------------------------------- bad input

def test_bad_calls_name_file_line_column():
    f = """
.func (.param .b32 r) g(.param .b32 a)
{
    st.param.b32 [r], 1;
    ret;
}
.visible .entry k()
{
    .reg .b64 %rd<2>;
    {
    .param .b32 param0;
    .param .b32 retval0;
    CALL
    }
    ret;
}
"""
    cases = (("call.uni (retval0), g, (param0, param0);", "e.ptx:16:25: error: call of g: 2 arguments given"),
             ("call.uni (retval0), %rd1, (param0), proto;", "e.ptx:16:25: error: kernel k: indirect calls"),
             ("call.uni (retval0), nothere, (param0);", "e.ptx:16:25: error: call of 'nothere': not defined"),
             ("call.uni (retval0), k, (param0);", "e.ptx:16:25: error: call of 'k': a kernel"),
             ("call.uni (%rd1), g, (param0);", "e.ptx:16:15: error: a call's return value must be a .param"))
    for text, want in cases:
        with pytest.raises(InputError) as e:
            assemble_text(HEAD + f.replace("CALL", text), file="e.ptx")
        assert str(e.value).startswith(want), str(e.value)
