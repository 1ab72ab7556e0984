"""simt-sim: a cycle-level SIMT GPU simulator with execution-mask stacks."""
__version__ = "0.1.0"
