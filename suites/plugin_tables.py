"""pytest plugin for checking tables on disk (``pytest --table PATH``).

Being built: see the table checker (``checker/``).
"""
