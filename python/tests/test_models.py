"""The registry's parameter tables seen from Python (python/fricdem/models.py):
the same tables the library checks a law against and docs/parameters.md is
generated from."""
import math

import pytest

import fricdem


def test_every_model_of_the_registry_is_listed_once_by_mechanism():
    models = fricdem.models()
    names = [(m.mechanism, m.name) for m in models]
    assert len(names) == len(set(names))
    # The four papers' models are there (a law leaves out a friction
    # mechanism by giving it no model; the normal "none" never touches).
    for expected in [("normal", "none"), ("normal", "hooke"), ("normal", "pfc_linear"), ("slide", "fang_negrut"), ("slide", "dsds"),
                     ("slide", "csds"), ("roll", "pfc_rrlinear"), ("roll", "rolling_cone")]:
        assert expected in names
    # Grouped by mechanism in that order, as `fricdem models` prints them.
    order = [("normal", "slide", "roll", "spin").index(m.mechanism) for m in models]
    assert order == sorted(order)


def test_a_parameter_carries_its_unit_default_and_range():
    hooke = fricdem.model("normal", "hooke")
    k_n = hooke.parameters["k_n"]
    assert (k_n.unit, k_n.default, k_n.minimum, math.isinf(k_n.maximum)) == ("N/m", None, 0.0, True)
    assert k_n.range_text() == "[0, inf)"
    restitution = hooke.parameters["restitution"]
    assert (restitution.default, restitution.range_text()) == (1.0, "[0.01, 1]")
    assert "k_n [N/m] = required, in [0, inf)" in hooke.help_text()
    with pytest.raises(KeyError, match="no slide model 'slippery'"):
        fricdem.model("slide", "slippery")


def test_the_library_refuses_a_value_outside_the_tables_range():
    # The bound the table states is the one the law's check applies: just
    # inside is taken, just outside is refused with the parameter's name.
    restitution = fricdem.model("normal", "hooke").parameters["restitution"]
    world = fricdem.World(time_step=1e-5)
    steel = world.add_material("steel", density=7800.0)
    world.set_contact_law(steel, steel, normal={"model": "hooke", "k_n": 1e5, "restitution": restitution.minimum})
    with pytest.raises(fricdem.FricdemError, match="restitution"):
        world.set_contact_law(steel, steel, normal={"model": "hooke", "k_n": 1e5,
                                                    "restitution": restitution.minimum * 0.5})


def test_set_contact_law_documents_every_model_from_the_tables():
    # help(World.set_contact_law) lists each model with its parameters'
    # units and defaults, built from the same tables at import.
    doc = fricdem.World.set_contact_law.__doc__
    for m in fricdem.models():
        assert f"{m.mechanism} {m.name}:" in doc
    assert "k_n [N/m]" in doc and "restitution [-] = 1" in doc


def test_every_parameter_of_every_model_says_where_it_comes_from():
    # One declaration per parameter, its source included: the paper and
    # equation, the peer engine's option, or "fricdem: ..." for its own.
    missing = [(m.mechanism, m.name, p.name) for m in fricdem.models() for p in m.parameters.values()
               if not p.source.strip()]
    assert missing == []
    assert fricdem.model("roll", "fang_negrut").parameters["K_R"].source == "Fang & Negrut Eq. (2b)"
    assert "PFC rrlinear Eq. (4)" in fricdem.model("roll", "pfc_rrlinear").parameters["rr_kr"].source
    assert "C-SDS Eq. (10)" in fricdem.model("slide", "csds").parameters["gamma_t"].source
    assert "Tasora & Anitescu" in fricdem.model("roll", "rolling_cone").parameters["rho"].source
    assert "[source: LAMMPS pair granular: normal hooke k_n]" in fricdem.model("normal", "hooke").help_text()
