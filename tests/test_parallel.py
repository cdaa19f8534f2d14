from __future__ import annotations

import threading

from cogames_lib.parallel import process_pool, progress_bar_class, start_method


def _square(value: int) -> int:
    return value * value


def test_fork_only_without_other_threads() -> None:
    stop = threading.Event()
    helper = threading.Thread(target=stop.wait)
    helper.start()
    try:
        assert start_method() == "forkserver"
    finally:
        stop.set()
        helper.join()


def test_pool_runs_work_and_the_progress_bar_starts_no_thread() -> None:
    threads_before = threading.active_count()
    with progress_bar_class()(total=3, disable=False) as bar:
        bar.update(3)
        assert threading.active_count() == threads_before
    with process_pool(2, preload=["tests.test_parallel"]) as pool:
        assert list(pool.map(_square, range(5))) == [0, 1, 4, 9, 16]
