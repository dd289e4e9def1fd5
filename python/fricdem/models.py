"""The contact models of the registry, from the parameter tables next to
each model's code (src/contact/): the same table that the scene loader
checks parameters against, `fricdem models` prints and docs/parameters.md
is generated from (scripts/parameters_page.py). Each parameter says where it
comes from (`source`): the paper and equation, or the peer engine's option.

    import fricdem
    hooke = fricdem.model("normal", "hooke")
    print(hooke.parameters["k_n"].unit)        # N/m
    print(fricdem.model("roll", "fang_negrut").parameters["K_R"].source)  # Fang & Negrut Eq. (2b)
    print(fricdem.model("slide", "dsds").help_text())  # its paper and every parameter

Must not touch: the world and the scene (it only reads the model registry).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ._library import ffi, lib

MECHANISMS = ("normal", "slide", "roll", "spin")


@dataclass(frozen=True)
class Parameter:
    """One parameter of a sub-model: its name in a law (scenes, World.set_contact_law),
    unit, default (None when required), inclusive bounds, one line of doc and
    its source: the paper and equation it comes from ("Fang & Negrut Eq. (2b)"),
    the peer engine's documented option ("LAMMPS pair granular hooke: damping
    mass_velocity"), or "fricdem: ..." for fricdem's own choice."""
    name: str
    unit: str
    default: float | None
    minimum: float
    maximum: float
    doc: str
    source: str

    def range_text(self) -> str:
        """The bounds as `fricdem models` prints them: [a, b], with ( or ) at an infinite end."""
        if math.isnan(self.minimum) and math.isnan(self.maximum):
            return "any"
        low = -math.inf if math.isnan(self.minimum) else self.minimum
        high = math.inf if math.isnan(self.maximum) else self.maximum
        return f"{'(' if math.isinf(low) else '['}{_number(low)}, {_number(high)}{')' if math.isinf(high) else ']'}"


@dataclass(frozen=True)
class Model:
    """A sub-model of the registry: one law of one mechanism, with the paper
    and equations it implements (doc) and its parameters in table order."""
    name: str
    mechanism: str
    doc: str
    parameters: dict[str, Parameter]

    def help_text(self) -> str:
        """Its doc and one line per parameter (name, unit, default, range, doc, source)."""
        lines = [f"{self.mechanism} model '{self.name}': {self.doc}", ""]
        for p in self.parameters.values():
            default = "required" if p.default is None else _number(p.default)
            lines.append(f"  {p.name} [{p.unit}] = {default}, in {p.range_text()}: {p.doc} [source: {p.source}]")
        return "\n".join(lines)


def _number(value: float) -> str:
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:g}"


def _text(pointer) -> str:
    return ffi.string(pointer).decode() if pointer != ffi.NULL else ""


def _model(info) -> Model:
    parameters = {}
    for k in range(info.param_count):
        p = info.params[k]
        default = None if math.isnan(p.default_value) else p.default_value
        parameters[_text(p.name)] = Parameter(_text(p.name), _text(p.unit), default, p.min_value, p.max_value,
                                              _text(p.doc), _text(p.source))
    return Model(_text(info.name), MECHANISMS[info.mechanism], _text(info.doc), parameters)


def models() -> list[Model]:
    """Every sub-model of the registry, in its order (by mechanism, as `fricdem models` lists them)."""
    found = [_model(lib.fd_model_at(i)) for i in range(lib.fd_model_count())]
    return sorted(found, key=lambda m: MECHANISMS.index(m.mechanism))


def model(mechanism: str, name: str) -> Model:
    """The sub-model `name` of `mechanism` ("normal", "slide", "roll" or "spin"); KeyError when there is none."""
    if mechanism not in MECHANISMS:
        raise KeyError(f"unknown mechanism '{mechanism}' (one of {', '.join(MECHANISMS)})")
    info = lib.fd_model_find(MECHANISMS.index(mechanism), name.encode())
    if info == ffi.NULL:
        raise KeyError(f"no {mechanism} model '{name}' (fricdem.models() lists them)")
    return _model(info)


def parameters_text() -> str:
    """Every model's parameters, one line each, by mechanism: the part of
    World.set_contact_law's docstring that comes from the tables."""
    lines = []
    for m in models():
        names = ", ".join(f"{p.name} [{p.unit}]" + ("" if p.default is None else f" = {p.default:g}")
                          for p in m.parameters.values())
        lines.append(f"        {m.mechanism} {m.name}: {names or '(no parameters)'}")
    return "\n".join(lines)
