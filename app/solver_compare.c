/* fricdem-solver-compare: the residual of the complementarity problem after
 * each iteration of each solver, from the same state.
 *
 *   fricdem-solver-compare SCENE.yaml STEPS [--iterations N] [--set key=value ...]
 *
 * Loads the scene three times, runs STEPS steps of each with the scene's own
 * solver (deterministic: the three states are bitwise equal), then takes one
 * more step with each of APGD, Jacobi and Gauss-Seidel from a cold start
 * (zero reactions) and N iterations with no early stop, and prints CSV:
 * iteration, residual_apgd, residual_jacobi, residual_gauss_seidel (m/s).
 * Used by scripts/validation/complementarity_solvers.py.
 *
 * Must not touch: the world's storage (it drives the steppers through the public API). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fricdem/fricdem.h"
#include "fricdem/io.h"

int main(int argc, char** argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s SCENE.yaml STEPS [--iterations N] [--set key=value ...]\n", argv[0]);
        return 2;
    }
    const char* path = argv[1];
    long steps = strtol(argv[2], NULL, 10);
    int iterations = 500;
    const char* overrides[64];
    int override_count = 0;
    for (int a = 3; a < argc; ++a) {
        if (strcmp(argv[a], "--iterations") == 0 && a + 1 < argc) {
            iterations = atoi(argv[++a]);
        } else if (strcmp(argv[a], "--set") == 0 && a + 1 < argc && override_count < 64) {
            overrides[override_count++] = argv[++a];
        } else {
            fprintf(stderr, "%s: unknown argument '%s'\n", argv[0], argv[a]);
            return 2;
        }
    }
    if (steps < 0 || iterations < 1) {
        fprintf(stderr, "%s: STEPS must be >= 0 and --iterations >= 1\n", argv[0]);
        return 2;
    }
    const fd_solver_method methods[3] = {FD_SOLVER_APGD, FD_SOLVER_JACOBI, FD_SOLVER_GAUSS_SEIDEL};
    double* residuals = calloc((size_t)iterations * 3, sizeof *residuals);
    int counts[3] = {0, 0, 0};
    int contacts = 0;
    for (int k = 0; k < 3; ++k) {
        fd_scene scene;
        if (fd_scene_load(path, overrides, override_count, &scene) != FD_OK) {
            fprintf(stderr, "%s\n", fd_last_error());
            return 2;
        }
        if (fd_world_get_def(scene.world).stepper != FD_STEPPER_COMPLEMENTARITY) {
            fprintf(stderr, "%s: the scene does not use the complementarity stepper\n", path);
            return 2;
        }
        for (long s = 0; s < steps; ++s) {
            if (fd_world_step(scene.world) != FD_OK) {
                fprintf(stderr, "step %ld: %s\n", s, fd_last_error());
                return 1;
            }
        }
        fd_complementarity_def def = fd_world_get_def(scene.world).complementarity;
        def.solver = methods[k];
        def.max_iterations = iterations;
        def.tolerance = 1e-300; /* no early stop: the whole curve */
        def.cold_start = true;
        def.omega = 0.0;        /* each solver's default */
        if (fd_world_set_complementarity(scene.world, &def) != FD_OK || fd_world_step(scene.world) != FD_OK) {
            fprintf(stderr, "%s\n", fd_last_error());
            return 1;
        }
        const double* history;
        counts[k] = fd_world_solver_residuals(scene.world, &history);
        memcpy(residuals + (size_t)k * (size_t)iterations, history, (size_t)counts[k] * sizeof *history);
        contacts = fd_world_solver_stats(scene.world).contacts;
        fd_scene_free(&scene);
    }
    printf("# %d contacts after %ld steps of %s\n", contacts, steps, path);
    printf("iteration,residual_apgd,residual_jacobi,residual_gauss_seidel\n");
    for (int i = 0; i < iterations; ++i) {
        printf("%d", i + 1);
        for (int k = 0; k < 3; ++k) {
            if (i < counts[k]) {
                printf(",%.6e", residuals[(size_t)k * (size_t)iterations + (size_t)i]);
            } else {
                printf(",nan");
            }
        }
        printf("\n");
    }
    free(residuals);
    return 0;
}
