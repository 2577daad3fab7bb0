"""Writer drivers: each runs the steps of one op-log with one engine. They import nothing of the
kit (only :mod:`.common` beside them), so a writer that lives in another Python environment runs
its driver there as a subprocess: ``python DRIVER.py`` reads ``{"oplog", "table", "engine"}`` as
JSON on stdin and prints one JSON line, ``{"steps": [...], "version": ...}``."""
