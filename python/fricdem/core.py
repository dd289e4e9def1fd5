"""Worlds and scenes from Python: the objects over libfricdem's C API.

A `Scene` is a YAML scene file loaded (or a checkpoint resumed) with its
world, stages and output settings; a `World` is the simulation itself, built
from a scene or from Python calls. Body states come and go as numpy arrays
of every slot (index = body index, as in bodies.csv); a removed body's slot
reads NaN. Units are SI throughout (docs/api.md). Every C error raises
`FricdemError`, whose message is the library's: "FILE:LINE: KEY: what is
wrong" for a scene.

Must not touch: libfricdem's internals (only the public C API, through
_library.py).
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Iterable, Mapping

import numpy as np

from ._library import ffi, lib

MECHANISMS = ("normal", "slide", "roll", "spin")
SHAPES = {"sphere": 0, "plane": 1, "ellipsoid": 2, "cylinder": 3, "disk": 4, "mesh": 5}


class FricdemError(RuntimeError):
    """An error reported by libfricdem: `status` is its short name
    ("parse error", "invalid argument", ...), the message its text."""

    def __init__(self, status: str, message: str):
        super().__init__(message)
        self.status = status


def _text(pointer) -> str:
    return ffi.string(pointer).decode() if pointer != ffi.NULL else ""


def _check(status: int) -> None:
    if status != 0:
        raise FricdemError(_text(lib.fd_status_string(status)), _text(lib.fd_last_error()))


def _vec3(value) -> tuple[float, float, float]:
    x, y, z = (float(v) for v in value)
    return (x, y, z)


def _struct_dict(value) -> dict:
    """A cffi struct as a dict of numbers (arrays as lists)."""
    out = {}
    for name, field in ffi.typeof(value).fields:
        item = getattr(value, name)
        if field.type.kind == "array":
            out[name] = [item[k] for k in range(field.type.length)]
        elif field.type.kind == "struct":
            out[name] = _struct_dict(item)
        else:
            out[name] = item
    return out


# The mechanisms in fd_mechanism's order and the books of fd_energy_books,
# as contacts.csv names their columns (book_mechanism).
_MECHANISMS = ("normal", "slide", "roll", "spin")
_BOOKS = ("stored", "dashpot", "slip", "created", "work")


def _world_reading(function, doc: str) -> property:
    """A read-only World property whose value is one call of a C getter on
    the world (fd_world_time(world), ...): the plain numbers a World reports."""
    return property(lambda self: function(self._world), doc=doc)


class World:
    """A simulation world. Build one with `World(gravity=..., time_step=...)`
    and the add_* methods, or take `Scene(...).world`."""

    def __init__(self, gravity=(0.0, 0.0, -9.81), time_step: float = 1e-4, *, threads: int = 1,
                 energy_ledger: bool = False, contact_energy_books: bool = False, events: bool = False,
                 _pointer=None, _owner=None):
        if _pointer is not None:
            self._world = _pointer
            self._owner = _owner  # the scene that owns the world
            self._keep = []
            return
        definition = lib.fd_default_world_def()
        definition.gravity = _vec3(gravity)
        definition.time_step = time_step
        definition.thread_count = threads
        definition.energy_ledger = energy_ledger
        # With the ledger, each contact's own books over its life (contact
        # records' dashpot, slip, created, work); without, the world's totals
        # and each contact's stored energy only (fd_world_def).
        definition.contact_energy_books = contact_energy_books
        definition.events = events
        pointer = lib.fd_world_create(ffi.addressof(definition))
        if pointer == ffi.NULL:
            _check(lib.FD_ERR_INVALID_ARGUMENT)
        self._world = ffi.gc(pointer, lib.fd_world_free)
        self._owner = None
        self._keep = []  # C strings the world points to until it copies them

    # ------------------------------------------------------------ building

    def add_material(self, name: str, density: float = 1000.0, youngs_modulus: float = 0.0,
                     poisson_ratio: float = 0.3) -> int:
        """A material; returns its id (used by add_* and set_contact_law)."""
        definition = lib.fd_default_material_def()
        encoded = ffi.new("char[]", name.encode())
        definition.name = encoded
        definition.density = density
        definition.youngs_modulus = youngs_modulus
        definition.poisson_ratio = poisson_ratio
        material = lib.fd_world_create_material(self._world, ffi.addressof(definition))
        if material.index1 == 0:
            _check(lib.FD_ERR_INVALID_ARGUMENT)
        return material.index1

    def set_contact_law(self, material_a: int, material_b: int, **mechanisms: Mapping) -> None:
        """The law between two materials, one mapping per mechanism:
        normal={"model": "hooke", "k_n": 1e5, "restitution": 0.5},
        slide={"model": "dsds", "k_t": 4e4, "mu": 0.5}, roll=..., spin=...
        (parameters by name, as in scenes; fricdem.models() and `fricdem models` list them with
        their units, defaults and ranges, docs/parameters.md too)."""
        definition = lib.fd_default_contact_law_def()
        keep = []
        for mechanism, spec in mechanisms.items():
            if mechanism not in MECHANISMS:
                raise ValueError(f"unknown mechanism '{mechanism}' (one of {', '.join(MECHANISMS)})")
            spec = dict(spec)
            sub = definition.submodel[MECHANISMS.index(mechanism)]
            model = ffi.new("char[]", str(spec.pop("model")).encode())
            keep.append(model)
            sub.model = model
            if len(spec) > len(sub.params):
                raise ValueError(f"{mechanism}: at most {len(sub.params)} parameters")
            for k, (name, value) in enumerate(spec.items()):
                encoded = ffi.new("char[]", name.encode())
                keep.append(encoded)
                sub.params[k].name = encoded
                sub.params[k].value = float(value)
            sub.param_count = len(spec)
        _check(lib.fd_world_set_contact_law(self._world, {"index1": material_a}, {"index1": material_b},
                                            ffi.addressof(definition)))

    def _create(self, definition, name: str | None) -> int:
        if name is not None:
            encoded = ffi.new("char[]", name.encode())
            definition.name = encoded
        body = lib.fd_world_create_body(self._world, ffi.addressof(definition))
        if body.index1 == 0:
            _check(lib.FD_ERR_INVALID_ARGUMENT)
        return body.index1 - 1

    def add_sphere(self, radius: float, position, material: int, *, velocity=(0, 0, 0),
                   angular_velocity=(0, 0, 0), mass: float = 0.0, static: bool = False,
                   name: str | None = None) -> int:
        """A sphere; returns its body index."""
        definition = lib.fd_default_body_def()
        definition.shape.type = lib.FD_SHAPE_SPHERE
        definition.shape.radius = radius
        definition.material = {"index1": material}
        definition.position = _vec3(position)
        definition.velocity = _vec3(velocity)
        definition.angular_velocity = _vec3(angular_velocity)
        definition.mass = mass
        definition.type = lib.FD_BODY_STATIC if static else lib.FD_BODY_DYNAMIC
        return self._create(definition, name)

    def add_plane(self, point, normal, material: int, *, name: str | None = None) -> int:
        """A static half-space through `point`, solid behind `normal`."""
        definition = lib.fd_default_body_def()
        definition.shape.type = lib.FD_SHAPE_PLANE
        definition.shape.plane_normal = _vec3(normal)
        definition.material = {"index1": material}
        definition.position = _vec3(point)
        definition.type = lib.FD_BODY_STATIC
        return self._create(definition, name)

    def add_wall(self, shape: str, material: int, *, position=(0, 0, 0), orientation=(1, 0, 0, 0),
                 name: str | None = None, radius: float = 0.0, length: float = 0.0, capped: bool = False,
                 inner_radius: float = 0.0, size=None, vertices=None, triangles=None, stl: str | None = None,
                 scale=(1, 1, 1), feature_angle: float = 30.0) -> tuple[int, int]:
        """A wall (docs/walls.md): shape "cylinder" (radius, length, capped),
        "disk" (radius, inner_radius), "box" (size: full edge lengths) or
        "mesh" (vertices (n, 3) and triangles (m, 3) arrays, or an stl file,
        scaled by scale; patches split at feature_angle degrees), placed at
        position with orientation [w, x, y, z] (body z is a cylinder's axis
        and a disk's normal). Returns (first body index, number of bodies):
        a capped cylinder is 3 bodies, a box or mesh one per patch."""
        definition = lib.fd_default_body_def()
        definition.type = lib.FD_BODY_STATIC
        definition.material = {"index1": material}
        definition.position = _vec3(position)
        definition.orientation = tuple(float(q) for q in orientation)
        keep = []
        if name is not None:
            keep.append(ffi.new("char[]", name.encode()))
            definition.name = keep[-1]
        if shape == "cylinder":
            definition.shape.type = lib.FD_SHAPE_CYLINDER
            definition.shape.radius, definition.shape.length, definition.shape.capped = radius, length, capped
        elif shape == "disk":
            definition.shape.type = lib.FD_SHAPE_DISK
            definition.shape.radius, definition.shape.inner_radius = radius, inner_radius
        elif shape in ("box", "mesh"):
            mesh = self._mesh(shape, size, vertices, triangles, stl, scale, feature_angle)
            definition.shape.type = lib.FD_SHAPE_MESH
            definition.shape.mesh = mesh
            definition.shape.mesh_patch = -1
        else:
            raise ValueError(f"unknown wall shape '{shape}' (cylinder, disk, box or mesh)")
        first = ffi.new("fd_body_id*")
        count = ffi.new("int*")
        _check(lib.fd_world_create_wall(self._world, ffi.addressof(definition), first, count))
        return first[0].index1 - 1, count[0]

    def _mesh(self, shape, size, vertices, triangles, stl, scale, feature_angle):
        message = ffi.new("char[]", 1024)
        angle = math.radians(feature_angle)
        if shape == "box":
            if size is None:
                raise ValueError("a box wall needs size=(lx, ly, lz)")
            mesh = lib.fd_mesh_create_box(_vec3(size), message, 1024)
        elif stl is not None:
            mesh = lib.fd_mesh_read_stl(str(stl).encode(), _vec3(scale), angle, message, 1024)
        else:
            if vertices is None or triangles is None:
                raise ValueError("a mesh wall needs vertices and triangles, or stl")
            points = np.ascontiguousarray(np.asarray(vertices, dtype=np.float64) * np.asarray(scale, dtype=float))
            corners = np.ascontiguousarray(np.asarray(triangles, dtype=np.int32))
            mesh = lib.fd_mesh_create(ffi.cast("double*", points.ctypes.data), len(points),
                                      ffi.cast("int*", corners.ctypes.data), len(corners), angle, message, 1024)
        if mesh == ffi.NULL:
            raise FricdemError("invalid argument", _text(message))
        _check(lib.fd_world_adopt_mesh(self._world, mesh))
        return mesh

    def set_wall_motion(self, body: int, *, velocity=(0, 0, 0), velocity_ramp: float = 0.0, amplitude=(0, 0, 0),
                        frequency: float = 0.0, angular_velocity=(0, 0, 0), angular_velocity_ramp: float = 0.0,
                        start_time: float = 0.0) -> None:
        """Moves a wall (its first body index) by the closed form of
        docs/walls.md from now on: velocity (m/s) with a ramp (s), a
        sinusoid (amplitude m, frequency Hz), a rotation about the wall's
        position (rad/s, ramp s), from start_time (s)."""
        motion = lib.fd_default_wall_motion()
        motion.velocity, motion.velocity_ramp = _vec3(velocity), velocity_ramp
        motion.amplitude, motion.frequency = _vec3(amplitude), frequency
        motion.angular_velocity, motion.angular_velocity_ramp = _vec3(angular_velocity), angular_velocity_ramp
        motion.start_time = start_time
        _check(lib.fd_world_set_wall_motion(self._world, self._body(body), ffi.addressof(motion)))

    def wall_reaction(self, body: int) -> dict:
        """The contacts' reaction on a wall (all its bodies): force (N),
        torque about its position (N m), power it gives the bodies (W)."""
        r = lib.fd_world_wall_reaction(self._world, self._body(body))
        return {"force": np.array([r.force.x, r.force.y, r.force.z]),
                "torque": np.array([r.torque.x, r.torque.y, r.torque.z]), "power": r.power}

    def _body(self, index: int):
        body = lib.fd_world_body_at(self._world, int(index))
        if body.index1 == 0:
            raise KeyError(f"no body at index {index}")
        return body

    def prepare(self) -> None:
        """Checks the world and finds the first contacts (step does it when needed)."""
        _check(lib.fd_world_prepare(self._world))

    # ------------------------------------------------------------ running

    def step(self, count: int = 1) -> None:
        for _ in range(int(count)):
            _check(lib.fd_world_step(self._world))

    time = _world_reading(lib.fd_world_time, "Simulated time (s).")
    time_step = _world_reading(lib.fd_world_time_step, "The time step (s).")
    step_count = _world_reading(lib.fd_world_step_count, "Steps taken.")
    body_count = _world_reading(lib.fd_world_body_count, "Body slots (removed bodies' slots included; they read NaN).")

    def find_body(self, name: str) -> int:
        body = lib.fd_world_find_body(self._world, name.encode())
        if body.index1 == 0:
            raise KeyError(f"no body is named '{name}'")
        return body.index1 - 1

    def set_gravity(self, gravity) -> None:
        _check(lib.fd_world_set_gravity(self._world, _vec3(gravity)))

    # ------------------------------------------------------------ states

    def states(self) -> dict[str, np.ndarray]:
        """position (n, 3) m, orientation (n, 4) [w, x, y, z], velocity (n, 3)
        m/s, angular_velocity (n, 3) rad/s: copies, one row per body slot."""
        n = self.body_count
        buffer = ffi.new("fd_body_state[]", max(n, 1))
        _check(lib.fd_world_get_states(self._world, 0, n, buffer))
        flat = np.frombuffer(ffi.buffer(buffer, n * ffi.sizeof("fd_body_state")), dtype=np.float64).reshape(n, 13)
        flat = flat.copy()
        return {"position": flat[:, 0:3], "orientation": flat[:, 3:7], "velocity": flat[:, 7:10],
                "angular_velocity": flat[:, 10:13]}

    def set_states(self, position=None, orientation=None, velocity=None, angular_velocity=None) -> None:
        """Sets the given arrays (one row per body slot; the others keep
        their values). Static bodies and removed slots keep theirs."""
        current = self.states()
        n = self.body_count
        flat = np.empty((n, 13))
        for name, columns, given in (("position", slice(0, 3), position), ("orientation", slice(3, 7), orientation),
                                     ("velocity", slice(7, 10), velocity),
                                     ("angular_velocity", slice(10, 13), angular_velocity)):
            value = current[name] if given is None else np.asarray(given, dtype=np.float64)
            if value.shape != current[name].shape:
                raise ValueError(f"{name}: expected shape {current[name].shape}, got {value.shape}")
            flat[:, columns] = value
        buffer = ffi.new("fd_body_state[]", max(n, 1))
        ffi.memmove(buffer, np.ascontiguousarray(flat).tobytes(), n * ffi.sizeof("fd_body_state"))
        _check(lib.fd_world_set_states(self._world, 0, n, buffer))

    def bodies(self) -> dict[str, np.ndarray]:
        """What each body slot is: name, shape (0 sphere, 1 plane, 2
        ellipsoid, 3 cylinder, 4 disk, 5 mesh; -1 removed), static, radius (m;
        bounding radius for non-spheres, inf for planes), mass (kg),
        material (id, 0 for a removed slot)."""
        n = self.body_count
        out = {"name": np.empty(n, dtype=object), "shape": np.full(n, -1), "static": np.zeros(n, dtype=bool),
               "radius": np.full(n, np.nan), "mass": np.full(n, np.nan), "material": np.zeros(n, dtype=int)}
        for b in range(n):
            body = lib.fd_world_body_at(self._world, b)
            if body.index1 == 0:
                continue
            info = lib.fd_body_get_info(self._world, body)
            out["name"][b] = _text(info.name)
            out["shape"][b] = info.shape.type
            out["static"][b] = info.type == lib.FD_BODY_STATIC
            out["radius"][b] = info.shape.radius if info.shape.type == lib.FD_SHAPE_SPHERE else info.bounding_radius
            out["mass"][b] = info.mass
            out["material"][b] = info.material.index1
        return out

    # ------------------------------------------------------------ contacts, energy, events

    def request_contacts(self) -> None:
        """Makes the next step record the contact details (worlds loaded from a
        scene record them only on request, as the CLI does)."""
        lib.fd_world_request_contacts(self._world)

    def contacts(self) -> dict[str, np.ndarray]:
        """The contacts after the last step, one entry per field: id, body_i,
        body_j (body indices, i < j), point_i, point_j (k, 3) m, normal (k,
        3) into body i, penetration (m), normal_force (N), slide_force,
        force_on_i, roll_torque_i, roll_torque_j, spin_torque_i,
        spin_torque_j (k, 3; N, N m; world frame), the energy books (J)
        stored_normal ... work_spin as contacts.csv names them (with the
        ledger: stored always, the others over the contact's life when the
        world keeps them, World(contact_energy_books=True); else 0), and each
        model output column by its name (NaN where a contact's law lacks it).
        Fails unless the last step recorded them (request_contacts)."""
        count = lib.fd_world_contact_count(self._world)
        names = [_text(lib.fd_world_contact_column_name(self._world, c))
                 for c in range(lib.fd_world_contact_column_count(self._world))]
        vectors = ("point_i", "point_j", "normal", "slide_force", "force_on_i", "roll_torque_i", "roll_torque_j",
                   "spin_torque_i", "spin_torque_j")
        out = {"id": np.zeros(count, dtype=np.uint64), "body_i": np.zeros(count, dtype=int),
               "body_j": np.zeros(count, dtype=int), "penetration": np.zeros(count),
               "normal_force": np.zeros(count)}
        out.update({name: np.zeros((count, 3)) for name in vectors})
        books = [(book, m, f"{book}_{mechanism}") for m, mechanism in enumerate(_MECHANISMS) for book in _BOOKS]
        out.update({name: np.zeros(count) for _, _, name in books})
        columns = np.full((count, len(names)), np.nan)
        view = ffi.new("fd_contact_view*")
        for k in range(count):
            _check(lib.fd_world_get_contact(self._world, k, view))
            out["id"][k] = view.id
            out["body_i"][k] = view.body_i.index1 - 1
            out["body_j"][k] = view.body_j.index1 - 1
            out["penetration"][k] = view.geometry.penetration
            out["normal_force"][k] = view.loads.normal_force
            for name in vectors:
                source = view.geometry if name in ("point_i", "point_j", "normal") else view.loads
                v = getattr(source, name)
                out[name][k] = (v.x, v.y, v.z)
            for book, m, name in books:
                out[name][k] = getattr(view.energy[m], book)
            for c in range(min(view.column_count, len(names))):
                columns[k, c] = view.columns[c]
        for c, name in enumerate(names):
            out.setdefault(name, columns[:, c])
        return out

    def energy(self) -> dict:
        """The energy ledger's totals (J; docs/energy.md), the fields of
        fd_world_energy: kinetic_translational, kinetic_rotational,
        gravitational, stored / dashpot / slip / created (lists per
        mechanism: normal, slide, roll, spin), released, external_work,
        constraint_work, inserted, removed, closure_error, entered."""
        return _struct_dict(lib.fd_world_get_energy(self._world))

    def events(self) -> list[dict]:
        """Contact events of the last step (World(events=True) or the scene's
        world.events): type, mechanism, contact id, bodies."""
        pointer = lib.fd_world_events(self._world)
        out = []
        for k in range(lib.fd_world_event_count(self._world)):
            e = pointer[k]
            out.append({"type": _text(lib.fd_event_type_name(e.type)), "mechanism": _text(lib.fd_mechanism_name(e.mechanism)),
                        "contact_id": e.contact_id, "body_i": e.body_i.index1 - 1, "body_j": e.body_j.index1 - 1,
                        "time": e.time, "step": e.step})
        return out

    def state_hash(self) -> int:
        """The hash of every body's state and every contact's history, as the
        CLI's summary prints it: equal hashes, equal runs."""
        return int(lib.fd_world_state_hash(self._world))

    # ------------------------------------------------------------ checkpoints

    def write_checkpoint(self, path: str | Path) -> None:
        _check(lib.fd_world_write_checkpoint(self._world, str(path).encode()))

    def read_checkpoint(self, path: str | Path) -> None:
        """Puts the state of a checkpoint of this same world (built the same
        way) back into it."""
        _check(lib.fd_world_read_checkpoint(self._world, str(path).encode()))


class Scene:
    """A scene file loaded with its world: Scene("drum.yaml", {"time.step": 1e-5}).
    The world is `scene.world`; `run()` goes through the stages (or the
    scene's duration) as the CLI does, without writing outputs."""

    def __init__(self, path: str | Path, overrides: Mapping | Iterable[str] | None = None, *, _resume=None):
        self._scene = ffi.new("fd_scene*")
        texts = _override_texts(overrides)
        keep = [ffi.new("char[]", t.encode()) for t in texts]
        array = ffi.new("char*[]", keep) if keep else ffi.NULL
        if _resume is not None:
            _check(lib.fd_scene_resume(str(_resume).encode(), array, len(keep), self._scene))
        else:
            _check(lib.fd_scene_load(str(path).encode(), array, len(keep), self._scene))
        self.world = World(_pointer=self._scene.world, _owner=self)

    @classmethod
    def resume(cls, checkpoint: str | Path, overrides: Mapping | Iterable[str] | None = None) -> "Scene":
        """The scene a checkpoint was written from, in the checkpoint's state
        (fricdem resume): only time.duration, output.* and world.threads may
        be overridden."""
        return cls(None, overrides, _resume=checkpoint)

    def close(self) -> None:
        if self._scene is not None and self._scene.world != ffi.NULL:
            lib.fd_scene_free(self._scene)
        self._scene = None

    def __enter__(self) -> "Scene":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    @property
    def name(self) -> str:
        return _text(self._scene.name)

    @property
    def duration(self) -> float:
        return self._scene.duration

    @property
    def stages(self) -> list[str]:
        return [_text(lib.fd_scene_stage_name(self._scene, s)) for s in range(lib.fd_scene_stage_count(self._scene))]

    @property
    def stage(self) -> int:
        """The stage under way, -1 before the first."""
        return self._scene.stage

    def begin_stage(self, stage: int) -> None:
        _check(lib.fd_scene_begin_stage(self._scene, stage))

    def stage_finished(self) -> bool:
        return bool(lib.fd_scene_stage_finished(self._scene))

    def run(self, until: float | None = None, callback=None, every: int = 1, *, out: str | Path | None = None,
            overwrite: bool = False) -> None:
        """Steps to `until` (s; default the scene's duration), beginning each
        stage when the one before it ends (docs/stages.md); callback(scene)
        after every `every` steps. With `out`, writes the scene's outputs
        (CSV, VTU, trajectory, as its `output:` asks) into that directory as
        `fricdem run --out` does, the same files to the bit; `overwrite`
        as its --overwrite. Afterwards `output_cost` holds what writing them
        cost: bytes (in the files), seconds (wall time writing), and
        direct_bytes / cached_bytes (large blocks past and through the page
        cache, output.direct_io; docs/output-format.md)."""
        world = self.world
        end = self.duration if until is None else until
        stages = lib.fd_scene_stage_count(self._scene)
        if stages and self.stage < 0:
            self.begin_stage(0)
        output = self._open_output(out, overwrite) if out is not None else None
        try:
            steps = int(round((end - world.time) / world.time_step))
            for k in range(steps):
                if output is not None and (lib.fd_output_wants_contacts(output, world._world) or
                                           (k + 1 == steps and lib.fd_output_writes_contacts(output))):
                    world.request_contacts()
                world.step()
                if output is not None:
                    _check(lib.fd_output_write(output, world._world))
                if callback is not None and (k + 1) % every == 0:
                    callback(self)
                if stages and self.stage_finished():
                    if self.stage + 1 == stages:
                        return
                    self.begin_stage(self.stage + 1)
                    if output is not None:
                        self._apply_stage_output(output)
        finally:
            if output is not None:
                cost = lib.fd_output_get_cost(output)
                self.output_cost = {"bytes": cost.bytes, "seconds": cost.seconds,
                                    "direct_bytes": cost.direct_bytes, "cached_bytes": cost.cached_bytes}
                _check(lib.fd_output_close(output, world._world))

    def _open_output(self, out, overwrite):
        directory = str(out).encode()
        if len(directory) >= len(self._scene.output.directory):
            raise ValueError(f"output directory path too long: {out}")
        _check(lib.fd_output_claim_directory(directory, overwrite))
        self._scene.output.directory = directory
        world = self.world._world
        lib.fd_world_set_contact_output(world, lib.FD_CONTACT_OUTPUT_ON_REQUEST)
        lib.fd_world_request_contacts(world)  # the first state's, for the rows at t = 0
        _check(lib.fd_world_prepare(world))
        output = lib.fd_output_open(world, ffi.addressof(self._scene.output))
        if output == ffi.NULL:
            _check(lib.FD_ERR_IO)
        self._apply_stage_output(output)
        _check(lib.fd_output_write(output, world))
        return output

    def _apply_stage_output(self, output):
        if lib.fd_scene_stage_count(self._scene) > 0:
            csv_interval = ffi.new("double*")
            vtu_interval = ffi.new("double*")
            lib.fd_scene_stage_output_intervals(self._scene, self._scene.stage, csv_interval, vtu_interval)
            lib.fd_output_set_intervals(output, self.world._world, csv_interval[0], vtu_interval[0])

    def write_checkpoint(self, path: str | Path) -> None:
        """A checkpoint that `Scene.resume` (and `fricdem resume`) continue from."""
        _check(lib.fd_scene_write_checkpoint(self._scene, str(path).encode()))


def import_lammps(deck: str | Path, scene: str | Path, variables: Mapping[str, object] | None = None,
                  overwrite: bool = False, notes: bool = False) -> Path:
    """Writes `scene` (a fricdem scene file) from the LAMMPS granular deck
    `deck`, as `fricdem import-lammps` does (docs/lammps.md, "Importing a
    deck"); `variables` are index variables defined before the deck, as
    LAMMPS's -var NAME VALUE; `notes` prints on stderr what was accepted
    without effect. Returns the scene's path, to pass to `Scene`. A command
    without a fricdem equivalent raises FricdemError naming DECK:LINE, and
    nothing is written."""
    items = [(str(name).encode(), str(value).encode()) for name, value in (variables or {}).items()]
    keep = [ffi.new("char[]", text) for pair in items for text in pair]  # alive for the call
    names = ffi.new("const char*[]", keep[0::2] or [ffi.NULL])
    values = ffi.new("const char*[]", keep[1::2] or [ffi.NULL])
    deck_text, scene_text = ffi.new("char[]", str(deck).encode()), ffi.new("char[]", str(scene).encode())
    definition = ffi.new("fd_lammps_import_def*", {"deck": deck_text, "scene": scene_text, "var_count": len(items),
                                                   "var_names": names, "var_values": values,
                                                   "overwrite": overwrite, "notes": notes})
    _check(lib.fd_lammps_import(definition))
    return Path(scene)


def _override_texts(overrides) -> list[str]:
    if overrides is None:
        return []
    if isinstance(overrides, Mapping):
        return [f"{key}={_yaml_value(value)}" for key, value in overrides.items()]
    return [str(o) for o in overrides]


def _yaml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple, np.ndarray)):
        return "[" + ", ".join(_yaml_value(v) for v in value) + "]"
    if isinstance(value, float):
        return repr(value)
    return str(value)
