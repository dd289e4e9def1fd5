/* The Mindlin tangential spring: LAMMPS `pair_style granular ... tangential
 * mindlin` and its variants `mindlin_rescale`, `mindlin/force` and
 * `mindlin_rescale/force`, with a static and a kinetic coefficient.
 *
 * Mindlin (J. Appl. Mech. 16 (1949) 259) found the tangential compliance of
 * two elastic spheres pressed together over a circle of radius a: without
 * slip a tangential displacement xi takes the force
 *
 *   F = 8 G* a xi,      1/G* = 2 (2 - nu_1)(1 + nu_1)/E_1 + 2 (2 - nu_2)(1 + nu_2)/E_2      (M1)
 *
 * that is 1/G* = (2 - nu_1)/G_1 + (2 - nu_2)/G_2 with G = E / 2(1 + nu); for
 * like spheres 8 G* = 4 G / (2 - nu), the k_t LAMMPS's doc gives "to match
 * the Mindlin solution", and its mixing of G. As LAMMPS, the contact radius
 * is a = sqrt(R_eff delta) whatever the normal model (Hertz's a^2 = R delta;
 * for hooke the Hertz radius of the same overlap), and the stiffness is
 * k = k_t a with k_t given or 8 G* (LAMMPS NULL). The tangential dashpot is x_gamma_t times the
 * normal one at the contact (LAMMPS damp_tangential = x_gammat
 * damp_normal_prefactor): gamma = x_gamma_t c_n.
 *
 * Per step, in LAMMPS's order (pair_granular.cpp of 29 Sep 2021, the version
 * tests/golden/ was made with; LAMMPS doc pair_granular, "tangential"):
 *
 *   k = k_t a
 *   _rescale:  h *= a / a_prev  when a < a_prev                         (R)
 *   h turned into the tangent plane, length kept (Luding 2008, Eq. 17)
 *   mindlin, mindlin_rescale:    h += v dt,   F_S = -k h - gamma v      (D)
 *   mindlin/force, _rescale/force:  h -= k v dt,   F_S = h - gamma v    (T)
 *   |F_S| > F_max:  F = F_max F_S / |F_S|, and h reset so that F_S = F  (C)
 *
 * (D) keeps the total displacement, so the force follows the stiffness when a
 * changes; (T) is the incremental law dF = -k_t a dxi (Thornton, Cummins &
 * Cleary, Powder Technol. 233 (2013) 30, Eq. 18, as LAMMPS cites it), keeping
 * the elastic force. (R) is LAMMPS's rescaling on unloading, in its doc's
 * words because "a decrease in the contact area upon unloading leads to the
 * contact being unable to support the previous tangential loading, and
 * spurious energy is created without the rescaling" (Walton; Thornton et al.
 * 2013, Eq. 18b): as the contact shrinks the history is scaled with a, so the
 * force goes as a^2 for (D) and as a for (T). v is the relative tangential
 * velocity of body i's surface against body j's at the contact.
 *
 * Static and kinetic friction: F_max is mu_s N while the contact sticks and
 * mu_k N while it slips, the mode being the one the step starts in: a contact
 * leaves stick when |F_S| exceeds mu_s N (that step is capped at mu_s N) and
 * slides capped at mu_k N until |F_S| <= mu_k N, when it sticks again. This is
 * the switch of Fang & Negrut Sec. 3.1 (fang_negrut.c, cap_and_switch); with
 * mu_k = mu_s it is LAMMPS's single Coulomb limit. N is |N|, LAMMPS Fncrit.
 *
 * The update is fd_mindlin_step (contact/mindlin_core.h), shared with the
 * penalty stepper's sphere kernel.
 *
 * Must not touch: the world, the steppers, files (the steppers call the laws). */
#include <math.h>

#include "contact/mindlin_core.h"
#include "contact/model.h"
#include "core/error.h"

enum { C_SPRING = 0, C_SLIPPING = 3, MINDLIN_COLUMNS = 4 };

fd_vec3 fd_mindlin_slide(const fd_contact_law* law, const fd_contact_input* input, double normal_force,
                         double* history, double* columns)
{
    fd_submodel_kind kind = law->submodel[FD_MECHANISM_SLIDE]->kind;
    const double* params = law->params[FD_MECHANISM_SLIDE];
    const double* derived = law->derived[FD_MECHANISM_SLIDE];
    double* h = history + law->history_offset[FD_MECHANISM_SLIDE];
    const fd_contact_geometry* geometry = input->geometry;
    fd_vec3 n = geometry->normal;
    /* a = sqrt(R_eff delta) (LAMMPS a = sqrt(dR)); none without overlap, or
     * between two planes (R_eff infinite). */
    double effective_radius = geometry->effective_radius, overlap = geometry->penetration;
    double radius = isfinite(effective_radius) && overlap > 0.0 ? sqrt(effective_radius * overlap) : 0.0;
    double gamma = params[FD_MINDLIN_X_GAMMA_T] * fd_normal_damping_coefficient(law, input);
    fd_vec3 tangential = fd_v3_reject(input->relative_velocity, n);
    fd_sds_vector_step s = fd_mindlin_step_history(
        h, fd_mindlin_rescales(kind), fd_mindlin_holds_force(kind), params[FD_MINDLIN_LEGACY_PROJECTION] != 0.0,
        derived[FD_MINDLIN_DERIVED_K_T], radius, gamma, params[FD_MINDLIN_MU_S] * normal_force,
        derived[FD_MINDLIN_DERIVED_MU_K] * normal_force, input->time_step, input->spring_time_step, n, tangential);
    if (columns != NULL) {
        const int* index = law->column_index[FD_MECHANISM_SLIDE];
        columns[index[C_SPRING]] = s.spring.x;
        columns[index[C_SPRING + 1]] = s.spring.y;
        columns[index[C_SPRING + 2]] = s.spring.z;
        columns[index[C_SLIPPING]] = s.slipping ? 1.0 : 0.0;
    }
    fd_sds_report_slide(input, &s);
    return s.force;
}

/* k_t = 8 G* (M1) for the default -1, with G* as LAMMPS mixes it; mu_k = mu_s
 * for the default -1. */
static fd_status resolve_mindlin(const double* params, const fd_material* a, const fd_material* b, double* derived)
{
    double k_t = params[FD_MINDLIN_K_T], mu_s = params[FD_MINDLIN_MU_S], mu_k = params[FD_MINDLIN_MU_K];
    if (k_t == -1.0) {
        if (!(a->youngs_modulus > 0.0) || !(b->youngs_modulus > 0.0)) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT,
                           "slide model 'mindlin': k_t = -1 (8 G*) needs youngs_modulus > 0 for materials '%s' and "
                           "'%s' (got %g and %g Pa); give k_t (Pa) otherwise",
                           a->name, b->name, a->youngs_modulus, b->youngs_modulus);
        }
        double compliance = 2.0 * (2.0 - a->poisson_ratio) * (1.0 + a->poisson_ratio) / a->youngs_modulus +
                            2.0 * (2.0 - b->poisson_ratio) * (1.0 + b->poisson_ratio) / b->youngs_modulus;
        k_t = 8.0 / compliance;
    } else if (!(k_t > 0.0)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "slide model 'mindlin': k_t = %g Pa must be > 0, or -1 for 8 G* from the materials", k_t);
    }
    if (mu_k == -1.0) {
        mu_k = mu_s;
    } else if (!(mu_k >= 0.0) || mu_k > mu_s) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "slide model 'mindlin': mu_k = %g must be in [0, mu_s = %g], or -1 for mu_k = mu_s", mu_k, mu_s);
    }
    double legacy = params[FD_MINDLIN_LEGACY_PROJECTION];
    if (legacy != 0.0 && legacy != 1.0) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "slide model 'mindlin': legacy_projection is 0 or 1 (got %g)", legacy);
    }
    derived[FD_MINDLIN_DERIVED_K_T] = k_t;
    derived[FD_MINDLIN_DERIVED_MU_K] = mu_k;
    return FD_OK;
}

fd_status fd_mindlin_check_law(const fd_contact_law* law)
{
    const fd_submodel* slide = law->submodel[FD_MECHANISM_SLIDE];
    if (slide == NULL || !fd_kind_is_mindlin(slide->kind)) {
        return FD_OK;
    }
    fd_submodel_kind normal = law->submodel[FD_MECHANISM_NORMAL]->kind;
    if (normal != FD_KIND_NORMAL_HERTZ && normal != FD_KIND_NORMAL_HOOKE && normal != FD_KIND_NORMAL_PRESCRIBED) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "slide model '%s' needs normal model 'hertz', 'hooke' or 'prescribed' (it takes the contact "
                       "radius a = sqrt(R_eff delta) from the overlap and its dashpot from the normal one); got '%s'",
                       slide->info.name, law->submodel[FD_MECHANISM_NORMAL]->info.name);
    }
    return FD_OK;
}

static const fd_param_info mindlin_params[] = {
    {"k_t", "Pa",
     "tangential stiffness per contact radius: k = k_t a, a = sqrt(R_eff delta) (LAMMPS k_t); -1 = 8 G* of Mindlin "
     "(1949) from both materials' youngs_modulus and poisson_ratio (LAMMPS NULL)",
     -1.0, -1.0, INFINITY, "LAMMPS pair granular: tangential mindlin k_t (NULL: 8 G*, Mindlin 1949)"},
    {"x_gamma_t", "-",
     "tangential dashpot as a fraction of the normal dashpot at the contact: gamma = x_gamma_t c_n (LAMMPS x_gammat)",
     0.0, 0.0, INFINITY, "LAMMPS pair granular: tangential mindlin x_gamma_t"},
    {"mu_s", "-", "static friction coefficient: a sticking contact slips when |F| exceeds mu_s N", NAN, 0.0,
     INFINITY, "LAMMPS pair granular: tangential mindlin mu_s"},
    {"mu_k", "-", "kinetic friction coefficient (<= mu_s): the cap while slipping; -1 = mu_s (LAMMPS's one mu)",
     -1.0, -1.0, INFINITY, "LAMMPS pair granular: tangential mindlin/static mu_d (switch of Fang & Negrut Sec. 3.1)"},
    {"legacy_projection", "-",
     "1: the history is turned into the tangent plane by removing its normal part, its length not restored "
     "(LAMMPS's legacy gran/hertz/history, with mindlin); 0: its length kept (LAMMPS pair granular)",
     0.0, 0.0, 1.0, "LAMMPS legacy gran/hertz/history (tangential mindlin_classic)"},
};
static const char* const displacement_columns[MINDLIN_COLUMNS] = {"xi_x", "xi_y", "xi_z", "slipping"};
static const char* const displacement_units[MINDLIN_COLUMNS] = {"m", "m", "m", "0=stick|1=slip"};
static const char* const force_columns[MINDLIN_COLUMNS] = {"spring_force_x", "spring_force_y", "spring_force_z",
                                                            "slipping"};
static const char* const force_units[MINDLIN_COLUMNS] = {"N", "N", "N", "0=stick|1=slip"};

/* The four mindlin models share their parameters, history and check; they
 * differ in their kind and in what their history holds (a displacement or a
 * force), which their columns name. */
#define MINDLIN_ENTRY(NAME, KIND, DOC, COLUMNS, UNITS)                                                     \
    FD_SUBMODEL(NAME, FD_MECHANISM_SLIDE, mindlin_params, DOC, .kind = KIND,                               \
                .history_size = FD_MINDLIN_HISTORY, .resolve = resolve_mindlin,                            \
                FD_SUBMODEL_COLUMNS(COLUMNS, UNITS))

const fd_submodel fd_mindlin_submodels[] = {
    MINDLIN_ENTRY("mindlin", FD_KIND_SLIDE_MINDLIN,
                  "Mindlin (1949) tangential spring, LAMMPS tangential mindlin: F = -k_t a xi - gamma v, a = "
                  "sqrt(R_eff delta), xi the total displacement, gamma = x_gamma_t c_n; capped at mu_s N in stick, "
                  "mu_k N in slip (spring reset as linear_history).",
                  displacement_columns, displacement_units),
    MINDLIN_ENTRY("mindlin_rescale", FD_KIND_SLIDE_MINDLIN_RESCALE,
                  "As mindlin, with LAMMPS mindlin_rescale: when the contact radius shrinks the displacement is "
                  "scaled by a_new / a_old.",
                  displacement_columns, displacement_units),
    MINDLIN_ENTRY("mindlin_force", FD_KIND_SLIDE_MINDLIN_FORCE,
                  "As mindlin, with LAMMPS mindlin/force: the history is the elastic force, updated by dF = -k_t a "
                  "v dt (Thornton et al. 2013, Eq. 18).",
                  force_columns, force_units),
    MINDLIN_ENTRY("mindlin_rescale_force", FD_KIND_SLIDE_MINDLIN_RESCALE_FORCE,
                  "As mindlin_force, with LAMMPS mindlin_rescale/force: when the contact radius shrinks the elastic "
                  "force is scaled by a_new / a_old.",
                  force_columns, force_units),
};
const int fd_mindlin_submodel_count = FD_COUNT_OF(fd_mindlin_submodels);
