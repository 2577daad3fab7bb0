"""The Python harness: any in-process adapter (by default the reference) behind the protocol."""
