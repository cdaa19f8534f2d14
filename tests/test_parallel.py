"""cogames_lib.parallel: task order whatever the backend, crash reports, killed workers, Ctrl-C, Dask."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from cogames_lib.errors import ParameterError, TaskError
from cogames_lib.parallel import FanOut, fan_out, progress_bar_class, start_method

TASKS = list(range(12))


def _slow_square(value: int) -> tuple[int, int]:
    # the first tasks take longest, so completion order is the reverse of task order on a pool
    time.sleep(0.02 * (len(TASKS) - value) / len(TASKS))
    return value, value * value


def _fails_on_seven(value: int) -> int:
    if value == 7:
        raise ValueError(f"cannot handle {value}")
    return value


def _killed_on_five(value: int) -> int:
    if value == 5:
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.05)
    return value


def _pid_after(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def _pid_after_started(task: tuple[str, float]) -> int:
    """`_pid_after`, first marking (by a file) that the worker runs it: its initializer has run by then."""
    marker, seconds = task
    Path(marker).touch()
    return _pid_after(seconds)


def test_fork_only_without_other_threads() -> None:
    stop = threading.Event()
    helper = threading.Thread(target=stop.wait)
    helper.start()
    try:
        assert start_method() == "forkserver"
    finally:
        stop.set()
        helper.join()


def test_the_progress_bar_starts_no_thread() -> None:
    threads_before = threading.active_count()
    with progress_bar_class()(total=3, disable=False) as bar:
        bar.update(3)
        assert threading.active_count() == threads_before


def test_results_come_in_task_order_whatever_the_backend_and_worker_count() -> None:
    expected = [(value, value * value) for value in TASKS]
    assert fan_out(_slow_square, TASKS, progress=False) == expected
    assert fan_out(_slow_square, TASKS, workers=2, backend="process", progress=False) == expected
    assert fan_out(_slow_square, TASKS, workers=3, backend="local", progress=False) == expected
    assert (
        fan_out(_slow_square, TASKS, workers=2, backend="process", start="spawn", progress=False) == expected
    )
    assert fan_out(_slow_square, [], workers=2, backend="process", progress=False) == []


def test_one_bar_counts_the_work_each_result_stands_for(capsys: pytest.CaptureFixture) -> None:
    with FanOut(workers=2, backend="process", total=30, description="squares", unit="item") as fan:
        first = list(fan.map(_slow_square, range(5), advance=lambda task, result: 2))
        second = list(fan.map(_slow_square, range(5, 9), advance=lambda task, result: 5))
        assert fan._bar.n == 30 and fan._bar.total == 30
    assert [value for value, _ in first + second] == list(range(9))
    assert capsys.readouterr().err.count("squares: 100%") >= 1


@pytest.mark.parametrize("backend", ["serial", "process"])
def test_a_crashed_task_is_one_task_error_with_its_input_and_the_remote_traceback(backend: str) -> None:
    with pytest.raises(TaskError) as caught:
        fan_out(_fails_on_seven, TASKS, workers=2, backend=backend, progress=False)
    error = caught.value
    assert str(error) == "task 7 failed: ValueError: cannot handle 7"
    assert error.task == 7
    assert "_fails_on_seven" in error.traceback_text and 'raise ValueError(f"cannot handle {value}")' in (
        error.traceback_text
    )


def test_a_worker_killed_by_a_signal_is_reported_with_its_task() -> None:
    method = start_method()  # what the pool below uses: fork alone in this process, else the forkserver
    with pytest.raises(TaskError) as caught:
        fan_out(_killed_on_five, TASKS, workers=2, backend="process", progress=False)
    message = str(caught.value)
    assert caught.value.task == 5
    if method == "fork":  # the parent reads the status from the kernel itself
        assert message.startswith("task 5 failed: its worker process died (killed by signal SIGKILL")
    else:
        # Through the forkserver the status is relayed, and multiprocessing reports 255 when it cannot read
        # it (popen_forkserver; seen once in a full-suite run): the task is named, the cause said unknown.
        assert message.startswith("task 5 failed: its worker process died (")
        assert "killed by signal SIGKILL" in message or "the forkserver did not relay" in message, message


def _exits_255_on_five(value: int) -> int:
    if value == 5:
        os._exit(255)
    time.sleep(0.05)
    return value


def test_a_worker_status_255_under_the_forkserver_is_not_called_a_plain_exit() -> None:
    with pytest.raises(TaskError) as caught:
        fan_out(_exits_255_on_five, TASKS, workers=2, backend="process", progress=False, start="forkserver")
    assert caught.value.task == 5
    assert "(exit status 255, or a status the forkserver did not relay; out of memory?)" in str(caught.value)


def test_ctrl_c_cancels_pending_tasks_and_stops_the_workers() -> None:
    with pytest.raises(KeyboardInterrupt), FanOut(workers=2, backend="process", progress=False) as fan:
        results = fan.map(_pid_after, [0.01, 0.01] + [30.0] * 6)
        first = next(results)
        workers = list(fan._pool._processes.values())
        raise KeyboardInterrupt  # what Ctrl-C raises in the parent while it waits for results
    assert first > 0 and workers
    assert all(not process.is_alive() for process in workers)  # not left running the 30 s tasks


def test_workers_ignore_sigint_so_only_the_parent_reacts(tmp_path) -> None:
    marker = tmp_path / "started"
    with FanOut(workers=1, backend="process", progress=False) as fan:
        results = fan.map(_pid_after_started, [(str(marker), 0.5)])
        # signal only once the task runs: a worker still starting up (a loaded machine) has not yet set the
        # handler its initializer sets, and a fixed sleep made the test fail under load
        deadline = time.monotonic() + 60
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert marker.exists()
        for process in fan._pool._processes.values():
            os.kill(process.pid, signal.SIGINT)
        assert list(results) == [process.pid for process in fan._pool._processes.values()]


def test_bad_options_are_parameter_errors() -> None:
    with pytest.raises(ParameterError, match="backend: must be one of"):
        fan_out(_slow_square, TASKS, backend="threads")
    with pytest.raises(ParameterError, match="workers: must be an integer >= 1, got 0"):
        fan_out(_slow_square, TASKS, workers=0)


@pytest.mark.slow
def test_the_dask_backend_gives_the_same_results_and_the_same_crash_report() -> None:
    distributed = pytest.importorskip("distributed")
    expected = fan_out(_slow_square, TASKS, progress=False)
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=2, processes=True, host="127.0.0.1", dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        assert fan_out(_slow_square, TASKS, backend="dask", scheduler=client, progress=False) == expected
        by_address = fan_out(
            _slow_square, TASKS, backend="dask", scheduler=cluster.scheduler_address, progress=False
        )
        assert by_address == expected
        with pytest.raises(TaskError, match=r"^task 7 failed: ValueError: cannot handle 7$") as caught:
            fan_out(_fails_on_seven, TASKS, backend="dask", scheduler=client, progress=False)
        assert "_fails_on_seven" in caught.value.traceback_text
        assert client.status == "running"  # a client the caller passed in is left open
