/* The block kernel (sphere_block.h): which laws it takes, their block form,
 * and the dispatch of a block to its loop. The loops carry `omp simd` and the
 * choices inside a lane are bitwise blends (fd_select), so that GCC
 * vectorises them; target_clones builds an AVX-512, an AVX2 and a baseline
 * copy of each and the loader picks the one the processor runs. A loop is
 * instantiated per slide model, per presence of rolling and twisting
 * resistance, per transport of the rolling spring and per geometry (spheres,
 * planes); the roll and spin models' kinds are the same in every lane. A
 * choice made only by a law's constant but formed in every lane costs every
 * lane both sides: a uniform `if` in a lane instead keeps GCC from
 * vectorising the loop at all (measured: the rolling lanes 1.8x slower).
 * The lanes are in sphere_block_lanes.h; this file holds the frictionless
 * loops, sphere_block_dsds.c and sphere_block_csds.c a slider family's each.
 *
 * Must not touch: the engine, the complementarity stepper, files, ranks. */
#include "penalty/sphere_block_lanes.h"

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

FD_BLOCK_KERNELS(frictionless, FD_KIND_NONE, FD_KIND_NONE, FD_KIND_NONE, false)

static const block_kernel frictionless_runs[3] = FD_BLOCK_RUNS(frictionless);

/* fd_block_law_of admits only fd_block_combination's laws, so the slide is
 * none, dsds or csds and the roll and spin are none, the family's or
 * marshall. */
static void run(fd_sphere_block* block, const fd_block_law* law, int keep)
{
    if (law->slide == FD_KIND_NONE) {
        frictionless_runs[keep](block, law);
        return;
    }
    int roll = law->roll == FD_KIND_NONE ? 0 : law->lammps_transport ? 2 : 1;
    int spin = law->spin == FD_KIND_NONE ? 0 : law->spin == FD_KIND_SPIN_MARSHALL ? 2 : 1;
    if (law->slide == FD_KIND_SLIDE_CSDS) {
        fd_block_csds_runs[roll][spin][keep](block, law);
    } else {
        fd_block_dsds_runs[roll][spin][keep](block, law);
    }
}

void fd_sphere_block_run(fd_sphere_block* block, const fd_block_law* law)
{
    run(block, law, KEEP_LOADS);
}

void fd_sphere_block_run_full(fd_sphere_block* block, const fd_block_law* law)
{
    run(block, law, KEEP_ALL);
}

void fd_sphere_block_run_books(fd_sphere_block* block, const fd_block_law* law)
{
    run(block, law, KEEP_BOOKS);
}
