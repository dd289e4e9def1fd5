"""Writes plane.stl, the triangulated floor of the mesh_plane validation case
(scripts/validation/mesh_plane.py): the square [-0.2, 0.2]^2 m of the plane
z = 0, 20 x 20 cells of 0.02 m (a sphere diameter of the scenes), each cut
into two triangles along a diagonal whose direction alternates like a
checkerboard, every inner vertex moved in the plane by up to 0.15 of a cell
along x and y (a fixed seed), so that a rolling sphere crosses edges at every
angle and passes near vertices where 4 to 8 triangles meet unevenly. Binary
STL (float32 coordinates: z = 0 stays exact, so the surface stays exactly
flat), 84 + 50 x 800 bytes.

    /usr/bin/python3 scenes/validation/mesh_plane/make_plane_stl.py
"""
from pathlib import Path
import struct

import numpy as np

CELLS = 20
HALF_WIDTH = 0.2  # m
JITTER = 0.15     # of a cell: triangles keep their orientation (a cross product of two edges >= 0.7^2 - 0.3 * 1.3 > 0)
SEED = 12


def triangles():
    """The 800 triangles as an array (800, 3, 3), counterclockwise seen from +z."""
    cell = 2.0 * HALF_WIDTH / CELLS
    side = CELLS + 1
    rng = np.random.default_rng(SEED)
    grid = np.linspace(-HALF_WIDTH, HALF_WIDTH, side)
    x, y = np.meshgrid(grid, grid, indexing="xy")  # x[j, i], y[j, i]
    inner = np.zeros_like(x, dtype=bool)
    inner[1:-1, 1:-1] = True
    x = x + inner * rng.uniform(-JITTER, JITTER, x.shape) * cell
    y = y + inner * rng.uniform(-JITTER, JITTER, y.shape) * cell
    vertex = np.stack([x, y, np.zeros_like(x)], axis=-1)
    out = []
    for j in range(CELLS):
        for i in range(CELLS):
            a, b, c, d = vertex[j, i], vertex[j, i + 1], vertex[j + 1, i + 1], vertex[j + 1, i]
            if (i + j) % 2 == 0:
                out += [(a, b, c), (a, c, d)]  # diagonal a-c
            else:
                out += [(a, b, d), (b, c, d)]  # diagonal b-d
    return np.array(out)


def write_binary_stl(path, tris):
    with open(path, "wb") as file:
        file.write(b"mesh_plane: 20 x 20 jittered cells of the plane z = 0".ljust(80, b" "))
        file.write(struct.pack("<I", len(tris)))
        for t in tris:
            normal = np.cross(t[1] - t[0], t[2] - t[0])
            normal /= np.linalg.norm(normal)
            file.write(struct.pack("<12fH", *normal, *t[0], *t[1], *t[2], 0))


if __name__ == "__main__":
    write_binary_stl(Path(__file__).with_name("plane.stl"), triangles())
