"""Issue 62, point 2: numbers parsed as PTX defines them, and declarations bounded before anything
is sized by them.  Every bad input is exit 2 with file:line:column (or an InputError from the
Python API), never a traceback or a hang.

The number forms were checked against ptxas 13.0 (sm_90): it accepts octal (010), binary (0b101),
the U suffix, 64-bit literals with the top bit set, `.5`, and takes an instruction's low bits of a
wider literal (mov.u32 of 0x100000005 stores 5, mov.s32 of -2147483649 stores 0x7fffffff); it
refuses 08 (syntax error), 1e400 and a binary literal past 64 bits (Constant overflow) and an
alignment that is not a power of two.  tests/data/robust/numbers.ptx stores what each form gives
(ptxas's SASS for it was read with nvdisasm), and both modes must store the same words."""
import struct
import time
from pathlib import Path

import numpy as np
import pytest

from simt_sim import api
from simt_sim.cli.main import main
from simt_sim.errors import InputError
from simt_sim.frontend.parser import parse_ptx

ROOT = Path(__file__).resolve().parents[1]
NUMBERS = ROOT / "tests" / "data" / "robust" / "numbers.ptx"
IN_U64 = 0x0123456789ABCDEF


def expected_words() -> np.ndarray:
    out = np.zeros(16, np.uint32)
    out[0] = 8                      # mov.u32 010 (octal)
    out[1] = 5                      # 0b101U
    out[2] = 77                     # ld [%rd2+010]: byte offset 8 -> in[2]
    out[3] = 5                      # mov.u32 0x100000005: the low 32 bits
    out[4] = 0x7FFFFFFF             # mov.s32 -2147483649: the low 32 bits
    out[5] = 15                     # 017U
    out[6] = struct.unpack("<I", struct.pack("<f", 1.5))[0]     # 0f3FC00000
    out[7] = struct.unpack("<I", struct.pack("<f", 0.5))[0]     # .5
    words = lambda v: [v & 0xFFFFFFFF, v >> 32]
    out[8:10] = words(IN_U64)                                   # and 0xFFFFFFFFFFFFFFFF
    out[10:12] = words((IN_U64 - 1) & (2**64 - 1))              # add 18446744073709551615
    out[12:14] = words(IN_U64 ^ (1 << 63))                      # xor 0x8000000000000000U
    out[14:16] = words(struct.unpack("<Q", struct.pack("<d", 2.5))[0])   # 0d4004000000000000
    return out


@pytest.mark.parametrize("isa", ["ptx", "sass"])
def test_number_forms_give_ptxas_values(isa):
    program = api.load_program(NUMBERS, isa=isa)
    inp = np.zeros(6, np.uint32)
    inp[2] = 77
    inp[4], inp[5] = IN_U64 & 0xFFFFFFFF, IN_U64 >> 32
    result = api.run_functional(program, 1, 1, ["out", "inp"],
                                {"out": np.zeros(16, np.uint32), "inp": inp})
    got = result.outputs["out"]
    want = expected_words()
    assert [hex(int(x)) for x in got] == [hex(int(x)) for x in want]


BASE = """.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<2>;
  DECL
  ld.param.u64 %rd1, [p];
  LINE
  st.global.u32 [%rd1], %r1;
  ret;
}
"""

# (declaration, instruction, the token the error points at, message part): each refused with its
# location, the declaration's on line 10, the instruction's on line 12
BAD = [
    ("", "mov.u32 %r1, 08;", "08", "invalid octal literal '08'"),
    ("", "mov.u32 %r1, 0x10000000000000000;", "0x1", "does not fit in 64 bits"),
    ("", "ld.global.u32 %r1, [%rd1+18446744073709551616];", "184", "does not fit in 64 bits"),
    ("", "mov.u32 %r1, 0b11111111111111111111111111111111111111111111111111111111111111111;", "0b1",
     "does not fit in 64 bits"),
    ("", "mov.f32 %f1, 1e400;", "1e400", "beyond the .f64 range"),
    (".reg .b32 %q<2147483648>;", "mov.u32 %r1, 1;", "214", "a register count 2147483648 is larger than"),
    (".reg .b32 %q<18446744073709551615>;", "mov.u32 %r1, 1;", "184", "larger than"),
    (".shared .align 3 .b8 sh[16];", "mov.u32 %r1, 1;", "3", "alignment must be a power of two"),
    (".global .align 4 .b8 gl[2199023255553];", "mov.u32 %r1, 1;", "219", "exceeds any GPU's memory"),
    (".shared .align 4 .b8 sh[4294967296];", "mov.u32 %r1, 1;", "429", "no SM holds more than 64 MiB"),
    (".local .align 8 .b64 lo[-1];", "mov.u32 %r1, 1;", "-", "must not be negative"),
]


@pytest.mark.parametrize("decl,line,token,message", BAD, ids=[b[1] if not b[0] else b[0] for b in BAD])
@pytest.mark.parametrize("isa", ["ptx", "sass"])
def test_bad_numbers_and_declarations_are_located_errors(tmp_path, capsys, decl, line, token, message, isa):
    path = tmp_path / "bad.ptx"
    path.write_text(BASE.replace("DECL", decl).replace("LINE", line))
    where = "  " + (decl or line)
    row, col = (10 if decl else 12), where.index(token) + 1
    start = time.monotonic()
    rc = main(["run", str(path), "--isa", isa, "--grid", "1", "--block", "1", "--buffer", "p=u32[4]",
               "--functional", "--quiet"])
    err = capsys.readouterr().err
    assert time.monotonic() - start < 30, "a bad declaration must be refused before anything is sized by it"
    assert rc == 2, err
    assert "Traceback" not in err
    assert f"{path}:{row}:{col}: error:" in err and message in err, err
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        api.load_program(path, isa=isa)


def test_module_const_and_param_arrays_are_bounded():
    const = BASE.replace("DECL", "").replace("LINE", "mov.u32 %r1, 1;").replace(
        ".visible .entry", ".const .align 4 .b8 co[70000];\n.visible .entry")
    with pytest.raises(InputError, match="at most one 64 KiB constant bank"):
        parse_ptx(const, "c.ptx")
    param = BASE.replace("(.param .u64 p)", "(.param .u64 p, .param .align 4 .b8 big[40000])")
    kernel = parse_ptx(param.replace("DECL", "").replace("LINE", "mov.u32 %r1, 1;"), "p.ptx").kernels["k"]
    assert isinstance(kernel.error, InputError)         # kept with its kernel, as every error in a kernel
    assert "p.ptx:5:58: error:" in str(kernel.error) and "kernel parameters take at most 32764 bytes" in str(kernel.error)


def test_largest_literals_parse_to_64_bit_patterns():
    text = BASE.replace("DECL", "").replace("LINE", "and.b64 %rd2, %rd1, 0xFFFFFFFFFFFFFFFF;\n"
                                            "  mov.b64 %rd3, -0xFFFFFFFFFFFFFFFF;\n"
                                            "  mov.u32 %r2, 0777U;")
    body = parse_ptx(text, "n.ptx").kernels["k"].body
    values = [op.value for ins in body if hasattr(ins, "operands") for op in ins.operands if op.kind == "imm"]
    assert values == [-1, 1, 0o777]
