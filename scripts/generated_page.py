"""What the generators of docs pages share (include_graph.py, parameters_page.py):
write the page, or with --check exit 1 when the committed page differs from
what the code gives now (ctest runs the checks, so a page cannot drift)."""
import argparse
import sys
from pathlib import Path


def write_or_check(page: Path, text: str, description: str, root: Path) -> int:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--check", action="store_true", help=f"exit 1 when {page.relative_to(root)} is stale")
    args = parser.parse_args()
    name = page.relative_to(root)
    if args.check:
        if not page.is_file() or page.read_text() != text:
            print(f"{name} is stale: run {Path(sys.argv[0]).name} and commit the page", file=sys.stderr)
            return 1
        return 0
    page.write_text(text)
    print(f"wrote {name}")
    return 0
