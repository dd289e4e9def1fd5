/* Domain decomposition (src/parallel/partition.h) in one process: 2 and 3
 * ranks, each a world of the same pile with the bodies it does not hold
 * dormant, exchange ghosts after each step and migrate bodies and contacts
 * when one has moved a whole skin. Every body its owner computes must equal
 * the one-process body to the last bit (state and loads), and every
 * contact the one-process contact (id, springs, slip state), for every law
 * family of the penalty stepper (D-SDS with rolling and twisting, C-SDS,
 * Fang & Negrut, PFC) and across periodic faces; the test also
 * checks that what it relies on happens (bodies migrate, the boxes are cut
 * again on the way, each rank holds only part of the pile, contacts form). */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/sort_keys.h"
#include "fricdem/fricdem.h"
#include "parallel/partition.h"
#include "penalty/penalty.h"
#include "world/world_store.h"

#include "support/pile.h"

/* Body b of `world` and of `reference`, state and loads, to the bit. */
static bool same_body(const fd_world* world, const fd_world* reference, int b)
{
    return memcmp(&world->position[b], &reference->position[b], sizeof(fd_vec3)) == 0 &&
           memcmp(&world->orientation[b], &reference->orientation[b], sizeof(fd_quat)) == 0 &&
           memcmp(&world->velocity[b], &reference->velocity[b], sizeof(fd_vec3)) == 0 &&
           memcmp(&world->angular_velocity[b], &reference->angular_velocity[b], sizeof(fd_vec3)) == 0 &&
           memcmp(&world->forces[b], &reference->forces[b], sizeof(fd_vec3)) == 0 &&
           memcmp(&world->torques[b], &reference->torques[b], sizeof(fd_vec3)) == 0;
}

/* Every body that is not a wall has exactly one owner, whose copy is the
 * reference's. */
static void assert_owners_match(const fd_partition* parts, int ranks, const fd_world* reference, int step,
                                const char* label)
{
    for (int b = 0; b < reference->body_count; ++b) {
        if (reference->is_removed[b]) {
            /* an outlet's: a tombstone on every rank */
            for (int r = 0; r < ranks; ++r) {
                cr_assert(parts[r].role[b] == FD_ROLE_GONE && parts[r].world->is_removed[b],
                          "%s, %d ranks, step %d: body %d, removed in one process, is not on rank %d", label, ranks,
                          step, b, r);
            }
            continue;
        }
        if (reference->is_wall[b]) {
            continue;
        }
        int owners = 0;
        for (int r = 0; r < ranks; ++r) {
            if (parts[r].role[b] != FD_ROLE_OWNED) {
                continue;
            }
            ++owners;
            cr_assert(same_body(parts[r].world, reference, b),
                      "%s, %d ranks, step %d: body %d on rank %d differs from one process (x %.17g vs %.17g)", label,
                      ranks, step, b, r, parts[r].world->position[b].x, reference->position[b].x);
        }
        cr_assert_eq(owners, 1, "%s, %d ranks, step %d: body %d has %d owners", label, ranks, step, b, owners);
    }
    for (int r = 0; r < ranks; ++r) {
        for (int i = 0; i < reference->outlet_count; ++i) {
            const fd_outlet* mine = &parts[r].world->outlets[i];
            const fd_outlet* want = &reference->outlets[i];
            cr_assert(mine->removed == want->removed &&
                          memcmp(&mine->removed_mass, &want->removed_mass, sizeof want->removed_mass) == 0,
                      "%s, %d ranks, step %d: outlet %d on rank %d removed %lld (%.17g kg), "
                      "one process %lld (%.17g kg)",
                      label, ranks, step, i, r, (long long)mine->removed, mine->removed_mass, (long long)want->removed,
                      want->removed_mass);
        }
    }
}

/* Every contact of one process is answered for by one rank (the owner of
 * its first body that is not a wall), whose copy has the same id, first
 * step, state and springs to the bit. */
static void assert_contacts_match(const fd_partition* parts, int ranks, const fd_world* reference, int step,
                                  const char* label)
{
    fd_penalty_contacts want;
    cr_assert_eq(fd_penalty_gather(reference, &want), FD_OK, "%s", fd_last_error());
    uint64_t* keys = malloc((size_t)(want.count > 0 ? want.count : 1) * sizeof *keys);
    cr_assert_not_null(keys);
    for (int64_t k = 0; k < want.count; ++k) {
        keys[k] = (uint64_t)(uint32_t)want.pairs[2 * k] << 32 | (uint32_t)want.pairs[2 * k + 1];
    }
    int stride = want.history_stride;
    int64_t answered = 0;
    for (int r = 0; r < ranks; ++r) {
        fd_penalty_contacts got;
        cr_assert_eq(fd_penalty_gather(parts[r].world, &got), FD_OK, "%s", fd_last_error());
        for (int64_t k = 0; k < got.count; ++k) {
            int i = got.pairs[2 * k], j = got.pairs[2 * k + 1];
            int first = reference->is_wall[i] ? j : i;
            if (parts[r].role[first] != FD_ROLE_OWNED) {
                continue;
            }
            ++answered;
            uint64_t key = (uint64_t)(uint32_t)i << 32 | (uint32_t)j;
            const uint64_t* found = bsearch(&key, keys, (size_t)want.count, sizeof key, fd_compare_keys);
            cr_assert_not_null(found, "%s, %d ranks, step %d: contact (%d, %d) on rank %d is not one process's", label,
                               ranks, step, i, j, r);
            int64_t w = found - keys;
            cr_assert(got.id[k] == want.id[w] && got.first_step[k] == want.first_step[w] &&
                          got.state[k] == want.state[w] &&
                          memcmp(got.springs + k * stride, want.springs + w * stride,
                                 (size_t)stride * sizeof(double)) == 0,
                      "%s, %d ranks, step %d: contact (%d, %d) on rank %d: id %llu vs %llu, or its springs differ",
                      label, ranks, step, i, j, r, (unsigned long long)got.id[k], (unsigned long long)want.id[w]);
        }
        fd_penalty_contacts_free(&got);
    }
    cr_assert_eq(answered, want.count, "%s, %d ranks, step %d: %lld contacts answered for, one process has %lld", label,
                 ranks, step, (long long)answered, (long long)want.count);
    free(keys);
    fd_penalty_contacts_free(&want);
}

/* A rank lists no pair of two ghosts, or of a ghost and a wall (no body of
 * theirs is its own: FD_MOTION_PASSIVE). The pairs whose bodies the rank no
 * longer holds wait for the next build, and are not looked at. Gives how
 * many pairs of a ghost with a body of a rank's own the ranks list (the
 * caller asserts that some were, once the pile has settled into them). */
static int64_t assert_lists_leave_out_passive_pairs(const fd_partition* parts, int ranks, int step,
                                                    const char* label)
{
    int64_t with_ghosts = 0;
    for (int r = 0; r < ranks; ++r) {
        const fd_penalty* p = parts[r].world->penalty;
        const fd_neighbor_list* list = &p->lists[p->current];
        for (int i = 0; list->row_start != NULL && i < list->body_count; ++i) {
            for (int64_t e = list->row_start[i]; e < list->row_start[i + 1]; ++e) {
                int role_i = parts[r].role[i], role_j = parts[r].role[list->partner[e]];
                bool passive_i = role_i == FD_ROLE_GHOST || role_i == FD_ROLE_SHARED;
                bool passive_j = role_j == FD_ROLE_GHOST || role_j == FD_ROLE_SHARED;
                cr_assert(!(passive_i && passive_j), "%s, %d ranks, step %d: rank %d lists the pair (%d, %d), of "
                          "roles %d and %d, with no body of its own", label, ranks, step, r, i, list->partner[e],
                          role_i, role_j);
                with_ghosts += (role_i == FD_ROLE_GHOST && role_j == FD_ROLE_OWNED) ||
                               (role_i == FD_ROLE_OWNED && role_j == FD_ROLE_GHOST);
            }
        }
    }
    return with_ghosts;
}

/* Every owner sends each step exactly the ghosts the other ranks hold: body
 * b is in rank o's list for rank r (ghost_of) if and only if o owns b and r
 * holds it as a ghost. (Between migrations the lists keep the holders the
 * last migration gave, whatever the bodies did since: a body that left a
 * rank's halo is still that rank's ghost, and stale there if not sent.) */
static void assert_ghost_lists_match_roles(const fd_partition* parts, int ranks, int body_count, int step,
                                           const char* label)
{
    for (int o = 0; o < ranks; ++o) {
        for (int r = 0; r < ranks; ++r) {
            if (r == o) {
                continue;
            }
            int64_t held_there = 0;
            for (int b = 0; b < body_count; ++b) {
                held_there += parts[o].role[b] == FD_ROLE_OWNED && parts[r].role[b] == FD_ROLE_GHOST;
            }
            cr_assert_eq(parts[o].ghost_count[r], held_there, "%s, %d ranks, step %d: rank %d sends %lld ghosts to "
                         "rank %d, which holds %lld of its bodies as ghosts", label, ranks, step, o,
                         (long long)parts[o].ghost_count[r], r, (long long)held_there);
            for (int64_t k = 0; k < parts[o].ghost_count[r]; ++k) {
                int b = parts[o].ghost_of[r][k];
                cr_assert(parts[o].role[b] == FD_ROLE_OWNED && parts[r].role[b] == FD_ROLE_GHOST,
                          "%s, %d ranks, step %d: rank %d sends body %d to rank %d, whose role there is %d", label,
                          ranks, step, o, b, r, parts[r].role[b]);
            }
        }
    }
}

/* With the energy ledger: rank 0's totals (every rank's books summed in
 * one process's order) are one process's to the bit. */
static void assert_ledger_matches(const fd_partition* summing, int ranks, const fd_world* reference, int step,
                                  const char* label)
{
    const fd_world* world = summing->world;
    cr_assert(memcmp(&world->energy_totals, &reference->energy_totals, sizeof reference->energy_totals) == 0 &&
                  memcmp(world->stored_energy, reference->stored_energy, sizeof reference->stored_energy) == 0,
              "%s, %d ranks, step %d: the ledger's totals on rank 0 differ from one process's (dissipated by the "
              "slide dashpot %.17g J vs %.17g J, released %.17g J vs %.17g J, stored in the normal springs %.17g J "
              "vs %.17g J)", label, ranks, step, world->energy_totals.dashpot[FD_MECHANISM_SLIDE],
              reference->energy_totals.dashpot[FD_MECHANISM_SLIDE], world->energy_totals.released,
              reference->energy_totals.released, world->stored_energy[FD_MECHANISM_NORMAL],
              reference->stored_energy[FD_MECHANISM_NORMAL]);
}

static void run_case(const pile_options* o, const char* label, int steps)
{
    for (int ranks = 2; ranks <= 3; ++ranks) {
        fd_world* worlds[3];
        fd_partition parts[3];
        fd_domain domain;
        for (int r = 0; r < ranks; ++r) {
            worlds[r] = make_pile(o);
            cr_assert_eq(fd_world_prepare(worlds[r]), FD_OK, "%s", fd_last_error());
        }
        cr_assert_eq(fd_domain_plan(worlds[0], ranks, &domain), FD_OK, "%s", fd_last_error());
        /* With 3 ranks the boxes are cut again at every migration that finds
         * any rank above the mean: rebalancing must not move a bit either. */
        domain.rebalance_above = ranks == 3 ? 1.0 : domain.rebalance_above;
        for (int r = 0; r < ranks; ++r) {
            cr_assert_eq(fd_partition_init(&parts[r], worlds[r], &domain, r), FD_OK, "%s", fd_last_error());
        }
        /* A box periodic every way is cut across a periodic axis: the halo
         * then reaches across the periodic face. */
        bool periodic_cut = false;
        for (int r = 0; r < ranks; ++r) {
            for (int a = 0; a < 3; ++a) {
                periodic_cut = periodic_cut || (domain.periodic[a] && domain.low[r][a] > domain.period_low[a]);
            }
        }
        cr_assert(!o->periodic_all || periodic_cut, "%s, %d ranks: no box cut across a periodic axis", label, ranks);
        fd_world* one = make_pile(o);
        cr_assert_eq(fd_world_prepare(one), FD_OK, "%s", fd_last_error());
        int held_most = 0;
        int64_t listed_with_ghosts = 0;
        for (int s = 1; s <= steps; ++s) {
            cr_assert_eq(fd_world_step(one), FD_OK, "%s", fd_last_error());
            cr_assert_eq(fd_partition_step_together(parts, ranks), FD_OK, "%s, step %d: %s", label, s,
                         fd_last_error());
            assert_ghost_lists_match_roles(parts, ranks, one->body_count, s, label);
            if (s % 250 == 0 || s == steps) {
                assert_owners_match(parts, ranks, one, s, label);
                assert_contacts_match(parts, ranks, one, s, label);
                listed_with_ghosts += assert_lists_leave_out_passive_pairs(parts, ranks, s, label);
                if (o->ledger) {
                    assert_ledger_matches(&parts[0], ranks, one, s, label);
                }
                for (int r = 0; r < ranks; ++r) {
                    int held = 0;
                    for (int b = 0; b < one->body_count; ++b) {
                        held += parts[r].role[b] == FD_ROLE_OWNED || parts[r].role[b] == FD_ROLE_GHOST;
                    }
                    held_most = held > held_most ? held : held_most;
                }
            }
        }
        /* What the comparison relies on: the pile settles into contacts,
         * bodies migrate, and no rank holds the whole pile. */
        cr_assert_gt(fd_world_contact_count(one), o->gas ? 10 : (o->outlet ? 150 : 300),
                     "%s: the pile must settle into contacts", label);
        cr_assert_gt(parts[0].migrations, 2, "%s, %d ranks: bodies must migrate (%lld migrations)", label, ranks,
                     (long long)parts[0].migrations);
        cr_assert_lt(held_most, one->body_count - 5, "%s, %d ranks: a rank holds all %d spheres", label, ranks,
                     held_most);
        cr_assert_gt(listed_with_ghosts, 0, "%s, %d ranks: no rank lists a ghost with a body of its own", label,
                     ranks);
        if (o->ledger) {
            /* contacts ended (their springs' energy released) and dissipated */
            cr_assert(one->energy_totals.released > 0.0 && one->energy_totals.dashpot[FD_MECHANISM_NORMAL] > 0.0,
                      "%s: the ledger must have books to compare", label);
        }
        if (o->inlet) {
            cr_assert_eq(fd_world_get_inlet_info(one, 0).inserted, 150, "%s: the inlet must pour", label);
        }
        if (o->outlet) {
            cr_assert_gt(one->outlets[0].removed, 50, "%s: the outlet must take spheres", label);
        }
        if (ranks == 3) {
            cr_assert_gt(domain.rebalances, 0, "%s, 3 ranks: the boxes were never cut again", label);
        }
        for (int r = 0; r < ranks; ++r) {
            fd_partition_free(&parts[r]);
            fd_world_free(worlds[r]);
        }
        fd_domain_free(&domain);
        fd_world_free(one);
    }
}

/* The tests of the bits against one process differ only in the pile's
 * options, the label the failure messages give the case and its number of
 * steps: each is a Test that calls run_case with them, so that template is
 * written once, here. A test's full name is still the sentence
 * two_and_three_ranks_give_the_bits_of_one_process_<name>. */
#define RANKS_MATCH_ONE_PROCESS(name, label, steps, ...)                                                               \
    Test(partition, two_and_three_ranks_give_the_bits_of_one_process_##name)                                           \
    {                                                                                                                  \
        pile_options o = {__VA_ARGS__};                                                                                \
        run_case(&o, label, steps);                                                                                    \
    }

RANKS_MATCH_ONE_PROCESS(with_dsds, "hooke + dsds", 2500, .threads = 1, .slide = "dsds")

RANKS_MATCH_ONE_PROCESS(with_rolling_and_twisting,
                        "dsds + rolling + twisting, 3 materials, 2 threads, the energy ledger", 2500,
                        .threads = 2, .slide = "dsds", .roll_and_spin = true, .materials = 3, .ledger = true)

RANKS_MATCH_ONE_PROCESS(with_fang_negrut, "Fang & Negrut, the energy ledger", 2000,
                        .threads = 1, .slide = "fang_negrut", .ledger = true)

RANKS_MATCH_ONE_PROCESS(with_pfc_rrlinear, "PFC linear + rrlinear, the energy ledger", 2500,
                        .threads = 1, .slide = "pfc", .ledger = true)

RANKS_MATCH_ONE_PROCESS(across_periodic_faces, "csds, periodic x and y", 2500,
                        .threads = 1, .slide = "csds", .periodic = true)

/* Cells 4 cm wide in a box 10 cm across: fewer than three along a periodic
 * axis, so the lists come from the general broad phase rather than the
 * pair search, which must leave out the ghosts' pairs too. */
RANKS_MATCH_ONE_PROCESS(with_the_general_broad_phase, "csds, periodic x and y, the general broad phase", 2500,
                        .threads = 1, .slide = "csds", .periodic = true, .cell_size = 0.04)

/* The gas in a box periodic along x, y and z: every cut crosses a
 * periodic axis, and spheres leave one box through a periodic face
 * into another. */
RANKS_MATCH_ONE_PROCESS(in_a_gas_periodic_every_way, "a gas periodic every way, hooke + csds", 2000,
                        .threads = 1, .slide = "csds", .gas = true, .periodic_all = true)

/* Spheres flying at up to 1.5 m/s every way collide across the boxes'
 * faces at every speed and migrate often, whole contacts with them. (A
 * halo one drift short of partition.c's bound is not caught here: a
 * pair would have to close head-on from beyond it within one migration;
 * the bound is proved in fd_domain_plan's comment, not sampled.) */
RANKS_MATCH_ONE_PROCESS(in_a_gas_crossing_the_boxes, "a gas, hooke + dsds", 2000,
                        .threads = 1, .slide = "dsds", .gas = true)

/* The outlet takes a strip of the pile at once, then the spheres that
 * roll into it: owned, ghost and dormant copies alike become
 * tombstones on every rank, with the outlet's count and mass. */
RANKS_MATCH_ONE_PROCESS(with_an_outlet, "hooke + dsds, an outlet, the energy ledger", 2500,
                        .threads = 1, .slide = "dsds", .outlet = true, .ledger = true)

/* An inlet pours 150 spheres onto the pile: every rank's inlet inserts
 * the same spheres (every rank holds the bodies around its region),
 * each owned by the rank whose box holds it. */
RANKS_MATCH_ONE_PROCESS(with_an_inlet, "hooke + dsds, an inlet, the energy ledger", 2500,
                        .threads = 1, .slide = "dsds", .inlet = true, .ledger = true)

Test(partition, bisection_cuts_balanced_boxes_that_tile_space_whatever_the_order_of_the_points)
{
    /* 1000 points in a slab periodic along y: every rank count from 1 to 7
     * gets boxes that hold each point exactly once (fd_domain_owner's box
     * contains it, no other does), as many points as its share to within
     * one per cut on the way down, boxes within the period along y, and the
     * same boxes from the points in reverse order. */
    enum { POINTS = 1000 };
    fd_vec3 points[POINTS], reversed[POINTS];
    uint64_t state = 12345;
    for (int k = 0; k < POINTS; ++k) {
        double u[3];
        for (int a = 0; a < 3; ++a) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            u[a] = (double)(state >> 11) / 9007199254740992.0;
        }
        points[k] = (fd_vec3){4.0 * u[0], 1.0 * u[1], 2.0 * u[2] * u[2]}; /* denser near z = 0 */
        reversed[POINTS - 1 - k] = points[k];
    }
    for (int ranks = 1; ranks <= 7; ++ranks) {
        fd_domain a = {.ranks = ranks, .periodic = {false, true, false}, .period = {0.0, 1.0, 0.0}}, b = a;
        a.low = malloc((size_t)ranks * sizeof *a.low), a.high = malloc((size_t)ranks * sizeof *a.high);
        b.low = malloc((size_t)ranks * sizeof *b.low), b.high = malloc((size_t)ranks * sizeof *b.high);
        fd_vec3 scratch[POINTS];
        memcpy(scratch, points, sizeof scratch);
        cr_assert_eq(fd_domain_cut(&a, scratch, POINTS), FD_OK);
        memcpy(scratch, reversed, sizeof scratch);
        cr_assert_eq(fd_domain_cut(&b, scratch, POINTS), FD_OK);
        cr_assert(memcmp(a.low, b.low, (size_t)ranks * sizeof *a.low) == 0 &&
                      memcmp(a.high, b.high, (size_t)ranks * sizeof *a.high) == 0,
                  "%d ranks: the order of the points changed the boxes", ranks);
        int owned[7] = {0};
        for (int k = 0; k < POINTS; ++k) {
            int holders = 0, owner = fd_domain_owner(&a, points[k]);
            for (int r = 0; r < ranks; ++r) {
                bool inside = points[k].x >= a.low[r][0] && points[k].x < a.high[r][0] && points[k].y >= a.low[r][1] &&
                              points[k].y < a.high[r][1] && points[k].z >= a.low[r][2] && points[k].z < a.high[r][2];
                holders += inside;
                cr_assert(!inside || r == owner, "%d ranks: point %d in box %d, owner %d", ranks, k, r, owner);
            }
            cr_assert_eq(holders, 1, "%d ranks: point %d in %d boxes", ranks, k, holders);
            ++owned[owner];
        }
        for (int r = 0; r < ranks; ++r) {
            cr_assert(a.low[r][1] >= 0.0 && a.high[r][1] <= 1.0, "%d ranks: box %d leaves the period along y: "
                      "[%g, %g)", ranks, r, a.low[r][1], a.high[r][1]);
            /* each halving may leave one point off its share */
            cr_assert(abs(owned[r] * ranks - POINTS) <= 3 * ranks, "%d ranks: box %d owns %d of %d", ranks, r,
                      owned[r], POINTS);
        }
        free(a.low), free(a.high), free(b.low), free(b.high);
    }
}

Test(partition, a_cut_by_count_selects_the_boxes_that_a_sort_with_unit_weights_cuts)
{
    /* fd_domain_cut finds each cut by a selection, fd_domain_cut_weighted by
     * a sort: with weights of 1 both must give the same boxes to the bit,
     * for any number of ranks, also where many points share a coordinate
     * (a lattice: ties along every axis) and where some are the same point. */
    enum { POINTS = 1500 };
    static fd_vec3 points[POINTS], scratch[POINTS];
    static double ones[POINTS];
    uint64_t state = 99991;
    for (int k = 0; k < POINTS; ++k) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        double u = (double)(state >> 11) / 9007199254740992.0;
        /* a 10 x 10 x 10 lattice (ties), then points drawn at random, some repeated */
        points[k] = k < 1000 ? (fd_vec3){k % 10, (k / 10) % 10, k / 100}
                             : (fd_vec3){10.0 * u, 3.0 * u * u, k % 3 == 0 ? 5.0 : u};
        if (k >= 1200 && k % 7 == 0) {
            points[k] = points[k - 100]; /* the same point twice */
        }
        ones[k] = 1.0;
    }
    for (int ranks = 1; ranks <= 9; ++ranks) {
        fd_domain a = {.ranks = ranks}, b = a;
        a.low = malloc((size_t)ranks * sizeof *a.low), a.high = malloc((size_t)ranks * sizeof *a.high);
        b.low = malloc((size_t)ranks * sizeof *b.low), b.high = malloc((size_t)ranks * sizeof *b.high);
        memcpy(scratch, points, sizeof scratch);
        cr_assert_eq(fd_domain_cut(&a, scratch, POINTS), FD_OK);
        memcpy(scratch, points, sizeof scratch);
        cr_assert_eq(fd_domain_cut_weighted(&b, scratch, ones, POINTS), FD_OK);
        for (int r = 0; r < ranks; ++r) {
            cr_assert(memcmp(a.low[r], b.low[r], sizeof a.low[r]) == 0 &&
                          memcmp(a.high[r], b.high[r], sizeof a.high[r]) == 0,
                      "%d ranks: box %d by selection [%g %g %g, %g %g %g), by sort [%g %g %g, %g %g %g)", ranks, r,
                      a.low[r][0], a.low[r][1], a.low[r][2], a.high[r][0], a.high[r][1], a.high[r][2], b.low[r][0],
                      b.low[r][1], b.low[r][2], b.high[r][0], b.high[r][1], b.high[r][2]);
        }
        free(a.low), free(a.high), free(b.low), free(b.high);
    }
}

Test(partition, a_weighted_cut_leaves_each_side_its_share_of_the_weight)
{
    /* Two ranks, points spread evenly along x over [0, 4), those at x >= 2
     * weighing 3 (a rank three times slower a body, --balance-by time): of
     * the total weight 8 (per unit of point density), the half, 4, lies
     * below x = 2 + 2/3, and the cut falls there within a point's spacing
     * (0.0033); the points' order does not move it; with unit weights the
     * cut is the unweighted one, x = 2 (the same bits). */
    enum { POINTS = 1200 };
    static fd_vec3 points[POINTS], reversed[POINTS];
    static double weights[POINTS], reversed_weights[POINTS], ones[POINTS];
    for (int k = 0; k < POINTS; ++k) {
        points[k] = (fd_vec3){4.0 * (k + 0.5) / POINTS, 0.1 * (k % 7), 0.2 * (k % 5)};
        weights[k] = points[k].x >= 2.0 ? 3.0 : 1.0;
        reversed[POINTS - 1 - k] = points[k];
        reversed_weights[POINTS - 1 - k] = weights[k];
        ones[k] = 1.0;
    }
    fd_domain d[4];
    for (int c = 0; c < 4; ++c) {
        d[c] = (fd_domain){.ranks = 2};
        d[c].low = malloc(2 * sizeof *d[c].low), d[c].high = malloc(2 * sizeof *d[c].high);
    }
    cr_assert_eq(fd_domain_cut_weighted(&d[0], points, weights, POINTS), FD_OK);
    cr_assert_eq(fd_domain_cut_weighted(&d[1], reversed, reversed_weights, POINTS), FD_OK);
    cr_assert_eq(fd_domain_cut_weighted(&d[2], points, ones, POINTS), FD_OK);
    cr_assert_eq(fd_domain_cut(&d[3], points, POINTS), FD_OK);
    cr_assert(fabs(d[0].high[0][0] - (2.0 + 2.0 / 3.0)) < 4.0 / POINTS, "weighted cut at x = %.6f, not 2.6667",
              d[0].high[0][0]);
    cr_assert(d[0].high[0][0] == d[1].high[0][0] && d[0].low[1][0] == d[1].low[1][0],
              "the points' order moved the weighted cut: %.17g against %.17g", d[0].high[0][0], d[1].high[0][0]);
    cr_assert(d[2].high[0][0] == d[3].high[0][0] && fabs(d[3].high[0][0] - 2.0) < 4.0 / POINTS,
              "unit weights cut at %.17g, the count at %.17g", d[2].high[0][0], d[3].high[0][0]);
    for (int c = 0; c < 4; ++c) {
        free(d[c].low), free(d[c].high);
    }
}

Test(partition, a_box_holds_the_bodies_within_its_halo_across_a_periodic_face)
{
    /* Points spread along x, periodic over [0, 4): two boxes cut across x
     * near x = 2; a body near one end of the period is near the box at the
     * other end (its image is), one in the middle of the other box is not,
     * and a position outside the period belongs to the box of its image. */
    enum { POINTS = 400 };
    fd_vec3 points[POINTS];
    for (int k = 0; k < POINTS; ++k) {
        points[k] = (fd_vec3){4.0 * (k + 0.5) / POINTS, 0.1 * (k % 7), 0.2 * (k % 5)};
    }
    fd_domain d = {.ranks = 2, .periodic = {true, false, false}, .period = {4.0, 0.0, 0.0}, .halo = 0.1};
    d.low = malloc(2 * sizeof *d.low), d.high = malloc(2 * sizeof *d.high);
    cr_assert_eq(fd_domain_cut(&d, points, POINTS), FD_OK);
    cr_assert(fabs(d.high[0][0] - 2.0) < 0.02 && d.low[0][0] == 0.0 && d.high[1][0] == 4.0, "boxes [%g, %g), [%g, %g)",
              d.low[0][0], d.high[0][0], d.low[1][0], d.high[1][0]);
    cr_assert(fd_domain_near(&d, 0, (fd_vec3){3.95, 0.3, 0.4}), "across the face at x = 4 = 0");
    cr_assert(fd_domain_near(&d, 1, (fd_vec3){0.05, 0.3, 0.4}), "across the face at x = 0 = 4");
    cr_assert(!fd_domain_near(&d, 0, (fd_vec3){3.0, 0.3, 0.4}), "the middle of the other box");
    cr_assert(!fd_domain_near(&d, 1, (fd_vec3){0.5, 0.3, 0.4}), "the middle of the other box");
    cr_assert_eq(fd_domain_owner(&d, (fd_vec3){4.01, 0.3, 0.4}), 0, "x = 4.01 is x = 0.01");
    cr_assert_eq(fd_domain_owner(&d, (fd_vec3){-0.01, 0.3, 0.4}), 1, "x = -0.01 is x = 3.99");
    free(d.low), free(d.high);
}

Test(partition, two_and_three_ranks_give_the_bits_of_one_process_with_an_inlet_and_an_outlet)
{
    /* The outlet opens while the inlet still pours: one process removes the
     * outlet's spheres, then its inlet inserts into the slots just freed;
     * the ranks' inlets wait for the removals on every rank. */
    pile_options o = {.threads = 1, .slide = "dsds", .inlet = true, .outlet = true};
    run_case(&o, "hooke + dsds, an inlet and an outlet", 2500);
    fd_world* one = make_pile(&o);
    int created = fd_world_body_count(one) + 150;
    for (int step = 0; step < 2500; ++step) {
        cr_assert_eq(fd_world_step(one), FD_OK, "%s", fd_last_error());
    }
    /* What the case relies on: some of the poured spheres took freed slots. */
    cr_assert_lt(fd_world_body_count(one), created, "no poured sphere took an outlet's freed slot");
    fd_world_free(one);
}

/* Eight spheres pushed and twisted, eight with locked degrees of
 * freedom: their owners book the loads' and the locks' work, rank 0
 * adds it in ascending index with the contacts' books. */
RANKS_MATCH_ONE_PROCESS(with_external_loads_locks_and_the_ledger,
                        "hooke + dsds, external loads and locks, the energy ledger", 1500,
                        .threads = 1, .slide = "dsds", .pushed = true, .ledger = true)

Test(partition, the_ledger_s_test_of_the_energy_stops_two_ranks_as_one_process)
{
    /* As in test_stability: a sphere's speed set behind the books' back
     * (as an unstable integration would) after step 63, on its owner; the
     * ledger's test at step 64 sums the ranks' kinetic energies and stops
     * the run, naming the sphere, as one process stops. */
    pile_options o = {.threads = 1, .slide = "dsds", .ledger = true};
    fd_world* one = make_pile(&o);
    cr_assert_eq(fd_world_prepare(one), FD_OK, "%s", fd_last_error());
    fd_world* worlds[2];
    fd_partition parts[2];
    fd_domain domain;
    for (int r = 0; r < 2; ++r) {
        worlds[r] = make_pile(&o);
        cr_assert_eq(fd_world_prepare(worlds[r]), FD_OK, "%s", fd_last_error());
    }
    cr_assert_eq(fd_domain_plan(worlds[0], 2, &domain), FD_OK, "%s", fd_last_error());
    for (int r = 0; r < 2; ++r) {
        cr_assert_eq(fd_partition_init(&parts[r], worlds[r], &domain, r), FD_OK, "%s", fd_last_error());
    }
    for (int s = 1; s <= 63; ++s) {
        cr_assert_eq(fd_world_step(one), FD_OK, "%s", fd_last_error());
        cr_assert_eq(fd_partition_step_together(parts, 2), FD_OK, "%s", fd_last_error());
    }
    int b = one->body_count - 1; /* a sphere of the lattice's top layer */
    int owner = parts[1].role[b] == FD_ROLE_OWNED ? 1 : 0;
    cr_assert_eq(parts[owner].role[b], FD_ROLE_OWNED);
    /* 6.5 J from nowhere, beyond the test's floor (the pile's mass moving a hundredth of a
     * blow-up radius a step: 1.6 J) */
    one->velocity[b] = worlds[owner]->velocity[b] = fd_v3(100.0, 0.0, 0.0);
    cr_assert_eq(fd_world_step(one), FD_ERR_UNSTABLE, "one process must stop");
    char expected[200];
    const char* message = fd_last_error();
    const char* named = strstr(message, "body ");
    cr_assert(strstr(message, "blow-up at step 64") != NULL && named != NULL && strstr(message, "more than twice"),
              "%s", message);
    snprintf(expected, sizeof expected, "%.40s", named);
    cr_assert_eq(fd_partition_step_together(parts, 2), FD_ERR_UNSTABLE, "two ranks must stop as one process");
    message = fd_last_error();
    cr_assert(strstr(message, "blow-up at step 64") != NULL && strstr(message, expected) != NULL &&
                  strstr(message, "more than twice"),
              "%s\n(one process: %s)", message, expected);
    for (int r = 0; r < 2; ++r) {
        fd_partition_free(&parts[r]);
        fd_world_free(worlds[r]);
    }
    fd_domain_free(&domain);
    fd_world_free(one);
}

Test(partition, what_is_not_supported_yet_is_refused_by_name)
{
    /* The complementarity stepper: its solver couples every contact (the
     * refusal comes before the world is prepared, which the pile's
     * penalty law would fail for that stepper). */
    pile_options o = {.threads = 1, .slide = "dsds", .complementarity = true};
    fd_world* world = make_pile(&o);
    fd_domain domain;
    cr_assert_eq(fd_domain_plan(world, 2, &domain), FD_OK, "%s", fd_last_error());
    fd_partition part;
    cr_assert_eq(fd_partition_init(&part, world, &domain, 0), FD_ERR_UNSUPPORTED);
    cr_assert(strstr(fd_last_error(), "complementarity") != NULL, "%s", fd_last_error());
    fd_world_free(world);
    fd_domain_free(&domain);
}

/* The ranks' gathered keys (fd_sort_keys): every rank's share ascending, or
 * no order at all, or runs of one key, sort as qsort sorts them. The keys
 * are drawn from a small range, so equal keys meet across runs. */
Test(partition, gathered_keys_sort_as_qsort_sorts_them_whatever_runs_they_come_in)
{
    uint64_t state = 88172645463325252u; /* xorshift64: the same keys every run */
    for (int trial = 0; trial < 200; ++trial) {
        int64_t count = trial % 50 == 0 ? trial / 50 : 1 + (int64_t)(trial * 37 % 700);
        int runs = 1 + trial % 7; /* the ranks */
        uint64_t* keys = malloc((size_t)(count > 0 ? count : 1) * sizeof *keys);
        uint64_t* want = malloc((size_t)(count > 0 ? count : 1) * sizeof *want);
        cr_assert(keys != NULL && want != NULL);
        for (int64_t k = 0; k < count; ++k) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            keys[k] = trial % 3 == 0 ? state : state % 97; /* trial % 3 == 1, 2: many equal keys */
        }
        /* trial % 3 == 1: `runs` ascending shares, as the ranks send them */
        for (int r = 0; trial % 3 == 1 && r < runs; ++r) {
            int64_t begin = count * r / runs, end = count * (r + 1) / runs;
            qsort(keys + begin, (size_t)(end - begin), sizeof *keys, fd_compare_keys);
        }
        memcpy(want, keys, (size_t)count * sizeof *keys);
        qsort(want, (size_t)count, sizeof *want, fd_compare_keys);
        fd_sort_keys(keys, count);
        cr_assert(count == 0 || memcmp(keys, want, (size_t)count * sizeof *keys) == 0,
                  "trial %d: %lld keys in %d runs do not sort as qsort sorts them", trial, (long long)count, runs);
        /* the first place of each key, and past the end for a larger one */
        for (int64_t k = 0; k < count; ++k) {
            int64_t at = fd_lower_bound_key(want, count, want[k]);
            cr_assert(at <= k && want[at] == want[k] && (at == 0 || want[at - 1] < want[k]),
                      "trial %d: the lower bound of key %lld is not its first place", trial, (long long)k);
        }
        cr_assert(count == 0 || want[count - 1] == UINT64_MAX ||
                  fd_lower_bound_key(want, count, want[count - 1] + 1) == count);
        free(keys);
        free(want);
    }
}

/* Contact ids under several ranks (fd_partition_numbering_rank,
 * fd_partition_number_keys): each rank's new keys, ascending, go to the
 * rank that numbers their range; that rank numbers what it got from the
 * first id plus the counts of the ranks before it. Every key must take
 * one process's id: 1 + its place among all the keys, ascending. */
Test(partition, new_keys_numbered_by_the_ranks_of_their_ranges_take_one_process_s_ids)
{
    uint64_t state = 2463534242u; /* xorshift64: the same keys every run */
    for (int trial = 0; trial < 60; ++trial) {
        int ranks = 1 + trial % 5, bodies = 2 + trial * 13 % 400;
        fd_world world = {.body_count = bodies};
        fd_partition part = {.world = &world};
        int64_t count = 0;
        uint64_t keys[600], all[600], got[600], got_ids[600], ids[600];
        int sender[600];
        for (int64_t k = 0; k < 600; ++k) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            uint64_t i = state % (uint64_t)bodies, j = (state >> 20) % (uint64_t)bodies;
            uint64_t key = (i < j ? i : j) << 32 | (i < j ? j : i);
            bool seen = false; /* a key begins once a step */
            for (int64_t m = 0; m < count && !seen; ++m) {
                seen = keys[m] == key;
            }
            if (!seen && i != j) {
                keys[count] = key;
                sender[count++] = (int)((state >> 40) % (uint64_t)ranks); /* the rank that answers for it */
            }
        }
        memcpy(all, keys, (size_t)count * sizeof *all);
        qsort(all, (size_t)count, sizeof *all, fd_compare_keys);
        /* the ranges in key order: a key's numbering rank never falls */
        for (int64_t k = 0; k < count; ++k) {
            int numbering = fd_partition_numbering_rank(&part, all[k], ranks);
            cr_assert(numbering >= 0 && numbering < ranks);
            cr_assert(k == 0 || numbering >= fd_partition_numbering_rank(&part, all[k - 1], ranks),
                      "trial %d: the numbering ranks of keys %lld and %lld are out of order", trial,
                      (long long)k - 1, (long long)k);
        }
        uint64_t first_id = 1;
        for (int numbering = 0; numbering < ranks; ++numbering) {
            int64_t n = 0;
            int64_t from[600];
            for (int r = 0; r < ranks; ++r) { /* each sender's keys ascending, senders in rank order */
                for (int64_t k = 0; k < count; ++k) {
                    if (sender[k] == r && fd_partition_numbering_rank(&part, all[k], ranks) == numbering) {
                        got[n] = all[k];
                        from[n++] = k;
                    }
                }
            }
            cr_assert(fd_partition_number_keys(got, n, first_id, got_ids));
            for (int64_t e = 0; e < n; ++e) {
                ids[from[e]] = got_ids[e];
            }
            first_id += (uint64_t)n;
        }
        for (int64_t k = 0; k < count; ++k) {
            cr_assert(ids[k] == (uint64_t)k + 1, "trial %d (%d ranks): key %lld took id %llu, one process gives %lld",
                      trial, ranks, (long long)k, (unsigned long long)ids[k], (long long)k + 1);
        }
    }
}
