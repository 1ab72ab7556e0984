"""docs/sass.md: a hand-written header (commands, what the listing shows) followed by the table
generated from isa/sass.yaml (tests/test_sass_frontend.py checks it is current:
`simt-sim isa-doc --isa sass > docs/sass.md`)."""
from __future__ import annotations

from simt_sim.isa.sass_table import sass_table

HEADER = """# SASS (sm_90) listing and opcode table

The H100 runs the SASS that ptxas makes of the PTX, not the PTX.  This page documents reading that
SASS and the opcode table; running it (`simt-sim run --isa sass`) is described in
docs/sass-execution.md.

## Commands

```sh
pip install nvidia-cuda-nvdisasm nvidia-cuda-cuobjdump     # NVIDIA's wheels (declared dependencies)
simt-sim disasm --isa sass programs/v-loop-break            # a program directory (its kernel.ptx)
simt-sim disasm --isa sass tests/cuda/warp_vote.ptx         # a PTX file
simt-sim disasm --isa sass programs/v-loop-break/kernel.cu  # CUDA: nvcc -ptx -O3 -lineinfo first
simt-sim isa-doc --isa sass > docs/sass.md                  # regenerate this page
python tools/sass_inventory.py                              # re-record tests/data/sass_inventory.json
```

`--isa sass` compiles with `ptxas -arch=sm_90 -O3 -lineinfo` (PTX from `nvcc -G` gets `-O0`, which
ptxas requires for debug PTX), caches the cubin in `$SIMT_SIM_CACHE/sass/` (default
`~/.cache/simt-sim`) and reads it with `nvdisasm -json` (opcodes, operands, predicates) and
`nvdisasm -c -hex -gp` (pcs, 128-bit encodings, PTX lines).  Each line shows:

```
   pc  instruction                                   pipe     control              PTX line
0x0220  BSSY B0, 0x2550                               cbu      B------:R-:W-:-:S01  42: @%p1 bra $L__BB0_32;  // reconverges at 0x2550
```

The control column decodes bits 105..125 of the instruction (Volta and later): wait mask
(`B` + one character per barrier 0..5), read barrier (`R`), write barrier (`W`), yield hint (`Y`
when the yield bit is 0), stall count (`S`), then `reuse=` flags when any are set.  The layout and
its sources are in the docstring of `simt_sim/frontend/sass.py`; tests/test_sass_frontend.py checks
it on a real listing (a load's consumer waits on the barrier the load set).  `BSSY Bn, pc` lines
name their reconvergence pc, and the instruction at that pc is marked `<- reconvergence of BSSY at`.

## Opcode table

Generated from `isa/sass.yaml`; do not edit by hand.  Families are those ptxas 13.0 emits for
sm_90 in `programs/*/kernel.ptx` and `tests/cuda/*.ptx` (recorded in
`tests/data/sass_inventory.json`).  Pipe: the one Nsight Compute counts the family in
(`sm__inst_executed_pipe_*`; `fma` = fmaheavy or fmalite), with the modifiers or operands that move an
instruction to another pipe; checked against the per-pipe counts of every program with an H100 reference
(`simt-sim validate --isa sass`).  `adu` also holds what is counted in no deterministic pipe.
Latency: `fixed` (timed by the stall count) or `variable` (tracked by a scoreboard barrier).
"""


def render_sass_doc() -> str:
    table = sass_table()
    out = [HEADER, "| family | class | pipe | latency | modifiers seen | meaning |",
           "|---|---|---|---|---|---|"]
    for op in table.ops:
        mods = " ".join("." + m for m in sorted(op.modifiers))
        meaning = op.meaning + (f" *({op.note})*" if op.note else "")
        pipe = op.pipe + "".join(f"; {word}: {other}" for word, other in op.pipe_when)
        out.append(f"| `{op.name}` | {op.semantics} | {pipe} | {op.latency} | {mods} | {meaning} |")
    out.append("")
    return "\n".join(out)
