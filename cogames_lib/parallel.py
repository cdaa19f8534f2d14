"""The one way to fan work out: in this process, on a local process pool, or on a Dask cluster.

`fan_out(function, tasks, ...)` returns `[function(task) for task in tasks]`, computed by the chosen
backend; `FanOut` is the same as a context manager whose `map` yields the results one by one (so a caller
can write each as it comes) and whose pool and progress bar outlive several `map` calls. Whatever the
backend or worker count:
- results come back in task order (completions are buffered), so they never depend on scheduling;
- one tqdm bar counts finished work (`advance(task, result)` per task, 1 by default);
- a task that raises becomes one `TaskError` naming the task and carrying the worker's traceback text; a
  worker killed by a signal (or out of memory) is a `TaskError` naming the task it was running, never a
  bare `BrokenProcessPool`;
- Ctrl-C cancels the pending tasks and stops the workers (they ignore SIGINT themselves, so they print
  nothing); Dask is imported only when the Dask backend is used.

Start method of local pools: fork starts a worker in milliseconds with the library already imported, but
is only safe when no other Python thread may hold a lock at the instant of the fork (Jupyter's kernel
threads, a progress bar's monitor thread). Then forkserver forks from a clean server process that imports
`preload` once. Callers whose workers use torch ask for "spawn" (torch's thread pools are not fork-safe).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import traceback
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from cogames_lib.errors import ParameterError, TaskError

# A task's function, and `advance(task, result)`: how much a finished task moves the bar.
Work = Callable[[Any], Any]
Advance = Callable[[Any, Any], int]

BACKENDS = ("serial", "process", "dask", "local")  # "local": serial for one worker, else process
_DESCRIBE_LIMIT = 200


def check_workers(workers: object) -> int:
    """A process count: an integer >= 1 (a one-line `ParameterError` otherwise)."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ParameterError(f"workers: must be an integer >= 1, got {workers!r}")
    return workers


FORKSERVER_LOST = 255  # the exit code popen_forkserver gives a child whose status it could not read


def start_method() -> str:
    """ "fork" when this process runs no other Python thread (and the platform has fork), else "forkserver"."""
    if threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods():
        return "fork"
    return "forkserver"


def progress_bar_class() -> type:
    """tqdm.auto without its monitor thread: that thread outlives the bar and would make every later
    local pool fall back from fork to the slower forkserver start."""
    from tqdm.auto import tqdm

    class ProgressBar(tqdm):  # type: ignore[misc]
        monitor_interval = 0

    return ProgressBar


@dataclass(frozen=True)
class _Failure:
    """What a worker sends back instead of raising: picklable whatever the exception was."""

    kind: str
    message: str
    traceback: str


# Which task each worker of a local pool is running: slot i holds (pid, token) of worker i. Read after a
# worker died, to name the task it took with it.
_SLOTS: Any = None


def _init_worker(slots: Any) -> None:
    global _SLOTS
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle; see FanOut.__exit__
    _SLOTS = slots
    with slots.get_lock():
        for index in range(0, len(slots), 2):
            if slots[index] == 0:
                slots[index] = os.getpid()
                return


def _mark_running(token: int) -> None:
    if _SLOTS is None:
        return
    pid = os.getpid()
    for index in range(0, len(_SLOTS), 2):
        if _SLOTS[index] == pid:
            _SLOTS[index + 1] = token
            return


def _call(function: Callable[[Any], Any], task: Any, token: int) -> Any:
    """Run one task (in any backend's worker); an exception comes back as a `_Failure`."""
    _mark_running(token)
    try:
        return function(task)
    except Exception as error:
        return _Failure(type(error).__name__, str(error), traceback.format_exc())


def shorten(text: str) -> str:
    """One line of at most 200 characters (a task in an error message)."""
    line = " ".join(text.split())
    return line if len(line) <= _DESCRIBE_LIMIT else line[: _DESCRIBE_LIMIT - 1] + "…"


def describe_task(task: Any) -> str:
    """A task as an error message shows it by default: its repr, shortened."""
    return shorten(repr(task))


# A wrong scheduler address fails within this many seconds (Dask's own default waits 30 s).
SCHEDULER_TIMEOUT_S = 5


class FanOut:
    """A backend, its workers and one progress bar; `map` may be called several times inside `with`.

    backend: "serial" (this process), "process" (`workers` local processes), "dask" (`scheduler`: a
    `distributed.Client`, a scheduler address, or None for a private LocalCluster of `workers` processes),
    or "local" (serial when workers == 1, else process). preload: modules a forkserver imports once.
    start: the local start method; None chooses fork or forkserver (module docstring).
    """

    def __init__(
        self,
        *,
        workers: int = 1,
        backend: str = "local",
        scheduler: Any = None,
        progress: bool = True,
        description: str = "",
        unit: str = "task",
        total: int | None = None,
        initial: int = 0,
        preload: Sequence[str] = (),
        start: str | None = None,
        describe: Callable[[Any], str] = describe_task,
    ) -> None:
        if backend not in BACKENDS:
            raise ParameterError(f"backend: must be one of {list(BACKENDS)}, got {backend!r}")
        check_workers(workers)
        if backend == "local":
            backend = "serial" if workers == 1 else "process"
        self.backend, self.workers, self.scheduler = backend, workers, scheduler
        self.preload, self.start, self.describe = list(preload), start, describe
        self._bar_arguments = dict(
            total=total, initial=initial, desc=description, unit=unit, disable=not progress
        )
        self._bar: Any = None
        self._pool: ProcessPoolExecutor | None = None
        self._slots: Any = None
        self._client: Any = None
        self._owned: list[Any] = []  # Dask client and cluster this object started (closed on exit)
        self._token = 1  # 0 marks a worker slot that has run nothing yet
        self._processes: dict[int, Any] = {}
        self._task_of_token: dict[int, Any] = {}
        self._method = ""  # the start method of the local pool, once started

    def __enter__(self) -> FanOut:
        return self  # workers and Dask connections start on the first `map` that has work

    def __exit__(self, kind: type | None, *_: object) -> None:
        try:
            if self._pool is not None:
                # Ctrl-C or an error: drop what has not started and stop the workers now, not at exit
                interrupted = kind is not None
                if interrupted:
                    for process in list(getattr(self._pool, "_processes", {}).values()):
                        process.terminate()
                self._pool.shutdown(wait=True, cancel_futures=interrupted)
            for resource in reversed(self._owned):
                resource.close()
        finally:
            if self._bar is not None:
                self._bar.close()

    def _progress(self, advance: int) -> None:
        if self._bar is None:  # made after the pool's workers exist: a fork must not see its thread
            self._bar = progress_bar_class()(**self._bar_arguments)
        self._bar.update(advance)

    def map(
        self,
        function: Callable[[Any], Any],
        tasks: Iterable[Any],
        advance: Callable[[Any, Any], int] | None = None,
    ) -> Iterator[Any]:
        """`function(task)` for every task, yielded in task order. `function` must be importable by name
        (a module-level function) for the process and Dask backends."""
        tasks = list(tasks)
        if not tasks:
            return iter(())
        tokens = list(range(self._token, self._token + len(tasks)))
        self._token += len(tasks)
        if self.backend == "serial":
            return self._serial(function, tasks, tokens, advance)
        if self.backend == "process":
            futures = self._submit_local(function, tasks, tokens)
        else:
            futures = self._submit_dask(function, tasks, tokens)
        return self._ordered(futures, tasks, advance)

    def _serial(
        self, function: Work, tasks: list[Any], tokens: list[int], advance: Advance | None
    ) -> Iterator[Any]:
        for task, token in zip(tasks, tokens, strict=True):
            result = self._check(task, _call(function, task, token))
            self._progress(advance(task, result) if advance else 1)
            yield result

    def _check(self, task: Any, result: Any) -> Any:
        if isinstance(result, _Failure):
            raise TaskError(
                f"task {self.describe(task)} failed: {result.kind}: {result.message}",
                task=task,
                traceback_text=result.traceback,
            )
        return result

    def _local_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            method = self.start or start_method()
            self._method = method
            context = multiprocessing.get_context(method)
            if method == "forkserver" and self.preload:
                context.set_forkserver_preload(self.preload)
            self._slots = context.Array("q", 2 * self.workers)
            self._pool = ProcessPoolExecutor(
                max_workers=self.workers,
                mp_context=context,
                initializer=_init_worker,
                initargs=(self._slots,),
            )
        return self._pool

    def _submit_local(self, function: Work, tasks: list[Any], tokens: list[int]) -> list[Future[Any]]:
        pool = self._local_pool()
        futures = [
            pool.submit(_call, function, task, token) for task, token in zip(tasks, tokens, strict=True)
        ]
        # the worker processes, kept to read their exit codes if the pool breaks
        self._processes.update(getattr(pool, "_processes", None) or {})
        self._task_of_token.update(zip(tokens, tasks, strict=True))
        return futures

    def _connect(self) -> None:
        from distributed import Client, LocalCluster

        scheduler = self.scheduler
        if scheduler is None:  # a private cluster on this machine, e.g. to try the backend out
            cluster = LocalCluster(  # type: ignore[no-untyped-call]
                n_workers=self.workers,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
            )
            self._owned.append(cluster)
            self._client = Client(cluster)  # type: ignore[no-untyped-call]
            self._owned.append(self._client)
        elif isinstance(scheduler, str):
            try:
                self._client = Client(scheduler, timeout=SCHEDULER_TIMEOUT_S)  # type: ignore[no-untyped-call]
            except Exception as error:  # unreachable, not a scheduler (any reply), or not an address at all
                raise ParameterError(
                    f"scheduler: cannot connect to the Dask scheduler {scheduler!r} "
                    f"({type(error).__name__}: {shorten(str(error))})"
                ) from None
            self._owned.append(self._client)
        else:  # an existing distributed.Client: the caller owns it
            self._client = scheduler

    def _submit_dask(self, function: Work, tasks: list[Any], tokens: list[int]) -> list[Any]:
        if self._client is None:
            self._connect()
        return [
            self._client.submit(_call, function, task, token, pure=False)
            for task, token in zip(tasks, tokens, strict=True)
        ]

    def _ordered(
        self, futures: list[Any], tasks: list[Any], advance: Advance | None
    ) -> Generator[Any, None, None]:
        """Yield results in task order while counting completions as they happen."""
        index_of = {future: index for index, future in enumerate(futures)}
        finished: dict[int, Any] = {}
        pending = set(futures)
        following = 0
        try:
            while following < len(futures):
                if following not in finished:
                    done = self._wait(pending)
                    for future in done:
                        pending.discard(future)
                        index = index_of[future]
                        finished[index] = self._check(tasks[index], self._result(future, tasks[index]))
                        self._progress(advance(tasks[index], finished[index]) if advance else 1)
                    continue
                yield finished.pop(following)
                following += 1
        finally:
            for future in pending:  # closed early (an error, Ctrl-C, or a caller that stopped reading)
                future.cancel()

    def _wait(self, pending: set[Any]) -> set[Any]:
        if self.backend == "dask":
            from distributed import wait as dask_wait

            done = dask_wait(list(pending), return_when="FIRST_COMPLETED")  # type: ignore[no-untyped-call]
            return set(done.done)
        return set(wait(pending, return_when=FIRST_COMPLETED).done)

    def _result(self, future: Any, task: Any) -> Any:
        try:
            return future.result()
        except BrokenProcessPool:
            raise self._killed_worker_error() from None
        except Exception as error:  # the result could not come back (unpicklable), or Dask gave up on it
            raise TaskError(
                f"task {self.describe(task)} failed: {type(error).__name__}: {error}",
                task=task,
                traceback_text="".join(traceback.format_exception(error)),
            ) from None

    def _killed_worker_error(self) -> TaskError:
        """Name the task whose worker died: the slot of the process whose exit was not the pool's SIGTERM."""
        processes = {**self._processes, **(getattr(self._pool, "_processes", None) or {})}
        for process in processes.values():
            process.join(timeout=5)
        for index in range(0, len(self._slots), 2):
            pid, token = self._slots[index], self._slots[index + 1]
            process = processes.get(pid)
            code = process.exitcode if process is not None else None
            if token in self._task_of_token and code not in (0, None, -signal.SIGTERM):
                task = self._task_of_token[token]
                if code < 0:
                    cause = f"killed by signal {signal.Signals(-code).name}"
                elif code == FORKSERVER_LOST and self._method == "forkserver":
                    # multiprocessing.popen_forkserver also reports 255 when it cannot read the status the
                    # forkserver relays (a race with the pool's own join; a SIGKILLed worker was seen so).
                    cause = "exit status 255, or a status the forkserver did not relay"
                else:
                    cause = f"exit status {code}"
                return TaskError(
                    f"task {self.describe(task)} failed: its worker process died ({cause}; out of memory?)",
                    task=task,
                    traceback_text="",
                )
        return TaskError("a worker process died and the pool stopped; no single task to blame", task=None)


def fan_out(
    function: Callable[[Any], Any],
    tasks: Iterable[Any],
    advance: Callable[[Any, Any], int] | None = None,
    **options: Any,
) -> list[Any]:
    """`[function(task) for task in tasks]` on the backend `options` choose (see `FanOut`), in task order;
    the bar's total is the number of tasks unless `options` give one."""
    tasks = list(tasks)
    options.setdefault("total", len(tasks))
    with FanOut(**options) as fan:
        return list(fan.map(function, tasks, advance))
