"""Analysis helpers (python/fricdem/analysis.py) against known answers:
simple-cubic lattices, spheres cut by box corners and edges, a cone of
known slope, and a stack of spheres resting on a floor in the engine."""
import math

import numpy as np
import pytest

import fricdem
from fricdem import analysis


def cubic_lattice(n, spacing, offset=(0.0, 0.0, 0.0)):
    grid = np.arange(n) * spacing
    x, y, z = np.meshgrid(grid, grid, grid, indexing="ij")
    return np.column_stack([x.ravel(), y.ravel(), z.ravel()]) + np.asarray(offset)


def test_packing_fraction_of_a_cubic_lattice_is_pi_over_6_in_any_whole_cell_box():
    # Touching spheres on a simple-cubic lattice fill pi/6 of any box made of
    # whole cells, wherever it starts: the spheres cut by one face make up
    # what the box misses on the opposite one. Exact integration: 1e-12.
    d = 0.002
    positions = cubic_lattice(8, d)
    radii = np.full(len(positions), d / 2)
    low = np.array([0.00037, 0.0011, 0.00093])
    phi = analysis.packing_fraction(positions, radii, low, low + 5 * d)
    assert phi == pytest.approx(math.pi / 6, rel=1e-12)


def test_a_sphere_cut_by_a_corner_or_an_edge_keeps_an_eighth_or_a_quarter():
    r = 0.3
    volume = 4 / 3 * math.pi * r ** 3
    corner = analysis.packing_fraction([[0, 0, 0]], [r], [0, 0, 0], [1, 1, 1])
    edge = analysis.packing_fraction([[0, 0, 0.5]], [r], [0, 0, 0], [1, 1, 1])
    face = analysis.packing_fraction([[0.5, 0.5, 1.0 - 0.1]], [r], [0, 0, 0], [1, 1, 1])
    assert corner == pytest.approx(volume / 8, rel=1e-12)
    assert edge == pytest.approx(volume / 4, rel=1e-12)
    # A cap of height h = r - 0.1 cut off by the top face: V - pi h^2 (3 r - h) / 3.
    h = r - 0.1
    assert face == pytest.approx(volume - math.pi * h * h * (3 * r - h) / 3, rel=1e-12)


def lattice_contacts(n):
    index = np.arange(n ** 3).reshape(n, n, n)
    pairs = []
    for axis in range(3):
        a = np.take(index, range(n - 1), axis=axis).ravel()
        b = np.take(index, range(1, n), axis=axis).ravel()
        pairs += list(zip(a, b))
    i, j = np.array(pairs).T
    return i, j


def test_coordination_of_a_cubic_lattice():
    # n^3 spheres touching their lattice neighbours: 3 n^2 (n - 1) contacts,
    # Z = 2 C / N = 6 (n - 1) / n.
    n = 5
    i, j = lattice_contacts(n)
    bodies = {"static": np.zeros(n ** 3, dtype=bool), "shape": np.zeros(n ** 3, dtype=int)}
    z = analysis.coordination_number({"body_i": i, "body_j": j}, bodies)
    assert z == pytest.approx(6 * (n - 1) / n, rel=1e-15)
    # One sphere more, touching nothing: a rattler, left out with threshold 0.
    bodies = {"static": np.zeros(n ** 3 + 1, dtype=bool), "shape": np.zeros(n ** 3 + 1, dtype=int)}
    assert analysis.coordination_number({"body_i": i, "body_j": j}, bodies) == pytest.approx(6 * (n - 1) / n)


def test_repose_angle_of_a_cone_of_spheres():
    # Spheres filling a cone of slope 30 degrees on a fine grid: the surface
    # rings lie on the cone to within a grid spacing, so the fitted angle is
    # within about atan(spacing / extent) ~ 0.5 degree of 30.
    theta = math.radians(30)
    spacing, radius, height = 0.002, 0.001, 0.06
    points = []
    for x in np.arange(-0.1, 0.1, spacing):
        for y in np.arange(-0.1, 0.1, spacing):
            top = height - math.hypot(x, y) * math.tan(theta)
            for z in np.arange(radius, top - radius, spacing):
                points.append((x, y, z))
    points = np.array(points)
    result = analysis.repose_angle(points, np.full(len(points), radius), center=(0, 0, 0))
    assert result["angle"] == pytest.approx(30.0, abs=0.5)
    assert result["angle_error"] < 0.5


def test_stress_of_a_compressed_lattice_is_isotropic():
    # Each contact carries F along its axis between centres d apart: over
    # the N cells of volume d^3 that each own 3 contacts, sigma = F / d^2 on
    # the diagonal, 0 off it.
    n, d, force = 4, 0.01, 2.5
    positions = cubic_lattice(n, d)
    i, j = lattice_contacts(n)
    branch = positions[j] - positions[i]
    contacts = {"body_i": i, "body_j": j, "force_on_i": -force * branch / d, "point_i": positions[i] + branch / 2}
    volume = 3 * n * n * (n - 1) / 3 * d ** 3  # the contacts' share: C / 3 cells
    sigma = analysis.stress_tensor(contacts, positions, volume)
    np.testing.assert_allclose(sigma, np.eye(3) * force / d ** 2, rtol=1e-12, atol=1e-9)


def test_stress_of_a_resting_stack_matches_its_weight():
    # k spheres of weight W stacked on a floor: the contact below sphere m
    # carries (k - m + 1) W over a branch of 2 r (the floor's: twice the
    # centre's height r), so V sigma_zz = 2 r W k (k + 1) / 2.
    world = fricdem.World(gravity=(0, 0, -9.81), time_step=1e-5)
    steel = world.add_material("steel", density=7800.0)
    world.set_contact_law(steel, steel, normal={"model": "hooke", "k_n": 1e6, "restitution": 0.1},
                          slide={"model": "dsds", "k_t": 4e5, "mu": 0.5})
    world.add_plane((0, 0, 0), (0, 0, 1), steel)
    r, k = 0.005, 3
    for m in range(k):
        world.add_sphere(r, (0, 0, r + 2 * r * m), steel)
    world.step(30000)  # 0.3 s: the dashpots (e = 0.1) settle the stack within ~10 ms
    weight = 7800.0 * 4 / 3 * math.pi * r ** 3 * 9.81
    states = world.states()
    sigma = analysis.stress_tensor(world.contacts(), states["position"], 1.0, bodies=world.bodies())
    # The branches are 2 r less the overlaps (W / k_n ~ 4e-5 r): compare with
    # the deformed centres' heights, which the contact forces balance exactly.
    z = states["position"][1:, 2]
    expected = 2 * z[0] * k * weight + sum((k - m) * weight * (z[m] - z[m - 1]) for m in range(1, k))
    assert sigma[2, 2] == pytest.approx(expected, rel=1e-9)
    assert sigma[2, 2] == pytest.approx(2 * r * weight * k * (k + 1) / 2, rel=1e-3)
    assert abs(sigma[0, 0]) < 1e-9 * sigma[2, 2]
