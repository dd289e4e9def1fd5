/* Cost per contact-step of contact laws on the same settling pile.
 *
 *   fricdem_bench_friction SCENE SETTLE_STEPS TIMED_STEPS [KEY=VALUE ...]
 *
 * Loads SCENE (a bench pile from bench/make_pile.py) with the overrides
 * (e.g. contacts.0.slide={model: fang_negrut, mu_s: 0.5, mu_k: 0.4, K_E: 1e4}),
 * runs SETTLE_STEPS untimed so that most spheres touch, then times
 * TIMED_STEPS and prints one CSV line:
 *   contacts_per_step, seconds_per_step, ns_per_contact_model, ns_per_contact_step, ns_per_particle_step,
 *   cpu_seconds_per_step
 * ns_per_contact_model is the time in the contact kernels (normal and
 * friction models, from fd_world_get_profile) per contact: the cost of the
 * law itself. ns_per_contact_step divides the whole step (broad phase, narrow
 * phase, kernels, integration) by the contacts: what a user pays per contact.
 * cpu_seconds_per_step is the process's CPU time per step (all threads): with
 * one thread, the step's cost without the time other jobs took from it on a
 * shared machine (bench/lammps_compare.sh compares engines by it).
 * FRICDEM_BENCH_KINETIC=1 adds the kinetic energy at the end on stderr, and
 * the state's hash (fd_world_state_hash: two builds that should give the
 * same bits must print the same hash);
 * FRICDEM_BENCH_VERBOSE=1 the time per stage and the neighbour-list builds. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_scene.h"
#include "fricdem/io.h"

static double clock_seconds(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double now(void) { return clock_seconds(CLOCK_MONOTONIC); }

int main(int argc, char** argv)
{
    fd_scene scene;
    fd_world* world = bench_load_scene(argc, argv, "SCENE SETTLE_STEPS TIMED_STEPS", &scene);
    if (world == NULL) {
        return 2;
    }
    int settle = atoi(argv[2]), timed = atoi(argv[3]);
    for (int s = 0; s < settle; ++s) {
        if (fd_world_step(world) != FD_OK) {
            fprintf(stderr, "error: %s\n", fd_last_error());
            return 1;
        }
    }
    double contacts = 0.0;
    fd_world_profile before = fd_world_get_profile(world);
    double start = now();
    double cpu_start = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
    for (int s = 0; s < timed; ++s) {
        if (fd_world_step(world) != FD_OK) {
            fprintf(stderr, "error: %s\n", fd_last_error());
            return 1;
        }
        contacts += fd_world_contact_count(world);
    }
    double elapsed = now() - start;
    double cpu = clock_seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
    fd_world_profile after = fd_world_get_profile(world);
    double models = after.contact_models - before.contact_models;
    int bodies = 0;
    for (int b = 0; b < fd_world_body_count(world); ++b) {
        bodies += fd_body_get_info(world, fd_world_body_at(world, b)).type == FD_BODY_DYNAMIC;
    }
    printf("%.1f,%.6g,%.4g,%.4g,%.4g,%.6g\n", contacts / timed, elapsed / timed, 1e9 * models / contacts,
           1e9 * elapsed / contacts, 1e9 * elapsed / ((double)bodies * timed), cpu / timed);
    if (getenv("FRICDEM_BENCH_KINETIC")) {
        /* Translational and rotational kinetic energy at the end (J), to check
         * that two engines ran the same flow. */
        fd_world_energy energy = fd_world_get_energy(world);
        fprintf(stderr, "kinetic energy %.10g translational %.10g rotational %.10g\n",
                energy.kinetic_translational + energy.kinetic_rotational, energy.kinetic_translational,
                energy.kinetic_rotational);
        fprintf(stderr, "state hash %016llx\n", (unsigned long long)fd_world_state_hash(world));
        if (!isnan(energy.closure_error)) {
            /* The ledger's books to the bit (a change that must not move them
             * is checked against this line). */
            uint64_t books = 1469598103934665603ull;
            const double* fields[] = {energy.stored, energy.dashpot, energy.slip, energy.created};
            for (int f = 0; f < 4; ++f) {
                for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
                    uint64_t bits;
                    memcpy(&bits, &fields[f][m], sizeof bits);
                    books = (books ^ bits) * 1099511628211ull;
                }
            }
            fprintf(stderr, "ledger hash %016llx closure error %.6g J\n", (unsigned long long)books,
                    energy.closure_error);
        }
    }
    if (getenv("FRICDEM_BENCH_VERBOSE")) {
        fprintf(stderr,
                "per step [us]: neighbour list %.1f, distance %.1f, laws %.1f, accumulate %.1f, integrate %.1f\n",
                1e6 * (after.broad_phase - before.broad_phase) / timed,
                1e6 * (after.narrow_phase - before.narrow_phase) / timed,
                1e6 * (after.contact_models - before.contact_models) / timed,
                1e6 * (after.accumulate - before.accumulate) / timed,
                1e6 * (after.integrate - before.integrate) / timed);
        fd_world_memory memory = fd_world_get_memory(world);
        fprintf(stderr, "memory [bytes per body]: bodies %.0f, neighbour list %.0f, contacts %.0f, scratch %.0f\n",
                (double)memory.bodies / fd_world_body_count(world),
                (double)memory.neighbor_list / fd_world_body_count(world),
                (double)memory.contacts / fd_world_body_count(world),
                (double)memory.scratch / fd_world_body_count(world));
        fprintf(stderr, "neighbour builds %lld (%lld during the timed steps), entries %lld (%.2f per body)\n",
                (long long)after.neighbor_builds, (long long)(after.neighbor_builds - before.neighbor_builds),
                (long long)after.neighbor_entries, (double)after.neighbor_entries / bodies);
    }
    fd_scene_free(&scene);
    return 0;
}
