"""How long something took or will take, as people read it (progress lines, ETAs)."""
from __future__ import annotations

import math


def format_duration(seconds: float | None) -> str:
    """``0.4s``, ``7.2s``, ``42s``, ``3m05s``, ``2h07m``; ``?`` when unknown (None, or not finite: no rate
    measured yet).  Under ten seconds a tenth is shown, so that a short job never reads ``0s``; what is
    shorter than a twentieth of a second but not nothing reads ``under 0.1s``."""
    if seconds is None or not math.isfinite(seconds):
        return "?"
    if 0 < seconds < 0.05:
        return "under 0.1s"
    if seconds < 9.95 and seconds != int(seconds):
        return f"{seconds:.1f}s"
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
