"""Operand forms real kernels use (issue 10): registers wider than the instruction type for ld / st /
cvt, vector operands with `_` sinks and immediates, every address form, isspacep and generic
addressing, scoped `{ }` blocks with their own (possibly %-less) registers, bar.warp.sync, named
barriers, fence / membar variants, and per-kernel refusal of constructs the simulator cannot run.
Engine and oracle must agree bit for bit, and both with numpy."""
from __future__ import annotations

import struct

import numpy as np
import pytest

from simt_sim.errors import InputError, RuntimeFault
from simt_sim.frontend.assembler import assemble_text
from simt_sim.oracle import run_oracle
from simt_sim.run.functional import LaunchConfig, launch
from test_oracle import run_both

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"


def kernel(body: str, params: str = ".param .u64 out, .param .u64 in", name: str = "k") -> str:
    return f"{HEAD}.visible .entry {name}({params})\n{{\n{body}\n}}\n"


def f32_bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


# ---- registers wider than the instruction type (ld, st, cvt) -----------------------------------

WIDE = kernel("""
    .reg .b32 %r<8>;
    .reg .b64 %rd<16>;
    .reg .u64 %ud<2>;
    .reg .f64 %fd<2>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [in];
    ld.global.u8 %rd3, [%rd2];          // 0xF0 -> zero-extended
    ld.global.s8 %rd4, [%rd2];          // 0xF0 -> sign-extended to 64 bits
    ld.global.s16 %r1, [%rd2];          // 0x80F0 -> sign-extended to 32 bits
    ld.global.u16 %rd5, [%rd2];
    ld.global.s32 %rd6, [%rd2+4];       // negative word -> sign-extended
    ld.global.b32 %rd7, [%rd2+4];       // bit type -> zero-extended
    ld.global.f32 %rd8, [%rd2+8];       // .f32 data in a .b64 register: bits zero-extended
    st.global.u64 [%rd1], %rd3;
    st.global.u64 [%rd1+8], %rd4;
    st.global.u32 [%rd1+16], %r1;
    st.global.u64 [%rd1+24], %rd5;
    st.global.u64 [%rd1+32], %rd6;
    st.global.u64 [%rd1+40], %rd7;
    st.global.u64 [%rd1+48], %rd8;
    mov.u64 %rd9, 0x1234567887654321;
    st.global.u32 [%rd1+56], %rd9;      // the low 32 bits
    st.global.u32 [%rd1+60], 0;
    st.global.u8 [%rd1+64], %rd9;       // the low byte
    st.global.f32 [%rd1+72], %rd8;      // a .b64 register's low half as .f32 data
    cvt.u32.u64 %rd10, %rd9;            // zero-extended into the wide destination
    st.global.u64 [%rd1+80], %rd10;
    cvt.s32.s64 %rd11, %rd9;            // sign-extended (bit 31 of 0x87654321 is set)
    st.global.u64 [%rd1+88], %rd11;
    cvt.s8.s32 %r2, %r1;                // 0xF0 -> sign-extended to the 32-bit register
    st.global.u32 [%rd1+96], %r2;
    cvt.rn.f32.s32 %rd12, %r1;          // a .f32 result in a .b64 register
    st.global.u64 [%rd1+104], %rd12;
    cvt.f64.f32 %fd1, %rd8;             // a .f32 source in a .b64 register
    st.global.f64 [%rd1+112], %fd1;
    cvt.rzi.s16.f32 %rd13, %rd8;        // float -> s16, sign-extended to 64 bits
    st.global.u64 [%rd1+120], %rd13;
    ret;
""")


def test_wider_registers_for_ld_st_cvt():
    inp = np.zeros(16, np.uint8)
    inp[0:4] = [0xF0, 0x80, 0, 0]
    inp[4:8] = np.frombuffer(np.int32(-5).tobytes(), np.uint8)
    inp[8:12] = np.frombuffer(np.float32(-3.75).tobytes(), np.uint8)
    out = np.zeros(16, np.uint64)
    eng, orc = run_both(assemble_text(WIDE), 1, 32, ["out", "in"], {"out": out, "in": inp})
    got = orc.buffers["out"]
    f = f32_bits(-3.75)
    want = [0xF0, 2**64 - 16, (0x80F0 - 0x10000) & 0xFFFFFFFF, 0x80F0, 2**64 - 5, 2**32 - 5, f,
            0x87654321, 0x21, f, 0x87654321, 0xFFFFFFFF87654321, 0xFFFFFFF0, f32_bits(-32528.0),
            struct.unpack("<Q", struct.pack("<d", -3.75))[0], 2**64 - 3]
    assert [int(v) for v in got] == want


@pytest.mark.parametrize("body,message", [
    (".reg .f64 %fd1;\n ld.global.u32 %fd1, [%rd1];", "a floating-point register cannot hold .u32 data"),
    (".reg .u64 %u1;\n st.global.f32 [%rd1], %u1;", "needs a bit-size (.b64) register, but %u1 is .u64"),
    (".reg .b32 %r1;\n ld.global.u64 %r1, [%rd1];", "expected a 64-bit register for the destination"),
    (".reg .b32 %r1;\n add.u32 %r1, %rd1, 1;", "expected a 32-bit (or narrower) register for operand 2"),
    (".reg .b32 %r1;\n st.global.v2.u32 [%rd1], {%r1, _};", "'_' discards a destination element"),
    (".reg .b32 %r1;\n ld.global.v2.u32 {%r1, 5}, [%rd1];", "expected a vector element (a register, '_')"),
])
def test_operand_size_errors_have_positions(body, message):
    text = kernel(".reg .b64 %rd1;\n " + body + "\n ret;")
    with pytest.raises(InputError) as e:
        assemble_text(text, file="w.ptx")
    assert message in e.value.message and str(e.value).startswith("w.ptx:")


# ---- immediates, address forms, vectors with sinks -----------------------------------------------

FORMS = kernel("""
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    .reg .f32 %f<2>;
    .shared .align 16 .b8 buf[64];
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [in];
    st.global.u32 [%rd1], 5;                       // immediate source
    st.global.u32 [%rd1+4], -1;
    mov.u32 %r1, %tid.x;
    st.global.v2.u32 [%rd1+8], {%r1, 7};           // immediates inside a vector
    mov.f32 %f1, 0f40490FDB;
    st.global.v2.f32 [%rd1+16], {0f3F800000, %f1};
    add.u64 %rd3, %rd1, 40;
    st.global.u32 [%rd3+-16], 11;                  // [reg+-imm]
    st.shared.u32 [buf+20], 13;                    // [var+imm]
    st.shared.u32 [24], 17;                        // [imm]
    ld.shared.v4.u32 {%r2, _, %r3, %r4}, [buf+16];  // `_` sinks in a loaded vector
    st.global.v2.u32 [%rd1+32], {%r3, %r4};
    ld.global.u64 %rd4, [%rd2];
    mov.b64 {%r5, _}, %rd4;                        // unpack the low half, discard the high one
    mov.b64 {_, %r6}, %rd4;
    st.global.v2.u32 [%rd1+40], {%r6, %r5};
    mov.b64 %rd5, {%r5, %r6};                      // pack again
    st.global.u64 [%rd1+48], %rd5;
    ret;
""")


def test_immediates_addresses_and_vector_sinks():
    inp = np.array([0x1122334455667788], np.uint64)
    out = np.zeros(14, np.uint32)
    eng, orc = run_both(assemble_text(FORMS), 1, 1, ["out", "in"], {"out": out, "in": inp})
    got = orc.buffers["out"].tolist()
    assert got[:6] == [5, 0xFFFFFFFF, 0, 7, f32_bits(1.0), f32_bits(np.float32(3.1415927))]
    assert got[6] == 11
    assert got[8:10] == [17, 0]             # buf+24 (17) and buf+28 (never written)
    assert got[10:12] == [0x11223344, 0x55667788]
    assert got[12:14] == [0x55667788, 0x11223344]


# ---- isspacep and generic addressing ----------------------------------------------------------------

SPACES = kernel("""
    .reg .b32 %r<12>;
    .reg .b64 %rd<12>;
    .reg .pred %p<8>;
    .shared .align 4 .b8 sh[16];
    .local .align 4 .b8 lo[16];
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.global.u64 %rd2, %rd1;              // a generic address of global memory
    mov.u64 %rd3, sh;
    cvta.shared.u64 %rd3, %rd3;              // generic address of shared memory
    mov.u64 %rd4, lo;
    cvta.local.u64 %rd4, %rd4;
    isspacep.global %p1, %rd2;
    isspacep.shared %p2, %rd2;
    isspacep.shared %p3, %rd3;
    isspacep.global %p4, %rd3;
    isspacep.local %p5, %rd4;
    isspacep.const %p6, %rd2;
    mov.u32 %r9, 12;
    st.u32 [%rd3+4], %r9;                    // generic store into shared memory
    st.u32 [%rd4], 23;                       // generic store into local memory
    ld.shared.u32 %r10, [sh+4];
    ld.local.u32 %r11, [lo];
    cvta.to.shared.u64 %rd5, %rd3;           // back to a shared-space address
    selp.u32 %r1, 1, 0, %p1;
    selp.u32 %r2, 1, 0, %p2;
    selp.u32 %r3, 1, 0, %p3;
    selp.u32 %r4, 1, 0, %p4;
    selp.u32 %r5, 1, 0, %p5;
    selp.u32 %r6, 1, 0, %p6;
    cvt.u32.u64 %r7, %rd5;
    st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
    st.global.v4.u32 [%rd1+16], {%r5, %r6, %r7, %r10};
    st.global.u32 [%rd1+32], %r11;
    ret;
""", params=".param .u64 out")


def test_isspacep_and_cvta():
    eng, orc = run_both(assemble_text(SPACES), 1, 4, ["out"], {"out": np.zeros(12, np.uint32)})
    assert orc.buffers["out"].tolist()[:9] == [1, 0, 1, 0, 1, 0, 0, 12, 23]


# ---- scoped blocks with their own registers ----------------------------------------------------------

SCOPES = kernel("""
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .reg .b32 acc;                           // a register name without '%'
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [in];
    ld.global.u32 %r6, [%rd2];
    mov.u32 %r1, 41;
    mov.u32 acc, 100;
    {.reg .f16 low,high;
     mov.b32 {low,high}, %r6;                // unpack two 16-bit halves
     mov.b32 %r7, {high,low};}               // and pack them swapped
    {   .reg .b32 %r1;                        // shadows the outer %r1
        mov.u32 %r1, 99;
        add.u32 acc, acc, %r1;
        { .reg .b16 low;                      // a nested scope may reuse an inner name
          mov.b32 {low, _}, %r6;
          cvt.u32.u16 %r2, low; }
    }
    {.reg .pred p;
     setp.eq.u32 p, %r1, 41;
     @p add.u32 acc, acc, 1;}
    st.global.v4.u32 [%rd1], {%r7, %r1, acc, %r2};
    ret;
""")


def test_scoped_blocks_with_their_own_registers():
    program = assemble_text(SCOPES)
    eng, orc = run_both(program, 1, 1, ["out", "in"],
                        {"out": np.zeros(4, np.uint32), "in": np.array([0xABCD1234], np.uint32)})
    assert orc.buffers["out"].tolist() == [0x1234ABCD, 41, 200, 0x1234]
    names = set(program.reg_names.values())
    assert {"acc", "%r1"} <= names and any(n.startswith("%r1~") for n in names)


def test_scoped_register_is_not_visible_outside():
    text = kernel("{ .reg .b32 inner; mov.u32 inner, 1; }\n .reg .b64 %rd1;\n"
                  " ld.param.u64 %rd1, [out];\n st.global.u32 [%rd1], inner;\n ret;")
    with pytest.raises(InputError, match="unknown symbol 'inner'"):
        assemble_text(text)


# ---- barriers, fences ----------------------------------------------------------------------------------

SYNC = kernel("""
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .shared .align 4 .b32 s[64];
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, s;
    add.u32 %r3, %r3, %r2;
    st.shared.u32 [%r3], %r1;
    bar.warp.sync -1;
    membar.gl;
    membar.cta;
    membar.sys;
    fence.sc.cta;
    fence.acq_rel.gpu;
    fence.acq_rel.sys;
    fence.proxy.async;
    fence.proxy.async.shared::cta;
    bar.sync 1, 64;                          // a named barrier over the whole block
    xor.b32 %r4, %r1, 33;
    shl.b32 %r4, %r4, 2;
    mov.u32 %r5, s;
    add.u32 %r5, %r5, %r4;
    ld.shared.u32 %r6, [%r5];
    barrier.sync.aligned 0;
    cvt.u64.u32 %rd2, %r2;
    add.u64 %rd2, %rd1, %rd2;
    st.global.u32 [%rd2], %r6;
    ret;
""", params=".param .u64 out")


def test_bar_warp_sync_fences_and_named_barriers():
    eng, orc = run_both(assemble_text(SYNC), 1, 64, ["out"], {"out": np.zeros(64, np.uint32)})
    assert orc.buffers["out"].tolist() == [t ^ 33 for t in range(64)]


def test_barrier_thread_count_must_be_whole_warps():
    program = assemble_text(SYNC.replace("bar.sync 1, 64;", "bar.sync 1, 48;"))
    with pytest.raises(RuntimeFault, match=r"barrier thread count 48 must be a positive multiple of the warp size"):
        launch(program, 1, 64, ["out"], {"out": np.zeros(64, np.uint32)}, config=LaunchConfig())
    with pytest.raises(RuntimeFault, match="barrier thread count 48 must be a positive multiple"):
        run_oracle(program, 1, 64, ["out"], {"out": np.zeros(64, np.uint32)})


def test_bar_warp_and_isspacep_come_from_the_table():
    from simt_sim.isa import isa
    table = isa()
    assert table.op("bar.warp").timing == "other" and table.op("bar.warp").unit == "control"
    assert {"global", "shared", "local"} <= table.op("isspacep").modifiers
    assert {o for o in ("ld", "ldu", "st", "cvt") if table.op(o).wide_operands} == {"ld", "ldu", "st", "cvt"}
    assert not table.op("add").wide_operands


# ---- one module, several kernels: a construct one kernel uses does not sink the others -----------------

MODULE = HEAD + """
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 a, .param .b64 b);
.func (.param .b32 func_retval0) helper(.param .b32 helper_param_0)
{
    .reg .b32 %r<3>;
    ld.param.u32 %r1, [helper_param_0];
    add.s32 %r2, %r1, 1;
    st.param.b32 [func_retval0+0], %r2;
    ret;
}
.visible .entry good(.param .u64 out)
{
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    st.global.u32 [%rd1], 77;
    ret;
}
.visible .entry calls(.param .u64 out)
{
    .reg .b32 %r<3>;
    {
    .param .b32 param0;
    st.param.b32 [param0+0], %r1;
    .param .b32 retval0;
    call.uni (retval0), helper, (param0);
    ld.param.b32 %r2, [retval0+0];
    }
    ret;
}
.visible .entry unknown(.param .u64 out)
{
    .reg .b32 %r<3>;
    frobnicate.b32 %r1, %r2;
    ret;
}
.visible .entry unparsable(.param .u64 out)
{
    .reg .v2 .b32 %v;
    ret;
}
.visible .entry prints(.param .u64 out)
{
    {
    .param .b64 param0;
    st.param.b64 [param0+0], 0;
    .param .b64 param1;
    st.param.b64 [param1+0], 0;
    .param .b32 retval0;
    call.uni (retval0), vprintf, (param0, param1);
    }
    ret;
}
"""


def test_one_kernels_construct_does_not_make_the_module_unloadable():
    program = assemble_text(MODULE, "good", file="m.ptx")
    res = launch(program, 1, 1, ["out"], {"out": np.zeros(1, np.uint32)}, config=LaunchConfig())
    assert res.buffers["out"].tolist() == [77]
    calls = assemble_text(MODULE, "calls", file="m.ptx")         # a .func defined in the module runs
    assert calls.functions == {"helper": len(calls) - 4} and calls.call_levels == 1
    launch(calls, 1, 1, ["out"], {"out": np.zeros(1, np.uint32)}, config=LaunchConfig())
    for name, where, message in (("prints", "m.ptx:52:25", "call of 'vprintf': the function is only declared"),
                                 ("unknown", "m.ptx:36:5", "unknown opcode 'frobnicate'"),
                                 ("unparsable", "m.ptx:41:10", "kernel unparsable: vector registers are not supported")):
        with pytest.raises(InputError) as e:
            assemble_text(MODULE, name, file="m.ptx")
        assert str(e.value).startswith(f"{where}: error:") and message in e.value.message


def test_unclosed_kernel_body_is_still_a_module_error():
    with pytest.raises(InputError, match="expected '}' to close the kernel body"):
        assemble_text(kernel("ret;").rstrip().rstrip("}"), file="u.ptx")
