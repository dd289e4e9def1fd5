/* The block kernel's lanes (sphere_block.h), shared by the files that
 * instantiate its loops: sphere_block.c (the dispatch and the frictionless
 * loops), sphere_block_dsds.c and sphere_block_csds.c (a slider family's
 * loops each). Everything here is inlined into the loops; only the tables
 * of runs are defined once.
 *
 * Must not touch: the engine, the complementarity stepper, files, ranks. */
#ifndef FD_PENALTY_SPHERE_BLOCK_LANES_H
#define FD_PENALTY_SPHERE_BLOCK_LANES_H

#include <float.h>
#include <math.h>

#include "contact/sds_core.h"
#include "penalty/penalty.h"
#include "penalty/sphere_block.h"

/* What a run keeps beyond the loads: nothing, the books (the ledger), or
 * the books and everything a record shows. */
enum { KEEP_LOADS = 0, KEEP_BOOKS = 1, KEEP_ALL = 2 };

static inline __attribute__((always_inline)) void keep_books(fd_sphere_block* restrict b, int c, int mechanism,
                                                             const fd_sds_vector_step* s)
{
    b->books[mechanism][0][c] = s->stored;
    b->books[mechanism][1][c] = s->dashpot;
    b->books[mechanism][2][c] = s->slip;
    b->books[mechanism][3][c] = s->created;
}

/* A lane's law, what both geometries share: the force on body i and the
 * rolling and twisting torques on it (roll_spin), its springs, slip state
 * and normal stored in the block. */
typedef struct lane_loads {
    fd_vec3 force, slide_force, roll_spin;
} lane_loads;

/* The law at one contact, as fd_sphere_kernel computes it from the normal,
 * the overlap, the relative velocity and the two spins. */
static inline __attribute__((always_inline)) lane_loads lane_law(fd_sphere_block* restrict b, int c,
                                                                 const fd_block_law* law, fd_submodel_kind slide,
                                                                 fd_submodel_kind roll, fd_submodel_kind spin,
                                                                 int keep, bool rescaled_transport, fd_vec3 n,
                                                                 double overlap, fd_vec3 relative, fd_vec3 omega_i,
                                                                 fd_vec3 omega_j)
{
    /* The last step's slip bits: a slider whose static and kinetic
     * coefficients differ takes the one its state says (equal ones give the
     * same limit either way). */
    unsigned slipped = (unsigned)b->was_slipping[c];
    double dt = law->time_step, advance = law->spring_time_step;
    /* hooke (normal.c): the overlap grows when j's surface moves towards i's. */
    double normal_velocity = fd_v3_dot(relative, n);
    double overlap_rate = -normal_velocity;
    double positive = fd_select(overlap > 0.0, overlap, 0.0);
    double elastic = law->k_n * positive;
    double damping = fd_select(positive > 0.0, b->damping[c] * overlap_rate, 0.0);
    double total = elastic + damping;
    double normal_force = fd_select(law->clamp & !(total > 0.0), 0.0, total);
    /* Coulomb limits scale with |N| (friction.c). */
    double critical = fabs(normal_force);
    double slip = 0.0;
    fd_vec3 slide_force = fd_v3(0.0, 0.0, 0.0);
    if (slide != FD_KIND_NONE) {
        double limit = fd_static_kinetic((slipped & FD_ENTRY_SLIP_SLIDE) != 0, law->mu_s, law->mu_k) * critical;
        fd_vec3 tangential = fd_v3_mul_add(relative, -normal_velocity, n);
        fd_vec3 xi = fd_sds_into_plane(FD_LANE_LOAD3(b->spring, c), n);
        fd_sds_vector_step s =
            slide == FD_KIND_SLIDE_DSDS
                ? fd_dsds_vector_step(law->k_t, law->inverse_k_t, law->gamma_t, limit, dt, advance, xi, tangential)
                : fd_csds_vector_step(law->k_t, law->gamma_t, law->inverse_gamma_t, limit, dt, advance, xi, tangential);
        slide_force = s.force;
        FD_LANE_STORE3(b->spring_after, c, s.spring);
        slip += fd_select(s.slipping, (double)FD_ENTRY_SLIP_SLIDE, 0.0);
        if (keep != KEEP_LOADS) {
            keep_books(b, c, FD_MECHANISM_SLIDE, &s);
        }
    }
    fd_vec3 roll_torque = fd_v3(0.0, 0.0, 0.0);
    double spin_torque = 0.0;
    if (roll != FD_KIND_NONE || spin != FD_KIND_NONE) {
        fd_vec3 relative_spin = fd_v3_sub(omega_i, omega_j);
        double radius = b->effective_radius[c];
        if (roll != FD_KIND_NONE) {
            /* sds_torque.c: v_r = R (omega_i - omega_j) x n, torque R n x F. */
            double limit =
                fd_static_kinetic((slipped & FD_ENTRY_SLIP_ROLL) != 0, law->mu_roll_s, law->mu_roll_k) * critical;
            fd_vec3 velocity = fd_v3_scale(radius, fd_v3_cross(relative_spin, n));
            double twist = 0.5 * fd_v3_dot(fd_v3_add(omega_i, omega_j), n) * advance;
            b->wide_turn[c] = fd_select(fd_small_turn(twist), 0.0, 1.0);
            fd_vec3 xi = fd_roll_spring_carried_with(FD_LANE_LOAD3(b->roll_spring, c), FD_LANE_LOAD3(b->roll_normal, c),
                                                     n, rescaled_transport, twist, fd_small_turn_cos(twist),
                                                     fd_small_turn_sin(twist), law->k_roll, limit);
            fd_sds_vector_step s =
                roll == FD_KIND_ROLL_DSDS
                    ? fd_dsds_vector_step(law->k_roll, law->inverse_k_roll, law->gamma_roll, limit, dt, advance, xi,
                                          velocity)
                    : fd_csds_vector_step(law->k_roll, law->gamma_roll, law->inverse_gamma_roll, limit, dt, advance, xi,
                                          velocity);
            FD_LANE_STORE3(b->roll_spring_after, c, s.spring);
            roll_torque = fd_v3_scale(radius, fd_v3_cross(n, s.force));
            slip += fd_select(s.slipping, (double)FD_ENTRY_SLIP_ROLL, 0.0);
            if (keep != KEEP_LOADS) {
                keep_books(b, c, FD_MECHANISM_ROLL, &s);
            }
        }
        if (spin != FD_KIND_NONE) {
            bool twist_slipped = (slipped & FD_ENTRY_SLIP_SPIN) != 0;
            double k = law->k_twist, gamma = law->gamma_twist;
            double mu = fd_static_kinetic(twist_slipped, law->mu_twist_s, law->mu_twist_k);
            if (spin == FD_KIND_SPIN_MARSHALL) {
                /* fd_sds_spin_constants_of: Marshall Eq. 32-33, a = sqrt(R delta). */
                double a = fd_select((fabs(radius) <= DBL_MAX) & (overlap > 0.0), sqrt(radius * overlap), 0.0);
                k = 0.5 * law->k_t * a * a;
                gamma = 0.5 * law->gamma_t * a * a;
                mu = 2.0 / 3.0 * a * fd_static_kinetic(twist_slipped, law->mu_s, law->mu_k);
            }
            double w = fd_v3_dot(relative_spin, n);
            double limit = mu * critical;
            fd_sds_scalar_step s = spin == FD_KIND_SPIN_CSDS
                                       ? fd_csds_scalar_step(k, gamma, limit, dt, advance, b->twist_spring[c], w)
                                       : fd_dsds_scalar_step(k, gamma, limit, dt, advance, b->twist_spring[c], w);
            b->twist_spring_after[c] = s.spring;
            spin_torque = s.torque;
            slip += fd_select(s.slipping, (double)FD_ENTRY_SLIP_SPIN, 0.0);
            if (keep != KEEP_LOADS) {
                b->books[FD_MECHANISM_SPIN][0][c] = s.stored;
                b->books[FD_MECHANISM_SPIN][1][c] = s.dashpot;
                b->books[FD_MECHANISM_SPIN][2][c] = s.slip;
                b->books[FD_MECHANISM_SPIN][3][c] = s.created;
            }
        }
    }
    b->slip[c] = slip;
    FD_LANE_STORE3(b->normal, c, n);
    fd_vec3 force = fd_v3_mul_add(slide_force, normal_force, n);
    FD_LANE_STORE3(b->force, c, force);
    if (keep == KEEP_ALL) {
        b->normal_force[c] = normal_force;
        b->elastic_force[c] = elastic;
        b->damping_force[c] = damping;
        FD_LANE_STORE3(b->slide_force, c, slide_force);
        FD_LANE_STORE3(b->roll_torque, c, roll_torque);
        b->twist_torque[c] = spin_torque;
    }
    if (keep != KEEP_LOADS) {
        /* The normal spring has no slip and creates nothing. */
        b->books[FD_MECHANISM_NORMAL][0][c] = 0.5 * law->k_n * positive * positive;
        b->books[FD_MECHANISM_NORMAL][1][c] = (normal_force - elastic) * overlap_rate * dt;
        b->books[FD_MECHANISM_NORMAL][2][c] = 0.0;
        b->books[FD_MECHANISM_NORMAL][3][c] = 0.0;
    }
    return (lane_loads){force, slide_force, fd_v3_mul_add(roll_torque, spin_torque, n)};
}

/* One sphere-sphere contact, as sphere_pair and fd_sphere_kernel compute it. */
static inline __attribute__((always_inline)) void lane(fd_sphere_block* restrict b, int c, const fd_block_law* law,
                                                       fd_submodel_kind slide, fd_submodel_kind roll,
                                                       fd_submodel_kind spin, int keep, bool rescaled_transport)
{
    fd_vec3 d = FD_LANE_LOAD3(b->separation, c);
    double distance = sqrt(fd_v3_dot(d, d));
    /* Coincident centres: +z, deterministically (narrowphase.c). */
    fd_vec3 n = fd_v3_select(distance > 0.0, fd_v3_scale(1.0 / distance, d), fd_v3(0.0, 0.0, 1.0));
    double radius_i = b->radius_i[c], radius_j = b->radius_j[c];
    double overlap = radius_i + radius_j - distance;
    /* The contact point halfway between the surfaces: a_i from centre i,
     * a_j from centre j, along the line of centres. */
    double a_i = radius_i - 0.5 * overlap, a_j = radius_j - 0.5 * overlap;
    /* The sliding velocity's arms: the same point, or LAMMPS's full radii. */
    double arm_i = fd_select(law->lammps_arms, radius_i, a_i), arm_j = fd_select(law->lammps_arms, radius_j, a_j);
    fd_vec3 omega_i = FD_LANE_LOAD3(b->spin_i, c), omega_j = FD_LANE_LOAD3(b->spin_j, c);
    fd_vec3 relative = fd_v3_sub(fd_v3_sub(FD_LANE_LOAD3(b->velocity_i, c), FD_LANE_LOAD3(b->velocity_j, c)),
                                 fd_v3_cross(fd_v3_add(fd_v3_scale(arm_i, omega_i), fd_v3_scale(arm_j, omega_j)), n));
    lane_loads loads = lane_law(b, c, law, slide, roll, spin, keep, rescaled_transport, n, overlap, relative, omega_i,
                                omega_j);
    /* arm_i = -a_i n, arm_j = +a_j n: arm x F = -a n x F_t on both bodies. */
    fd_vec3 turn = fd_v3_cross(n, loads.slide_force);
    double torque_arm_i = fd_select(law->legacy_torque, radius_i, a_i);
    double torque_arm_j = fd_select(law->legacy_torque, radius_j, a_j);
    FD_LANE_STORE3(b->torque_i, c, fd_v3_sub(loads.roll_spin, fd_v3_scale(torque_arm_i, turn)));
    FD_LANE_STORE3(b->torque_j, c, fd_v3_neg(fd_v3_add(loads.roll_spin, fd_v3_scale(torque_arm_j, turn))));
}

/* One sphere-plane contact: its geometry gathered (law_pass.c,
 * plane_pair_geometry), the law in the lane, the torques the arms' moments
 * as sphere_pair takes them. */
static inline __attribute__((always_inline)) void plane_lane(fd_sphere_block* restrict b, int c,
                                                             const fd_block_law* law, fd_submodel_kind slide,
                                                             fd_submodel_kind roll, fd_submodel_kind spin, int keep,
                                                             bool rescaled_transport)
{
    lane_loads loads = lane_law(b, c, law, slide, roll, spin, keep, rescaled_transport,
                                FD_LANE_LOAD3(b->plane_normal, c), b->plane_overlap[c],
                                FD_LANE_LOAD3(b->plane_relative, c), FD_LANE_LOAD3(b->spin_i, c),
                                FD_LANE_LOAD3(b->spin_j, c));
    FD_LANE_STORE3(b->torque_i, c, fd_v3_add(fd_v3_cross(FD_LANE_LOAD3(b->arm_i, c), loads.force), loads.roll_spin));
    FD_LANE_STORE3(b->torque_j, c,
                   fd_v3_sub(fd_v3_cross(FD_LANE_LOAD3(b->arm_j, c), fd_v3_neg(loads.force)), loads.roll_spin));
}

#define FD_BLOCK_LOOP(slide, roll, spin, keep, transport)                                                              \
    do {                                                                                                               \
        if (keep != KEEP_ALL && block->planes) { /* a recording pass keeps its planes scalar */                     \
            _Pragma("omp simd") for (int c = 0; c < count; ++c) {                                                      \
                plane_lane(block, c, law, slide, roll, spin, keep, transport);                                         \
            }                                                                                                          \
        } else {                                                                                                       \
            _Pragma("omp simd") for (int c = 0; c < count; ++c) {                                                      \
                lane(block, c, law, slide, roll, spin, keep, transport);                                               \
            }                                                                                                          \
        }                                                                                                              \
    } while (0)

/* One function per combination and per what a run keeps, each with its
 * own clones: the loops are the same as in one function that holds them
 * all, but GCC's register allocation and its CSE after reload grow faster
 * than the size of a function, and 57 loops in one function took four
 * minutes to compile (a quarter of CI's build). */
typedef void (*block_kernel)(fd_sphere_block* restrict block, const fd_block_law* law);

#define FD_BLOCK_KERNEL(name, slide, roll, spin, keep, transport)                                                     \
    static FD_VECTOR_CLONES __attribute__((noinline)) void name(fd_sphere_block* restrict block,                       \
                                                                const fd_block_law* law)                               \
    {                                                                                                                  \
        int count = block->count;                                                                                      \
        FD_BLOCK_LOOP(slide, roll, spin, keep, transport);                                                             \
    }

/* The three runs of one combination (loads, books, everything) and their
 * row of the table, in the order of KEEP_*. */
#define FD_BLOCK_KERNELS(name, slide, roll, spin, transport)                                                           \
    FD_BLOCK_KERNEL(name##_loads, slide, roll, spin, KEEP_LOADS, transport)                                            \
    FD_BLOCK_KERNEL(name##_books, slide, roll, spin, KEEP_BOOKS, transport)                                            \
    FD_BLOCK_KERNEL(name##_full, slide, roll, spin, KEEP_ALL, transport)
#define FD_BLOCK_RUNS(name) {name##_loads, name##_books, name##_full}

/* A slider family's nine: roll none, with the frame's rotation, or with
 * LAMMPS's rescaled projection (a loop per transport of the rolling spring:
 * both formed and one kept would cost every lane the other's square roots),
 * each with spin none, the same family's or marshall. */
#define FD_FAMILY_KERNELS(family, slide, roll, spin)                                                                   \
    FD_BLOCK_KERNELS(family, slide, FD_KIND_NONE, FD_KIND_NONE, false)                                                 \
    FD_BLOCK_KERNELS(family##_twist, slide, FD_KIND_NONE, spin, false)                                                 \
    FD_BLOCK_KERNELS(family##_marshall, slide, FD_KIND_NONE, FD_KIND_SPIN_MARSHALL, false)                             \
    FD_BLOCK_KERNELS(family##_roll, slide, roll, FD_KIND_NONE, false)                                                  \
    FD_BLOCK_KERNELS(family##_roll_twist, slide, roll, spin, false)                                                    \
    FD_BLOCK_KERNELS(family##_roll_marshall, slide, roll, FD_KIND_SPIN_MARSHALL, false)                                \
    FD_BLOCK_KERNELS(family##_rescaled, slide, roll, FD_KIND_NONE, true)                                               \
    FD_BLOCK_KERNELS(family##_rescaled_twist, slide, roll, spin, true)                                                 \
    FD_BLOCK_KERNELS(family##_rescaled_marshall, slide, roll, FD_KIND_SPIN_MARSHALL, true)
#define FD_FAMILY_RUNS(family)                                                                                         \
    {{FD_BLOCK_RUNS(family), FD_BLOCK_RUNS(family##_twist), FD_BLOCK_RUNS(family##_marshall)},                         \
     {FD_BLOCK_RUNS(family##_roll), FD_BLOCK_RUNS(family##_roll_twist), FD_BLOCK_RUNS(family##_roll_marshall)},        \
     {FD_BLOCK_RUNS(family##_rescaled), FD_BLOCK_RUNS(family##_rescaled_twist),                                        \
      FD_BLOCK_RUNS(family##_rescaled_marshall)}}

/* A slider family's runs, [roll: none, the frame's rotation, rescaled]
 * [spin: none, the family's, marshall][KEEP_*], each family in a file of its
 * own (sphere_block_dsds.c, sphere_block_csds.c) so that the two compile at
 * once. */
extern const block_kernel fd_block_dsds_runs[3][3][3];
extern const block_kernel fd_block_csds_runs[3][3][3];

#endif
