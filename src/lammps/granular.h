/* A LAMMPS granular contact model (pair_style granular's pair_coeff words,
 * fix wall/gran's, and the legacy gran/hooke, gran/hooke/history and
 * gran/hertz/history styles) as the importer holds it, its mixing between
 * atom types, and the fricdem contact law it becomes (docs/lammps.md's
 * "Keywords" table, which says where each translation is exact).
 *
 * Must not touch: the world's internals (it writes a scene). */
#ifndef FD_LAMMPS_GRANULAR_H
#define FD_LAMMPS_GRANULAR_H

#include <stdbool.h>
#include <stdio.h>

#include "lammps/deck.h"

typedef enum { LMP_NORMAL_HOOKE, LMP_NORMAL_HERTZ, LMP_NORMAL_HERTZ_MATERIAL } lmp_normal;
typedef enum {
    LMP_DAMPING_VELOCITY,
    LMP_DAMPING_MASS_VELOCITY,
    LMP_DAMPING_VISCOELASTIC,
    LMP_DAMPING_TSUJI,
    LMP_DAMPING_COEFF_RESTITUTION,
} lmp_damping;
typedef enum {
    LMP_TANGENTIAL_LINEAR_NOHISTORY,
    LMP_TANGENTIAL_LINEAR_HISTORY,
    LMP_TANGENTIAL_MINDLIN,
    LMP_TANGENTIAL_MINDLIN_RESCALE,
    LMP_TANGENTIAL_MINDLIN_FORCE,
    LMP_TANGENTIAL_MINDLIN_RESCALE_FORCE,
} lmp_tangential;
typedef enum { LMP_TWIST_NONE, LMP_TWIST_SDS, LMP_TWIST_MARSHALL } lmp_twisting;

typedef struct lmp_granular {
    lmp_normal normal;
    double normal_coeffs[3]; /* hooke, hertz: k_n, damping; hertz/material: E, damping, nu */
    lmp_damping damping;
    lmp_tangential tangential;
    double tangential_coeffs[4]; /* k_t (NAN for mindlin's NULL; none for linear_nohistory), x_gammat, mu (mu_s),
                                  * and mu_k of the /static models */
    bool static_kinetic;         /* linear_history/static, mindlin/static (LAMMPS 2026): mu_s and mu_k */
    bool rolling;
    double rolling_coeffs[3]; /* k_roll, gamma_roll, mu_roll */
    lmp_twisting twisting;
    double twisting_coeffs[3]; /* k_twist, gamma_twist, mu_twist (sds) */
    bool limit_damping;
    bool legacy_projection; /* the legacy styles and the _classic tangential models */
} lmp_granular;

/* pair_coeff's (or fix wall/gran granular's) model words from words[*next]
 * on; stops at the end, or for a wall at a wall style word (xplane ...). */
fd_status lmp_granular_parse(const lmp_command* command, int* next, bool wall, lmp_granular* out);

/* The legacy styles' six numbers (pair_style gran/... or fix wall/gran
 * hooke ...): KN KT GAMMA_N GAMMA_T XMU DAMPFLAG, KT and GAMMA_T may be NULL;
 * then an optional limit_damping. style is "hooke", "hooke/history" or
 * "hertz/history". */
fd_status lmp_granular_parse_legacy(const lmp_command* command, const char* style, int* next, lmp_granular* out);

/* LAMMPS's mixing of the models of types I and J for a pair without a
 * pair_coeff line of its own (pair_granular.cpp init_one): the same forms,
 * coefficients by geometric mean; hertz/material's modulus mixes in the
 * materials (fricdem's E*, as LAMMPS's mix_stiffnessE). */
fd_status lmp_granular_mix(const lmp_granular* a, const lmp_granular* b, int type_a, int type_b,
                           lmp_granular* out);

/* The contact law's mechanisms, each on its own line, indented by indent. */
void lmp_granular_write(FILE* out, const lmp_granular* model, const char* indent);

#endif
