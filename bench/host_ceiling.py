#!/usr/bin/env python3
"""Prints this machine's own two-thread ceiling from fricdem_bench_host's CSV
(bench/host_scaling.c), and, given bench/run.sh's results.csv, fricdem's
thread speed-up per N beside it. Used by bench/run.sh and
bench/ranks_compare.sh (ranks share the memory as threads do).

    host_ceiling.py HOST_CSV [RESULTS_CSV]
"""
import csv
import sys

LOOPS = (("compute", "dependent multiply-adds, no memory traffic"),
         ("cache", "triad over 1 MiB a thread, in cache"),
         ("memory", "triad over 96 MiB, main memory"))


def main(host_csv, results_csv=None):
    host = {r["loop"]: r for r in csv.DictReader(open(host_csv))}
    threads = int(next(iter(host.values()))["threads"])
    print(f"\nthis machine's own ceiling, {threads} threads against one (bench/host_scaling.c, the fastest of 7 "
          "alternated repetitions each)")
    for loop, what in LOOPS:
        r = host[loop]
        rate = (f", {float(r['one_thread_gb_per_s']):.1f} -> {float(r['threads_gb_per_s']):.1f} GB/s"
                if r["one_thread_gb_per_s"] else "")
        print(f"  {loop:>8} {float(r['speedup']):5.2f}x  ({what}{rate})")
    if results_csv is None:
        return
    rows = list(csv.DictReader(open(results_csv)))
    for n in sorted({int(r["n"]) for r in rows}):
        rate = {int(r["threads"]): float(r["particle_steps_per_s"]) for r in rows if int(r["n"]) == n}
        if 1 in rate and threads in rate:
            print(f"  fricdem N = {n:>8}: {rate[threads] / rate[1]:5.2f}x (goal 1.8x at 10^5; a step streams several "
                  "hundred bytes a sphere, so it lies between the memory and the compute ceilings)")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: host_ceiling.py HOST_CSV [RESULTS_CSV]")
    main(*sys.argv[1:])
