/* `mpirun -np N fricdem run` (app/mpi_run.c, src/parallel/partition.h):
 * with 2 and 3 ranks, bodies.csv, contacts.csv, walls.csv, outlets.csv and
 * the VTU snapshots are the one-process files byte for byte, on a pile with
 * walls (rolling and twisting sds, two threads a rank), across periodic
 * faces (Fang & Negrut), with PFC's linear + rrlinear laws, in a turning
 * drum (a moving finite wall), with an outlet and with an inlet; bodies migrate in each (the summary says how often); a
 * checkpoint written by two ranks and resumed on three, or on one process,
 * ends as the run that never stopped; the energy ledger's energy.csv too
 * (in the turning drum, through a fill, a settling and a discharge by an
 * outlet with gravity tilted, with an external load, and resumed). Without MPI in the build the
 * tests say so and are skipped: scripts/install-deps.sh installs it for
 * `make test`. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "support/temp_dir.h"

TestSuite(mpi_cli, .init = make_dir, .fini = remove_dir);

#ifndef FRICDEM_MPIEXEC
#define FRICDEM_MPIEXEC ""
#endif

/* FRICDEM_CLI on `ranks` ranks (0: without mpirun), stdout and stderr into
 * temp files; returns the exit status. Open MPI's own allocations are not
 * this project's leaks: the sanitizer build checks ours in test_partition.
 * Three ranks of two threads on two cores: OpenMP threads that spin while
 * they wait would take the cores from the ranks they wait for (35 s against
 * half a second), so they sleep. Shared memory without the kernel's
 * cross-process copy, which containers often forbid. */
static int run_ranks(int ranks, const char* arguments)
{
    char launcher[512] = "";
    if (ranks > 0) {
        snprintf(launcher, sizeof launcher, "'%s' --allow-run-as-root --oversubscribe -np %d", FRICDEM_MPIEXEC, ranks);
    }
    char command[4096];
    /* timeout: a rank left waiting for a message would hang the suite; 124 then fails the caller's check */
    snprintf(command, sizeof command,
             "ASAN_OPTIONS=detect_leaks=0 OMP_WAIT_POLICY=passive OMPI_MCA_btl_vader_single_copy_mechanism=none "
             "timeout 300 %s '%s' %s >'%s/stdout' 2>'%s/stderr' </dev/null", launcher, FRICDEM_CLI, arguments,
             temp_dir, temp_dir);
    int status = system(command);
    cr_assert(status != -1 && WIFEXITED(status), "%s did not exit normally", command);
    return WEXITSTATUS(status);
}

/* Two files, byte for byte. */
static bool same_file(const char* a, const char* b)
{
    FILE* fa = fopen(a, "rb");
    FILE* fb = fopen(b, "rb");
    cr_assert(fa != NULL && fb != NULL, "%s or %s is missing", a, b);
    bool same = true;
    int ca, cb;
    do {
        ca = fgetc(fa);
        cb = fgetc(fb);
        same = ca == cb;
    } while (same && ca != EOF);
    fclose(fa);
    fclose(fb);
    return same;
}

static void skip_without_mpi(void)
{
    if (FRICDEM_MPIEXEC[0] == '\0') {
        cr_skip_test("fricdem was built without MPI (scripts/install-deps.sh installs libopenmpi-dev)");
    }
}

/* The pile: 900 spheres poured sideways into a box of planes. */
static const char pile_scene[] =
    "name: ranks_pile\n"
    "time: {step: 5.0e-5, duration: 0.04, integrator: velocity_verlet}\n"
    "world: {threads: 2}\n"
    "materials:\n"
    "  - {name: grain, density: 2500.0}\n"
    "contacts:\n"
    "  - materials: [grain, grain]\n"
    "    normal: {model: hooke, k_n: 1.0e4, restitution: 0.3}\n"
    "    slide: {model: dsds, k_t: 1.0e4, gamma_t: 1.0, mu: 0.5}\n"
    "    roll: {model: dsds, k_roll: 1.0, gamma_roll: 1.0e-4, mu_roll: 0.1}\n"
    "    spin: {model: dsds, k_twist: 1.0, gamma_twist: 1.0e-4, mu_twist: 0.1}\n"
    "output: {csv_interval: 0.004, contacts_csv: true, energy_csv: false, walls_csv: true, vtu_interval: 0.02}\n"
    "bodies:\n"
    "  - {name: floor, static: true, material: grain, shape: {type: plane, normal: [0, 0, 1]}, position: [0, 0, 0]}\n"
    "  - {static: true, material: grain, shape: {type: plane, normal: [1, 0, 0]}, position: [-0.05, 0, 0]}\n"
    "  - {static: true, material: grain, shape: {type: plane, normal: [-1, 0, 0]}, position: [0.05, 0, 0]}\n"
    "  - {static: true, material: grain, shape: {type: plane, normal: [0, 1, 0]}, position: [0, -0.05, 0]}\n"
    "  - {static: true, material: grain, shape: {type: plane, normal: [0, -1, 0]}, position: [0, 0.05, 0]}\n"
    "generators:\n"
    "  - {type: lattice, count: 900, material: grain, radius: 0.005, radius_spread: 0.05,\n"
    "     region: {min: [-0.05, -0.05, 0.0], max: [0.05, 0.05, 0.2]}, velocity: [0.4, 0.1, -0.5]}\n";

/* The same grains in a box periodic along x and y, Fang & Negrut's law. */
static const char periodic_scene[] =
    "name: ranks_periodic\n"
    "time: {step: 5.0e-5, duration: 0.03, integrator: velocity_verlet}\n"
    "world: {periodic: [x, y], box: {min: [-0.05, -0.05, 0.0], max: [0.05, 0.05, 1.0]}}\n"
    "materials:\n"
    "  - {name: grain, density: 2500.0}\n"
    "contacts:\n"
    "  - materials: [grain, grain]\n"
    "    normal: {model: hooke, k_n: 1.0e4, restitution: 0.3}\n"
    "    slide: {model: fang_negrut, mu_s: 0.5, mu_k: 0.4, K_E: 1.0e4, K_D: 1.0}\n"
    "    roll: {model: fang_negrut, eta_r: 0.3}\n"
    "    spin: {model: fang_negrut, eta_psi: 0.006}\n"
    "output: {csv_interval: 0.003, contacts_csv: true, energy_csv: false, walls_csv: true}\n"
    "bodies:\n"
    "  - {name: floor, static: true, material: grain, shape: {type: plane, normal: [0, 0, 1]}, position: [0, 0, 0]}\n"
    "generators:\n"
    "  - {type: lattice, count: 900, material: grain, radius: 0.005, radius_spread: 0.05,\n"
    "     region: {min: [-0.05, -0.05, 0.0], max: [0.05, 0.05, 0.2]}, velocity: [0.4, 0.1, -0.5]}\n";

/* A gas of grains in a box periodic along all three axes (no wall, no
 * gravity): every cut crosses a periodic axis. */
static const char gas_scene[] =
    "name: ranks_gas\n"
    "time: {step: 5.0e-5, duration: 0.03, integrator: velocity_verlet}\n"
    "world: {gravity: [0, 0, 0], periodic: [x, y, z], box: {min: [-0.05, -0.05, -0.05], max: [0.05, 0.05, 0.05]}}\n"
    "materials:\n"
    "  - {name: grain, density: 2500.0}\n"
    "contacts:\n"
    "  - materials: [grain, grain]\n"
    "    normal: {model: hooke, k_n: 1.0e4, restitution: 0.5}\n"
    "    slide: {model: csds, k_t: 1.0e4, gamma_t: 1.0, mu: 0.5}\n"
    "output: {csv_interval: 0.003, contacts_csv: true, energy_csv: false}\n"
    "generators:\n"
    "  - {type: lattice, count: 400, material: grain, radius: 0.005, radius_spread: 0.05,\n"
    "     region: {min: [-0.05, -0.05, -0.05], max: [0.05, 0.05, 0.05]}, velocity: [0.3, 0.0, 0.0],\n"
    "     velocity_spread: 1.0, seed: 7}\n";

/* Beads in a turning drum: a capped cylinder under a prescribed motion
 * (a finite wall that moves, its reaction in walls.csv). */
static const char drum_scene[] =
    "name: ranks_drum\n"
    "time: {step: 2.0e-5, duration: 0.04, integrator: velocity_verlet}\n"
    "materials:\n"
    "  - {name: glass, density: 2500.0}\n"
    "  - {name: steel, density: 7800.0}\n"
    "contacts:\n"
    "  - materials: [glass, glass]\n"
    "    normal: {model: hooke, k_n: 200.0, restitution: 0.53}\n"
    "    slide: {model: dsds, k_t: 200.0, gamma_t: 4.0e-4, mu: 0.4}\n"
    "    roll: {model: dsds, k_roll: 200.0, mu_roll: 0.05}\n"
    "  - materials: [glass, steel]\n"
    "    normal: {model: hooke, k_n: 200.0, restitution: 0.53}\n"
    "    slide: {model: dsds, k_t: 200.0, gamma_t: 4.0e-4, mu: 0.4}\n"
    "    roll: {model: dsds, k_roll: 200.0, mu_roll: 0.05}\n"
    "bodies:\n"
    "  - {name: drum, static: true, material: steel, position: [0, 0, 0],\n"
    "     rotation: {axis: [1, 0, 0], angle: 1.5707963267948966},\n"
    "     shape: {type: cylinder, radius: 0.03, length: 0.008, capped: true},\n"
    "     motion: {angular_velocity: [0.0, 3.0, 0.0]}}\n"
    "generators:\n"
    "  - {type: lattice, count: 450, material: glass, radius: 0.001, radius_spread: 0.1,\n"
    "     region: {min: [-0.02, -0.0035, -0.02], max: [0.02, 0.0035, 0.0]}, velocity: [0.0, 0.0, -0.1]}\n"
    "output: {csv_interval: 0.004, contacts_csv: true, energy_csv: false, walls_csv: true}\n";

/* The scene on 1, 2 and 3 ranks (with `options` too): the same files, and
 * migrations. */
static void assert_ranks_match_one_process_with(const char* scene, const char* options)
{
    skip_without_mpi();
    char path[600]; /* temp_path's buffers rotate */
    snprintf(path, sizeof path, "%s", temp_path("scene.yaml"));
    write_file(path, scene);
    char arguments[1024];
    snprintf(arguments, sizeof arguments, "run '%s' --quiet --out '%s' %s", path, temp_path("one"), options);
    cr_assert_eq(run_ranks(0, arguments), 0, "one process: %s", read_text(temp_path("stderr")));
    for (int ranks = 2; ranks <= 3; ++ranks) {
        char out[64];
        snprintf(out, sizeof out, "ranks%d", ranks);
        /* Three ranks cut their boxes again at every migration that finds a rank above the mean. */
        snprintf(arguments, sizeof arguments, "run '%s' --out '%s' %s %s", path, temp_path(out),
                 ranks == 3 ? "--balance 1" : "", options);
        cr_assert_eq(run_ranks(ranks, arguments), 0, "%d ranks: %s", ranks, read_text(temp_path("stderr")));
        char* summary = read_text(temp_path("stdout"));
        long long migrations = -1;
        const char* done = strstr(summary, "ranks, ");
        cr_assert(done != NULL && sscanf(done, "ranks, %lld migrations", &migrations) == 1, "%s", summary);
        cr_assert_gt(migrations, 0, "%d ranks: no body migrated, the test would not test it:\n%s", ranks, summary);
        long long rebalances = -1;
        const char* cut = strstr(summary, "migrations (");
        cr_assert(cut != NULL && sscanf(cut, "migrations (%lld", &rebalances) == 1, "%s", summary);
        cr_assert(ranks == 2 || rebalances > 0, "3 ranks: the boxes were never cut again:\n%s", summary);
        const char* files[2] = {"bodies.csv", "contacts.csv"};
        for (int f = 0; f < 2; ++f) {
            char one[600], many[600];
            snprintf(one, sizeof one, "%s/%s", temp_path("one"), files[f]);
            snprintf(many, sizeof many, "%s/%s", temp_path(out), files[f]);
            cr_assert(same_file(one, many), "%d ranks: %s differs from one process's", ranks, files[f]);
        }
        /* The walls' reactions (every rank sums a share; rank 0 sums them
         * again from the records) and the VTU snapshots, where written. */
        const char* more[7] = {"walls.csv", "outlets.csv", "events.csv", "energy.csv", "vtu/bodies_000001.vtu",
                               "vtu/contacts_000001.vtu", "vtu/walls_000001.vtu"};
        int compared = 0;
        for (int f = 0; f < 7; ++f) {
            char one[600], many[600];
            snprintf(one, sizeof one, "%s/%s", temp_path("one"), more[f]);
            snprintf(many, sizeof many, "%s/%s", temp_path(out), more[f]);
            FILE* there = fopen(one, "rb");
            if (there == NULL) {
                continue; /* this scene writes no walls or no snapshots */
            }
            fclose(there);
            cr_assert(same_file(one, many), "%d ranks: %s differs from one process's", ranks, more[f]);
            ++compared;
        }
        cr_assert(compared >= 1 || strstr(scene, "walls_csv: true") == NULL,
                  "a scene with walls: walls.csv at least must be compared");
    }
}

static void assert_ranks_match_one_process(const char* scene) { assert_ranks_match_one_process_with(scene, ""); }

Test(mpi_cli, two_and_three_ranks_write_the_bodies_of_one_process_with_walls_and_rolling)
{
    assert_ranks_match_one_process(pile_scene);
}

Test(mpi_cli, two_and_three_ranks_write_the_bodies_of_one_process_across_periodic_faces)
{
    assert_ranks_match_one_process(periodic_scene);
}

Test(mpi_cli, two_and_three_ranks_write_the_files_of_one_process_in_a_box_periodic_every_way)
{
    assert_ranks_match_one_process(gas_scene);
    /* What the case relies on: the grains collide. */
    char* contacts = read_text(temp_path("one/contacts.csv"));
    cr_assert(strlen(contacts) > 2000, "the gas must collide:\n%.400s", contacts);
}

/* The state hash a run's summary ends with (one process's or rank 0's). */
static unsigned long long summary_hash(void)
{
    char* summary = read_text(temp_path("stdout"));
    const char* line = strstr(summary, "state hash   0x");
    unsigned long long hash = 0;
    cr_assert(line != NULL && sscanf(line, "state hash   0x%llx", &hash) == 1, "no state hash in\n%s", summary);
    return hash;
}

Test(mpi_cli, two_and_three_ranks_write_the_files_of_one_process_in_a_turning_drum)
{
    assert_ranks_match_one_process(drum_scene);
}

Test(mpi_cli, two_and_three_ranks_write_the_files_of_one_process_with_an_outlet)
{
    /* The pile with an outlet that takes the strip x > 0.03 m from t = 0.01 s
     * and the spheres that roll into it (outlets.csv compared too). */
    char scene[sizeof pile_scene + 256];
    snprintf(scene, sizeof scene, "%soutlets:\n"
             "  - {name: strip, region: {box: {min: [0.03, -1.0, -1.0], max: [1.0, 1.0, 1.0]}}, start: 0.01}\n",
             pile_scene);
    assert_ranks_match_one_process(scene);
}

/* The pile with an inlet pouring 150 spheres onto it from above (some
 * late: its region fills); every rank's inlet inserts the same. */
static void write_inlet_scene(char* scene, size_t size)
{
    snprintf(scene, size, "%sinlets:\n"
             "  - {name: pour, material: grain, radius: 0.005, radius_spread: 0.05,\n"
             "     region: {box: {min: [-0.04, -0.04, 0.22], max: [0.04, 0.04, 0.26]}}, rate: 5000, count: 150,\n"
             "     velocity: [0, 0, -0.5]}\n",
             pile_scene);
}

Test(mpi_cli, two_and_three_ranks_write_the_files_of_one_process_with_an_inlet)
{
    char scene[sizeof pile_scene + 512];
    write_inlet_scene(scene, sizeof scene);
    assert_ranks_match_one_process(scene);
}

Test(mpi_cli, two_and_three_ranks_write_the_files_of_one_process_with_an_inlet_and_an_outlet)
{
    /* The pour goes on after the outlet opens: the inlet fills the slots the
     * outlet freed, on every rank after every rank removed them. */
    char scene[sizeof pile_scene + 768];
    write_inlet_scene(scene, sizeof scene);
    size_t length = strlen(scene);
    snprintf(scene + length, sizeof scene - length, "outlets:\n"
             "  - {name: strip, region: {box: {min: [0.03, -1.0, -1.0], max: [1.0, 1.0, 1.0]}}, start: 0.002}\n");
    assert_ranks_match_one_process(scene);
    /* What the case relies on: the outlet takes spheres while the inlet
     * still pours (it pours until t = 0.03 s). */
    char* outlets = read_text(temp_path("one/outlets.csv"));
    const char* row = strstr(outlets, "\n0.0080");
    long long step = 0, removed = 0;
    cr_assert(row != NULL && sscanf(row, "\n%*[^,],%lld,strip,%lld", &step, &removed) == 2, "%s", outlets);
    cr_assert_gt(removed, 0, "no sphere left by the outlet before the pour ended:\n%s", outlets);
}

/* The pile poured by the inlet and emptied by the outlet in three stages:
 * fill (the outlet closed), settle until the kinetic energy falls below
 * 0.05 J (the inlet paused), discharge (the outlet open, gravity tilted,
 * finer rows); then the ranks' files, and the stage that ended early. */
static void write_stages_scene(char* scene, size_t size)
{
    write_inlet_scene(scene, size);
    size_t length = strlen(scene);
    snprintf(scene + length, size - length, "outlets:\n"
             "  - {name: strip, region: {box: {min: [0.03, -1.0, -1.0], max: [1.0, 1.0, 1.0]}}}\n"
             "stages:\n"
             "  - {name: fill, duration: 0.012, outlets: [{outlet: strip, active: false}]}\n"
             "  - {name: settle, duration: 0.02, until_kinetic_energy: 0.05, min_duration: 0.002,\n"
             "     inlets: [{inlet: pour, active: false}]}\n"
             "  - {name: discharge, duration: 0.01, outlets: [{outlet: strip, active: true}],\n"
             "     gravity: [2.0, 0, -9.81], output: {csv_interval: 0.002}}\n");
}

static void assert_stages_match_one_process(const char* options)
{
    char scene[sizeof pile_scene + 2048];
    write_stages_scene(scene, sizeof scene);
    assert_ranks_match_one_process_with(scene, options);
    /* What the case relies on: the settling ended by its kinetic energy
     * (the pile's falls through 0.05 J near t = 0.021 s), before its 0.02 s. */
    char* summary = read_text(temp_path("stdout"));
    const char* line = strstr(summary, "'discharge' from t = ");
    double begun = 0.0;
    cr_assert(line != NULL && sscanf(line, "'discharge' from t = %lf", &begun) == 1, "%s", summary);
    cr_assert(begun > 0.014 && begun < 0.031, "the settling must end by its kinetic energy: discharge from %g s\n%s",
              begun, summary);
}

Test(mpi_cli, stages_begin_at_the_same_step_on_every_rank_as_in_one_process)
{
    assert_stages_match_one_process("");
}

Test(mpi_cli, the_contact_events_are_those_of_one_process)
{
    /* events.csv through the stages (slips of the rolling and twisting
     * springs, contacts beginning, and at the discharge's first step the
     * events of the spheres the outlet takes after the force pass). */
    assert_stages_match_one_process("--set output.events_csv=true");
    char* events = read_text(temp_path("ranks3/events.csv"));
    cr_assert(strstr(events, "slip_started,roll") != NULL && strstr(events, "contact_activated") != NULL, "%.400s",
              events);
}

Test(mpi_cli, stages_ended_by_the_kinetic_energy_summed_in_one_process_order)
{
    /* The ranks' sum decides unless the energy is within round-off of the
     * threshold; then rank 0 sums the bodies' terms in index order. That
     * path, taken at every step here. */
    setenv("FRICDEM_TEST_EXACT_KINETIC", "1", 1);
    assert_stages_match_one_process("");
    unsetenv("FRICDEM_TEST_EXACT_KINETIC");
}

Test(mpi_cli, a_migration_after_every_step_leaves_the_files_of_one_process)
{
    /* Every output step is then a migration's step too: the files gather
     * the records from the contacts' owners before the migration moves them
     * (gathered after it, the poured spheres' contacts went missing from
     * contacts.csv: their new owners had no records of them). */
    char scene[sizeof pile_scene + 512];
    write_inlet_scene(scene, sizeof scene);
    assert_ranks_match_one_process_with(scene, "--migrate-every 1");
}

Test(mpi_cli, boxes_cut_by_the_ranks_step_times_leave_the_files_of_one_process)
{
    /* --balance-by time cuts the boxes by each rank's measured step time,
     * which no two runs share; on three ranks (--balance 1) at nearly every
     * migration (one at least every 5 steps). The files stay one process's. */
    assert_ranks_match_one_process_with(drum_scene, "--balance-by time --migrate-every 5");
}

/* The scene run whole by one process, and run on two ranks up to `part`
 * seconds with checkpoints, then resumed on three ranks and on one up to
 * `whole` seconds: every run ends on the whole run's state hash. */
static void assert_resumed_runs_end_as_one_process(const char* scene, double part, double whole_duration)
{
    skip_without_mpi();
    const char* path = temp_path("scene.yaml");
    write_file(path, scene);
    char arguments[1024];
    snprintf(arguments, sizeof arguments, "run '%s' --out '%s'", path, temp_path("whole"));
    cr_assert_eq(run_ranks(0, arguments), 0, "%s", read_text(temp_path("stderr")));
    unsigned long long whole = summary_hash();
    /* part of the run on two ranks, a checkpoint at its end */
    snprintf(arguments, sizeof arguments, "run '%s' --out '%s' --set time.duration=%g --set "
             "output.checkpoint_interval=%g", path, temp_path("first"), part, 0.5 * part);
    cr_assert_eq(run_ranks(2, arguments), 0, "%s", read_text(temp_path("stderr")));
    cr_assert_neq(summary_hash(), whole, "the first half must end before the whole run does");
    char checkpoint[600];
    snprintf(checkpoint, sizeof checkpoint, "%s/checkpoint.h5", temp_path("first"));
    const int ranks[2] = {3, 0};
    for (int k = 0; k < 2; ++k) {
        char out[32];
        snprintf(out, sizeof out, "rest%d", k);
        /* the first part's --set time.duration is in the checkpoint: the whole duration again */
        snprintf(arguments, sizeof arguments, "resume '%s' --out '%s' --set time.duration=%g", checkpoint,
                 temp_path(out), whole_duration);
        cr_assert_eq(run_ranks(ranks[k], arguments), 0, "%s", read_text(temp_path("stderr")));
        cr_assert_eq(summary_hash(), whole, "resumed on %d ranks: %016llx, the whole run %016llx",
                     ranks[k] ? ranks[k] : 1, summary_hash(), whole);
    }
}

Test(mpi_cli, a_checkpoint_of_two_ranks_resumed_on_three_or_one_ends_as_one_process_run)
{
    assert_resumed_runs_end_as_one_process(pile_scene, 0.02, 0.04);
}

Test(mpi_cli, a_checkpoint_inside_a_stage_resumed_on_other_rank_counts_ends_as_one_process_run)
{
    /* Inside the settling (which ends by its kinetic energy after the
     * resume), with the inlet paused and the outlet closed by the stages;
     * the stages, not the duration, end the resumed runs. */
    char scene[sizeof pile_scene + 2048];
    write_stages_scene(scene, sizeof scene);
    assert_resumed_runs_end_as_one_process(scene, 0.016, 1.0);
}

Test(mpi_cli, a_step_that_fails_on_one_rank_stops_every_rank_with_its_message)
{
    /* A normal spring 10^5 times stiffer: the time step is far above the
     * critical one and the pile blows up within a few steps on one rank or
     * the other; every rank stops (no rank left waiting for a message),
     * the failure is named and the exit status is 1, as for one process. */
    skip_without_mpi();
    char scene[sizeof pile_scene + 64];
    snprintf(scene, sizeof scene, "%s", pile_scene);
    char* spring = strstr(scene, "k_n: 1.0e4");
    cr_assert_not_null(spring);
    memcpy(spring, "k_n: 1.0e9", strlen("k_n: 1.0e9"));
    const char* path = temp_path("scene.yaml");
    write_file(path, scene);
    char arguments[1024];
    snprintf(arguments, sizeof arguments, "run '%s' --out '%s' -q", path, temp_path("one"));
    cr_assert_eq(run_ranks(0, arguments), 1, "one process: %s", read_text(temp_path("stderr")));
    snprintf(arguments, sizeof arguments, "run '%s' --out '%s' -q", path, temp_path("two"));
    cr_assert_eq(run_ranks(2, arguments), 1, "two ranks must fail: %s", read_text(temp_path("stderr")));
    char* err = read_text(temp_path("stderr"));
    cr_assert(strstr(err, "blow-up at step") != NULL && strstr(err, "stopped at step") != NULL, "%s", err);
}

/* The energy ledger (energy.csv, and the contacts' own books in
 * contacts.csv): every rank books the contacts it answers for, rank 0 sums
 * them in one process's order. */
Test(mpi_cli, the_energy_ledger_of_two_and_three_ranks_is_one_process_s_with_rolling_and_twisting)
{
    assert_ranks_match_one_process_with(pile_scene, "--set output.energy_csv=true");
    char* energy = read_text(temp_path("ranks3/energy.csv"));
    cr_assert(strstr(energy, "released") != NULL && strstr(energy, "dashpot_spin") != NULL, "%.300s", energy);
}

Test(mpi_cli, the_energy_ledger_of_two_and_three_ranks_is_one_process_s_with_fang_negrut_across_periodic_faces)
{
    assert_ranks_match_one_process_with(periodic_scene, "--set output.energy_csv=true");
}

Test(mpi_cli, two_and_three_ranks_write_the_files_of_one_process_with_pfc_rrlinear_and_the_ledger)
{
    /* The pile with PFC's linear contact and rrlinear rolling resistance
     * (its moment's slip state and energy partitions travel with the
     * contacts), energy.csv included. */
    const char* contacts = strstr(pile_scene, "contacts:\n");
    const char* output = strstr(pile_scene, "output:");
    cr_assert(contacts != NULL && output != NULL);
    char scene[sizeof pile_scene + 512];
    snprintf(scene, sizeof scene, "%.*scontacts:\n"
             "  - materials: [grain, grain]\n"
             "    normal: {model: pfc_linear, kn: 1.0e4, dp_nratio: 0.3, dp_mode: 3}\n"
             "    slide: {model: pfc_linear, ks: 5.0e3, fric: 0.5, dp_sratio: 0.2}\n"
             "    roll: {model: pfc_rrlinear, rr_fric: 0.05}\n%s",
             (int)(contacts - pile_scene), pile_scene, output);
    assert_ranks_match_one_process_with(scene, "--set output.energy_csv=true");
}

Test(mpi_cli, the_energy_ledger_of_a_turning_drum_is_one_process_s)
{
    /* The drum's work on the beads needs its whole reaction each step:
     * every rank's loads on it, added on rank 0 as one process adds them. */
    assert_ranks_match_one_process_with(drum_scene, "--set output.energy_csv=true");
    char* energy = read_text(temp_path("one/energy.csv"));
    const char* last = strrchr(energy, '\n');
    cr_assert(last != NULL);
    while (last > energy && last[-1] != '\n') {
        --last;
    }
    /* the columns up to external_work: the drum has done work */
    double external = 0.0;
    cr_assert(sscanf(last, "%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],"
                     "%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%lf", &external) == 1,
              "%s", last);
    cr_assert_neq(external, 0.0, "the turning drum must do work on the beads: %s", last);
}

Test(mpi_cli, the_energy_ledger_through_stages_that_tilt_gravity_is_one_process_s)
{
    /* The inlet pours, the pile settles until its kinetic energy is low, then
     * gravity tilts: rank 0 books the change of potential energy of every
     * body (it holds them all while the stage begins). */
    char scene[sizeof pile_scene + 2048];
    write_inlet_scene(scene, sizeof scene);
    size_t length = strlen(scene);
    snprintf(scene + length, sizeof scene - length, "stages:\n"
             "  - {name: fill, duration: 0.012}\n"
             "  - {name: settle, duration: 0.02, until_kinetic_energy: 0.05, min_duration: 0.002,\n"
             "     inlets: [{inlet: pour, active: false}]}\n"
             "  - {name: tilt, duration: 0.01, gravity: [2.0, 0, -9.81]}\n");
    assert_ranks_match_one_process_with(scene, "--set output.energy_csv=true");
    char* summary = read_text(temp_path("stdout"));
    cr_assert(strstr(summary, "'tilt' from t = ") != NULL, "the stage that tilts gravity must begin:\n%s", summary);
}

Test(mpi_cli, the_energy_ledger_resumed_on_other_rank_counts_ends_as_one_process_run)
{
    /* Checkpoints keep the contacts' books; migrations carry them. */
    char scene[sizeof pile_scene + 64];
    snprintf(scene, sizeof scene, "%s", pile_scene);
    char* energy = strstr(scene, "energy_csv: false");
    cr_assert_not_null(energy);
    memcpy(energy, "energy_csv: true ", strlen("energy_csv: true "));
    assert_resumed_runs_end_as_one_process(scene, 0.02, 0.04);
    char* whole = read_text(temp_path("whole/energy.csv"));
    const char* last = strstr(whole, "\n0.040000000000000001,800,");
    cr_assert_not_null(last, "%s", whole);
    for (int k = 0; k < 2; ++k) {
        char path[64];
        snprintf(path, sizeof path, "rest%d/energy.csv", k);
        char* rest = read_text(temp_path(path));
        cr_assert(strstr(rest, last) != NULL, "resumed (%s): the last row differs from the whole run's:\n%s\n%s",
                  path, last, rest);
    }
}

Test(mpi_cli, the_energy_ledger_through_a_fill_a_settling_and_a_discharge_is_one_process_s)
{
    /* The inlet, the stages that end by the kinetic energy and tilt
     * gravity, and the outlet: the energy the removed spheres take (their
     * owners' states) and their contacts' springs, summed on rank 0 in one
     * process's order. */
    assert_stages_match_one_process("--set output.energy_csv=true");
    char* energy = read_text(temp_path("one/energy.csv"));
    const char* last = strrchr(energy, '\n');
    cr_assert(last != NULL);
    while (last > energy && last[-1] != '\n') {
        --last;
    }
    double removed = 0.0; /* the column after inserted */
    cr_assert(sscanf(last, "%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],"
                     "%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%lf",
                     &removed) == 1, "%s", last);
    cr_assert_neq(removed, 0.0, "the outlet must take spheres and their energy: %s", last);
}

Test(mpi_cli, the_energy_ledger_with_an_external_load_is_one_process_s)
{
    /* The work of a body's external load: its owner's term, booked on rank
     * 0 in ascending index with every other body's. */
    char scene[sizeof pile_scene + 256];
    const char* bodies = strstr(pile_scene, "bodies:\n");
    cr_assert_not_null(bodies);
    snprintf(scene, sizeof scene, "%.*s"
             "  - {name: pushed, material: grain, shape: {type: sphere, radius: 0.005}, position: [0, 0, 0.3],\n"
             "     external_force: [0.01, 0, 0], external_torque: [0, 0, 1.0e-6]}\n%s",
             (int)(bodies + strlen("bodies:\n") - pile_scene), pile_scene, bodies + strlen("bodies:\n"));
    assert_ranks_match_one_process_with(scene, "--set output.energy_csv=true");
}
