"""libfricdem through cffi in ABI mode.

The C declarations are read from the public headers themselves
(include/fricdem/types.h, fricdem.h, io.h), so that the structs Python hands
to the library have the layout the library was compiled with: no second copy
of the API to keep in step. What cffi's parser cannot take is removed first:
comments, include guards, the C++ wrappers and the static inline helpers;
integer #defines are substituted where they are used.

Where things are looked up:
  FRICDEM_LIBRARY   path of libfricdem.so (ctest sets it to the build under test)
  FRICDEM_INCLUDE   the include/ folder of the headers (default: the repository's)
otherwise the repository's build/release, then build/test (`make build`, `make test`).

Must not touch: the objects built on it (core.py, models.py) and the C library's
internals: it only finds, declares and opens libfricdem.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import cffi

ROOT = Path(__file__).resolve().parents[2]
HEADERS = ("types.h", "fricdem.h", "io.h")
VERSION = "0.1.0"  # the library this package speaks to (FRICDEM_VERSION_STRING)


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def _declarations(include: Path) -> str:
    """The three public headers as one cdef text."""
    constants: dict[str, str] = {}
    body: list[str] = []
    for name in HEADERS:
        text = _strip_comments((include / "fricdem" / name).read_text())
        skipping = 0  # depth inside #ifdef __cplusplus
        for line in text.splitlines():
            stripped = line.strip()
            if stripped.startswith("#"):
                directive = stripped[1:].strip()
                if directive.startswith("ifdef __cplusplus"):
                    skipping += 1
                elif directive.startswith("endif") and skipping:
                    skipping -= 1
                else:
                    match = re.match(r"define\s+(\w+)\s+(-?\d+)\s*$", directive)
                    if match:
                        constants[match.group(1)] = match.group(2)
                continue
            if not skipping:
                body.append(line)
    text = "\n".join(body)
    # static inline helpers (bodies without nested braces) are re-done in Python.
    text = re.sub(r"static\s+inline[^;{]*\{[^{}]*\}", "", text)
    for name, value in constants.items():
        text = re.sub(rf"\b{name}\b", value, text)
    return text + "\nconst char* fd_library_version(void);\nlong fd_library_struct_size(const char* name);\n"


STRUCTS = re.compile(r"typedef\s+struct\s+(fd_\w+)\s*\{")


def _library_path() -> Path:
    given = os.environ.get("FRICDEM_LIBRARY")
    if given:
        return Path(given)
    for preset in ("release", "test"):
        candidate = ROOT / "build" / preset / "libfricdem.so"
        if candidate.exists():
            return candidate
    raise ImportError(
        "fricdem: libfricdem.so not found: build it with `make build` (or `make test`) in "
        f"{ROOT}, or set FRICDEM_LIBRARY to its path")


def _load():
    ffi = cffi.FFI()
    include = Path(os.environ.get("FRICDEM_INCLUDE", ROOT / "include"))
    ffi.cdef(_declarations(include))
    path = _library_path()
    lib = ffi.dlopen(str(path))
    built = ffi.string(lib.fd_library_version()).decode()
    if built != VERSION:
        raise ImportError(f"fricdem: {path} is version {built}, this package speaks to {VERSION}: rebuild it")
    for name in _struct_names(include):
        size = lib.fd_library_struct_size(name.encode())
        if size != ffi.sizeof(name):
            raise ImportError(f"fricdem: {name} is {size} bytes in {path} and {ffi.sizeof(name)} in the headers of "
                              f"{include}: rebuild the library from these headers")
    return ffi, lib, path


def _struct_names(include: Path) -> list[str]:
    names = []
    for header in HEADERS:
        names += STRUCTS.findall((include / "fricdem" / header).read_text())
    return names


ffi, lib, library_path = _load()
