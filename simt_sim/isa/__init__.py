"""The instruction-set table (isa/*.yaml) as Python objects."""
from simt_sim.isa.table import ISA, OpInfo, load_isa, isa  # noqa: F401
