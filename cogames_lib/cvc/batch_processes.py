"""`ProcessWorldBatch`: a `WorldBatch` whose worlds are stepped by several processes, arrays in shared memory.

The worlds are cut into contiguous blocks, one per worker; each worker runs a plain `WorldBatch` over its
block (one stepping loop, one set of rules) writing into views of one shared buffer, so the caller's
`grids`, `selves`, `rewards`, `done`, `positions` and `items` are numpy views that a trainer reads without a
copy. The calling process is worker 0: it steps the first block itself while `workers - 1` started
processes step the others, so no core idles while the caller waits, and a step costs one short message
and reply per started process (the actions go through the shared buffer).

Results never depend on the number of workers: what a world plays next is drawn in the parent, by the
caller's `next_episode`, in world order, exactly as `WorldBatch.step` draws it. A step is
`WorldBatch.advance` in every worker (they report the worlds that ended), then `next_episode` in the parent
for those worlds in world order, then `WorldBatch.start_next` in the workers that had an ending (they are
sent each spec once, then its `world_key`, and keep a `World` per world key as `WorldBatch` does). A step in which no
world ends costs one round trip per started process. `tests/test_cvc_batch_processes.py` pins 2 and 3 workers to the
in-process batch step by step.

This is not a task fan-out (`cogames_lib.parallel`): each worker keeps its worlds' state from step to step
and all of them advance in lockstep, a pattern a pool of independent tasks cannot express. Workers start by
forkserver (a clean process: the trainer's torch threads are never forked) and ignore Ctrl-C; a worker that
raises, or dies, stops the batch with a one-line `CogamesLibError` instead of a hang. `close()` (or `with`)
stops the workers; the buffer is an unlinked shared file that disappears with the last process using it.

Measured on the shared 2-core machine, 26 Nov 2026 (`benchmarks/cvc_collection.py --workers 1 2`, 12 runs
from busy to quiet, 66 and 264 worlds; docs/cvc_learned.md, "Fan-out over processes"): it does not pay
reliably there. Collection with 2 workers ran from 1.17x faster to 1.85x slower than in one process
(slower in 10 of 12 runs; e.g. quiet, 11:45 UTC: 112,102 vs 93,992 agent-steps/s), PPO end to end from
14% slower to 12% faster. Why: each lockstep step wakes the worker on the other core and the parent again
when the reply comes; those wake-ups cost ~0.2-0.5 ms per step on this virtual machine (a step of 2
one-agent worlds: 24-40 us in one process, 176-570 us with 2 workers), about what halving a 0.9-1.4 ms
step saves, and under load each also waits for a core another job holds. Collection is also only 12-18%
of training time, so `collect_workers` stays 1 by default.
"""

from __future__ import annotations

import contextlib
import copyreg
import io
import itertools
import multiprocessing
import pickle
import signal
import traceback
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType, TracebackType
from typing import Any

import numpy as np

from cogames_lib.cvc.batch import (
    SLOT_ARRAYS,
    FinishedEpisode,
    NextEpisode,
    WorldBatch,
    WorldSpec,
    check_actions,
    check_spec,
    slot_layout,
)
from cogames_lib.errors import CogamesLibError, ParameterError, TaskError

_ALIGN = 64  # bytes: every array of the shared buffer starts on a cache line
_JOIN_S = 5.0
_WORLD_WEIGHT = 3  # a world's own cost, in agents (`world_blocks`)
# What a worker keeps per world, and the actions it reads: the shared buffer holds these arrays.
_SHARED_ARRAYS = {**SLOT_ARRAYS, "actions": ((), np.int64)}


def _layout(num_slots: int) -> tuple[dict[str, tuple[int, tuple[int, ...], Any]], int]:
    """name -> (byte offset, shape, dtype) of each array in the shared buffer, and the buffer's size."""
    layout, offset = {}, 0
    for name, (shape, dtype) in _SHARED_ARRAYS.items():
        full = (num_slots, *shape)
        layout[name] = (offset, full, dtype)
        size = int(np.prod(full)) * np.dtype(dtype).itemsize
        offset += -(-size // _ALIGN) * _ALIGN
    return layout, offset


def _views(buffer: Any, num_slots: int) -> dict[str, np.ndarray]:
    memory = np.frombuffer(buffer, np.uint8)
    layout, _ = _layout(num_slots)
    views = {}
    for name, (offset, shape, dtype) in layout.items():
        size = int(np.prod(shape)) * np.dtype(dtype).itemsize
        views[name] = memory[offset : offset + size].view(dtype).reshape(shape)
    return views


def world_blocks(agent_counts: Sequence[int], workers: int) -> list[tuple[int, int]]:
    """Contiguous (first world, end world) blocks, one per worker, balanced by work: a world weighs its
    agent count plus three (measured under load on the Python engine before the compiled step, a `WorldBatch`
    step cost about 13.5 us per world plus 4.9 us per agent: 18, 22 and 33 us for worlds of 1, 2 and 4 agents;
    the compiled step's costs are far smaller, and the fan-out does not pay on 2 cores, see docs/cvc_learned.md)."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ParameterError(f"workers must be an integer >= 1, got {workers!r}")
    if workers > len(agent_counts):
        raise ParameterError(
            f"workers: {workers} worker(s) for {len(agent_counts)} world(s); at most one per world"
        )
    weights = np.cumsum([0, *(int(count) + _WORLD_WEIGHT for count in agent_counts)])
    bounds = [0]
    for block in range(1, workers):
        target = weights[-1] * block / workers
        end = bounds[-1] + 1
        while end < len(agent_counts) - (workers - block) and weights[end] < target:
            end += 1
        bounds.append(end)
    bounds.append(len(agent_counts))
    return list(itertools.pairwise(bounds))


# Specs travel by pickle; `EnvConfig` freezes its mappings as `MappingProxyType`, which pickle refuses, so
# messages go through a pickler that sends a proxy as the dict it wraps (and rebuilds the proxy).
def _proxy(mapping: dict) -> MappingProxyType:
    return MappingProxyType(mapping)


def _reduce_proxy(proxy: MappingProxyType) -> tuple[Any, tuple[dict]]:
    return _proxy, (dict(proxy),)


_DISPATCH = {**copyreg.dispatch_table, MappingProxyType: _reduce_proxy}


def _dumps(message: object) -> bytes:
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _DISPATCH
    pickler.dump(message)
    return buffer.getvalue()


def _failure(error: Exception) -> object:
    """What a worker sends back for an exception: a library error as itself, anything else as text."""
    if isinstance(error, CogamesLibError):
        try:
            pickle.loads(_dumps(error))
            return error
        except Exception:
            pass
    return (type(error).__name__, str(error), traceback.format_exc())


class _Block:
    """A `WorldBatch` over one block of worlds, writing into its part of the shared buffer, driven by the
    parent's messages: ("reset" | "start", [(block's world index, world key, spec or None, seed), ...]) and
    ("step",). A worker process runs one; the parent runs the first block's itself."""

    def __init__(self, buffer: Any, num_slots: int, agent_counts: list[int], first_slot: int) -> None:
        views = _views(buffer, num_slots)
        end_slot = first_slot + sum(agent_counts)
        arrays = {name: views[name][first_slot:end_slot] for name in _SHARED_ARRAYS}
        self.actions = arrays.pop("actions")
        self.pending: dict[int, tuple[WorldSpec, int]] = {}
        self.specs: dict[tuple[str, str], WorldSpec] = {}
        self.batch = WorldBatch(agent_counts, self.pending.pop, arrays)

    def handle(self, message: tuple) -> list[FinishedEpisode] | None:
        if message[0] == "step":
            return self.batch.advance(self.actions)
        for world, key, spec, seed in message[1]:
            if spec is not None:
                self.specs[key] = spec
            self.pending[world] = (self.specs[key], seed)
        if message[0] == "reset":
            self.batch.reset()
        else:
            self.batch.start_next([entry[0] for entry in message[1]])
        return None


def _work(connection: Any, buffer: Any, num_slots: int, agent_counts: list[int], first_slot: int) -> None:
    """A worker process: one `_Block`, until ("close",) or the parent is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle (it closes the batch)
    block = _Block(buffer, num_slots, agent_counts, first_slot)
    while True:
        try:
            message = pickle.loads(connection.recv_bytes())
        except (EOFError, OSError):  # the parent is gone
            return
        if message[0] == "close":
            return
        try:
            reply: tuple[str, object] = ("ok", block.handle(message))
        except Exception as error:
            reply = ("error", _failure(error))
        connection.send_bytes(_dumps(reply))


def _stop(processes: list[Any], connections: list[Any]) -> None:
    """Ask every worker to exit, then terminate any that does not; close the pipes. Safe to call twice."""
    for connection in connections:
        with contextlib.suppress(OSError, ValueError):
            connection.send_bytes(_dumps(("close",)))
    for process in processes:
        process.join(_JOIN_S)
        if process.exitcode is None:
            process.terminate()
            process.join(_JOIN_S)
    for connection in connections:
        connection.close()


class ProcessWorldBatch:
    """`WorldBatch`'s interface (`reset`, `step`, the slot arrays, `first_slot`, `slot_world`, `num_slots`,
    `agent_counts`, `specs`, `next_episode`) with the worlds stepped by `workers` processes: this one steps
    the first block, `workers - 1` started processes the others. Call `close()` or use `with`; a failed or
    interrupted step closes the batch."""

    def __init__(self, agent_counts: Sequence[int], next_episode: NextEpisode, workers: int) -> None:
        counts, self.first_slot, self.slot_world = slot_layout(agent_counts)
        self.agent_counts = counts
        self.next_episode = next_episode
        self.num_slots = int(sum(counts))
        self.blocks = world_blocks(counts, workers)
        self.specs: list[WorldSpec] = []
        self._worker_of = np.repeat(np.arange(workers), [end - first for first, end in self.blocks])
        self._sent: list[dict[tuple[str, str], WorldSpec]] = [{} for _ in self.blocks]
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        context: Any = multiprocessing.get_context(method)
        if method == "forkserver":
            context.set_forkserver_preload([__name__])
        buffer = context.RawArray("B", _layout(self.num_slots)[1])
        views = _views(buffer, self.num_slots)
        self._actions = views.pop("actions")
        self.grids, self.selves = views["grids"], views["selves"]
        self.rewards, self.done = views["rewards"], views["done"]
        self.positions, self.items = views["positions"], views["items"]
        self._processes: list[Any] = []
        self._connections: list[Any] = []
        self._closer = weakref.finalize(self, _stop, self._processes, self._connections)
        first, end = self.blocks[0]
        self._local = _Block(buffer, self.num_slots, counts[first:end], 0)
        try:
            for first, end in self.blocks[1:]:
                parent_end, child_end = context.Pipe()
                process = context.Process(
                    target=_work,
                    args=(child_end, buffer, self.num_slots, counts[first:end], int(self.first_slot[first])),
                    daemon=True,
                    name=f"cvc-collect-{first}-{end - 1}",
                )
                process.start()
                child_end.close()  # the worker's end lives only in the worker: its death reads as EOF here
                self._processes.append(process)
                self._connections.append(parent_end)
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> ProcessWorldBatch:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        return not self._closer.alive

    def close(self) -> None:
        """Stop the worker processes (the shared buffer goes with the last process using it)."""
        self._closer()

    def _draw(self, world: int) -> tuple[int, tuple[str, str], WorldSpec | None, int]:
        """The next episode of `world` (from `next_episode`), as its worker's message entry."""
        spec, seed = self.next_episode(world)
        check_spec(world, self.agent_counts[world], spec)
        if world < len(self.specs):
            self.specs[world] = spec
        else:
            self.specs.append(spec)
        worker = int(self._worker_of[world])
        sent = self._sent[worker]
        fresh = sent.get(spec.world_key) is not spec
        if fresh:
            sent[spec.world_key] = spec
        return world - self.blocks[worker][0], spec.world_key, spec if fresh else None, seed

    def _send(self, worker: int, message: object) -> None:
        try:
            self._connections[worker - 1].send_bytes(_dumps(message))
        except OSError:
            raise self._died(worker) from None

    def _receive(self, worker: int) -> Any:
        try:
            status, payload = pickle.loads(self._connections[worker - 1].recv_bytes())
        except (EOFError, OSError):
            raise self._died(worker) from None
        if status == "error":
            self.close()
            if isinstance(payload, CogamesLibError):
                raise payload
            kind, message, trace = payload
            raise TaskError(
                f"{self._name(worker)} failed: {kind}: {message}",
                task=self.blocks[worker],
                traceback_text=trace,
            )
        return payload

    def _name(self, worker: int) -> str:
        first, end = self.blocks[worker]
        return f"collection worker {worker} (worlds {first}-{end - 1})"

    def _died(self, worker: int) -> TaskError:
        process = self._processes[worker - 1]
        process.join(_JOIN_S)
        code = process.exitcode
        self.close()
        if code is not None and code < 0:
            cause = f"killed by signal {signal.Signals(-code).name}; out of memory?"
        else:
            cause = f"exit status {code}"
        return TaskError(f"{self._name(worker)} died ({cause})", task=self.blocks[worker])

    def _exchange(self, messages: Mapping[int, tuple]) -> dict[int, Any]:
        """Send each worker process its message, handle the first block's here meanwhile, then collect the
        replies in worker order."""
        for worker, message in messages.items():
            if worker > 0:
                self._send(worker, message)
        replies = {0: self._local.handle(messages[0])} if 0 in messages else {}
        for worker in messages:
            if worker > 0:
                replies[worker] = self._receive(worker)
        return replies

    def _check_open(self) -> None:
        if self.closed:
            raise ParameterError(
                "this ProcessWorldBatch is closed (closed by the caller, or after a failed step)"
            )

    def reset(self) -> None:
        self._check_open()
        try:
            self.specs = []
            entries: list[list[tuple]] = [[] for _ in self.blocks]
            for world in range(len(self.agent_counts)):
                entries[int(self._worker_of[world])].append(self._draw(world))
            self._exchange({worker: ("reset", block) for worker, block in enumerate(entries)})
        except BaseException:  # an error or Ctrl-C half-way leaves the workers out of step: stop them
            self.close()
            raise

    def step(self, actions: np.ndarray) -> list[FinishedEpisode]:
        """`WorldBatch.step`: the same arrays and the same finished episodes, in world order."""
        self._check_open()
        self._actions[:] = check_actions(actions, self.num_slots)
        try:
            replies = self._exchange({worker: ("step",) for worker in range(len(self.blocks))})
            finished = [
                replace(episode, world=episode.world + self.blocks[worker][0])
                for worker in range(len(self.blocks))
                for episode in replies[worker]
            ]
            entries: dict[int, list[tuple]] = {}
            for episode in finished:  # world order: the order `WorldBatch.step` calls `next_episode` in
                entries.setdefault(int(self._worker_of[episode.world]), []).append(self._draw(episode.world))
            if entries:
                self._exchange({worker: ("start", block) for worker, block in entries.items()})
        except BaseException:  # an error or Ctrl-C half-way leaves the workers out of step: stop them
            self.close()
            raise
        return finished


def make_world_batch(
    agent_counts: Sequence[int], next_episode: NextEpisode, workers: int = 1
) -> WorldBatch | ProcessWorldBatch:
    """`WorldBatch` in this process for one worker, else `ProcessWorldBatch`; both must be `close()`d."""
    if workers == 1:
        return WorldBatch(agent_counts, next_episode)
    return ProcessWorldBatch(agent_counts, next_episode, workers)
