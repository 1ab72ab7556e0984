"""docs/ptx-subset.md's table of refused constructs is true: each example, in a kernel body, is
refused at its own line with the documented message."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from simt_sim.errors import InputError
from simt_sim.frontend.assembler import assemble_text

DOC = Path(__file__).resolve().parents[1] / "docs" / "ptx-subset.md"
KERNEL = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{{
\t.reg .pred %p<4>;
\t.reg .b32 %r<20>;
\t.reg .b64 %rd<10>;
\t.reg .f32 %f<10>;
\t.reg .b16 %h<4>;
\t{example}
\tret;
}}
"""
EXAMPLE_LINE = 11


def refusal_rows() -> list[tuple[str, str, str]]:
    text = DOC.read_text()
    table = text[text.index("## Refused, and what the error says"):]
    rows = re.findall(r"^\| ([^|]+?) \| `([^`]+)` \| `([^`]+)` \|$", table, re.M)
    assert len(rows) >= 9, "the refusal table lost rows"
    return rows


@pytest.mark.parametrize("construct,example,message", refusal_rows(), ids=lambda v: v[:30])
def test_documented_refusal(construct, example, message):
    with pytest.raises(InputError) as err:
        assemble_text(KERNEL.format(example=example), file="refused.ptx")
    text = str(err.value)
    assert message in text, text
    assert text.startswith(f"refused.ptx:{EXAMPLE_LINE}:"), text
