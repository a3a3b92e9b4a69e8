"""The chart files of the judge report (reviewer.storage.judging.report
writes them with write_charts): every score distribution and confusion
matrix written as SVG and PNG into a folder, under names made safe from
the untrusted judge names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from reviewer.core.judging.calibration import ConfusionMatrix, Distribution
from reviewer.storage.files import safe_write


def _slug(text: str) -> str:
    s = re.sub(r"[^A-Za-z0-9._-]+", "-", str(text)).strip(".-")[:60]
    return s or "x"


def write_charts(
    folder: Path, dists: Sequence[Distribution], confusions: Sequence[ConfusionMatrix], *, force: bool = False
) -> list[Path]:
    """Write every distribution and confusion chart as SVG and PNG into
    ``folder`` (made when missing), each replaced whole
    (reviewer.storage.files.safe_write: TargetRefused when a chart's name is taken
    by a project or a file that is not such an image, or by one not in
    reviewer's record of the files it wrote, unless ``force``). Returns the
    files written, in order."""
    from reviewer.core.judging import charts  # matplotlib: loaded only when charts are written

    folder.mkdir(parents=True, exist_ok=True)
    used: set[str] = set()
    out: list[Path] = []

    def stem(*parts: str) -> str:
        base = "-".join(_slug(p) for p in parts)
        name, k = base, 2
        while name in used:
            name, k = f"{base}-{k}", k + 1
        used.add(name)
        return name

    for d in dists:
        s = stem("distribution", d.judge, d.dimension)
        svg = folder / f"{s}.svg"
        safe_write.write_text(
            svg,
            charts.distribution_svg(d.judge, d.shares, dimension=d.dimension, n=d.n),
            safe_write.SVG_FORMAT,
            force=force,
        )
        png = folder / f"{s}.png"
        safe_write.write_bytes(
            png,
            charts.distribution_png(d.judge, d.shares, dimension=d.dimension, n=d.n),
            safe_write.PNG_FORMAT,
            force=force,
        )
        out += [svg, png]
    for c in confusions:
        if not c.n:
            continue
        s = stem("confusion", c.judge, c.dimension, c.reference)
        svg = folder / f"{s}.svg"
        safe_write.write_text(
            svg,
            charts.confusion_svg(c.labels, c.counts, judge=c.judge, reference=c.reference, dimension=c.dimension),
            safe_write.SVG_FORMAT,
            force=force,
        )
        png = folder / f"{s}.png"
        safe_write.write_bytes(
            png,
            charts.confusion_png(c.labels, c.counts, judge=c.judge, reference=c.reference, dimension=c.dimension),
            safe_write.PNG_FORMAT,
            force=force,
        )
        out += [svg, png]
    return out
