"""Run one notebook with papermill and classify the result: ok, failed (a cell raised) or timed out.

papermill raises `PapermillExecutionError` when a cell raises, after saving the notebook with the error
shown. A cell that runs past `execution_timeout` is different: nbclient raises `CellTimeoutError`, and
the notebook papermill saved looks complete (no error output, every cell "completed"). We therefore mark
the timed-out cell ourselves so the exported page shows what happened. A dead kernel is handled the same
way. The executed notebook is written under a temporary name and renamed when execution ends (`io.atomic_path`).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat

from cogames_lib.io import atomic_path
from cogames_lib.report.status import NotebookStatus

OK, FAILED, TIMED_OUT = NotebookStatus.OK, NotebookStatus.FAILED, NotebookStatus.TIMED_OUT
KERNEL_NAME = "python3"
KERNEL_START_TIMEOUT_S = 300
# A kernel that dies before it answers `kernel_info` ran no cell, so starting it again is safe. It happens
# when another process takes one of its ports between jupyter_client choosing them and the kernel binding
# them (zmq "Address already in use": seen once in CI, two notebooks and a Dask cluster starting at once).
KERNEL_START_TRIES = 3
KERNEL_NEVER_STARTED = "before replying to kernel_info"


@dataclass(frozen=True)
class ExecutionResult:
    """What happened to one notebook; `message` is one line (empty when ok)."""

    status: NotebookStatus
    message: str
    duration_s: float
    notebook_path: Path

    @property
    def ok(self) -> bool:
        return self.status == OK


def _one_line(text: str, limit: int = 300) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _mark_interrupted_cell(path: Path, ename: str, evalue: str) -> None:
    """Add an error output to the cell that was running and a banner at the top of the notebook."""
    notebook = nbformat.read(path, as_version=4)
    started = [
        index
        for index, cell in enumerate(notebook.cells)
        if cell.get("metadata", {}).get("papermill", {}).get("start_time")
    ]
    if started:
        cell = notebook.cells[started[-1]]
        cell.setdefault("outputs", []).append(
            nbformat.v4.new_output("error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])
        )
        cell.metadata.setdefault("papermill", {}).update(exception=True, status="failed")
    banner = nbformat.v4.new_markdown_cell(
        f'<span style="color:red; font-size:2em">Execution stopped: {ename}</span>\n\n'
        f"The notebook did not finish; the cell that was running is marked with the error below."
    )
    banner.metadata["tags"] = ["cogames-error-banner"]
    notebook.cells.insert(0, banner)
    notebook.metadata.setdefault("papermill", {})["exception"] = True
    nbformat.write(notebook, path)


def execute_notebook(
    input_path: str | os.PathLike[str],
    output_path: str | os.PathLike[str],
    parameters: dict[str, Any],
    cell_timeout_s: float | None = None,
    cwd: str | os.PathLike[str] | None = None,
    kernel_name: str = KERNEL_NAME,
    progress: bool = False,
) -> ExecutionResult:
    """Execute `input_path` with `parameters` into `output_path`; never raises for a notebook failure."""
    import papermill
    from nbclient.exceptions import CellTimeoutError, DeadKernelError
    from papermill.exceptions import PapermillExecutionError

    output = Path(output_path)
    output.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    status, message = OK, ""
    try:
        with atomic_path(output, suffix=".running.ipynb") as running:
            try:
                for attempt in range(KERNEL_START_TRIES):
                    try:
                        papermill.execute_notebook(
                            str(input_path),
                            str(running),
                            parameters=parameters,
                            kernel_name=kernel_name,
                            progress_bar=progress,
                            execution_timeout=cell_timeout_s,
                            # papermill gives a kernel 60 s to start; on a loaded machine (load 18 on 2
                            # cores) a healthy kernel took longer and the part failed with "Kernel didn't
                            # respond"
                            start_timeout=KERNEL_START_TIMEOUT_S,
                            cwd=str(cwd) if cwd is not None else None,
                            # the kernel's own log (start-up warnings such as "running over TCP without
                            # encryption", a zmq traceback while it is shut down after Ctrl-C) would
                            # otherwise reach the command's output; what a cell raises is in the notebook,
                            # and a dead kernel is DeadKernelError
                            extra_arguments=["--IPKernelApp.log_level=CRITICAL"],
                        )
                        break
                    except RuntimeError as error:  # DeadKernelError is one too: that kernel ran cells
                        never_started = KERNEL_NEVER_STARTED in str(error) and not isinstance(
                            error, DeadKernelError
                        )
                        if not never_started or attempt + 1 == KERNEL_START_TRIES:
                            raise
            except PapermillExecutionError as error:
                status, message = FAILED, _one_line(f"cell {error.exec_count}: {error.ename}: {error.evalue}")
            except CellTimeoutError as error:
                status, message = TIMED_OUT, _one_line(f"cell timed out after {cell_timeout_s} s: {error}")
                _mark_if_written(running, "CellTimeoutError", message)
            except DeadKernelError as error:
                status, message = FAILED, _one_line(f"the kernel died: {error}")
                _mark_if_written(running, "DeadKernelError", message)
            except Exception as error:
                status, message = FAILED, _one_line(f"{type(error).__name__}: {error}")
            if not running.stat().st_size:
                raise _NothingWritten  # papermill stopped before it wrote the notebook: nothing to keep
    except _NothingWritten:
        output.unlink(missing_ok=True)  # never leave a previous run's notebook posing as this run's
    return ExecutionResult(status, message, time.perf_counter() - started, output)


class _NothingWritten(Exception):
    """Abandons the atomic write of a notebook papermill never wrote."""


def _mark_if_written(running: Path, ename: str, message: str) -> None:
    if running.stat().st_size:
        _mark_interrupted_cell(running, ename, message)
