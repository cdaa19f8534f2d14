"""The scripted policy's compiled map-memory and sector helpers against plain-Python references.

`memory._edge_from_view` (the map-edge inference of `MapMemory._see_edge`) and `frontier.exit_sectors`
(`frontier._exit_labels`) replaced Python versions line for line; the references below are those versions,
kept here as the specification, and hypothesis draws the inputs (derandomized, so the test is the same on
every run).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cogames_lib.cvc.observation import VIEW_SIZE
from cogames_lib.policies.scripted.frontier import OWN_RADIUS, direction_of, exit_sectors
from cogames_lib.policies.scripted.memory import EDGE_BAND, SIZE, _edge_from_view


def _band(full: np.ndarray) -> int:
    return 0 if full.all() else int(np.argmin(full))


def reference_edge(walls: np.ndarray, r0: int, c0: int, edge: list[int], seen: list[int]) -> list[int]:
    edge, seen = list(edge), list(seen)
    full_rows, full_cols = np.asarray(walls.all(axis=1)), np.asarray(walls.all(axis=0))
    open_rows, open_cols = np.flatnonzero(~full_rows), np.flatnonzero(~full_cols)
    seen[0], seen[1] = min(seen[0], r0 + int(open_rows[0])), max(seen[1], r0 + int(open_rows[-1]) + 1)
    seen[2], seen[3] = min(seen[2], c0 + int(open_cols[0])), max(seen[3], c0 + int(open_cols[-1]) + 1)
    if seen[0] < edge[0]:
        edge[0] = 0
    if seen[1] > edge[1]:
        edge[1] = SIZE
    if seen[2] < edge[2]:
        edge[2] = 0
    if seen[3] > edge[3]:
        edge[3] = SIZE
    top, bottom = _band(full_rows), _band(full_rows[::-1])
    left, right = _band(full_cols), _band(full_cols[::-1])
    if top >= EDGE_BAND and r0 + top - 1 <= seen[0]:
        edge[0] = max(edge[0], r0 + top - 1)
    if bottom >= EDGE_BAND and r0 + VIEW_SIZE - bottom + 1 >= seen[1]:
        edge[1] = min(edge[1], r0 + VIEW_SIZE - bottom + 1)
    if left >= EDGE_BAND and c0 + left - 1 <= seen[2]:
        edge[2] = max(edge[2], c0 + left - 1)
    if right >= EDGE_BAND and c0 + VIEW_SIZE - right + 1 >= seen[3]:
        edge[3] = min(edge[3], c0 + VIEW_SIZE - right + 1)
    return edge + seen


@st.composite
def views(draw: st.DrawFn) -> tuple[np.ndarray, int, int, list[int], list[int]]:
    """A view's walls (bands of full wall rows and columns at its rims, scattered walls inside, the centre
    open: the agent stands there), where it lies, and an edge belief and open box before it."""
    walls = np.array(draw(st.lists(st.booleans(), min_size=VIEW_SIZE**2, max_size=VIEW_SIZE**2)))
    walls = walls.reshape(VIEW_SIZE, VIEW_SIZE)
    for side in ("top", "bottom", "left", "right"):
        depth = draw(st.integers(0, 4))
        if side == "top":
            walls[:depth] = True
        elif side == "bottom":
            walls[VIEW_SIZE - depth :] = True
        elif side == "left":
            walls[:, :depth] = True
        else:
            walls[:, VIEW_SIZE - depth :] = True
    walls[VIEW_SIZE // 2, VIEW_SIZE // 2] = False
    r0, c0 = draw(st.integers(100, 240)), draw(st.integers(100, 240))
    edge = [
        draw(st.sampled_from([0, r0 + 1, r0 + 3])),
        draw(st.sampled_from([SIZE, r0 + 9])),
        draw(st.sampled_from([0, c0 + 2])),
        draw(st.sampled_from([SIZE, c0 + 8])),
    ]
    seen = [draw(st.sampled_from([SIZE, r0 + 2])), draw(st.sampled_from([0, r0 + 8]))]
    seen += [draw(st.sampled_from([SIZE, c0 + 1])), draw(st.sampled_from([0, c0 + 10]))]
    return walls, r0, c0, edge, seen


@settings(max_examples=600, derandomize=True, deadline=None)
@given(views())
def test_compiled_edge_inference_equals_the_python_reference(view: tuple) -> None:
    walls, r0, c0, edge, seen = view
    compiled = _edge_from_view(walls, r0, c0, *edge, *seen, EDGE_BAND, SIZE)
    assert list(compiled) == reference_edge(walls, r0, c0, edge, seen)


def reference_exit_sectors(open_cells: list[bool], width: int, centre: tuple[float, float]) -> list[int]:
    size = len(open_cells)
    crow, ccol = centre
    labels = [-1] * size
    seen = [False] * size
    layer = []
    for index in range(size):
        row, col = divmod(index, width)
        if open_cells[index] and abs(row - crow) + abs(col - ccol) <= OWN_RADIUS:
            seen[index] = True
            layer.append(index)
    while layer:
        next_layer = []
        for here in layer:
            col = here % width
            for there, ok in (
                (here - width, here >= width),
                (here + width, here + width < size),
                (here - 1, col > 0),
                (here + 1, col < width - 1),
            ):
                if not ok or seen[there] or not open_cells[there]:
                    continue
                seen[there] = True
                label = labels[here]
                if label < 0:
                    label = direction_of(divmod(there, width), centre)
                labels[there] = label
                next_layer.append(there)
        layer = next_layer
    return labels


@st.composite
def boxes(draw: st.DrawFn) -> tuple[list[bool], int, tuple[float, float]]:
    rows, width = draw(st.integers(1, 30)), draw(st.integers(1, 30))
    density = draw(st.sampled_from([0.5, 0.7, 0.9, 1.0]))
    bits = draw(st.lists(st.floats(0, 1), min_size=rows * width, max_size=rows * width))
    centre = (
        draw(st.integers(0, rows - 1)) + draw(st.sampled_from([0.0, 0.5])),
        draw(st.integers(0, width - 1)) + 0.0,
    )
    return [b < density for b in bits], width, centre


@settings(max_examples=600, derandomize=True, deadline=None)
@given(boxes())
def test_compiled_exit_sectors_equal_the_python_reference(box: tuple) -> None:
    open_cells, width, centre = box
    compiled = exit_sectors(np.array(open_cells, np.bool_), width, centre).tolist()
    assert compiled == reference_exit_sectors(open_cells, width, centre)
