"""Helpers the notebooks call: one-line parameter errors, table/summary/figure writes (atomic, `io`), display.

Notebooks are views of the files they write: every table goes to `out_dir` as parquet and CSV, every
figure as PNG, and the headline numbers as `summary.json`; the report's index reads only those files.
"""

from __future__ import annotations

import json
import math
import os
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from cogames_lib import io, outdir
from cogames_lib.errors import CogamesLibError, ParameterError

SUMMARY_FILE = "summary.json"

# Without ipywidgets (not a dependency), `tqdm.auto` falls back to the text bar, which is what we want in
# JupyterLab and in exported pages alike; its warning about the missing widget would only be noise.
warnings.filterwarnings("ignore", message="IProgress not found")


def short_errors() -> None:
    """In IPython, show a `CogamesLibError` as its one-line message instead of a long traceback.

    The cell still fails (papermill still stops and reports it); only the display is shortened, so a
    user who passed a bad parameter reads one line that names it.
    """
    try:
        from IPython import get_ipython
    except ImportError:  # plain Python: normal tracebacks are fine
        return
    shell = get_ipython()
    if shell is None:
        return

    def handler(
        shell: Any, etype: type, value: BaseException, tb: Any, tb_offset: int | None = None
    ) -> list[str]:
        line = f"{etype.__name__}: {value}"
        shell._showtraceback(etype, value, [line])
        return [line]

    shell.set_custom_exc((CogamesLibError,), handler)


def check_fraction(name: str, value: Any) -> float:
    """A parameter that must be a number in (0, 1]."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise ParameterError(f"{name}: must be a number in (0, 1], got {value!r}")
    return float(value)


def check_count(name: str, value: Any) -> int:
    """A parameter that must be an integer >= 1 (workers, limits)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ParameterError(f"{name}: must be an integer >= 1, got {value!r}")
    return value


def prepare_out_dir(out_dir: str | os.PathLike[str]) -> Path:
    """Create `out_dir` (parents too) for a notebook's files (`cogames_lib.outdir.prepare_out_dir`): a re-run of
    the notebook continues its own folder; a folder of another job or of files no run wrote is refused."""
    return outdir.prepare_out_dir(out_dir, job="notebook", params={}, resume=True, name="out_dir")


def save_table(frame: pd.DataFrame, out_dir: str | os.PathLike[str], name: str) -> Path:
    """Write `name.parquet` and `name.csv` into out_dir (atomically); returns the parquet path."""
    folder = Path(out_dir)
    io.write_csv(folder / f"{name}.csv", frame)
    return io.write_parquet(folder / f"{name}.parquet", frame)


def _plain(value: Any) -> Any:
    # numpy scalars and NaN are not JSON: turn them into Python numbers and null.
    if hasattr(value, "item") and not isinstance(value, (list, dict, str)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def write_summary(out_dir: str | os.PathLike[str], headline: Mapping[str, Any]) -> Path:
    """Write the headline numbers as `summary.json` (flat name -> number or short text)."""
    text = json.dumps(_plain(dict(headline)), indent=2, sort_keys=False)
    return io.write_text(Path(out_dir) / SUMMARY_FILE, text + "\n")


def read_summary(out_dir: str | os.PathLike[str]) -> dict[str, Any] | None:
    path = Path(out_dir) / SUMMARY_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


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


def _shown(value: Any) -> str:
    return "—" if value is None else str(value)


def headline_table(headline: Mapping[str, Any]) -> Any:
    """The headline numbers as a two-column table for the page ("what", "value"): names in words
    ("pass rate (scripted)" for `pass_rate[scripted]`), so a reader never sees a Python dict."""

    def words(key: str) -> str:
        name, _, group = key.partition("[")
        label = name.replace("_", " ")
        return f"{label} ({group.rstrip(']').replace('/', ', ')})" if group else label

    table = pd.DataFrame(
        {"what": [words(str(k)) for k in headline], "value": [_shown(_plain(v)) for v in headline.values()]}
    )
    return page_table(table)


def show(figure: Any, out_dir: str | os.PathLike[str], name: str, dpi: int | None = None) -> None:
    """Save a figure as `name.png` in out_dir, display that same PNG in the notebook, and close the figure.
    Returns nothing, so a `show(...)` ending a cell prints no `PosixPath(...)` line on the page. Saved at
    the browser's 96 dpi (`plots.style.SCREEN_DPI`) so 9 pt text is 9 pt on the page.

    The figure is rendered once: the notebook shows the PNG bytes that were written (re-rendering through
    the inline backend would double the drawing time), and closing stops the backend showing it again.
    """
    from io import BytesIO

    import matplotlib.pyplot as plt

    from cogames_lib.plots.style import SCREEN_DPI

    buffer = BytesIO()
    dpi = SCREEN_DPI if dpi is None else dpi  # a figure point is a page point at 100% zoom
    figure.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")  # never clip an outside legend
    plt.close(figure)
    png = buffer.getvalue()
    io.write_bytes(Path(out_dir) / f"{name}.png", png)
    try:
        from IPython import get_ipython
        from IPython.display import Image, display

        if get_ipython() is not None:
            display(Image(data=png, format="png"))
    except ImportError:  # plain Python without IPython: the file is the result
        pass
    return None
