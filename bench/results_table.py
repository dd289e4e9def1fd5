"""Prints a benchmark's results CSV as a right-aligned table: what bench/run.sh
and bench/trajectory_cost.sh show at their end, with the path of the CSV.

    import sys; sys.path.insert(0, "bench")
    from results_table import print_table
    print_table(sys.argv[1], "title of {machine}", [("N", 9, "", lambda r: int(r["n"])), ...])
"""
import csv


def print_table(path, title, columns):
    """After a blank line, `title` (str.format'ed with the first row's fields,
    e.g. "{machine}"), a header of the columns' headings and a line for each
    row of the CSV at `path`; then where the results are. `columns`: (heading,
    width, format, value) each; value(row) is the cell (row: the CSV row as a
    dict of strings), written right-aligned in `width` characters with the
    format spec `format` (".2f", ".4g"; "" for as it is)."""
    with open(path, newline="") as file:
        rows = list(csv.DictReader(file))
    print()
    print(title.format(**rows[0]))
    print(" ".join(f"{heading:>{width}}" for heading, width, _, _ in columns))
    for row in rows:
        print(" ".join(f"{value(row):>{width}{spec}}" for _, width, spec, value in columns))
    print(f"\nresults: {path}")
