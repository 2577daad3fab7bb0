"""What machine a benchmark ran on: processor model and memory, for the results files."""

from __future__ import annotations

import platform


def cpu_model() -> str:
    """The processor's model name (``/proc/cpuinfo``), or what ``platform`` knows."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def mem_gib() -> float | None:
    """Total memory in GiB (``/proc/meminfo``), or None where it cannot be read."""
    try:
        with open("/proc/meminfo") as f:
            return round(int(f.readline().split()[1]) / 1024 / 1024, 1)
    except OSError:
        return None
