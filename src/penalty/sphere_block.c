/* The block kernel (sphere_block.h). The loops carry `omp simd` and the
 * choices inside a lane are bitwise blends (fd_select), so that GCC
 * vectorises them; target_clones builds an AVX-512, an AVX2 and a baseline
 * copy of each and the loader picks the one the processor runs. A loop is
 * instantiated per slide model, per presence of rolling and twisting
 * resistance, per transport of the rolling spring and per geometry (spheres,
 * planes); the roll and spin models' kinds are the same in every lane. A
 * choice made only by a law's constant but formed in every lane costs every
 * lane both sides: a uniform `if` in a lane instead keeps GCC from
 * vectorising the loop at all (measured: the rolling lanes 1.8x slower).
 *
 * Must not touch: the engine, the complementarity stepper, files, ranks. */
#include <float.h>
#include <math.h>

#include "contact/sds_core.h"
#include "penalty/penalty.h"
#include "penalty/sphere_block.h"

bool fd_block_law_of(const fd_contact_law* law, int index, double time_step, fd_block_law* out)
{
    const fd_submodel* slide = law->submodel[FD_MECHANISM_SLIDE];
    const fd_submodel* roll = law->submodel[FD_MECHANISM_ROLL];
    const fd_submodel* spin = law->submodel[FD_MECHANISM_SPIN];
    /* x_gamma_t (a dashpot per pair) and legacy_projection: the scalar kernel takes them. */
    bool slide_ok = slide == NULL || ((slide->kind == FD_KIND_SLIDE_DSDS || slide->kind == FD_KIND_SLIDE_CSDS) &&
                                      law->params[FD_MECHANISM_SLIDE][FD_SDS_X_GAMMA_T] < 0.0 &&
                                      law->params[FD_MECHANISM_SLIDE][FD_SDS_LEGACY_PROJECTION] == 0.0);
    bool roll_ok = roll == NULL || roll->kind == FD_KIND_ROLL_DSDS || roll->kind == FD_KIND_ROLL_CSDS;
    bool spin_ok = spin == NULL || spin->kind == FD_KIND_SPIN_DSDS || spin->kind == FD_KIND_SPIN_CSDS ||
                   spin->kind == FD_KIND_SPIN_MARSHALL;
    /* hooke's viscoelastic dashpot grows with sqrt(delta): the scalar kernel takes it. */
    if (law->submodel[FD_MECHANISM_NORMAL]->kind != FD_KIND_NORMAL_HOOKE ||
        law->params[FD_MECHANISM_NORMAL][FD_HOOKE_ETA_N_VISCO] > 0.0 || !slide_ok || !roll_ok || !spin_ok ||
        !fd_block_combination(slide != NULL ? slide->kind : FD_KIND_NONE, roll != NULL ? roll->kind : FD_KIND_NONE,
                              spin != NULL ? spin->kind : FD_KIND_NONE)) {
        return false;
    }
    const double* normal = law->params[FD_MECHANISM_NORMAL];
    *out = (fd_block_law){
        .law = index,
        .slide = slide != NULL ? slide->kind : FD_KIND_NONE,
        .roll = roll != NULL ? roll->kind : FD_KIND_NONE,
        .spin = spin != NULL ? spin->kind : FD_KIND_NONE,
        .clamp = normal[FD_HOOKE_LIMIT_DAMPING] != 0.0,
        .roll_offset = law->history_offset[FD_MECHANISM_ROLL],
        .spin_offset = law->history_offset[FD_MECHANISM_SPIN],
        .k_n = normal[FD_HOOKE_STIFFNESS],
        .time_step = time_step,
        .spring_time_step = time_step,
    };
    if (slide != NULL) {
        const double* p = law->params[FD_MECHANISM_SLIDE];
        const double* derived = law->derived[FD_MECHANISM_SLIDE];
        out->k_t = p[FD_SDS_K_T];
        out->inverse_k_t = derived[FD_SDS_DERIVED_INVERSE_K];
        out->gamma_t = p[FD_SDS_GAMMA_T];
        out->inverse_gamma_t = derived[FD_SDS_DERIVED_INVERSE_GAMMA];
        out->mu_s = derived[FD_DERIVED_MU_S];
        out->mu_k = derived[FD_DERIVED_MU_K];
    }
    if (roll != NULL) {
        const double* p = law->params[FD_MECHANISM_ROLL];
        const double* derived = law->derived[FD_MECHANISM_ROLL];
        out->k_roll = p[0];
        out->gamma_roll = p[1];
        out->mu_roll_s = derived[FD_DERIVED_MU_S];
        out->mu_roll_k = derived[FD_DERIVED_MU_K];
        out->lammps_transport = p[3] != 0.0;
        out->inverse_k_roll = derived[FD_SDS_DERIVED_INVERSE_K];
        out->inverse_gamma_roll = derived[FD_SDS_DERIVED_INVERSE_GAMMA];
    }
    if (spin != NULL && spin->kind != FD_KIND_SPIN_MARSHALL) {
        const double* p = law->params[FD_MECHANISM_SPIN];
        out->k_twist = p[0];
        out->gamma_twist = p[1];
        out->mu_twist_s = law->derived[FD_MECHANISM_SPIN][FD_DERIVED_MU_S];
        out->mu_twist_k = law->derived[FD_MECHANISM_SPIN][FD_DERIVED_MU_K];
    }
    return true;
}

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

#if defined(__GNUC__) && !defined(__clang__)
#define FD_BLOCK_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define FD_BLOCK_CLONES /* clang 14 (the fuzz build) makes no clones of these: baseline code */
#endif

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

/* The combinations the block takes, each a loop of its own (a choice of
 * model inside a loop keeps it from vectorising): no friction; and for each
 * slider family (D-SDS, C-SDS) the slide model with no roll or the same
 * family's, and no spin, the same family's or marshall. */
bool fd_block_combination(fd_submodel_kind slide, fd_submodel_kind roll, fd_submodel_kind spin)
{
    if (slide == FD_KIND_NONE) {
        return roll == FD_KIND_NONE && spin == FD_KIND_NONE;
    }
    bool d = slide == FD_KIND_SLIDE_DSDS;
    fd_submodel_kind same_roll = d ? FD_KIND_ROLL_DSDS : FD_KIND_ROLL_CSDS;
    fd_submodel_kind same_spin = d ? FD_KIND_SPIN_DSDS : FD_KIND_SPIN_CSDS;
    return (roll == FD_KIND_NONE || roll == same_roll) &&
           (spin == FD_KIND_NONE || spin == same_spin || spin == FD_KIND_SPIN_MARSHALL);
}

/* A law with rolling resistance: a loop per transport of the rolling spring
 * (LAMMPS's rescaled projection or the frame's rotation; both formed and one
 * kept would cost every lane the other's square roots). */
#define FD_ROLL_LOOP(slide, roll, spin)                                                                                \
    do {                                                                                                               \
        if (law->lammps_transport) FD_BLOCK_LOOP(slide, roll, spin, keep, true);                                      \
        else FD_BLOCK_LOOP(slide, roll, spin, keep, false);                                                            \
    } while (0)

#define FD_FAMILY(slide, roll_kind, spin_kind)                                                                         \
    do {                                                                                                               \
        if (law->roll == FD_KIND_NONE) {                                                                               \
            if (law->spin == FD_KIND_NONE) FD_BLOCK_LOOP(slide, FD_KIND_NONE, FD_KIND_NONE, keep, false);              \
            else if (law->spin == spin_kind) FD_BLOCK_LOOP(slide, FD_KIND_NONE, spin_kind, keep, false);               \
            else FD_BLOCK_LOOP(slide, FD_KIND_NONE, FD_KIND_SPIN_MARSHALL, keep, false);                               \
        } else {                                                                                                       \
            if (law->spin == FD_KIND_NONE) FD_ROLL_LOOP(slide, roll_kind, FD_KIND_NONE);                               \
            else if (law->spin == spin_kind) FD_ROLL_LOOP(slide, roll_kind, spin_kind);                                \
            else FD_ROLL_LOOP(slide, roll_kind, FD_KIND_SPIN_MARSHALL);                                                \
        }                                                                                                              \
    } while (0)

static inline __attribute__((always_inline)) void run(fd_sphere_block* restrict block, const fd_block_law* law,
                                                      int keep)
{
    int count = block->count;
    switch (law->slide) {
    case FD_KIND_SLIDE_DSDS:
        FD_FAMILY(FD_KIND_SLIDE_DSDS, FD_KIND_ROLL_DSDS, FD_KIND_SPIN_DSDS);
        break;
    case FD_KIND_SLIDE_CSDS:
        FD_FAMILY(FD_KIND_SLIDE_CSDS, FD_KIND_ROLL_CSDS, FD_KIND_SPIN_CSDS);
        break;
    default:
        FD_BLOCK_LOOP(FD_KIND_NONE, FD_KIND_NONE, FD_KIND_NONE, keep, false);
        break;
    }
}

FD_BLOCK_CLONES void fd_sphere_block_run(fd_sphere_block* block, const fd_block_law* law)
{
    run(block, law, KEEP_LOADS);
}

FD_BLOCK_CLONES void fd_sphere_block_run_full(fd_sphere_block* block, const fd_block_law* law)
{
    run(block, law, KEEP_ALL);
}

FD_BLOCK_CLONES void fd_sphere_block_run_books(fd_sphere_block* block, const fd_block_law* law)
{
    run(block, law, KEEP_BOOKS);
}
