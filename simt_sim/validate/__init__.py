"""Hardware validation: mask traces, hardware records and their comparison with the simulator."""
