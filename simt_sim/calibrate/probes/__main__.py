"""`python -m simt_sim.calibrate.probes`: the program probes' table (programs.py); the kernel
probes of the registry run with `simt-sim probe`."""
import sys

from simt_sim.calibrate.probes.programs import main

sys.exit(main())
