"""A notebook's parameters cell: one-line errors, parameter checks and its output folder.

Every notebook starts with these (`short_errors()`, `check_*` on its parameters, `prepare_out_dir(out_dir)`),
so a user who passed a bad parameter reads one line that names it before any work starts.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cogames_lib import outdir
from cogames_lib.errors import CogamesLibError, ParameterError

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
    """Create `out_dir` (parents too) for a notebook's files (`cogames_lib.outdir.prepare_out_dir`): a re-run
    of the notebook continues its own folder; a folder of another job or of files no run wrote is refused."""
    return outdir.prepare_out_dir(out_dir, job="notebook", params={}, resume=True, name="out_dir")


def comparison_pair(compare: Any, policies: Sequence[str]) -> tuple[str, str] | None:
    """The two policies a page compares over the whole suite: `compare` (two names of `policies`), or by
    default the first two policies (None when there are fewer than two)."""
    if compare is None:
        return (str(policies[0]), str(policies[1])) if len(policies) >= 2 else None
    if not isinstance(compare, (list, tuple)) or len(compare) != 2 or compare[0] == compare[1]:
        raise ParameterError(f"compare: must be two different policy names or None, got {compare!r}")
    unknown = [name for name in compare if name not in policies]
    if unknown:
        raise ParameterError(f"compare: {unknown} not among the policies {list(policies)}")
    return (str(compare[0]), str(compare[1]))
