#!/usr/bin/python3
"""Fails when a built library holds a fused multiply-add instruction.

    check_no_fma.py LIBRARY

fricdem's results are the same bits on every machine and in every clone of a
vectorised kernel (target_clones: AVX-512, AVX2, the baseline) only while no
product is fused into a sum: CMakeLists.txt compiles with -ffp-contract=off
for that. GCC 12's SLP vectoriser can still emit vfmaddsub* for alternating
sums of products (a quaternion product): a refactor of the integrator's loop
did so, and its AVX-512 clone then gave other bits than the others. This
check disassembles the library (objdump, from binutils, which gcc brings)
and names every function that holds vfmadd*, vfmsub*, vfnmadd*, vfnmsub*,
vfmaddsub* or vfmsubadd*. Exit 0 when there are none, 1 when there are, 2
when the library cannot be read.
"""
import re
import shutil
import subprocess
import sys

FUSED = re.compile(r"\tv(fn?m(add|sub)|fmaddsub|fmsubadd)[0-9]")
FUNCTION = re.compile(r"^[0-9a-f]+ <(.+)>:$")


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.split("\n\n")[1].strip(), file=sys.stderr)
        return 2
    objdump = shutil.which("objdump")
    if objdump is None:
        print("check_no_fma: objdump is missing (Debian package binutils)", file=sys.stderr)
        return 2
    result = subprocess.run([objdump, "-d", "--no-show-raw-insn", sys.argv[1]], capture_output=True, text=True)
    if result.returncode != 0:
        print(f"check_no_fma: {sys.argv[1]}: {result.stderr.strip()}", file=sys.stderr)
        return 2
    found = {}
    function = "?"
    for line in result.stdout.splitlines():
        head = FUNCTION.match(line)
        if head:
            function = head.group(1)
        elif FUSED.search(line):
            found[function] = found.get(function, 0) + 1
    for name, count in sorted(found.items()):
        print(f"{sys.argv[1]}: {name}: {count} fused multiply-add instruction(s)", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
