"""pytest setup: the package from this checkout (python/), whatever the
working directory; ctest passes FRICDEM_LIBRARY, the library under test."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
