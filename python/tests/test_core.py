"""The Python package over libfricdem (python/fricdem/core.py): scenes,
worlds built from Python, states as numpy arrays, contacts, energy,
stages, checkpoints and errors, each against a closed form or the C
library's own result."""
import math
from pathlib import Path

import numpy as np
import pytest

import fricdem
from fricdem import _library

ROOT = Path(__file__).resolve().parents[2]
BALL = ROOT / "scenes" / "examples" / "ball_on_plane.yaml"


def test_every_public_struct_has_the_library_layout():
    # The import compared them all; this says how many, so that a header
    # that stops being read (a regex that no longer matches) is noticed.
    names = _library._struct_names(_library.ROOT / "include")
    assert len(names) >= 33
    for name in names:
        assert _library.lib.fd_library_struct_size(name.encode()) == _library.ffi.sizeof(name)


def test_free_fall_follows_the_symplectic_euler_closed_form():
    # Symplectic Euler from rest: v_n = -g n dt, z_n = z_0 - g dt^2 n (n + 1) / 2,
    # exact up to the round-off of n additions (1e-15 relative per step).
    with fricdem.Scene(BALL) as scene:
        world = scene.world
        z0 = world.states()["position"][1, 2]
        dt, g, n = world.time_step, 9.81, 500
        world.step(n)  # 5 ms: 1.2e-4 m of fall, far from the floor 0.04 m below
        state = world.states()
        assert state["velocity"][1, 2] == pytest.approx(-g * n * dt, rel=1e-12)
        assert state["position"][1, 2] == pytest.approx(z0 - g * dt * dt * n * (n + 1) / 2, rel=1e-12)
        assert world.step_count == n
        assert world.time == pytest.approx(n * dt, rel=1e-15)


def test_a_scene_error_raises_with_file_line_and_key(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(BALL.read_text().replace("radius: 0.01", "radius: -0.01"))
    with pytest.raises(fricdem.FricdemError) as caught:
        fricdem.Scene(bad)
    assert str(caught.value).startswith(f"{bad}:")
    assert "bodies[1].shape.radius: must be > 0" in str(caught.value)
    assert caught.value.status == "parse error"
    with pytest.raises(fricdem.FricdemError, match="radious"):
        fricdem.Scene(BALL, {"bodies.ball.shape.radious": 0.02})


def make_world(**options):
    world = fricdem.World(gravity=(0, 0, -9.81), time_step=1e-5, **options)
    steel = world.add_material("steel", density=7800.0)
    world.set_contact_law(steel, steel, normal={"model": "hooke", "k_n": 1e5, "restitution": 0.2},
                          slide={"model": "dsds", "k_t": 4e4, "gamma_t": 2.0, "mu": 0.5})
    return world, steel


def test_a_contacts_own_books_are_kept_on_request_and_the_totals_do_not_change():
    # A ball dropped on a floor, with and without each contact's lifetime
    # books (World(contact_energy_books=...)): the world's totals are the same
    # bits; the contact's dashpot book holds what it dissipated only when kept.
    runs = {}
    for keep in (False, True):
        world, steel = make_world(energy_ledger=True, contact_energy_books=keep)
        world.add_plane((0, 0, 0), (0, 0, 1), steel, name="floor")
        world.add_sphere(0.005, (0, 0, 0.0052), steel, name="ball", velocity=(0.01, 0, -0.2))
        world.step(2000)  # 20 ms: the impact is over, the ball rests on the floor
        runs[keep] = (world.energy(), world.contacts())
    (light, light_contacts), (kept, kept_contacts) = runs[False], runs[True]
    assert light == kept
    assert kept["dashpot"][0] > 0.0
    assert kept_contacts["dashpot_normal"][0] > 0.0 and light_contacts["dashpot_normal"][0] == 0.0
    assert kept_contacts["stored_normal"][0] == light_contacts["stored_normal"][0] > 0.0


def test_a_world_built_in_python_carries_the_weight_of_a_resting_sphere():
    world, steel = make_world(energy_ledger=True)
    world.add_plane((0, 0, 0), (0, 0, 1), steel, name="floor")
    ball = world.add_sphere(0.005, (0, 0, 0.006), steel, name="ball")
    world.step(20000)  # 0.2 s; the dashpot (e = 0.2) stops the bounce within ~5 ms
    contacts = world.contacts()
    assert len(contacts["id"]) == 1
    weight = 7800.0 * 4.0 / 3.0 * math.pi * 0.005 ** 3 * 9.81
    assert contacts["normal_force"][0] == pytest.approx(weight, rel=1e-9)
    assert contacts["penetration"][0] == pytest.approx(weight / 1e5, rel=1e-9)
    assert world.find_body("ball") == ball
    bodies = world.bodies()
    assert bodies["radius"][ball] == 0.005 and bodies["static"][0] and not bodies["static"][ball]
    assert bodies["mass"][ball] == pytest.approx(7800.0 * 4.0 / 3.0 * math.pi * 0.005 ** 3, rel=1e-15)
    energy = world.energy()
    # At rest: no kinetic energy left; the books close (docs/energy.md) to the
    # integrator's error, far below what the dashpot took (the drop's energy).
    assert energy["kinetic_translational"] + energy["kinetic_rotational"] < 1e-15
    assert abs(energy["closure_error"]) < 0.05 * sum(energy["dashpot"])
    assert len(energy["stored"]) == 4


def test_set_states_moves_a_sphere_in_free_space():
    world = fricdem.World(gravity=(0, 0, 0), time_step=1e-4)
    glass = world.add_material("glass", density=2500.0)
    world.add_sphere(0.01, (0, 0, 0), glass)
    velocity = np.array([[0.5, -0.25, 1.0]])
    world.set_states(velocity=velocity)
    world.step(1000)
    # x = v t with t = 0.1 s; each step adds v dt: round-off ~1e-16 x 1000 steps.
    np.testing.assert_allclose(world.states()["position"], velocity * 0.1, rtol=1e-12)
    with pytest.raises(ValueError):
        world.set_states(velocity=np.zeros((2, 3)))
    with pytest.raises(fricdem.FricdemError, match="unit quaternion"):
        world.set_states(orientation=np.array([[2.0, 0, 0, 0]]))


def test_stages_run_and_a_resumed_scene_ends_in_the_same_bits(tmp_path):
    text = BALL.read_text().split("output:")[0] + (
        "stages:\n"
        "  - {name: fall, duration: 0.05}\n"
        "  - {name: light, duration: 0.05, gravity: [0, 0, -1]}\n")
    path = tmp_path / "staged.yaml"
    path.write_text(text)
    with fricdem.Scene(path) as scene:
        assert scene.stages == ["fall", "light"]
        scene.run(until=0.05)
        checkpoint = tmp_path / "half.h5"
        scene.write_checkpoint(checkpoint)
        scene.run()
        assert scene.stage == 1
        straight = scene.world.state_hash()
    with fricdem.Scene.resume(checkpoint) as resumed:
        assert resumed.world.time == pytest.approx(0.05, rel=1e-12)
        resumed.run()
        assert resumed.world.state_hash() == straight


def test_overrides_take_python_values():
    with fricdem.Scene(BALL, {"bodies.ball.position": [0.0, 0.0, 0.2], "time.step": 2e-5}) as scene:
        assert scene.world.time_step == 2e-5
        assert scene.world.states()["position"][1, 2] == 0.2


def test_the_tilt_study_example_runs_and_finds_an_avalanche(tmp_path):
    # examples/python/tilt_study.py (docs/python.md): its pile must settle
    # and avalanche before 45 degrees: glass with mu = 0.5 and rolling
    # friction 0.1 holds a surface a little steeper than atan(0.5) = 27
    # degrees, and a tilted box always fails before 45.
    import subprocess
    import sys
    figure = tmp_path / "tilt.png"
    run = subprocess.run([sys.executable, str(ROOT / "examples" / "python" / "tilt_study.py"), str(figure)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert figure.stat().st_size > 10000
    line = next(line for line in run.stdout.splitlines() if "avalanches at" in line)
    angle = int(line.split("avalanches at")[1].split()[0])
    assert 20 <= angle <= 45


def test_walls_from_python_a_belt_and_a_box():
    # A disk wall moving at V under a sphere at rest: friction brings it to
    # rolling without slip at 2 V / 7 (its angular momentum about the
    # contact point is conserved in the belt's frame; docs/walls.md). The
    # tangential dashpot damps the stick oscillation of the spring.
    world, steel = make_world()
    belt, parts = world.add_wall("disk", steel, radius=1.0, name="belt")
    assert parts == 1
    ball = world.add_sphere(0.005, (0, 0, 0.005 - 4e-6), steel)
    world.set_wall_motion(belt, velocity=(0.1, 0, 0))
    world.step(30000)  # 0.3 s; slipping ends after 2 V / (7 mu g) = 6 ms
    v = world.states()["velocity"][ball]
    # The 6 ms of slip take 600 steps of a first-order scheme: an error of
    # order dt / 6 ms = 2e-3 at most (1e-4 is seen).
    assert v[0] == pytest.approx(2 * 0.1 / 7, rel=2e-3)
    # The belt's reaction: the weight, and no friction once rolling.
    weight = 7800.0 * 4.0 / 3.0 * math.pi * 0.005 ** 3 * 9.81
    reaction = world.wall_reaction(belt)
    assert reaction["force"][2] == pytest.approx(-weight, rel=1e-6)
    assert abs(reaction["force"][0]) < 1e-6 * weight

    # A box of 6 faces (one body each) holding a sphere on its bottom face.
    world, steel = make_world()
    first, parts = world.add_wall("box", steel, size=(0.05, 0.05, 0.05), position=(1, 0, 0), name="bin")
    assert parts == 6
    world.add_sphere(0.005, (1, 0, -0.02), steel)
    world.step(30000)
    assert world.wall_reaction(first)["force"][2] == pytest.approx(-weight, rel=1e-6)
    with pytest.raises(fricdem.FricdemError, match="part of the wall"):
        world.set_wall_motion(first + 1, velocity=(1, 0, 0))


def test_run_with_outputs_writes_what_the_cli_writes(tmp_path):
    # Scene.run(out=...) follows the CLI's loop (contacts recorded before
    # the steps whose rows need them, stages, the final state at close): the
    # same scene gives the same files, byte for byte.
    import subprocess
    sets = ["time.duration=0.05", "output.csv_interval=0.005"]
    # The CLI of the build under test (ctest sets FRICDEM_CLI, as
    # FRICDEM_LIBRARY), else the repository's builds.
    import os
    cli = Path(os.environ["FRICDEM_CLI"]) if "FRICDEM_CLI" in os.environ else ROOT / "build" / "test" / "fricdem"
    if not cli.exists():
        cli = ROOT / "build" / "release" / "fricdem"
    run = subprocess.run([str(cli), "run", str(BALL), "-q", "-o", str(tmp_path / "cli")] +
                         [word for s in sets for word in ("--set", s)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    with fricdem.Scene(BALL, sets) as scene:
        scene.run(out=tmp_path / "python")
    for name in ("bodies.csv", "contacts.csv", "energy.csv", "walls.csv"):
        assert (tmp_path / "python" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name
    # What the writer counted is what the files hold (the final state's rows
    # were written at the last step, before the count).
    on_disk = sum(p.stat().st_size for p in (tmp_path / "python").rglob("*") if p.is_file())
    assert scene.output_cost["bytes"] == on_disk
    assert scene.output_cost["seconds"] > 0.0
    with pytest.raises(fricdem.FricdemError, match="is not empty"):
        fricdem.Scene(BALL, sets).run(out=tmp_path / "python")


def test_import_lammps_writes_a_scene_that_runs_as_lammps_did(tmp_path):
    # scenes/lammps/decks/mixing.in (types 1 and 2 mixed by the importer) with
    # --var steps 500: LAMMPS's kinetic energy at step 500 is in the golden file
    # of tests/test_lammps_golden.c; the run keeps it within 1e-8 (observed 2e-12,
    # the same check as the C test's).
    golden = {}
    for line in (ROOT / "tests" / "golden" / "lammps_import.csv").read_text().splitlines():
        parts = line.split(",")
        if parts[0] == "mixing" and parts[1] == "500":
            golden[parts[2]] = float(parts[3])
    scene_path = fricdem.import_lammps(ROOT / "scenes" / "lammps" / "decks" / "mixing.in", tmp_path / "mixing.yaml",
                                       variables={"steps": 500})
    with fricdem.Scene(scene_path) as scene:
        assert scene.world.time_step == 1e-5
        scene.world.step(500)
        energy = scene.world.energy()
        assert energy["kinetic_translational"] == pytest.approx(golden["kinetic_translational"], rel=1e-8)
        assert energy["kinetic_rotational"] == pytest.approx(golden["kinetic_rotational"], rel=1e-8)
    # A deck it cannot translate names its line, and the scene file is kept.
    bad = tmp_path / "bad.in"
    bad.write_text("units si\natom_style sphere\nfix 1 all langevin 1 1 1 7\n")
    with pytest.raises(fricdem.FricdemError, match=r"bad.in:3: fix: .*langevin"):
        fricdem.import_lammps(bad, scene_path, overwrite=True)
    assert "mixing" in scene_path.read_text()
