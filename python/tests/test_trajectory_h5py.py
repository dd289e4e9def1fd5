"""The HDF5 trajectory (output.trajectory, docs/output-format.md) read with
h5py, the way a user reads it: a run whose body count changes (an inlet
pours spheres that an outlet removes) is written through the library's
fd_output, and h5py must find the H5MD tree, a unit on every dataset, one
frame per 0.01 s with the world's slot count, and in the last frame the
world's states bit for bit (tombstones as NaN where the world has them)."""
import h5py
import numpy as np
import pytest

import fricdem
from fricdem._library import ffi, lib

SCENE = """\
name: pour
time: {step: 1.0e-4, duration: 0.2}
materials: [{name: glass, density: 2500}]
contacts:
  - {materials: [glass, glass], normal: {model: hooke, k_n: 1.0e4, restitution: 0.3}}
bodies:
  - {name: floor, static: true, material: glass, shape: {type: plane, normal: [0, 0, 1]}}
generators:
  - {type: lattice, count: 8, name_prefix: s, material: glass, radius: 0.01,
     region: {min: [-0.03, -0.03, 0.02], max: [0.03, 0.03, 0.1]}}
inlets:
  - {name: pour, material: glass, radius: 0.005, rate: 200, count: 40, velocity: [1.0, 0, 0],
     region: {box: {min: [0.1, -0.02, 0.05], max: [0.14, 0.02, 0.09]}}}
outlets:
  - {name: drain, region: {box: {min: [0.2, -1, -1], max: [2, 1, 1]}}}
output: {csv_interval: 0.01, bodies_csv: false, contacts_csv: false, energy_csv: false, trajectory: true}
"""

STEPS, PER_FRAME = 2000, 100  # 0.2 s; trajectory_interval defaults to csv_interval, 0.01 s = 100 steps


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """Runs the scene with its outputs in a temporary directory; returns the
    directory, the slot and contact counts after every step, and the last
    states."""
    directory = tmp_path_factory.mktemp("trajectory")
    scene_path = directory / "pour.yaml"
    scene_path.write_text(SCENE)
    slots, contacts = [], []
    with fricdem.Scene(scene_path, {"output.directory": str(directory / "out")}) as scene:
        world = scene.world
        world.prepare()
        output = lib.fd_output_open(world._world, ffi.addressof(scene._scene, "output"))
        assert output != ffi.NULL, ffi.string(lib.fd_last_error()).decode()
        for n in range(STEPS + 1):
            if n:
                world.step()
            assert lib.fd_output_write(output, world._world) == 0, ffi.string(lib.fd_last_error()).decode()
            slots.append(world.body_count)
            contacts.append(lib.fd_world_contact_count(world._world))
        states = world.states()
        assert lib.fd_output_close(output, world._world) == 0, ffi.string(lib.fd_last_error()).decode()
    return directory / "out", slots, contacts, states


def test_h5py_opens_the_h5md_tree(run):
    out, _, _, _ = run
    with h5py.File(out / "trajectory.h5", "r") as f:
        assert list(f["h5md"].attrs["version"]) == [1, 1]
        assert f["h5md/creator"].attrs["name"] in (b"fricdem", "fricdem")
        assert f["h5md/modules/units"].attrs["system"] == "SI"
        for element in ("position", "orientation", "velocity", "angular_velocity", "radius", "mass", "species", "id"):
            assert {"step", "time", "value"} <= set(f["particles/all"][element].keys()), element
        assert f["particles/all/orientation/value"].shape[2] == 4
        assert f["connectivity/contacts"].attrs["particles_group"]
        assert f[f["connectivity/contacts"].attrs["particles_group"]].name == "/particles/all"
        assert [name.decode() if isinstance(name, bytes) else name for name in f["parameters/materials"][:]] == ["glass"]
        # Chunked and compressed, extendible along frames and rows.
        position = f["particles/all/position/value"]
        assert position.compression == "gzip" and position.shuffle
        assert position.maxshape[:2] == (None, None) and position.chunks[0] == 1


def test_every_dataset_has_a_unit(run):
    out, _, _, _ = run
    missing = []
    with h5py.File(out / "trajectory.h5", "r") as f:
        def visit(name, item):
            if isinstance(item, h5py.Dataset) and "unit" not in item.attrs:
                missing.append(name)
        f.visititems(visit)
        assert f["particles/all/velocity/value"].attrs["unit"] == "m s-1"
        assert f["particles/all/position/time"].attrs["unit"] == "s"
    assert missing == []


def test_frames_counts_and_last_state_match_the_world(run):
    out, slots, contacts, states = run
    with h5py.File(out / "trajectory.h5", "r") as f:
        steps = f["particles/all/position/step"][:]
        np.testing.assert_array_equal(steps, np.arange(0, STEPS + 1, PER_FRAME))
        count = f["observables/all/count/value"][:]
        np.testing.assert_array_equal(count, [slots[s] for s in steps])
        np.testing.assert_array_equal(f["observables/contacts/count/value"][:], [contacts[s] for s in steps])
        n = count[-1]
        last = {name: f[f"particles/all/{name}/value"][-1, :n]
                for name in ("position", "orientation", "velocity", "angular_velocity")}
        ids = f["particles/all/id/value"][-1, :n]
    assert max(slots) > slots[0], "the inlet added no slot"
    for name, value in last.items():
        # Exact: the file holds the doubles the world had; NaN rows are removed bodies.
        np.testing.assert_array_equal(value, states[name], err_msg=name)
    removed = np.isnan(states["position"][:, 0])
    np.testing.assert_array_equal(ids < 0, removed)
    assert removed.any(), "the outlet removed nothing by the last frame"


def test_the_xdmf_index_names_the_frames(run):
    out, slots, _, _ = run
    text = (out / "trajectory.xdmf").read_text()
    assert text.count('<Grid Name="bodies_') == STEPS // PER_FRAME + 1
    assert f'NumberOfElements="{slots[-1]}"' in text


PARAVIEW_SCRIPT = """\
import sys
from paraview.simple import XDMFReader
from paraview import servermanager
reader = XDMFReader(FileNames=[sys.argv[1]])
reader.UpdatePipelineInformation()
times = list(reader.TimestepValues)
reader.UpdatePipeline(times[-1])
data = servermanager.Fetch(reader)
arrays = data.GetPointData()
print("FRAMES", len(times))
print("POINTS", data.GetNumberOfPoints())
print("X", " ".join(float.hex(data.GetPoint(i)[0]) for i in range(data.GetNumberOfPoints())))
print("ARRAYS", " ".join(sorted(arrays.GetArrayName(i) for i in range(arrays.GetNumberOfArrays()))))
"""


def test_paraview_reads_the_index(run, tmp_path):
    """Only where ParaView's pvbatch is installed (Debian's paraview and
    python3-paraview; not an install dependency): its XDMF Reader must give
    the last frame's points, the world's x coordinates exactly."""
    import shutil
    import subprocess
    pvbatch = shutil.which("pvbatch")
    if pvbatch is None:
        pytest.skip("ParaView (pvbatch) is not installed")
    out, slots, _, states = run
    script = tmp_path / "read.py"
    script.write_text(PARAVIEW_SCRIPT)
    result = subprocess.run([pvbatch, str(script), str(out / "trajectory.xdmf")], capture_output=True, text=True,
                            timeout=300)
    lines = dict(line.split(" ", 1) for line in result.stdout.splitlines() if line.split(" ", 1)[0].isupper())
    assert int(lines["FRAMES"]) == STEPS // PER_FRAME + 1, result.stdout + result.stderr
    assert int(lines["POINTS"]) == slots[-1]
    x = np.array([float.fromhex(value) for value in lines["X"].split()])  # exact, nan included
    np.testing.assert_array_equal(x, states["position"][:, 0])
    assert set(lines["ARRAYS"].split()) >= {"velocity", "angular_velocity", "orientation", "radius", "mass",
                                             "material", "shape", "id"}
