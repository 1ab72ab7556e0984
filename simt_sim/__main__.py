import sys

from simt_sim.cli.main import main

sys.exit(main())
