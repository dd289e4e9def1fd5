/* The friction families of the penalty stepper, as the wall tests run them
 * (tests/test_mesh_contact.c, tests/test_wall_velocity.c): one law per
 * family with the same stiffness scale, so that a test loops over every way
 * fricdem computes a tangential force against a wall.
 *
 * The families and why each is here:
 *   - dsds, csds and mindlin take the scalar sphere kernel against an
 *     analytic plane (src/penalty/sphere_kernel.h) and the registry's kernels
 *     against a finite wall (src/penalty/contact_details.c): the same
 *     equations on two arithmetic paths;
 *   - fang_negrut and pfc take the registry's kernels against every wall;
 *   - mindlin_rescale_force stands for Mindlin's history-as-force variants.
 * With rolling resistance each family gets its own roll model (and spin
 * where it has one): dsds, csds and mindlin the rolling and twisting
 * spring-dashpot-sliders, fang_negrut its roll and spin, pfc rrlinear.
 *
 * Stiffnesses: k_n for hooke and pfc_linear; hertz from the material's
 * modulus (youngs_modulus 1e8 Pa in the tests, a stiffness of the same order
 * at the overlaps of a 1 cm sphere). The tangential spring is k_t = 2/7 k_n
 * (the ratio that makes tangential and normal periods equal for a sphere)
 * with the critical dashpot 2 sqrt(m k_t) (mindlin: its dashpot tied to the
 * normal one, x_gamma_t = 1). Include after criterion.h. */
#ifndef FD_TESTS_WALL_LAWS_H
#define FD_TESTS_WALL_LAWS_H

#include <criterion/criterion.h>

#include <math.h>
#include <string.h>

#include "fricdem/fricdem.h"

typedef struct wall_family {
    const char* name;
    /* each mechanism's model, indexed by fd_mechanism as a law's submodels
     * are, so that wall_family_law copies them over in one loop; roll and
     * spin are the models with rolling resistance, NULL for none */
    const char* model[FD_MECHANISM_COUNT];
    /* the slide model's slip state column, whose value is 1 while it slips */
    const char* slipping_column;
    /* the normal force the slide's cap is a multiple of: NULL for the
     * contact's normal force, else a column (pfc: the linear force F_n^l,
     * without its dashpot) */
    const char* cap_normal_column;
} wall_family;

static const wall_family wall_families[] = {
    {"dsds", {"hooke", "dsds", "dsds", "dsds"}, "slipping", NULL},
    {"csds", {"hooke", "csds", "csds", "csds"}, "slipping", NULL},
    {"mindlin", {"hertz", "mindlin", "dsds", "dsds"}, "slipping", NULL},
    {"mindlin_rescale_force", {"hertz", "mindlin_rescale_force", NULL, NULL}, "slipping", NULL},
    {"fang_negrut", {"hooke", "fang_negrut", "fang_negrut", "fang_negrut"}, "slide_mode", NULL},
    {"pfc", {"pfc_linear", "pfc_linear", "pfc_rrlinear", NULL}, "lin_slip", "normal_elastic_force"},
};
#define WALL_FAMILY_COUNT ((int)(sizeof wall_families / sizeof wall_families[0]))

static inline void wall_law_param(fd_submodel_def* model, const char* name, double value)
{
    cr_assert_lt(model->param_count, FD_MAX_SUBMODEL_PARAMS);
    model->params[model->param_count++] = (fd_param){name, value};
}

/* The law of a family: normal stiffness k_n (hooke, pfc_linear), friction
 * mu_s and mu_k (the sliders with one coefficient take mu_k: the tests that
 * need them equal make them equal), for a sphere of mass m and radius r;
 * rolling resistance when resistance is set. The dashpots damp the normal
 * rebound (restitution 0.3) and the tangential spring (critical). pfc runs
 * dp_mode 3: no tension and no shear dashpot while slipping, so that a
 * slipping pfc contact carries fric times the elastic normal force exactly,
 * as the other families carry mu times the normal force. */
static inline fd_contact_law_def wall_family_law(const wall_family* family, double k_n, double mu_s, double mu_k,
                                                 double m, double r, bool resistance)
{
    fd_contact_law_def law = fd_default_contact_law_def();
    fd_submodel_def* normal = &law.submodel[FD_MECHANISM_NORMAL];
    fd_submodel_def* slide = &law.submodel[FD_MECHANISM_SLIDE];
    fd_submodel_def* roll = &law.submodel[FD_MECHANISM_ROLL];
    fd_submodel_def* spin = &law.submodel[FD_MECHANISM_SPIN];
    double k_t = 2.0 / 7.0 * k_n, gamma_t = 2.0 * sqrt(m * k_t);
    for (int k = 0; k < FD_MECHANISM_COUNT; ++k) {
        /* roll and spin only with rolling resistance */
        if (k < FD_MECHANISM_ROLL || resistance) {
            law.submodel[k].model = family->model[k];
        }
    }
    if (strcmp(normal->model, "hooke") == 0) {
        wall_law_param(normal, "k_n", k_n);
        wall_law_param(normal, "restitution", 0.3);
    } else if (strcmp(normal->model, "hertz") == 0) {
        wall_law_param(normal, "restitution", 0.3);
    } else {
        wall_law_param(normal, "kn", k_n);
        wall_law_param(normal, "dp_nratio", 0.35); /* about restitution 0.3 */
        wall_law_param(normal, "dp_mode", 3.0);
    }
    if (strcmp(slide->model, "fang_negrut") == 0) {
        wall_law_param(slide, "mu_s", mu_s);
        wall_law_param(slide, "mu_k", mu_k);
        wall_law_param(slide, "K_E", k_t);
    } else if (strncmp(slide->model, "mindlin", 7) == 0) {
        wall_law_param(slide, "mu_s", mu_s);
        wall_law_param(slide, "mu_k", mu_k);
        wall_law_param(slide, "x_gamma_t", 1.0);
    } else if (strcmp(slide->model, "pfc_linear") == 0) {
        wall_law_param(slide, "ks", k_t);
        wall_law_param(slide, "fric", mu_k);
        wall_law_param(slide, "dp_sratio", 1.0); /* critical, as gamma_t */
    } else {
        wall_law_param(slide, "k_t", k_t);
        wall_law_param(slide, "gamma_t", gamma_t);
        wall_law_param(slide, "mu", mu_k);
    }
    if (roll->model != NULL) {
        if (strcmp(roll->model, "fang_negrut") == 0) {
            wall_law_param(roll, "eta_r", 0.1);
        } else if (strcmp(roll->model, "pfc_rrlinear") == 0) {
            wall_law_param(roll, "rr_fric", 0.02);
        } else {
            wall_law_param(roll, "k_roll", k_t);
            wall_law_param(roll, "gamma_roll", gamma_t);
            wall_law_param(roll, "mu_roll", 0.02);
        }
    }
    if (spin->model != NULL) {
        if (strcmp(spin->model, "fang_negrut") == 0) {
            wall_law_param(spin, "eta_psi", 0.1);
        } else {
            wall_law_param(spin, "k_twist", k_t * r * r);
            wall_law_param(spin, "gamma_twist", gamma_t * r * r);
            wall_law_param(spin, "mu_twist", 0.1 * r);
        }
    }
    return law;
}

#endif
