"""Developer tools of the kit, run from a checkout (``python -m tools...``); not installed."""
