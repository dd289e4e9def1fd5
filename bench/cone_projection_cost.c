/* Cost of one projection onto the friction cone of a complementarity contact
 * (src/contact/cone_projection.c): the exact one (App. C) and the sequential
 * one (Chrono's), in ns per projection.
 *
 *   fricdem_bench_cone [INPUTS [PASSES [REPEATS]]]      (defaults 4096 20 300)
 *
 * INPUTS random reactions (seeded) are projected PASSES times each, from a
 * copy (the projection works in place); the fastest of REPEATS runs is kept.
 * Many short runs (a few ms each) and their minimum make the figure stable on
 * a machine that other work shares: a run that was not interrupted.
 * The copy and the loop alone ("copy only") are timed the same way and
 * subtracted. One CSV line per (inputs, method):
 *   inputs, method, ns_per_projection, ns_copy_only, share_inside, share_polar, share_1, share_2, share_3
 * where the shares are the fractions of inputs inside the set, in the polar
 * cone, and with 1, 2 or 3 cones active at the exact projection. Input sets:
 *   mixed   g_n in [-0.2, 1], sliding, rolling and spinning parts of the size
 *           of their limits (mu = 0.5, rho = 0.05, sigma = 0.02): a mixture
 *           of every case, as in a solver's early iterations;
 *   inside  every input strictly inside (sticking contacts, late iterations);
 *   box     every component uniform in [-1, 1] (mostly all cones active). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "contact/cone_projection.h"

static const double MU = 0.5, RHO = 0.05, SIGMA = 0.02;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t state = 12345;
static double uniform(double lo, double hi) /* splitmix64 */
{
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return lo + (hi - lo) * (double)(z >> 11) * 0x1p-53;
}

static void make_inputs(const char* set, double* x, int n)
{
    for (int i = 0; i < n; ++i) {
        double* v = x + 6 * i;
        if (strcmp(set, "box") == 0) {
            for (int k = 0; k < 6; ++k) {
                v[k] = uniform(-1.0, 1.0);
            }
        } else if (strcmp(set, "inside") == 0) {
            double g = uniform(0.01, 1.0), s = 0.7; /* |part| <= 0.7^(1/2) * 0.7 limit */
            v[0] = g;
            v[1] = uniform(-s, s) * MU * g, v[2] = uniform(-s, s) * MU * g;
            v[3] = uniform(-s, s) * RHO * g, v[4] = uniform(-s, s) * RHO * g;
            v[5] = uniform(-s, s) * SIGMA * g;
        } else { /* mixed */
            v[0] = uniform(-0.2, 1.0);
            v[1] = uniform(-1.0, 1.0) * MU, v[2] = uniform(-1.0, 1.0) * MU;
            v[3] = uniform(-1.0, 1.0) * RHO, v[4] = uniform(-1.0, 1.0) * RHO;
            v[5] = uniform(-1.0, 1.0) * SIGMA;
        }
    }
}

/* Case counts of the exact projection: inside, polar, 1, 2, 3 cones active. */
static void classify(const double* x, int n, double share[5])
{
    int count[5] = {0};
    for (int i = 0; i < n; ++i) {
        double p[6];
        memcpy(p, x + 6 * i, sizeof p);
        fd_cone_project(p, MU, RHO, SIGMA);
        if (memcmp(p, x + 6 * i, sizeof p) == 0) {
            ++count[0];
        } else if (p[0] == 0.0) {
            ++count[1];
        } else {
            double a1 = p[1] * p[1] + p[2] * p[2], a2 = p[3] * p[3] + p[4] * p[4], a3 = p[5] * p[5];
            double r = p[0] * p[0] * (1.0 - 1e-12);
            int active = (a1 >= MU * MU * r) + (a2 >= RHO * RHO * r) + (a3 >= SIGMA * SIGMA * r);
            ++count[active < 1 ? 2 : active + 1];
        }
    }
    for (int k = 0; k < 5; ++k) {
        share[k] = (double)count[k] / n;
    }
}

enum { COPY_ONLY, EXACT, SEQUENTIAL };

static volatile double sink;

static double time_method(int method, const double* x, int n, int passes, int repeats)
{
    double best = 1e300;
    for (int rep = 0; rep < repeats; ++rep) {
        double sum = 0.0;
        double start = now();
        for (int pass = 0; pass < passes; ++pass) {
            for (int i = 0; i < n; ++i) {
                double p[6];
                memcpy(p, x + 6 * i, sizeof p);
                if (method == EXACT) {
                    fd_cone_project(p, MU, RHO, SIGMA);
                } else if (method == SEQUENTIAL) {
                    fd_cone_project_sequential(p, MU, RHO, SIGMA);
                } else {
                    __asm__ volatile("" : : "r"(p) : "memory"); /* keep the copy */
                }
                sum += p[0] + p[1] + p[5];
            }
        }
        double elapsed = now() - start;
        sink = sum;
        best = elapsed < best ? elapsed : best;
    }
    return 1e9 * best / ((double)n * passes);
}

int main(int argc, char** argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4096;
    int passes = argc > 2 ? atoi(argv[2]) : 20;
    int repeats = argc > 3 ? atoi(argv[3]) : 300;
    if (n <= 0 || passes <= 0 || repeats <= 0) {
        fprintf(stderr, "usage: %s [INPUTS [PASSES [REPEATS]]]\n", argv[0]);
        return 2;
    }
    double* x = malloc((size_t)n * 6 * sizeof *x);
    if (x == NULL) {
        return 1;
    }
    static const char* sets[] = {"mixed", "inside", "box"};
    printf("inputs,method,ns_per_projection,ns_copy_only,share_inside,share_polar,share_1,share_2,share_3\n");
    for (unsigned s = 0; s < sizeof sets / sizeof sets[0]; ++s) {
        make_inputs(sets[s], x, n);
        double share[5];
        classify(x, n, share);
        double base = time_method(COPY_ONLY, x, n, passes, repeats);
        double exact = time_method(EXACT, x, n, passes, repeats);
        double sequential = time_method(SEQUENTIAL, x, n, passes, repeats);
        printf("%s,exact,%.2f,%.2f,%.3f,%.3f,%.3f,%.3f,%.3f\n", sets[s], exact - base, base, share[0], share[1],
               share[2], share[3], share[4]);
        printf("%s,sequential,%.2f,%.2f,%.3f,%.3f,%.3f,%.3f,%.3f\n", sets[s], sequential - base, base, share[0],
               share[1], share[2], share[3], share[4]);
    }
    free(x);
    return 0;
}
