"""ASCII and RGB pictures of a world (render modes `ansi` and `rgb_array`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from cogames_lib.cvc.maps import OBJECT_GLYPHS

if TYPE_CHECKING:
    from cogames_lib.cvc.world import World

CELL_PIXELS = 8
OBJECT_COLOURS: dict[str, tuple[int, int, int]] = {
    "empty": (245, 245, 240),
    "agent.agent": (245, 245, 240),
    "wall": (60, 60, 70),
    "assembler": (230, 140, 30),
    "chest": (200, 40, 120),
    "charger": (250, 220, 40),
    "carbon_extractor": (90, 90, 90),
    "oxygen_extractor": (80, 170, 230),
    "germanium_extractor": (120, 200, 90),
    "silicon_extractor": (170, 120, 220),
    "chest_carbon": (150, 110, 80),
    "chest_oxygen": (150, 110, 80),
    "chest_germanium": (150, 110, 80),
    "chest_silicon": (150, 110, 80),
}
AGENT_COLOUR = (30, 90, 200)
CLIPPED_COLOUR = (230, 30, 30)


def render_ansi(world: World) -> str:
    """The map with agents drawn as their index (0-9, then letters); clipped extractors in lower case."""
    rows = [
        [OBJECT_GLYPHS[name] if name != "agent.agent" else "." for name in row]
        for row in world.grid_map.cells
    ]
    for station in world.stations.values():
        if station.clipped_value():
            r, c = world.to_row_col(station.position)
            rows[r][c] = rows[r][c].lower()
    for agent in world.agents:
        rows[agent.row][agent.col] = "0123456789abcdefghijklmnopqrstuvwxyz"[agent.index % 36]
    status = f"step {world.step_count}" + (" SUCCESS" if world.succeeded else "")
    return "\n".join("".join(row) for row in rows) + "\n" + status


def render_rgb(world: World, cell_pixels: int = CELL_PIXELS) -> np.ndarray:
    """An (H*cell, W*cell, 3) uint8 image: stations by colour, agents as blue squares, clipped as red dots."""
    cells = world.grid_map.cells
    image = np.array([[OBJECT_COLOURS[name] for name in row] for row in cells], dtype=np.uint8)
    for station in world.stations.values():
        if station.clipped_value():
            r, c = world.to_row_col(station.position)
            image[r, c] = CLIPPED_COLOUR
    for agent in world.agents:
        image[agent.row, agent.col] = AGENT_COLOUR
    return np.repeat(np.repeat(image, cell_pixels, axis=0), cell_pixels, axis=1)
