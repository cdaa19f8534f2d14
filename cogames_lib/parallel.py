"""Local process pools that start fast and stay safe, shared by every capability that fans out work.

fork starts a worker in milliseconds with the library already imported, but it is only safe when no
other Python thread may hold a lock at the instant of the fork (Jupyter's kernel threads, a progress
bar's monitor thread). Then forkserver forks from a clean server process that imports the library once.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor


def start_method() -> str:
    """ "fork" when this process runs no other Python thread (and the platform has fork), else "forkserver"."""
    if threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods():
        return "fork"
    return "forkserver"


def process_pool(workers: int, preload: Sequence[str] = ()) -> ProcessPoolExecutor:
    """A pool of `workers` processes; with forkserver, `preload` modules are imported once in the server.

    Submit work before starting any thread of your own (e.g. a progress bar's monitor): workers are
    forked lazily, on submission.
    """
    context = multiprocessing.get_context(start_method())
    if context.get_start_method() == "forkserver" and preload:
        context.set_forkserver_preload(list(preload))
    return ProcessPoolExecutor(max_workers=workers, mp_context=context)


def progress_bar_class() -> type:
    """tqdm.auto without its monitor thread: that thread outlives the bar and would make every later
    local pool fall back from fork to the slower forkserver start."""
    from tqdm.auto import tqdm

    class ProgressBar(tqdm):  # type: ignore[misc, valid-type]
        monitor_interval = 0

    return ProgressBar
