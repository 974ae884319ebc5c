"""Peak memory of the running process, shared by the benchmark scripts."""

from __future__ import annotations

import resource
import sys
from pathlib import Path


def peak_rss_mb() -> float:
    """Peak resident set size of this process, in MiB.

    On Linux, ``VmHWM`` is this program's own peak; ``ru_maxrss`` would include the parent's
    RSS at fork time (it survives exec), which misleads in a child started by a benchmark
    that has just generated a large data set.
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024
