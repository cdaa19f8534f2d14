"""What a notebook shows on its page: tables as a reader wants them, its findings, figures saved and shown.

Display only: numbers are computed elsewhere (the capabilities' `*_findings` and summaries); a figure shown here
is also written to `out_dir` as the PNG the page embeds.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from cogames_lib import io
from cogames_lib.finding import Finding


class Note:
    """A sentence shown on the page in place of an empty table (escaped HTML, plain text elsewhere)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def _repr_html_(self) -> str:
        import html

        return f"<p>{html.escape(self.text)}</p>"

    def __repr__(self) -> str:
        return self.text


def page_table(frame: pd.DataFrame, empty: str = "no rows", digits: int = 3) -> Any:
    """A table as a reader wants it on a page: no row numbers, numbers to `digits` decimals, missing values
    as "—" (never "NaN"); an empty table is the sentence `empty` instead of a bare header."""
    if frame.empty:
        return Note(empty)
    return frame.style.hide(axis="index").format(precision=digits, na_rep="—", thousands=None)


def findings_table(findings: Sequence[Finding]) -> Any:
    """A notebook's findings as the page shows them: the sentence, how its interval was computed (method,
    unit) and the figure it reads from; the same records the index renders, so page and index agree."""
    table = pd.DataFrame(
        {
            "finding": [finding.text for finding in findings],
            "method": [
                ", ".join(filter(None, (finding.method, finding.unit))) or "—" for finding in findings
            ],
            "figure": [finding.figure or "—" for finding in findings],
        }
    )
    return page_table(table, empty="No findings.")


def figure_png(figure: Any, dpi: int | None = None) -> bytes:
    """The figure as PNG bytes at the browser's 96 dpi (`plots.style.SCREEN_DPI`, so 9 pt text is 9 pt on
    the page), with tight bounds (an outside legend is never clipped); the figure is closed."""
    from io import BytesIO

    import matplotlib.pyplot as plt

    from cogames_lib.plots.style import SCREEN_DPI

    buffer = BytesIO()
    dpi = SCREEN_DPI if dpi is None else dpi  # a figure point is a page point at 100% zoom
    figure.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(figure)
    return buffer.getvalue()


def show(figure: Any, out_dir: str | os.PathLike[str], name: str, dpi: int | None = None) -> None:
    """Save a figure as `name.png` in out_dir, display that same PNG in the notebook, and close the figure.
    Returns nothing, so a `show(...)` ending a cell prints no `PosixPath(...)` line on the page. Saved at
    the browser's 96 dpi (`plots.style.SCREEN_DPI`) so 9 pt text is 9 pt on the page.

    The figure is rendered once: the notebook shows the PNG bytes that were written (re-rendering through
    the inline backend would double the drawing time), and closing stops the backend showing it again.
    """
    png = figure_png(figure, dpi)
    io.write_bytes(Path(out_dir) / f"{name}.png", png)
    try:
        from IPython import get_ipython
        from IPython.display import Image, display

        if get_ipython() is not None:
            display(Image(data=png, format="png"))
    except ImportError:  # plain Python without IPython: the file is the result
        pass
    return None
