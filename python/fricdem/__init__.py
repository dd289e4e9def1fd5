"""fricdem from Python: scenes, worlds, states as numpy arrays, contacts,
the energy ledger, checkpoints (core), and analysis helpers (analysis).

    import fricdem
    scene = fricdem.Scene("scenes/examples/ball_on_plane.yaml")
    scene.run(until=0.1)
    print(scene.world.states()["position"])

docs/python.md has the whole tour. The package loads libfricdem.so built by
`make build` or `make test` (python/fricdem/_library.py says where it looks).

Must not touch: libfricdem's internals (the package goes through the public C API only).
"""
from . import analysis
from ._library import VERSION as __version__
from .core import FricdemError, Scene, World, import_lammps
from .models import Model, Parameter, model, models, parameters_text

# World.set_contact_law's docstring ends with the models' parameters, from
# the same tables the library checks a law against (src/contact/).
World.set_contact_law.__doc__ += ("\n\n        Models and parameters (unit, default; no default: required):\n"
                                  + parameters_text())

__all__ = ["FricdemError", "Model", "Parameter", "Scene", "World", "analysis", "import_lammps", "model", "models",
           "__version__"]
