"""One line describing the machine and the date, for every results section."""

from __future__ import annotations

import datetime
import os
import platform


def machine_line() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1024**3
    load = os.getloadavg()[0]
    return (
        f"{datetime.date.today().isoformat()}, {os.cpu_count()} cores ({cpu}), {mem:.0f} GiB, "
        f"Python {platform.python_version()}, load average {load:.1f} at the start"
    )
