/* The penalty stepper's contact pipeline (src/penalty/): what must not
 * depend on how it is run. The neighbour list's skin, the threads, whether a
 * pass records the contact details or keeps the energy ledger, and whether a
 * contact goes through the vectorised block kernel or the scalar sphere
 * kernel: none of them may change a single bit of the trajectory. Each test
 * compares bitwise state hashes (fd_world_state_hash) or, for the kernels,
 * the loads themselves; a test also checks that the property it relies on is
 * exercised (contacts form, the list is rebuilt, contacts slip). */
#include <criterion/criterion.h>

#include <math.h>
#include <string.h>

#include "core/permute.h"
#include "fricdem/fricdem.h"
#include "penalty/penalty.h"
#include "penalty/sphere_block.h"
#include "penalty/sphere_kernel.h"

#include "support/pile.h"
#include "world/world_store.h"

typedef struct pile_run {
    uint64_t hash;
    int contacts;
    int64_t builds;
    fd_world_energy energy; /* with the ledger: its books (NaN closure fields without) */
} pile_run;

/* What a run left, and its world freed. */
static pile_run end_run(fd_world* world)
{
    pile_run run = {fd_world_state_hash(world), fd_world_contact_count(world),
                    fd_world_get_profile(world).neighbor_builds, fd_world_get_energy(world)};
    fd_world_free(world);
    return run;
}

static pile_run run_pile(const pile_options* o, int steps)
{
    fd_world* world = make_pile(o);
    for (int s = 0; s < steps; ++s) {
        cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
    }
    return end_run(world);
}

/* The ledger's books of two runs, to the bit. */
static bool same_books(const fd_world_energy* a, const fd_world_energy* b)
{
    return memcmp(a->stored, b->stored, sizeof a->stored) == 0 &&
           memcmp(a->dashpot, b->dashpot, sizeof a->dashpot) == 0 && memcmp(a->slip, b->slip, sizeof a->slip) == 0 &&
           memcmp(a->created, b->created, sizeof a->created) == 0 && a->released == b->released &&
           a->external_work == b->external_work;
}

static const int steps = 2500;

Test(penalty, the_neighbour_skin_changes_the_cost_not_a_bit_of_the_result)
{
    /* The same contacts are found whatever the skin, and their loads are
     * summed in key order: the trajectory is the same to the last bit. */
    pile_options o = {.threads = 1, .slide = "dsds"};
    double skins[3] = {2e-4, 1e-3, 4e-3};
    pile_run runs[3];
    for (int k = 0; k < 3; ++k) {
        o.skin = skins[k];
        runs[k] = run_pile(&o, steps);
    }
    cr_assert_gt(runs[0].contacts, 300, "the pile must settle into contacts");
    cr_assert_gt(runs[0].builds, runs[2].builds, "a thinner skin must rebuild more often (%lld vs %lld)",
                 (long long)runs[0].builds, (long long)runs[2].builds);
    for (int k = 1; k < 3; ++k) {
        cr_assert_eq(runs[k].hash, runs[0].hash, "skin %g: %016llx vs %016llx", skins[k],
                     (unsigned long long)runs[k].hash, (unsigned long long)runs[0].hash);
    }
}

Test(penalty, threads_give_the_same_bits_with_every_kernel_and_periodic_faces)
{
    /* With the energy ledger: its sums over the contacts must not depend on
     * the threads either (penalty.h, fd_book_group). */
    pile_options cases[4] = {
        {.slide = "dsds", .ledger = true},                        /* block kernel */
        {.slide = "csds", .roll_and_spin = true, .ledger = true}, /* scalar sphere kernel */
        {.slide = "dsds", .periodic = true, .ledger = true},      /* images across faces */
        {.slide = "fang_negrut", .ledger = true},                 /* generic path, bodies' turns made in parallel */
    };
    for (int c = 0; c < 4; ++c) {
        /* Fang & Negrut (four times the cost of a step) over the first 1000
         * steps and 1 against 3 threads: the impacts and the first contacts
         * of the pile, where every tracked point is painted and carried. */
        bool tracked = c == 3;
        int case_steps = tracked ? 1000 : steps;
        cases[c].threads = 1;
        pile_run serial = run_pile(&cases[c], case_steps);
        cr_assert_gt(serial.contacts, 100, "case %d: the pile must be in contact", c);
        /* 2 and 3 threads fill the list's rows in thread order, 9 (past
         * ORDERED_FILL_THREADS in pair_search.c) through atomic counters. */
        const int thread_counts[3] = {2, 3, 9};
        for (int k = tracked ? 1 : 0; k < (tracked ? 2 : 3); ++k) {
            int threads = thread_counts[k];
            cases[c].threads = threads;
            pile_run threaded = run_pile(&cases[c], case_steps);
            cr_assert_eq(threaded.hash, serial.hash, "case %d, %d threads: %016llx vs %016llx", c, threads,
                         (unsigned long long)threaded.hash, (unsigned long long)serial.hash);
            cr_assert(same_books(&threaded.energy, &serial.energy), "case %d, %d threads: dashpot %.17g vs %.17g", c,
                      threads, threaded.energy.dashpot[FD_MECHANISM_NORMAL],
                      serial.energy.dashpot[FD_MECHANISM_NORMAL]);
            cr_assert_gt(serial.energy.dashpot[FD_MECHANISM_NORMAL], 0.0, "case %d: the ledger must have books", c);
        }
    }
}

Test(penalty, the_periodic_pair_search_finds_what_the_general_broad_phase_finds)
{
    /* The box is 0.1 m wide and a cell at least 2 x 5.25 mm + margin: the
     * automatic grid has 4 cells per period, 0.033 m cells give 3 (the
     * fewest for which the wrapped half stencil is distinct), and 0.04 m
     * cells 2, which the pair search hands to the general broad phase. Every
     * search must find the same pairs, so the trajectories are the same bits;
     * a pair missed or found twice across a face would change them. */
    pile_options o = {.threads = 1, .slide = "dsds", .periodic = true};
    double cell_sizes[3] = {0.0, 0.033, 0.04};
    pile_run runs[3];
    for (int k = 0; k < 3; ++k) {
        o.cell_size = cell_sizes[k];
        runs[k] = run_pile(&o, steps);
    }
    cr_assert_gt(runs[0].contacts, 300, "the pile must settle into contacts");
    for (int k = 1; k < 3; ++k) {
        cr_assert_eq(runs[k].hash, runs[0].hash, "cell size %g: %016llx vs %016llx", cell_sizes[k],
                     (unsigned long long)runs[k].hash, (unsigned long long)runs[0].hash);
    }
}

Test(penalty, a_chunk_of_contacts_under_several_laws_gives_what_one_law_gives)
{
    /* Three materials with equal properties and the same law for each of
     * their six pairs: the world has six laws, a chunk of the law pass mixes
     * them, two go through the block kernel's two blocks and the others
     * through the scalar kernel. The physics is that of one material, so the
     * trajectory must be the one-law trajectory to the last bit: a lane read
     * back from the wrong block, or with the wrong law, would change it. */
    pile_options one = {.threads = 1, .slide = "dsds"};
    pile_options three = one;
    three.materials = 3;
    pile_run single = run_pile(&one, steps);
    cr_assert_gt(single.contacts, 300, "the pile must settle into contacts");
    cr_assert_eq(run_pile(&three, steps).hash, single.hash);
    one.roll_and_spin = three.roll_and_spin = true;
    cr_assert_eq(run_pile(&three, steps).hash, run_pile(&one, steps).hash);
}

Test(penalty, the_processors_permutes_change_no_bit)
{
    /* Where the processor has them (core/permute.h), the integration moves
     * four neighbouring bodies at a time and Fang & Negrut's lanes four
     * contacts' springs at a time by permutes; without them, one at a time.
     * Only bits move: the trajectories must be the same to the last bit, with
     * 23 springs a contact (slide, roll, spin), with 15 (slide: the last four
     * overlap the four before), with 17 (slide and spin: the spin's rows are
     * not the history's order), and across periodic faces. */
    if (!fd_permutes_on()) {
        cr_skip_test("this processor has no AVX2: nothing runs by permutes");
    }
    const fd_contact_output lanes = FD_CONTACT_OUTPUT_ON_REQUEST; /* a pass that records takes the registry path */
    pile_options cases[4] = {
        {.threads = 1, .slide = "fang_negrut", .output = lanes},
        {.threads = 1, .slide = "fang_negrut_slide", .periodic = true, .output = lanes},
        {.threads = 1, .slide = "fang_negrut_slide_spin", .output = lanes},
        {.threads = 1, .slide = "dsds", .roll_and_spin = true, .periodic = true, .output = lanes},
    };
    for (int c = 0; c < 4; ++c) {
        pile_run with = run_pile(&cases[c], 1000);
        fd_permutes_switch(false);
        pile_run without = run_pile(&cases[c], 1000);
        fd_permutes_switch(true);
        cr_assert_gt(with.contacts, 100, "case %d: the pile must be in contact", c);
        cr_assert_eq(with.hash, without.hash, "case %d: %016llx with the permutes, %016llx without", c,
                     (unsigned long long)with.hash, (unsigned long long)without.hash);
    }
}

/* run_pile with the pass told that the cache holds `cache_bytes`: 1 makes
 * every pass ask for data ahead (penalty.h, partners_ahead in the distance
 * pass, law_ahead in the law pass), SIZE_MAX none. The steps whose passes
 * both did, in `both`; those where either did, in `either`. */
static pile_run run_pile_cache(const pile_options* o, int step_count, size_t cache_bytes, int* both, int* either)
{
    fd_world* world = make_pile(o);
    world->penalty->cache_bytes = cache_bytes;
    *both = *either = 0;
    for (int s = 0; s < step_count; ++s) {
        cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
        *both += world->penalty->partners_ahead && world->penalty->law_ahead;
        *either += world->penalty->partners_ahead || world->penalty->law_ahead;
    }
    return end_run(world);
}

Test(penalty, asking_for_the_partners_ahead_changes_no_bit)
{
    /* Beyond the cache the distance and law passes prefetch the partners'
     * body states a few entries and contacts ahead, and the law pass the
     * entries' fields and the slots' data (penalty_internal.h,
     * FD_PARTNER_BYTES). A prefetch reads nothing into a result; the index
     * it reads ahead must stay inside the list (the sanitizer run checks
     * the last entries of every thread's rows). The same bits with and
     * without, on the block kernel, the scalar and Fang & Negrut's paths,
     * across periodic faces, with two threads. */
    pile_options cases[4] = {
        {.threads = 1, .slide = "dsds"},
        {.threads = 2, .slide = "dsds", .roll_and_spin = true, .periodic = true, .ledger = true},
        {.threads = 1, .slide = "fang_negrut"},
        {.threads = 2, .slide = "pfc"},
    };
    for (int c = 0; c < 4; ++c) {
        int asked = 0, never = 0, unused = 0;
        pile_run with = run_pile_cache(&cases[c], 1000, 1, &asked, &unused);
        pile_run without = run_pile_cache(&cases[c], 1000, SIZE_MAX, &unused, &never);
        cr_assert_eq(asked, 1000, "case %d: a one-byte cache must make every step ask ahead", c);
        cr_assert_eq(never, 0, "case %d: an unbounded cache must make no step ask ahead", c);
        cr_assert_gt(with.contacts, 100, "case %d: the pile must be in contact", c);
        cr_assert_eq(with.hash, without.hash, "case %d: %016llx asking ahead, %016llx not", c,
                     (unsigned long long)with.hash, (unsigned long long)without.hash);
    }
}

Test(penalty, recording_contacts_or_keeping_the_ledger_does_not_change_the_trajectory)
{
    pile_options plain = {.threads = 1, .slide = "dsds", .output = FD_CONTACT_OUTPUT_ON_REQUEST};
    pile_options recorded = plain, ledger = plain;
    recorded.output = FD_CONTACT_OUTPUT_EVERY_STEP;
    ledger.ledger = true;
    uint64_t a = run_pile(&plain, steps).hash;
    cr_assert_eq(run_pile(&recorded, steps).hash, a);
    cr_assert_eq(run_pile(&ledger, steps).hash, a);
    plain.roll_and_spin = recorded.roll_and_spin = true;
    uint64_t b = run_pile(&plain, steps).hash;
    cr_assert_eq(run_pile(&recorded, steps).hash, b);
    cr_assert_neq(a, b, "rolling and twisting resistance must change the outcome");
    /* The generic path: a pass that records computes the full geometry
     * (principal frames of the spheres too), one that does not skips what no
     * kernel reads; the trajectory must not tell them apart. */
    plain.roll_and_spin = recorded.roll_and_spin = false;
    plain.slide = recorded.slide = ledger.slide = "fang_negrut";
    uint64_t c = run_pile(&plain, steps).hash;
    cr_assert_eq(run_pile(&recorded, steps).hash, c);
    cr_assert_eq(run_pile(&ledger, steps).hash, c);
    cr_assert_neq(c, a, "Fang & Negrut friction must change the outcome");
}

Test(penalty, the_ledger_books_a_recording_pass_and_a_plain_pass_to_the_same_bits)
{
    /* A pass that records books each contact on its own (law_pass.c, the
     * slot-by-slot loop); a plain pass books a chunk of block lanes by
     * mechanism, with the sums of a row group in registers (book_blocks):
     * each sum must still take its contacts in key order, so the books must
     * be the same to the last bit, with and without periodic faces, for
     * each slider family and with rolling and twisting. */
    const fd_contact_output plain_pass = FD_CONTACT_OUTPUT_ON_REQUEST, every = FD_CONTACT_OUTPUT_EVERY_STEP;
    pile_options cases[4] = {
        {.threads = 1, .slide = "dsds", .ledger = true, .output = plain_pass},
        {.threads = 1, .slide = "csds", .ledger = true, .periodic = true, .output = plain_pass},
        {.threads = 1, .slide = "dsds", .ledger = true, .roll_and_spin = true, .output = plain_pass},
        {.threads = 2, .slide = "csds", .ledger = true, .roll_and_spin = true, .periodic = true, .output = plain_pass},
    };
    for (int c = 0; c < 4; ++c) {
        pile_options recording = cases[c];
        recording.output = every;
        pile_run plain = run_pile(&cases[c], steps), recorded = run_pile(&recording, steps);
        cr_assert_gt(plain.contacts, 200, "case %d: the pile must settle into contacts (%d)", c, plain.contacts);
        cr_assert_gt(plain.energy.dashpot[FD_MECHANISM_SLIDE], 0.0, "case %d: the sliders must dissipate", c);
        cr_assert_gt(plain.energy.released, 0.0, "case %d: contacts must end", c);
        cr_assert_eq(plain.hash, recorded.hash, "case %d", c);
        cr_assert(same_books(&plain.energy, &recorded.energy),
                  "case %d: dashpot %.17g vs %.17g, released %.17g vs %.17g", c,
                  plain.energy.dashpot[FD_MECHANISM_NORMAL], recorded.energy.dashpot[FD_MECHANISM_NORMAL],
                  plain.energy.released, recorded.energy.released);
    }
}

Test(penalty, contacts_are_recorded_only_when_asked_for)
{
    pile_options o = {.threads = 1, .slide = "dsds", .output = FD_CONTACT_OUTPUT_ON_REQUEST};
    fd_world* world = make_pile(&o);
    for (int s = 0; s < 1500; ++s) {
        cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
    }
    int count = fd_world_contact_count(world);
    cr_assert_gt(count, 0);
    fd_contact_view view;
    cr_assert_eq(fd_world_get_contact(world, 0, &view), FD_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(fd_last_error(), "not recorded") != NULL, "%s", fd_last_error());
    fd_world_request_contacts(world);
    cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
    cr_assert(fd_world_contacts_recorded(world));
    cr_assert_eq(fd_world_contact_count(world), fd_world_contact_count(world));
    /* Every recorded contact touches and the keys ascend. */
    uint64_t previous = 0;
    for (int c = 0; c < fd_world_contact_count(world); ++c) {
        cr_assert_eq(fd_world_get_contact(world, c, &view), FD_OK, "%s", fd_last_error());
        uint64_t key = (uint64_t)view.body_i.index1 << 32 | (uint32_t)view.body_j.index1;
        cr_assert_gt(key, previous, "contact %d out of key order", c);
        previous = key;
        cr_assert_geq(view.geometry.penetration, 0.0);
    }
    /* The next step did not ask again. */
    cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
    cr_assert(!fd_world_contacts_recorded(world));
    fd_world_free(world);
}

/* The vectorised block kernel and the scalar sphere kernel compute the same
 * contact with the same operations in the same order: on random contacts,
 * sticking and slipping, new and old, their forces, torques, springs and
 * slip states must be equal, for every law the block takes. */
typedef struct block_case {
    const char* slide;
    const char* roll;             /* NULL: none */
    const char* spin;             /* NULL: none */
    double transport;             /* roll: 0 carried with the frame, 1 LAMMPS */
} block_case;

/* A linear congruential draw in [0, 1) from the caller's `seed`. */
#define RANDOM() ((seed = seed * 1103515245u + 12345u) / 4294967296.0)

/* The same lanes as a block of planes (law_pass.c: sphere-plane contacts of
 * a block law): the normal, overlap and relative velocity given (the sphere
 * lanes' own, so that both sticking and slipping lanes occur), each body's
 * arm to the contact point drawn at random. The law's loads and springs must
 * be the scalar kernel's, the torques the arms' moments of the force plus
 * the rolling and twisting torques, as law_pass.c's sphere_pair takes them,
 * to the last bit. */
static void check_plane_lanes(fd_sphere_block* block, const fd_block_law* block_law, const fd_contact_law* law,
                              const block_case* bc, size_t k, unsigned* seed_io)
{
    unsigned seed = *seed_io;
    for (int c = 0; c < FD_BLOCK; ++c) {
        fd_vec3 d = {block->separation[0][c], block->separation[1][c], block->separation[2][c]};
        double distance = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
        fd_vec3 n = fd_v3_scale(1.0 / distance, d);
        double overlap = block->radius_i[c] + block->radius_j[c] - distance;
        double a_i = block->radius_i[c] - 0.5 * overlap, a_j = block->radius_j[c] - 0.5 * overlap;
        fd_vec3 wi = {block->spin_i[0][c], block->spin_i[1][c], block->spin_i[2][c]};
        fd_vec3 wj = {block->spin_j[0][c], block->spin_j[1][c], block->spin_j[2][c]};
        fd_vec3 vi = {block->velocity_i[0][c], block->velocity_i[1][c], block->velocity_i[2][c]};
        fd_vec3 vj = {block->velocity_j[0][c], block->velocity_j[1][c], block->velocity_j[2][c]};
        fd_vec3 arms = fd_v3_add(fd_v3_scale(a_i, wi), fd_v3_scale(a_j, wj));
        fd_vec3 relative = fd_v3_sub(fd_v3_sub(vi, vj), fd_v3_cross(arms, n));
        block->plane_overlap[c] = overlap;
        for (int a = 0; a < 3; ++a) {
            block->plane_normal[a][c] = (&n.x)[a];
            block->plane_relative[a][c] = (&relative.x)[a];
            block->arm_i[a][c] = 0.01 * (RANDOM() - 0.5);
            block->arm_j[a][c] = 0.01 * (RANDOM() - 0.5);
        }
    }
    *seed_io = seed;
    block->planes = true;
    fd_sphere_block_run(block, block_law);
    block->planes = false;
    for (int c = 0; c < FD_BLOCK; ++c) {
        fd_vec3 n = {block->plane_normal[0][c], block->plane_normal[1][c], block->plane_normal[2][c]};
        fd_vec3 relative = {block->plane_relative[0][c], block->plane_relative[1][c], block->plane_relative[2][c]};
        fd_vec3 wi = {block->spin_i[0][c], block->spin_i[1][c], block->spin_i[2][c]};
        fd_vec3 wj = {block->spin_j[0][c], block->spin_j[1][c], block->spin_j[2][c]};
        fd_vec3 arm_i = {block->arm_i[0][c], block->arm_i[1][c], block->arm_i[2][c]};
        fd_vec3 arm_j = {block->arm_j[0][c], block->arm_j[1][c], block->arm_j[2][c]};
        double history[16] = {0};
        for (int a = 0; a < 3; ++a) {
            history[a] = block->spring[a][c];
            if (bc->roll != NULL) {
                history[law->history_offset[FD_MECHANISM_ROLL] + a] = block->roll_spring[a][c];
                history[law->history_offset[FD_MECHANISM_ROLL] + 3 + a] = block->roll_normal[a][c];
            }
        }
        if (bc->spin != NULL) {
            history[law->history_offset[FD_MECHANISM_SPIN]] = block->twist_spring[c];
        }
        double constants[3] = {block->damping[c], block->effective_radius[c], 0.0};
        fd_sphere_loads loads = fd_sphere_kernel(law, constants, 1e-5, 1e-5, n, block->plane_overlap[c], relative, wi,
                                                 wj, 0u, history, NULL);
        fd_vec3 force = fd_v3_mul_add(loads.slide_force, loads.normal_force, n);
        fd_vec3 roll_spin = fd_v3_mul_add(loads.roll_torque, loads.spin_torque, n);
        fd_vec3 torque_i = fd_v3_add(fd_v3_cross(arm_i, force), roll_spin);
        fd_vec3 torque_j = fd_v3_sub(fd_v3_cross(arm_j, fd_v3_neg(force)), roll_spin);
        cr_assert(force.x == block->force[0][c] && force.y == block->force[1][c] && force.z == block->force[2][c],
                  "case %zu plane lane %d: force differs", k, c);
        cr_assert(torque_i.x == block->torque_i[0][c] && torque_i.y == block->torque_i[1][c] &&
                      torque_i.z == block->torque_i[2][c] && torque_j.x == block->torque_j[0][c] &&
                      torque_j.y == block->torque_j[1][c] && torque_j.z == block->torque_j[2][c],
                  "case %zu plane lane %d: torques differ", k, c);
        for (int a = 0; a < 3; ++a) {
            cr_assert(history[a] == block->spring_after[a][c], "case %zu plane lane %d: slide spring differs", k, c);
            if (bc->roll != NULL) {
                cr_assert(history[law->history_offset[FD_MECHANISM_ROLL] + a] == block->roll_spring_after[a][c],
                          "case %zu plane lane %d: rolling spring differs", k, c);
            }
        }
        if (bc->spin != NULL) {
            cr_assert(history[law->history_offset[FD_MECHANISM_SPIN]] == block->twist_spring_after[c],
                      "case %zu plane lane %d: twisting spring differs", k, c);
        }
        cr_assert_eq((unsigned)block->slip[c], loads.slip, "case %zu plane lane %d", k, c);
    }
}

Test(penalty, the_block_kernel_and_the_scalar_kernel_agree_exactly)
{
    const block_case cases[] = {
        {"dsds", NULL, NULL, 0}, {"csds", NULL, NULL, 0},       {"dsds", "dsds", "marshall", 0},
        {"csds", "csds", "csds", 0}, {"dsds", "dsds", "dsds", 1}, {"csds", NULL, "marshall", 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        const block_case* bc = &cases[k];
        fd_contact_law_def law_def;
        memset(&law_def, 0, sizeof law_def);
        law_def.submodel[FD_MECHANISM_NORMAL] = submodel("hooke", "k_n", 1e4, "restitution", 0.3, NULL, 0.0);
        law_def.submodel[FD_MECHANISM_SLIDE] = submodel(bc->slide, "k_t", 8e3, "gamma_t", 0.7, "mu", 0.3);
        if (bc->roll != NULL) {
            law_def.submodel[FD_MECHANISM_ROLL] = submodel(bc->roll, "k_roll", 5e3, "gamma_roll", 0.2, "mu_roll", 0.05);
            fd_submodel_def* roll = &law_def.submodel[FD_MECHANISM_ROLL];
            roll->params[roll->param_count++] = (fd_param){"transport", bc->transport};
        }
        if (bc->spin != NULL && strcmp(bc->spin, "marshall") == 0) {
            law_def.submodel[FD_MECHANISM_SPIN] = submodel("marshall", NULL, 0, NULL, 0, NULL, 0);
        } else if (bc->spin != NULL) {
            law_def.submodel[FD_MECHANISM_SPIN] = submodel(bc->spin, "k_twist", 1e-2, "gamma_twist", 1e-4, "mu_twist",
                                                           1e-3);
        }
        fd_contact_law law;
        fd_material material = {"m", 1000, 0, 0.3};
        cr_assert_eq(fd_contact_law_resolve(&law, &law_def, &material, &material, 0, 0), FD_OK, "%s", fd_last_error());
        fd_block_law block_law;
        cr_assert(fd_block_law_of(&law, 0, 1e-5, &block_law), "case %zu", k);
        static fd_sphere_block block;
        memset(&block, 0, sizeof block);
        block.count = FD_BLOCK;
        unsigned seed = 12345u + (unsigned)k;
        int slipping = 0;
        for (int c = 0; c < FD_BLOCK; ++c) {
            bool fresh = c % 5 == 0; /* a new contact: no springs, no previous normal */
            for (int a = 0; a < 3; ++a) {
                block.separation[a][c] = 0.004 * (RANDOM() - 0.5);
                block.velocity_i[a][c] = RANDOM() - 0.5;
                block.velocity_j[a][c] = RANDOM() - 0.5;
                block.spin_i[a][c] = 50.0 * (RANDOM() - 0.5);
                block.spin_j[a][c] = 50.0 * (RANDOM() - 0.5);
                block.spring[a][c] = fresh ? 0.0 : 2e-5 * (RANDOM() - 0.5);
                block.roll_spring[a][c] = fresh ? 0.0 : 2e-5 * (RANDOM() - 0.5);
            }
            block.separation[2][c] += 0.0098; /* centres about 1 cm apart: overlapping */
            double tilt = fresh ? 0.0 : 0.05 * (RANDOM() - 0.5);
            block.roll_normal[0][c] = fresh ? 0.0 : tilt;
            block.roll_normal[1][c] = 0.0;
            block.roll_normal[2][c] = fresh ? 0.0 : sqrt(1.0 - tilt * tilt);
            block.twist_spring[c] = fresh ? 0.0 : 0.2 * (RANDOM() - 0.5);
            block.radius_i[c] = 0.005;
            block.radius_j[c] = 0.005 + 0.001 * RANDOM();
            block.damping[c] = 0.3 + RANDOM();
            block.effective_radius[c] = 1.0 / (1.0 / block.radius_i[c] + 1.0 / block.radius_j[c]);
        }
        fd_sphere_block_run(&block, &block_law);
        for (int c = 0; c < FD_BLOCK; ++c) {
            fd_vec3 d = {block.separation[0][c], block.separation[1][c], block.separation[2][c]};
            double distance = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
            fd_vec3 n = fd_v3_scale(1.0 / distance, d);
            double overlap = block.radius_i[c] + block.radius_j[c] - distance;
            double a_i = block.radius_i[c] - 0.5 * overlap, a_j = block.radius_j[c] - 0.5 * overlap;
            fd_vec3 vi = {block.velocity_i[0][c], block.velocity_i[1][c], block.velocity_i[2][c]};
            fd_vec3 vj = {block.velocity_j[0][c], block.velocity_j[1][c], block.velocity_j[2][c]};
            fd_vec3 wi = {block.spin_i[0][c], block.spin_i[1][c], block.spin_i[2][c]};
            fd_vec3 wj = {block.spin_j[0][c], block.spin_j[1][c], block.spin_j[2][c]};
            fd_vec3 relative = fd_v3_sub(fd_v3_sub(vi, vj), fd_v3_cross(fd_v3_add(fd_v3_scale(a_i, wi),
                                                                                 fd_v3_scale(a_j, wj)),
                                                                       n));
            double history[16] = {0};
            for (int a = 0; a < 3; ++a) {
                history[a] = block.spring[a][c];
                if (bc->roll != NULL) {
                    history[law.history_offset[FD_MECHANISM_ROLL] + a] = block.roll_spring[a][c];
                    history[law.history_offset[FD_MECHANISM_ROLL] + 3 + a] = block.roll_normal[a][c];
                }
            }
            if (bc->spin != NULL) {
                history[law.history_offset[FD_MECHANISM_SPIN]] = block.twist_spring[c];
            }
            double constants[3] = {block.damping[c], block.effective_radius[c], 0.0};
            fd_sphere_loads loads =
                fd_sphere_kernel(&law, constants, 1e-5, 1e-5, n, overlap, relative, wi, wj, 0u, history, NULL);
            fd_vec3 force = fd_v3_mul_add(loads.slide_force, loads.normal_force, n);
            fd_vec3 roll_spin = fd_v3_mul_add(loads.roll_torque, loads.spin_torque, n);
            fd_vec3 turn = fd_v3_cross(n, loads.slide_force);
            fd_vec3 torque_i = fd_v3_sub(roll_spin, fd_v3_scale(a_i, turn));
            fd_vec3 torque_j = fd_v3_neg(fd_v3_add(roll_spin, fd_v3_scale(a_j, turn)));
            cr_assert(force.x == block.force[0][c] && force.y == block.force[1][c] && force.z == block.force[2][c],
                      "case %zu lane %d: force differs: %.17g %.17g %.17g vs %.17g %.17g %.17g (N %.17g)", k, c,
                      force.x, force.y, force.z, block.force[0][c], block.force[1][c], block.force[2][c],
                      loads.normal_force);
            cr_assert(torque_i.x == block.torque_i[0][c] && torque_i.y == block.torque_i[1][c] &&
                          torque_i.z == block.torque_i[2][c] && torque_j.x == block.torque_j[0][c] &&
                          torque_j.y == block.torque_j[1][c] && torque_j.z == block.torque_j[2][c],
                      "case %zu lane %d: torques differ", k, c);
            for (int a = 0; a < 3; ++a) {
                cr_assert(history[a] == block.spring_after[a][c], "case %zu lane %d: slide spring differs", k, c);
                if (bc->roll != NULL) {
                    cr_assert(history[law.history_offset[FD_MECHANISM_ROLL] + a] == block.roll_spring_after[a][c],
                              "case %zu lane %d: rolling spring differs", k, c);
                }
            }
            if (bc->spin != NULL) {
                cr_assert(history[law.history_offset[FD_MECHANISM_SPIN]] == block.twist_spring_after[c],
                          "case %zu lane %d: twisting spring differs", k, c);
            }
            cr_assert_eq((unsigned)block.slip[c], loads.slip, "case %zu lane %d", k, c);
            slipping += (loads.slip & FD_ENTRY_SLIP_SLIDE) != 0;
        }
        cr_assert(slipping > 0 && slipping < FD_BLOCK, "case %zu: both sticking and slipping lanes needed (%d slip)", k,
                  slipping);
        check_plane_lanes(&block, &block_law, &law, bc, k, &seed);
    }
}

/* The integrator's straight path (blocks of bodies from arrays per field)
 * must give the bits of body/integrate.c's kick and drift for every body,
 * whatever its turn per step: spheres spinning slowly (the series) and fast
 * (|omega dt| > 0.2: the exact path), with and without a free fall. */
Test(penalty, the_straight_integration_equals_body_integrate_bit_for_bit)
{
    fd_world_def def = fd_default_world_def();
    def.time_step = 1e-3;
    def.integrator = FD_INTEGRATOR_VELOCITY_VERLET;
    fd_world* world = fd_world_create(&def);
    fd_material_def material = fd_default_material_def();
    material.name = "m";
    fd_material_id m = fd_world_create_material(world, &material);
    fd_contact_law_def law;
    memset(&law, 0, sizeof law);
    law.submodel[FD_MECHANISM_NORMAL] = submodel("hooke", "k_n", 1e3, NULL, 0.0, NULL, 0.0);
    cr_assert_eq(fd_world_set_contact_law(world, m, m, &law), FD_OK, "%s", fd_last_error());
    enum { BODIES = 70 };
    fd_body_state expected[BODIES];
    for (int b = 0; b < BODIES; ++b) {
        fd_body_def ball = fd_default_body_def();
        ball.shape.radius = 0.01;
        ball.material = m;
        ball.position = (fd_vec3){0.05 * b, 0.0, 1.0};
        ball.velocity = (fd_vec3){0.1 * (b % 3), 0.0, 0.0};
        double spin = b % 10 == 0 ? 400.0 : 3.0 * b; /* 400 rad/s x 1 ms: a turn of 0.4 rad */
        ball.angular_velocity = (fd_vec3){spin, 0.5 * spin, -0.2 * spin};
        cr_assert(!fd_body_id_is_null(fd_world_create_body(world, &ball)), "%s", fd_last_error());
    }
    cr_assert_eq(fd_world_prepare(world), FD_OK, "%s", fd_last_error());
    for (int b = 0; b < BODIES; ++b) {
        expected[b] = fd_body_get_state(world, fd_world_body_at(world, b));
    }
    for (int step = 0; step < 50; ++step) {
        cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
        for (int b = 0; b < BODIES; ++b) {
            /* Velocity Verlet with gravity alone, as body/integrate.c does it. */
            fd_body_info info = fd_body_get_info(world, fd_world_body_at(world, b));
            fd_vec3 force = fd_v3_scale(info.mass, def.gravity);
            fd_body_state* s = &expected[b];
            s->velocity = fd_v3_mul_add(s->velocity, 0.5 * def.time_step * (1.0 / info.mass), force);
            s->position = fd_v3_mul_add(s->position, def.time_step, s->velocity);
            s->orientation = fd_quat_renormalize(
                fd_quat_mul(fd_quat_from_rotation_vector(fd_v3_scale(def.time_step, s->angular_velocity)),
                            s->orientation));
            s->velocity = fd_v3_mul_add(s->velocity, 0.5 * def.time_step * (1.0 / info.mass), force);
        }
    }
    for (int b = 0; b < BODIES; ++b) {
        fd_body_state got = fd_body_get_state(world, fd_world_body_at(world, b));
        cr_assert(memcmp(&got, &expected[b], sizeof got) == 0, "body %d: position %.17g vs %.17g, q.w %.17g vs %.17g",
                  b, got.position.z, expected[b].position.z, got.orientation.w, expected[b].orientation.w);
    }
    fd_world_free(world);
}

/* A force pass that is rolled back leaves no trace: the contacts' springs,
 * states and slots are those of before, and the run goes on as if the pass
 * had never been made (the stepper rolls back this way after a non-finite
 * step; its body buffers are swapped back by the world). */
#include "penalty/penalty_internal.h"
#include "world/world_store.h"

Test(penalty, a_rolled_back_force_pass_leaves_no_trace)
{
    pile_options o = {.threads = 1, .slide = "dsds", .roll_and_spin = false, .ledger = true};
    for (int variant = 0; variant < 2; ++variant) {
        o.roll_and_spin = variant == 1; /* block kernel, then the scalar sphere kernel */
        fd_world* twin = make_pile(&o);
        fd_world* world = make_pile(&o);
        for (int s = 0; s < 1200; ++s) {
            cr_assert_eq(fd_world_step(twin), FD_OK, "%s", fd_last_error());
            cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
        }
        cr_assert_gt(fd_world_contact_count(world), 200);
        size_t n = (size_t)fd_world_body_count(world);
        fd_vec3* forces = malloc(n * sizeof *forces);
        fd_vec3* torques = malloc(n * sizeof *torques);
        memcpy(forces, world->forces, n * sizeof *forces);
        memcpy(torques, world->torques, n * sizeof *torques);
        uint64_t next_id = world->next_contact_id;
        fd_energy_totals totals = world->energy_totals; /* the ledger's, which the stepper restores too */
        double stored[FD_MECHANISM_COUNT];
        memcpy(stored, world->stored_energy, sizeof stored);
        /* A pass at the same state changes every spring it evaluates ...
         * (the careful way's pass, which writes them into the other buffer:
         * a pass of a step made in place writes them over, and the rewind
         * point undoes it, tests/test_rewind.c) */
        world->penalty->stepping_in_place = false;
        cr_assert_eq(fd_penalty_force_pass(world, false, true), FD_OK, "%s", fd_last_error());
        fd_penalty_rollback(world);
        /* ... and after the rollback (with what the stepper restores) the
         * world must step like its twin. */
        memcpy(world->forces, forces, n * sizeof *forces);
        memcpy(world->torques, torques, n * sizeof *torques);
        world->next_contact_id = next_id;
        world->energy_totals = totals;
        memcpy(world->stored_energy, stored, sizeof stored);
        world->def.events = twin->def.events = true;
        int events = 0;
        for (int s = 0; s < 800; ++s) {
            cr_assert_eq(fd_world_step(twin), FD_OK, "%s", fd_last_error());
            cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
            cr_assert_eq(fd_world_event_count(world), fd_world_event_count(twin), "step %d", s);
            events += fd_world_event_count(world);
            for (int k = 0; k < fd_world_event_count(world); ++k) {
                const fd_contact_event* a = &fd_world_events(world)[k];
                const fd_contact_event* b = &fd_world_events(twin)[k];
                cr_assert(a->type == b->type && a->mechanism == b->mechanism && a->contact_id == b->contact_id,
                          "step %d, event %d differs", s, k);
            }
        }
        cr_assert_gt(events, 10, "the comparison needs events");
        cr_assert_eq(fd_world_state_hash(world), fd_world_state_hash(twin), "variant %d", variant);
        /* The books: each contact's over its life, and the world's. */
        fd_world_energy a = fd_world_get_energy(world), b = fd_world_get_energy(twin);
        for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
            cr_assert(a.dashpot[m] == b.dashpot[m] && a.slip[m] == b.slip[m] && a.stored[m] == b.stored[m],
                      "variant %d, mechanism %d: books differ", variant, m);
        }
        fd_world_request_contacts(world);
        fd_world_request_contacts(twin);
        cr_assert_eq(fd_world_step(twin), FD_OK, "%s", fd_last_error());
        cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
        cr_assert_eq(fd_world_contact_count(world), fd_world_contact_count(twin));
        for (int c = 0; c < fd_world_contact_count(world); ++c) {
            fd_contact_view x, y;
            cr_assert_eq(fd_world_get_contact(world, c, &x), FD_OK, "%s", fd_last_error());
            cr_assert_eq(fd_world_get_contact(twin, c, &y), FD_OK, "%s", fd_last_error());
            cr_assert(x.id == y.id && x.first_step == y.first_step, "contact %d: id %llu/%llu, began %lld/%lld", c,
                      (unsigned long long)x.id, (unsigned long long)y.id, (long long)x.first_step,
                      (long long)y.first_step);
        }
        free(forces);
        free(torques);
        fd_world_free(world);
        fd_world_free(twin);
    }
}

/* Recording on request writes the world's one contact set in place (the
 * spare set, which exists for a failed step's rollback when every step
 * records, is never allocated): the records must be those a world that
 * records every step holds at the same step, field for field, whether the
 * steps before recorded or not. */
static void assert_same_records(fd_world* a, fd_world* b, int step)
{
    cr_assert_eq(fd_world_contact_count(a), fd_world_contact_count(b), "step %d", step);
    for (int c = 0; c < fd_world_contact_count(a); ++c) {
        fd_contact_view x, y;
        cr_assert_eq(fd_world_get_contact(a, c, &x), FD_OK, "%s", fd_last_error());
        cr_assert_eq(fd_world_get_contact(b, c, &y), FD_OK, "%s", fd_last_error());
        bool same = x.id == y.id && x.first_step == y.first_step && x.body_i.index1 == y.body_i.index1 &&
                    x.body_j.index1 == y.body_j.index1 &&
                    memcmp(&x.geometry, &y.geometry, sizeof x.geometry) == 0 &&
                    memcmp(&x.loads, &y.loads, sizeof x.loads) == 0 &&
                    memcmp(x.energy, y.energy, sizeof x.energy) == 0 && x.column_count == y.column_count &&
                    memcmp(x.columns, y.columns, (size_t)x.column_count * sizeof(double)) == 0;
        cr_assert(same, "step %d, contact %d: the record differs", step, c);
    }
}

Test(penalty, recording_on_request_writes_one_set_in_place_with_the_records_of_every_step)
{
    pile_options every = {.threads = 1, .slide = "dsds", .roll_and_spin = true, .output = FD_CONTACT_OUTPUT_EVERY_STEP};
    pile_options asked = every;
    asked.output = FD_CONTACT_OUTPUT_ON_REQUEST;
    fd_world* a = make_pile(&every);
    fd_world* b = make_pile(&asked);
    int compared = 0;
    for (int s = 1; s <= 3000; ++s) {
        /* Every 300th step while the pile falls and settles, and two steps in
         * a row at 1500 and 1501. */
        bool ask = s % 300 == 0 || s == 1501;
        if (ask) {
            fd_world_request_contacts(b);
        }
        cr_assert_eq(fd_world_step(a), FD_OK, "%s", fd_last_error());
        cr_assert_eq(fd_world_step(b), FD_OK, "%s", fd_last_error());
        cr_assert_eq(fd_world_contacts_recorded(b), ask, "step %d", s);
        if (ask) {
            assert_same_records(a, b, s);
            compared += fd_world_contact_count(b);
        }
    }
    cr_assert_gt(compared, 1000, "the comparison needs contacts");
    cr_assert_eq(b->previous.capacity, 0, "the spare set was allocated: %d records", b->previous.capacity);
    cr_assert_gt(a->previous.capacity, 0);
    fd_world_free(a);
    fd_world_free(b);
}

/* Packing the pool in key order between rebuilds (force_pass.c, when many
 * contacts began since the last packing) only relabels the slots: a world
 * repacked after every step follows its twin, never repacked by hand, to the
 * last bit, with the same contact ids and ledger, on the block kernel, the
 * scalar sphere kernel and Fang & Negrut's generic path; and where the steps
 * are made the careful way (the ledger with external loads: the springs and
 * books then alternate between their two buffers, and a packing finds them
 * in either) with each contact's lifetime books, on two threads. */
Test(penalty, packing_the_pool_between_rebuilds_changes_no_result)
{
    const char* slides[4] = {"dsds", "csds", "fang_negrut", "dsds"};
    for (int c = 0; c < 4; ++c) {
        pile_options o = {.threads = c == 3 ? 2 : 1, .slide = slides[c], .roll_and_spin = c == 1, .ledger = true,
                          .skin = 4e-3, .pushed = c == 3, .lifetime_books = c == 3};
        fd_world* twin = make_pile(&o);
        fd_world* world = make_pile(&o);
        int64_t repacks = 0, parities = 0;
        for (int s = 0; s < 1500; ++s) {
            cr_assert_eq(fd_world_step(twin), FD_OK, "%s", fd_last_error());
            cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
            fd_penalty* p = world->penalty;
            if (p->begun_since_packed > 0) {
                parities += p->pool.parity;
                cr_assert(fd_neighbor_list_repack(world, &p->lists[p->current]));
                repacks++;
            }
        }
        cr_expect_gt(repacks, 100, "%s: the pile keeps making contacts (%lld repacks)", slides[c], (long long)repacks);
        if (c == 3) {
            cr_expect_gt(parities, 10, "packings that found the springs in the second buffer: %lld", (long long)parities);
        }
        cr_expect_eq(fd_world_state_hash(world), fd_world_state_hash(twin), "%s", slides[c]);
        int count = fd_world_contact_count(world);
        cr_expect_eq(count, fd_world_contact_count(twin));
        fd_world_request_contacts(world);
        fd_world_request_contacts(twin);
        cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
        cr_assert_eq(fd_world_step(twin), FD_OK, "%s", fd_last_error());
        for (int k = 0; k < fd_world_contact_count(world) && k < fd_world_contact_count(twin); ++k) {
            fd_contact_view mine, theirs;
            cr_assert_eq(fd_world_get_contact(world, k, &mine), FD_OK, "%s", fd_last_error());
            cr_assert_eq(fd_world_get_contact(twin, k, &theirs), FD_OK, "%s", fd_last_error());
            cr_expect_eq(mine.id, theirs.id, "%s contact %d", slides[c], k);
            cr_expect_eq(mine.first_step, theirs.first_step, "%s contact %d", slides[c], k);
        }
        fd_world_energy a = fd_world_get_energy(world), b = fd_world_get_energy(twin);
        cr_expect_eq(a.closure_error, b.closure_error, "%s: ledger %.17g vs %.17g", slides[c], a.closure_error,
                     b.closure_error);
        fd_world_free(world);
        fd_world_free(twin);
    }
}

/* A rebuild packs the pool only when it pays or when a contact was left
 * behind (neighbor.c, build_list): a sphere moved by hand out of its
 * neighbours' reach leaves its contacts out of the new list, and their
 * slots must be freed, or the pool would hold slots no contact owns. Every
 * 100 steps the dynamic sphere with the most contacts is lifted 5 cm (20
 * diameters) above the pile; after every step the pool's live slots are
 * exactly the list's contacts. */
static int64_t contacts_in_list(const fd_world* world, int* busiest)
{
    const fd_penalty* p = world->penalty;
    const fd_neighbor_list* list = &p->lists[p->current];
    int64_t held = 0;
    int most = 0;
    for (int i = 0; i < list->body_count; ++i) {
        int own = 0;
        for (int64_t e = list->row_start[i]; e < list->row_start[i + 1]; ++e) {
            own += list->contact[e] != FD_NO_CONTACT;
        }
        held += own;
        if (own > most && (world->motion[i].flags & FD_MOTION_DYNAMIC)) {
            most = own;
            *busiest = i;
        }
    }
    return held;
}

Test(penalty, a_rebuild_frees_the_slots_of_the_contacts_left_behind)
{
    pile_options o = {.threads = 1, .slide = "dsds"};
    fd_world* world = make_pile(&o);
    int64_t lifted_contacts = 0;
    for (int s = 0; s < 1000; ++s) {
        cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
        int busiest = -1;
        const fd_contact_pool* pool = &world->penalty->pool;
        int64_t held = contacts_in_list(world, &busiest);
        cr_assert_eq(pool->used - pool->free_count, held, "step %d: %lld live slots for %lld contacts", s,
                     (long long)(pool->used - pool->free_count), (long long)held);
        if (s % 100 == 50 && busiest >= 0) {
            const fd_neighbor_list* list = &world->penalty->lists[world->penalty->current];
            for (int64_t e = list->row_start[busiest]; e < list->row_start[busiest + 1]; ++e) {
                lifted_contacts += list->contact[e] != FD_NO_CONTACT;
            }
            fd_body_state state;
            cr_assert_eq(fd_world_get_states(world, busiest, 1, &state), FD_OK, "%s", fd_last_error());
            state.position.z += 0.05;
            cr_assert_eq(fd_world_set_states(world, busiest, 1, &state), FD_OK, "%s", fd_last_error());
        }
    }
    cr_expect_gt(lifted_contacts, 10, "the lifted spheres held contacts (%lld)", (long long)lifted_contacts);
    fd_world_free(world);
}

/* The threads' rows move between passes to follow their measured speeds
 * (neighbor.c, fd_neighbor_list_follow_speeds), and the integration takes
 * the same split. Every split must give the same bits (the loads are summed
 * in key order whatever thread computed them): bounds set by hand to a new
 * place before every step, some threads given no rows at all, follow a
 * one-thread twin to the last bit, ledger included. */
Test(penalty, moving_the_threads_rows_between_steps_changes_no_bit)
{
    const char* slides[2] = {"dsds", "csds"};
    for (int c = 0; c < 2; ++c) {
        pile_options o = {.threads = 1, .slide = slides[c], .roll_and_spin = c == 1, .ledger = true};
        pile_run serial = run_pile(&o, 1500);
        o.threads = 3;
        fd_world* world = make_pile(&o);
        int moved = 0;
        for (int s = 0; s < 1500; ++s) {
            fd_penalty* p = world->penalty;
            fd_neighbor_list* list = &p->lists[p->current];
            if (list->row_start != NULL && list->thread_count == 3 && list->body_count == world->body_count) {
                int groups = (list->body_count + FD_BOOK_GROUP_ROWS - 1) / FD_BOOK_GROUP_ROWS;
                int a = (s * 5) % (groups + 1), b = (s * 3) % (groups + 1);
                int first = a < b ? a : b, second = a < b ? b : a;
                int n = list->body_count;
                list->thread_row[1] = first * FD_BOOK_GROUP_ROWS < n ? first * FD_BOOK_GROUP_ROWS : n;
                list->thread_row[2] = second * FD_BOOK_GROUP_ROWS < n ? second * FD_BOOK_GROUP_ROWS : n;
                moved++;
            }
            cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
        }
        cr_assert_gt(moved, 1000, "%s: the bounds must be moved", slides[c]);
        cr_expect_eq(fd_world_state_hash(world), serial.hash, "%s: %016llx vs %016llx", slides[c],
                     (unsigned long long)fd_world_state_hash(world), (unsigned long long)serial.hash);
        fd_world_energy energy = fd_world_get_energy(world);
        cr_expect(same_books(&energy, &serial.energy), "%s: the ledger's books differ", slides[c]);
        fd_world_free(world);
    }
}

/* A thread that took three times as long per unit of row weight as the
 * other gets a third of the other's share at the next pass: bound 1 at the
 * group bound nearest 3/4 of the weight (within one group's weight, the
 * split's grain), and the costs kept are the measured ones. */
Test(penalty, a_slower_thread_gets_fewer_rows)
{
    pile_options o = {.threads = 2, .slide = "dsds"};
    fd_world* world = make_pile(&o);
    cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
    fd_penalty* p = world->penalty;
    fd_neighbor_list* list = &p->lists[p->current];
    cr_assert_eq(list->thread_count, 2);
    int groups = (list->weighted_rows + FD_BOOK_GROUP_ROWS - 1) / FD_BOOK_GROUP_ROWS;
    const double* weight = list->group_weight;
    double total = weight[groups], widest = 0.0;
    for (int g = 0; g < groups; ++g) {
        widest = fmax(widest, weight[g + 1] - weight[g]);
    }
    int32_t bound = list->thread_row[1];
    double first = bound >= list->weighted_rows ? total : weight[bound / FD_BOOK_GROUP_ROWS];
    cr_assert(first > 0.0 && first < total, "both threads must have rows (bound at row %d)", bound);
    p->threads[0].cost = p->threads[1].cost = 0.0;
    p->threads[0].busy = 1e-9 * first;
    p->threads[1].busy = 3e-9 * (total - first);
    fd_neighbor_list_follow_speeds(list, p->threads);
    cr_expect(fabs(p->threads[0].cost - 1e-9) < 1e-24 && fabs(p->threads[1].cost - 3e-9) < 1e-24,
              "costs %g %g", p->threads[0].cost, p->threads[1].cost);
    bound = list->thread_row[1];
    cr_assert_eq(bound % FD_BOOK_GROUP_ROWS, 0, "a bound at a ledger group's first row");
    double moved = weight[bound / FD_BOOK_GROUP_ROWS];
    cr_expect(fabs(moved - 0.75 * total) <= widest, "thread 0's weight %g of %g, wanted %g within %g", moved, total,
              0.75 * total, widest);
    fd_world_free(world);
}
