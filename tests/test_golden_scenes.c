/* Golden outputs (issue 11): a short run of one scene of each shipped family
 * ends in a committed state (tests/golden/scene_state_hashes.csv): the
 * world's state hash (fd_world_state_hash: every body's state, bit for bit)
 * and, to explain a change, the body and contact counts and the kinetic
 * energy. Any change of results, however small, fails here; the commit that
 * makes it regenerates the file and says why:
 *   FRICDEM_UPDATE_GOLDEN=1 build/test/test_golden_scenes
 * The hash is the same in every build of the suite (test, sanitize, release):
 * -ffp-contract=off and no fast-math keep each operation IEEE's, and the
 * sums run in contact-key order whatever the threads. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fricdem/fricdem.h"
#include "fricdem/io.h"

#define GOLDEN_FILE FRICDEM_GOLDEN_DIR "/scene_state_hashes.csv"

/* One scene per family (every stepper, every law family, inlets, periodic
 * boxes, ellipsoids), each run for a few hundred steps: long enough for
 * contacts to form, slip and break, short enough for the sanitizer suite. */
typedef struct golden_scene {
    const char* path; /* under scenes/ */
    int steps;
} golden_scene;

static const golden_scene golden_scenes[] = {
    {"demo.yaml", 20000},
    {"examples/ball_on_plane.yaml", 10000},
    {"examples/lattice_pack.yaml", 10000},
    {"examples/tilt_box.yaml", 10000},
    {"examples/drum.yaml", 5000},
    {"examples/silo.yaml", 5000},
    {"complementarity/pile_box.yaml", 60},
    {"complementarity/rolling_disk.yaml", 200},
    {"fang_negrut/stack.yaml", 400},
    {"fang_negrut/ellipsoid_fall.yaml", 400},
    {"fang_negrut/disk.yaml", 400},
    {"gas/granular_gas_small.yaml", 1000},
    {"lammps/pour.yaml", 6000},
    {"lammps/impact_roll_twist.yaml", 400},
    {"lammps/impact_mindlin.yaml", 400},
    {"pfc/ball_rrlinear.yaml", 400},
    {"repose/heap.yaml", 6000},
    {"sds/sliding_plates_csds.yaml", 400},
    {"validation/energy_ledger.yaml", 400},
};
enum { GOLDEN_SCENE_COUNT = sizeof golden_scenes / sizeof golden_scenes[0] };

typedef struct golden_row {
    char scene[128];
    int steps;
    uint64_t hash;
    int bodies;
    int contacts;
    double kinetic;
} golden_row;

static golden_row run_scene(const golden_scene* g)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/scenes/%s", FRICDEM_SOURCE_DIR, g->path);
    fd_scene scene;
    cr_assert_eq(fd_scene_load(path, NULL, 0, &scene), FD_OK, "%s: %s", g->path, fd_last_error());
    cr_assert_eq(fd_world_prepare(scene.world), FD_OK, "%s: %s", g->path, fd_last_error());
    /* Stages as the CLI runs them: the first before the first step, each
     * next one after the step that finished the one before. */
    int stages = fd_scene_stage_count(&scene);
    if (stages > 0) {
        cr_assert_eq(fd_scene_begin_stage(&scene, 0), FD_OK, "%s: %s", g->path, fd_last_error());
    }
    for (int s = 0; s < g->steps; ++s) {
        if (s == g->steps - 1) {
            fd_world_request_contacts(scene.world); /* so the last step records its contacts to count */
        }
        cr_assert_eq(fd_world_step(scene.world), FD_OK, "%s step %d: %s", g->path, s, fd_last_error());
        if (stages > 0 && scene.stage + 1 < stages && fd_scene_stage_finished(&scene)) {
            cr_assert_eq(fd_scene_begin_stage(&scene, scene.stage + 1), FD_OK, "%s: %s", g->path, fd_last_error());
        }
    }
    golden_row row = {.steps = g->steps};
    snprintf(row.scene, sizeof row.scene, "%s", g->path);
    row.hash = fd_world_state_hash(scene.world);
    row.bodies = fd_world_body_count(scene.world);
    row.contacts = fd_world_contact_count(scene.world);
    fd_world_energy energy = fd_world_get_energy(scene.world);
    row.kinetic = energy.kinetic_translational + energy.kinetic_rotational;
    fd_scene_free(&scene);
    return row;
}

static int read_golden(golden_row* rows, int capacity)
{
    FILE* file = fopen(GOLDEN_FILE, "r");
    cr_assert_not_null(file, "cannot read %s (FRICDEM_UPDATE_GOLDEN=1 writes it)", GOLDEN_FILE);
    char line[512];
    int count = 0;
    while (fgets(line, sizeof line, file) != NULL && count < capacity) {
        golden_row* r = &rows[count];
        if (line[0] != '#' && strncmp(line, "scene,", 6) != 0 &&
            sscanf(line, "%127[^,],%d,%" SCNx64 ",%d,%d,%lg", r->scene, &r->steps, &r->hash, &r->bodies, &r->contacts,
                   &r->kinetic) == 6) {
            ++count;
        }
    }
    fclose(file);
    return count;
}

Test(golden_scenes, a_short_run_of_each_scene_family_ends_in_its_committed_state, .timeout = 600)
{
    golden_row actual[GOLDEN_SCENE_COUNT];
    for (int k = 0; k < GOLDEN_SCENE_COUNT; ++k) {
        actual[k] = run_scene(&golden_scenes[k]);
    }
    if (getenv("FRICDEM_UPDATE_GOLDEN") != NULL) {
        FILE* file = fopen(GOLDEN_FILE, "w");
        cr_assert_not_null(file);
        fprintf(file,
                "# Written by FRICDEM_UPDATE_GOLDEN=1 build/test/test_golden_scenes (tests/test_golden_scenes.c).\n"
                "# A change here is a change of results: the commit that makes it says why.\n"
                "scene,steps,state_hash,bodies,contacts,kinetic_energy_J\n");
        for (int k = 0; k < GOLDEN_SCENE_COUNT; ++k) {
            fprintf(file, "%s,%d,%016" PRIx64 ",%d,%d,%.17g\n", actual[k].scene, actual[k].steps, actual[k].hash,
                    actual[k].bodies, actual[k].contacts, actual[k].kinetic);
        }
        fclose(file);
        cr_log_warn("wrote %s", GOLDEN_FILE);
        return;
    }
    golden_row golden[64];
    int count = read_golden(golden, 64);
    cr_assert_eq(count, GOLDEN_SCENE_COUNT, "%s has %d rows, the test runs %d scenes", GOLDEN_FILE, count,
                 GOLDEN_SCENE_COUNT);
    for (int k = 0; k < GOLDEN_SCENE_COUNT; ++k) {
        const golden_row *a = &actual[k], *g = &golden[k];
        cr_assert_str_eq(a->scene, g->scene, "row %d of %s", k, GOLDEN_FILE);
        cr_assert_eq(a->steps, g->steps, "%s: steps", a->scene);
        cr_expect_eq(a->hash, g->hash,
                     "%s after %d steps: state hash %016" PRIx64 ", golden %016" PRIx64
                     " (bodies %d / %d, contacts %d / %d, kinetic energy %.17g / %.17g J)",
                     a->scene, a->steps, a->hash, g->hash, a->bodies, g->bodies, a->contacts, g->contacts, a->kinetic,
                     g->kinetic);
    }
}
