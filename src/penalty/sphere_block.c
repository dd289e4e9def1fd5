/* The block kernel (sphere_block.h). The loops carry `omp simd` and the
 * choices inside a lane are bitwise blends (fd_select), so that GCC
 * vectorises them; target_clones builds an AVX-512, an AVX2 and a baseline
 * copy of each and the loader picks the one the processor runs. */
#include <math.h>

#include "contact/sds_core.h"
#include "penalty/sphere_block.h"

bool fd_block_law_of(const fd_contact_law* law, int index, double time_step, fd_block_law* out)
{
    const fd_submodel* slide = law->submodel[FD_MECHANISM_SLIDE];
    if (law->submodel[FD_MECHANISM_NORMAL]->kind != FD_KIND_NORMAL_HOOKE || law->submodel[FD_MECHANISM_ROLL] != NULL ||
        law->submodel[FD_MECHANISM_SPIN] != NULL ||
        (slide != NULL && slide->kind != FD_KIND_SLIDE_DSDS && slide->kind != FD_KIND_SLIDE_CSDS)) {
        return false;
    }
    const double* normal = law->params[FD_MECHANISM_NORMAL];
    *out = (fd_block_law){
        .law = index,
        .slide = slide != NULL ? slide->kind : FD_KIND_NONE,
        .clamp = normal[FD_HOOKE_LIMIT_DAMPING] != 0.0,
        .k_n = normal[FD_HOOKE_STIFFNESS],
        .time_step = time_step,
    };
    if (slide != NULL) {
        const double* p = law->params[FD_MECHANISM_SLIDE];
        const double* derived = law->derived[FD_MECHANISM_SLIDE];
        out->k_t = p[FD_SDS_K_T];
        out->inverse_k_t = derived[FD_SDS_DERIVED_INVERSE_K];
        out->gamma_t = p[FD_SDS_GAMMA_T];
        out->inverse_gamma_t = derived[FD_SDS_DERIVED_INVERSE_GAMMA];
        out->mu = p[FD_SDS_MU];
    }
    return true;
}

#define LOAD(array, c) fd_v3((array)[0][c], (array)[1][c], (array)[2][c])
#define STORE(array, c, v)                                                                                             \
    do {                                                                                                               \
        fd_vec3 value_ = (v);                                                                                          \
        (array)[0][c] = value_.x;                                                                                      \
        (array)[1][c] = value_.y;                                                                                      \
        (array)[2][c] = value_.z;                                                                                      \
    } while (0)

/* One contact, as sphere_entry and fd_sphere_kernel (hooke) compute it. */
/* What a run keeps beyond the loads: nothing, the books (the ledger), or
 * the books and everything a record shows. */
enum { KEEP_LOADS = 0, KEEP_BOOKS = 1, KEEP_ALL = 2 };

static inline __attribute__((always_inline)) void lane(fd_sphere_block* restrict b, int c, const fd_block_law* law,
                                                       fd_submodel_kind slide, int keep)
{
    fd_vec3 d = LOAD(b->separation, c);
    double distance = sqrt(fd_v3_dot(d, d));
    /* Coincident centres: +z, deterministically (narrowphase.c). */
    fd_vec3 n = fd_v3_select(distance > 0.0, fd_v3_scale(1.0 / distance, d), fd_v3(0.0, 0.0, 1.0));
    double radius_i = b->radius_i[c], radius_j = b->radius_j[c];
    double overlap = radius_i + radius_j - distance;
    /* The contact point halfway between the surfaces: a_i from centre i,
     * a_j from centre j, along the line of centres. */
    double a_i = radius_i - 0.5 * overlap, a_j = radius_j - 0.5 * overlap;
    fd_vec3 relative = fd_v3_sub(fd_v3_sub(LOAD(b->velocity_i, c), LOAD(b->velocity_j, c)),
                                 fd_v3_cross(fd_v3_add(fd_v3_scale(a_i, LOAD(b->spin_i, c)),
                                                       fd_v3_scale(a_j, LOAD(b->spin_j, c))),
                                             n));
    /* hooke (normal.c): the overlap grows when j's surface moves towards i's. */
    double normal_velocity = fd_v3_dot(relative, n);
    double overlap_rate = -normal_velocity;
    double positive = fd_select(overlap > 0.0, overlap, 0.0);
    double elastic = law->k_n * positive;
    double damping = fd_select(positive > 0.0, b->damping[c] * overlap_rate, 0.0);
    double total = elastic + damping;
    double normal_force = fd_select(law->clamp & !(total > 0.0), 0.0, total);
    fd_vec3 slide_force = fd_v3(0.0, 0.0, 0.0);
    fd_sds_vector_step s = {0};
    if (slide != FD_KIND_NONE) {
        /* Coulomb limits scale with |N| (friction.c). */
        double limit = law->mu * fabs(normal_force);
        fd_vec3 tangential = fd_v3_mul_add(relative, -normal_velocity, n);
        fd_vec3 xi = fd_sds_into_plane(LOAD(b->spring, c), n);
        s = slide == FD_KIND_SLIDE_DSDS
                ? fd_dsds_vector_step(law->k_t, law->inverse_k_t, law->gamma_t, limit, law->time_step, xi, tangential)
                : fd_csds_vector_step(law->k_t, law->gamma_t, law->inverse_gamma_t, limit, law->time_step, xi,
                                      tangential);
        slide_force = s.force;
        STORE(b->spring_after, c, s.spring);
        b->slipping[c] = fd_select(s.slipping, 1.0, 0.0);
    }
    STORE(b->force, c, fd_v3_mul_add(slide_force, normal_force, n));
    /* arm_i = -a_i n, arm_j = +a_j n: arm x F = -a n x F_t on both bodies. */
    fd_vec3 turn = fd_v3_cross(n, slide_force);
    STORE(b->torque_i, c, fd_v3_neg(fd_v3_scale(a_i, turn)));
    STORE(b->torque_j, c, fd_v3_neg(fd_v3_scale(a_j, turn)));
    if (keep == KEEP_ALL) {
        STORE(b->normal, c, n);
        b->normal_force[c] = normal_force;
        b->elastic_force[c] = elastic;
        b->damping_force[c] = damping;
    }
    if (keep != KEEP_LOADS) {
        /* The books of the step (the normal spring has no slip, creates
         * nothing and does no work; the slider does no work). */
        double dt = law->time_step;
        b->books[0][0][c] = 0.5 * law->k_n * positive * positive;
        b->books[0][1][c] = (normal_force - elastic) * overlap_rate * dt;
        b->books[1][0][c] = s.stored;
        b->books[1][1][c] = s.dashpot;
        b->books[1][2][c] = s.slip;
        b->books[1][3][c] = s.created;
    }
}

#define FD_BLOCK_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))

static inline __attribute__((always_inline)) void run(fd_sphere_block* restrict block, const fd_block_law* law,
                                                      int keep)
{
    int count = block->count;
    switch (law->slide) {
    case FD_KIND_SLIDE_DSDS:
#pragma omp simd
        for (int c = 0; c < count; ++c) {
            lane(block, c, law, FD_KIND_SLIDE_DSDS, keep);
        }
        break;
    case FD_KIND_SLIDE_CSDS:
#pragma omp simd
        for (int c = 0; c < count; ++c) {
            lane(block, c, law, FD_KIND_SLIDE_CSDS, keep);
        }
        break;
    default:
#pragma omp simd
        for (int c = 0; c < count; ++c) {
            lane(block, c, law, FD_KIND_NONE, keep);
        }
        break;
    }
}

FD_BLOCK_CLONES void fd_sphere_block_run(fd_sphere_block* block, const fd_block_law* law)
{
    run(block, law, KEEP_LOADS);
}

FD_BLOCK_CLONES void fd_sphere_block_run_books(fd_sphere_block* block, const fd_block_law* law)
{
    run(block, law, KEEP_BOOKS);
}

FD_BLOCK_CLONES void fd_sphere_block_run_full(fd_sphere_block* block, const fd_block_law* law)
{
    run(block, law, KEEP_ALL);
}
