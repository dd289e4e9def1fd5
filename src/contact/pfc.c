/* The Itasca PFC linear contact model and its rolling-resistance extension
 * `rrlinear` (manual: "Rolling Resistance Linear Model", papers/001), as three
 * sub-models: normal `pfc_linear`, slide `pfc_linear`, roll `pfc_rrlinear`.
 * Equations and conventions: docs/models/pfc.md.
 *
 * Conventions. The normal n points into body i; forces and moments kept in
 * the history are those on body i; displacement and rotation increments are
 * those of body i relative to body j (so that Eq. 2, M := M - k_r dtheta_b,
 * resists). The surface gap is g_s = -penetration - rgap; the contact is
 * active iff g_s <= 0 (manual, "Activity-Deletion Criteria").
 *
 * Stages of one contact (the order of the manual's force-displacement law):
 *   1. normal kernel (fd_pfc_normal, from fd_normal_evaluate): the linear
 *      normal force F_n^l (absolute or incremental, no tension) and the normal
 *      dashpot F_n^d (full or no-tension), kept in the normal history block;
 *   2. friction stage (fd_pfc_evaluate, from fd_friction_evaluate): the shear
 *      spring with its Coulomb limit mu F_n^l, the shear dashpot, the
 *      rolling moment of Eq. (2)-(8), and the energy partitions, Eq. (9)-(10)
 *      and their linear-model analogues.
 *
 * Dissipated energies are accumulated with the manual's update
 * E := E - 1/2 (X_o + X) . d_slip; in the convention above this is >= 0
 * (energy removed from the bodies). The manual's table gives the range
 * (-inf, 0]: a sign convention difference, see docs/validation/pfc_ball.md.
 *
 * Must not touch: the world, the steppers, files (the steppers call the laws). */
#include <math.h>

#include "contact/model.h"
#include "core/error.h"

enum { N_KN, N_DP_NRATIO, N_RGAP, N_DP_MODE, N_LIN_MODE, N_EMOD, N_KRATIO };
enum { S_KS, S_FRIC, S_DP_SRATIO, S_FRIC_S, S_FRIC_K };
enum { R_FRIC, R_KR, R_FRIC_S, R_FRIC_K };

/* History blocks (doubles). The slide's shear spring and the roll's rolling
 * spring keep one layout: the spring's force or moment on body i (3), the
 * slip energy it has dissipated and its slip state (1 while slipping). */
enum { HN_FORCE, HN_DASHPOT_FORCE, HN_E_DASHPOT, HN_SIZE };
enum { H_SPRING, H_E_SLIP = 3, H_SLIP, H_SPRING_SIZE };

/* Output columns; the slide's and the roll's start alike: the spring's force
 * or moment (3), then its slip state. */
enum { CN_ELASTIC, CN_DAMPING, CN_STRAIN, CN_DASHPOT, CN_COUNT };
enum { C_SPRING, C_SLIP_STATE = 3 };
enum { CS_E_SLIP = C_SLIP_STATE + 1, CS_COUNT };
enum { CR_E_STRAIN = C_SLIP_STATE + 1, CR_E_SLIP, CR_COUNT };


/* The time over which a PFC contact's incremental updates advance: the step,
 * also in fricdem's set-up pass (fd_world_prepare), where the other models
 * advance nothing (fd_contact_input.spring_time_step = 0). PFC has no
 * set-up evaluation: every cycle, the first included, adds the displacement
 * increment of the velocities it finds (Itasca's force-displacement law), so
 * a contact touching at t = 0 carries one increment from its first
 * evaluation; Itasca's verification of the rrlinear ball (thrown sliding on
 * a surface: docs/validation/pfc_ball.md) depends on it, which would
 * otherwise start in stick with its shear dashpot on for one step. */

/* The per-contact helpers are inlined into their callers: called, each
 * fd_vec3 went through the stack (a 24-byte struct is passed in memory) and
 * was read back right after its stores (store-forwarding stalls). */
#define PFC_INLINE static inline __attribute__((always_inline))
PFC_INLINE double pfc_cycle_time(const fd_contact_input* input)
{
    return input->time_step;
}

PFC_INLINE bool no_tension_normal(double dp_mode) { return dp_mode == 1.0 || dp_mode == 3.0; }
PFC_INLINE bool slip_cut_shear(double dp_mode) { return dp_mode == 2.0 || dp_mode == 3.0; }

/* Keeps a stored vector's length and turns it into the plane normal to n. */
PFC_INLINE fd_vec3 into_tangent_plane(fd_vec3 stored, fd_vec3 n)
{
    double length = fd_v3_length(stored);
    fd_vec3 projected = fd_v3_reject(stored, n);
    double projected_length = fd_v3_length(projected);
    return projected_length > 0.0 ? fd_v3_scale(length / projected_length, projected) : fd_v3(0, 0, 0);
}

/* Caps a vector at a magnitude; returns whether the limit holds it (Eq. 6, 8). */
PFC_INLINE bool cap(fd_vec3* value, double limit)
{
    double magnitude = fd_v3_length(*value);
    if (magnitude > 0.0 && magnitude >= limit) {
        *value = magnitude > limit ? fd_v3_scale(limit / magnitude, *value) : *value;
        return true;
    }
    return false;
}

/* A spring's force or moment as its history keeps it, turned into the
 * current tangent plane (the contact may have turned since). */
PFC_INLINE fd_vec3 kept_spring(const double* h, fd_vec3 n)
{
    return into_tangent_plane(fd_v3(h[H_SPRING], h[H_SPRING + 1], h[H_SPRING + 2]), n);
}

/* The slip energy of a capped spring update X := X_o - k dU (Eq. 10 for the
 * rolling moment, its analogue for the shear force): the slip part of the
 * increment, dU - dU^k, with the elastic part dU^k = -(X - X_o)/k that the
 * update implies (see docs/validation/pfc_ball.md), E = -1/2 (X_o + X) .
 * (dU - dU^k); booked in the history's running total and the step's books. */
PFC_INLINE void book_slip(double* h, fd_energy_books* books, fd_vec3 old, fd_vec3 spring, fd_vec3 increment, double k)
{
    fd_vec3 elastic = fd_v3_scale(-1.0 / k, fd_v3_sub(spring, old));
    fd_vec3 slip = fd_v3_sub(increment, elastic);
    double slip_energy = -0.5 * fd_v3_dot(fd_v3_add(old, spring), slip);
    h[H_E_SLIP] += slip_energy;
    books->slip = slip_energy;
}

/* Keeps a spring's new force or moment and slip state in its history, raises
 * the mechanism's slip flag and writes the columns the slide and the roll
 * share (columns: NULL when not recorded). */
PFC_INLINE void keep_spring(double* h, fd_vec3 spring, bool slipping, const fd_contact_input* input,
                            fd_mechanism mechanism, double* columns, const int* index)
{
    h[H_SPRING] = spring.x;
    h[H_SPRING + 1] = spring.y;
    h[H_SPRING + 2] = spring.z;
    h[H_SLIP] = slipping ? 1.0 : 0.0;
    *input->slip_flags |= slipping ? 1u << mechanism : 0u;
    if (columns != NULL) {
        columns[index[C_SPRING]] = spring.x;
        columns[index[C_SPRING + 1]] = spring.y;
        columns[index[C_SPRING + 2]] = spring.z;
        columns[index[C_SLIP_STATE]] = h[H_SLIP];
    }
}

PFC_INLINE double surface_gap(const double* normal_params, const fd_contact_input* input)
{
    return -input->geometry->penetration - normal_params[N_RGAP];
}

/* Contact effective radius, Eq. (5): 1/R = 1/R1 + 1/R2, R = infinity at a
 * plane; for an ellipsoid the narrow phase's effective radius. */
PFC_INLINE double effective_radius(const fd_contact_input* input)
{
    if (input->shape_i == FD_SHAPE_ELLIPSOID || input->shape_j == FD_SHAPE_ELLIPSOID) {
        return input->geometry->effective_radius;
    }
    double inverse = 0.0;
    if (input->shape_i == FD_SHAPE_SPHERE && input->radius_i > 0.0) {
        inverse += 1.0 / input->radius_i;
    }
    if (input->shape_j == FD_SHAPE_SPHERE && input->radius_j > 0.0) {
        inverse += 1.0 / input->radius_j;
    }
    return inverse > 0.0 ? 1.0 / inverse : 0.0;
}

/* Radius of one piece at the contact for the deformability method: a ball's
 * radius, infinity for a plane (a facet), 2 / (sum of principal curvatures)
 * for an ellipsoid's surface at the point. */
PFC_INLINE double piece_radius(fd_shape_type shape, double radius, const double curvature[2])
{
    if (shape == FD_SHAPE_SPHERE) {
        return radius;
    }
    double sum = curvature[0] + curvature[1];
    return sum > 0.0 ? 2.0 / sum : INFINITY;
}

/* k_n of a contact: the kn property, or the deformability method of the
 * linear model (PFC manual, linear model, "Deformability"): k_n = A E* / L
 * with A = pi r^2, r = min(R1, R2), L = R1 + R2, or L = R1 against a facet
 * (a plane: R2 = infinity). */
double fd_pfc_normal_stiffness(const double* normal_params, const fd_contact_input* input)
{
    if (normal_params[N_EMOD] <= 0.0) {
        return normal_params[N_KN];
    }
    const fd_contact_geometry* g = input->geometry;
    double r1 = piece_radius(input->shape_i, input->radius_i, g->curvature_i);
    double r2 = piece_radius(input->shape_j, input->radius_j, g->curvature_j);
    double r = fmin(r1, r2);
    double length = isfinite(r1) && isfinite(r2) ? r1 + r2 : r;
    return isfinite(r) ? FD_PI * r * r * normal_params[N_EMOD] / length : 0.0;
}

/* k_s of a contact: the ks property, or k_n / kratio (kratio = 0 gives
 * k_s = 0, the manual's convention). */
PFC_INLINE double shear_stiffness(const double* normal_params, const double* slide_params, double kn)
{
    if (slide_params[S_KS] >= 0.0) {
        return slide_params[S_KS];
    }
    double ratio = normal_params[N_KRATIO];
    return ratio > 0.0 ? kn / ratio : 0.0;
}

fd_normal_result fd_pfc_normal(const fd_contact_law* law, const fd_contact_input* input)
{
    fd_normal_result result = {0};
    const double* p = law->params[FD_MECHANISM_NORMAL];
    double* history = input->history + law->history_offset[FD_MECHANISM_NORMAL];
    double gap = surface_gap(p, input);
    double force = 0.0, dashpot = 0.0;
    double kn = fd_pfc_normal_stiffness(p, input);
    if (gap <= 0.0) {
        if (p[N_LIN_MODE] == 0.0) {
            force = -kn * gap; /* absolute update: F_n^l = k_n (-g_s) */
        } else {
            /* incremental: F_n^l := (F_n^l)_o + k_n d(delta_n), d(delta_n) the
             * overlap increment of this step from the relative velocity. */
            force = history[HN_FORCE] + kn * input->penetration_rate * pfc_cycle_time(input);
        }
        force = force > 0.0 ? force : 0.0; /* the linear spring takes no tension */
        /* Dashpot, c_n = 2 beta_n sqrt(m_c k_n). */
        dashpot = 2.0 * p[N_DP_NRATIO] * sqrt(input->effective_mass * kn) * input->penetration_rate;
        if (no_tension_normal(p[N_DP_MODE]) && force + dashpot < 0.0) {
            dashpot = -force;
        }
    }
    history[HN_FORCE] = force;
    history[HN_DASHPOT_FORCE] = dashpot;
    result.elastic_force = force;
    result.damping_force = dashpot;
    result.elastic_energy = kn > 0.0 ? 0.5 * force * force / kn : 0.0;
    result.force = force + dashpot; /* may pull in dashpot modes 0 and 2 (full normal) */
    return result;
}

void fd_pfc_evaluate(const fd_contact_law* law, const fd_contact_input* input, double* history, double* columns,
                     fd_contact_loads* loads)
{
    const fd_submodel* slide = law->submodel[FD_MECHANISM_SLIDE];
    const fd_submodel* roll = law->submodel[FD_MECHANISM_ROLL];
    bool has_slide = slide != NULL && slide->kind == FD_KIND_SLIDE_PFC_LINEAR;
    bool has_roll = roll != NULL && roll->kind == FD_KIND_ROLL_PFC_RRLINEAR;
    const double* pn = law->params[FD_MECHANISM_NORMAL];
    double* hn = history + law->history_offset[FD_MECHANISM_NORMAL];
    fd_vec3 n = input->geometry->normal;
    double dt = input->time_step;
    bool active = surface_gap(pn, input) <= 0.0;
    double normal_force = hn[HN_FORCE];
    double kn = fd_pfc_normal_stiffness(pn, input);
    double ks = has_slide ? shear_stiffness(pn, law->params[FD_MECHANISM_SLIDE], kn) : 0.0;
    double strain = kn > 0.0 ? 0.5 * normal_force * normal_force / kn : 0.0;
    /* Normal dashpot energy: E_beta := E_beta - F^d . d(delta); the relative
     * displacement of i along n is -penetration_rate dt. */
    hn[HN_E_DASHPOT] += hn[HN_DASHPOT_FORCE] * input->penetration_rate * dt;
    /* The ledger's books (docs/energy.md): the same partitions per mechanism. */
    fd_energy_books* books = input->energy;
    books[FD_MECHANISM_NORMAL].stored = strain;
    books[FD_MECHANISM_NORMAL].dashpot = hn[HN_DASHPOT_FORCE] * input->penetration_rate * dt;

    if (has_slide) {
        const double* ps = law->params[FD_MECHANISM_SLIDE];
        double* hs = history + law->history_offset[FD_MECHANISM_SLIDE];
        fd_vec3 old = kept_spring(hs, n);
        fd_vec3 force = fd_v3(0, 0, 0), dashpot = fd_v3(0, 0, 0);
        bool slipping = false;
        if (active) {
            fd_vec3 tangential = fd_v3_reject(input->relative_velocity, n);
            fd_vec3 displacement = fd_v3_scale(pfc_cycle_time(input), tangential);
            force = fd_v3_mul_add(old, -ks, displacement); /* F_s^l := F_s^l - k_s dU_s */
            /* Coulomb limit F_s* = mu F_n^l; mu static or kinetic by the
             * state the step starts in (issue 18; model.h fd_static_kinetic). */
            const double* ds = law->derived[FD_MECHANISM_SLIDE];
            double mu = fd_static_kinetic(hs[H_SLIP] != 0.0, ds[FD_DERIVED_MU_S], ds[FD_DERIVED_MU_K]);
            slipping = cap(&force, mu * normal_force);
            if (ks > 0.0 && slipping) { /* in stick the slip part is zero but for round-off */
                book_slip(hs, &books[FD_MECHANISM_SLIDE], old, force, displacement, ks);
            }
            if (!(slip_cut_shear(pn[N_DP_MODE]) && slipping)) {
                double c = 2.0 * ps[S_DP_SRATIO] * sqrt(input->effective_mass * ks);
                dashpot = fd_v3_scale(-c, tangential);
            }
            hn[HN_E_DASHPOT] -= fd_v3_dot(dashpot, displacement);
            books[FD_MECHANISM_SLIDE].dashpot = -fd_v3_dot(dashpot, displacement);
        }
        keep_spring(hs, force, slipping, input, FD_MECHANISM_SLIDE, columns, law->column_index[FD_MECHANISM_SLIDE]);
        loads->slide_force = fd_v3_add(force, dashpot);
        books[FD_MECHANISM_SLIDE].stored = ks > 0.0 ? 0.5 * fd_v3_dot(force, force) / ks : 0.0;
        strain += books[FD_MECHANISM_SLIDE].stored;
        if (columns != NULL) {
            columns[law->column_index[FD_MECHANISM_SLIDE][CS_E_SLIP]] = hs[H_E_SLIP];
        }
    }

    if (has_roll) {
        const double* pr = law->params[FD_MECHANISM_ROLL];
        double* hr = history + law->history_offset[FD_MECHANISM_ROLL];
        double radius = effective_radius(input);
        /* Eq. (4): k_r = k_s R^2 unless given. */
        double kr = pr[R_KR] >= 0.0 ? pr[R_KR] : ks * radius * radius;
        fd_vec3 old = kept_spring(hr, n);
        fd_vec3 moment = fd_v3(0, 0, 0);
        bool slipping = false;
        if (active) {
            /* Relative bend-rotation increment: the rotation of i relative to
             * j in the step, less its twist component along n. */
            fd_vec3 rotation = fd_v3_scale(pfc_cycle_time(input), fd_v3_sub(input->state_i->angular_velocity,
                                                         input->state_j->angular_velocity));
            fd_vec3 bend = fd_v3_reject(rotation, n);
            moment = fd_v3_mul_add(old, -kr, bend);                          /* Eq. (2) */
            const double* dr = law->derived[FD_MECHANISM_ROLL];
            double mu_r = fd_static_kinetic(hr[H_SLIP] != 0.0, dr[FD_DERIVED_MU_S], dr[FD_DERIVED_MU_K]);
            slipping = cap(&moment, mu_r * radius * normal_force); /* Eq. (6)-(8) */
            if (kr > 0.0 && slipping) { /* in stick the slip part is zero but for round-off */
                book_slip(hr, &books[FD_MECHANISM_ROLL], old, moment, bend, kr); /* Eq. (10) */
            }
        }
        keep_spring(hr, moment, slipping, input, FD_MECHANISM_ROLL, columns, law->column_index[FD_MECHANISM_ROLL]);
        /* Eq. (1): M_c = M^r acts on body i, its reaction on body j. */
        loads->roll_torque_i = moment;
        loads->roll_torque_j = fd_v3_neg(moment);
        books[FD_MECHANISM_ROLL].stored = kr > 0.0 ? 0.5 * fd_v3_dot(moment, moment) / kr : 0.0; /* Eq. (9) */
        if (columns != NULL) {
            const int* index = law->column_index[FD_MECHANISM_ROLL];
            columns[index[CR_E_STRAIN]] = books[FD_MECHANISM_ROLL].stored; /* Eq. (9), as booked above */
            columns[index[CR_E_SLIP]] = hr[H_E_SLIP];
        }
    }

    if (columns != NULL) {
        const int* index = law->column_index[FD_MECHANISM_NORMAL];
        columns[index[CN_STRAIN]] = strain;
        columns[index[CN_DASHPOT]] = hn[HN_E_DASHPOT];
    }
}

/* ---------------------------------------------------------------- checks */

static bool is_integer_in(double value, double low, double high)
{
    return value >= low && value <= high && value == floor(value);
}

static fd_status resolve_normal(const double* params, const fd_material* a, const fd_material* b, double* derived)
{
    if (!is_integer_in(params[N_DP_MODE], 0.0, 3.0)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "normal model 'pfc_linear': dp_mode = %g must be 0, 1, 2 or 3",
                       params[N_DP_MODE]);
    }
    if (!is_integer_in(params[N_LIN_MODE], 0.0, 1.0)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "normal model 'pfc_linear': lin_mode = %g must be 0 (absolute) or 1 (incremental)",
                       params[N_LIN_MODE]);
    }
    /* k_n is either given or set by the deformability method, not both. */
    bool given = params[N_KN] >= 0.0, deformable = params[N_EMOD] > 0.0;
    if (params[N_KN] < 0.0 && params[N_KN] != -1.0) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "normal model 'pfc_linear': kn = %g N/m must be >= 0", params[N_KN]);
    }
    if (given == deformable) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       given ? "normal model 'pfc_linear': give kn or emod, not both (emod sets k_n = A E* / L by the "
                               "deformability method)"
                             : "normal model 'pfc_linear' needs kn (N/m), or emod (Pa) for the deformability method");
    }
    if (params[N_KRATIO] < 0.0 && params[N_KRATIO] != -1.0) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "normal model 'pfc_linear': kratio = %g must be >= 0 (or -1: unset)",
                       params[N_KRATIO]);
    }
    return FD_OK;
}

/* fric, or fric_s and fric_k: the static and kinetic coefficients (issue 18). */
static fd_status resolve_slide(const double* params, const fd_material* a, const fd_material* b, double* derived)
{
    return fd_resolve_static_kinetic("slide model 'pfc_linear'", "fric", params, S_FRIC, S_FRIC_S, S_FRIC_K, derived);
}

static fd_status resolve_roll(const double* params, const fd_material* a, const fd_material* b, double* derived)
{
    if (params[R_KR] < 0.0 && params[R_KR] != -1.0) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "roll model 'pfc_rrlinear': rr_kr = %g N m/rad must be >= 0, or -1 for k_s R^2 (Eq. 4)",
                       params[R_KR]);
    }
    return fd_resolve_static_kinetic("roll model 'pfc_rrlinear'", "rr_fric", params, R_FRIC, R_FRIC_S, R_FRIC_K,
                                     derived);
}

fd_status fd_pfc_check_law(const fd_contact_law* law)
{
    const fd_submodel* normal = law->submodel[FD_MECHANISM_NORMAL];
    const fd_submodel* slide = law->submodel[FD_MECHANISM_SLIDE];
    const fd_submodel* roll = law->submodel[FD_MECHANISM_ROLL];
    bool pfc_normal = normal != NULL && normal->kind == FD_KIND_NORMAL_PFC_LINEAR;
    bool pfc_slide = slide != NULL && slide->kind == FD_KIND_SLIDE_PFC_LINEAR;
    if (pfc_slide && !pfc_normal) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "slide model 'pfc_linear' needs normal model 'pfc_linear' (it takes the Coulomb limit from "
                       "the linear normal force F_n^l and the dashpot mode dp_mode from it)");
    }
    if (pfc_slide) {
        double ks = law->params[FD_MECHANISM_SLIDE][S_KS];
        double ratio = law->params[FD_MECHANISM_NORMAL][N_KRATIO];
        if (ks < 0.0 && ks != -1.0) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT, "slide model 'pfc_linear': ks = %g N/m must be >= 0", ks);
        }
        if ((ks >= 0.0) == (ratio >= 0.0)) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT,
                           ks >= 0.0 ? "slide model 'pfc_linear': give ks or the normal model's kratio, not both "
                                       "(kratio sets k_s = k_n / kratio)"
                                     : "slide model 'pfc_linear' needs ks (N/m), or kratio on the normal model "
                                       "(k_s = k_n / kratio, the deformability method)");
        }
    }
    if (roll != NULL && roll->kind == FD_KIND_ROLL_PFC_RRLINEAR) {
        if (!pfc_normal) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT,
                           "roll model 'pfc_rrlinear' needs normal model 'pfc_linear' (its limit is "
                           "rr_fric R F_n^l, Eq. 7)");
        }
        if (law->params[FD_MECHANISM_ROLL][R_KR] < 0.0 && !pfc_slide) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT,
                           "roll model 'pfc_rrlinear' with rr_kr = -1 (k_r = k_s R^2, Eq. 4) needs slide model "
                           "'pfc_linear' for k_s; give rr_kr otherwise");
        }
    }
    return FD_OK;
}

/* ---------------------------------------------------------------- inheritance */

static double in_series(double k1, double k2)
{
    return k1 + k2 > 0.0 ? k1 * k2 / (k1 + k2) : 0.0;
}

fd_status fd_pfc_inherit_law(const fd_contact_law* law_aa, const fd_contact_law* law_bb, fd_contact_law* out)
{
    const fd_submodel* normal = law_aa->submodel[FD_MECHANISM_NORMAL];
    if (normal == NULL || normal->kind != FD_KIND_NORMAL_PFC_LINEAR) {
        return fd_fail(FD_ERR_NOT_FOUND, "only the PFC models inherit properties (their own laws are not PFC laws)");
    }
    for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
        if (law_aa->submodel[m] != law_bb->submodel[m]) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT,
                           "cannot inherit: their own laws use different %s models ('%s' and '%s')",
                           fd_mechanism_name((fd_mechanism)m),
                           law_aa->submodel[m] ? law_aa->submodel[m]->info.name : "none",
                           law_bb->submodel[m] ? law_bb->submodel[m]->info.name : "none");
        }
    }
    *out = *law_aa;
    for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
        const fd_submodel* model = law_aa->submodel[m];
        for (int p = 0; model != NULL && p < model->info.param_count; ++p) {
            double a = law_aa->params[m][p], b = law_bb->params[m][p];
            const char* name = model->info.params[p].name;
            double value;
            /* The linear model's rules: k_n and k_s as springs in series,
             * mu the minimum; rr_fric the minimum, Eq. (11); k_r follows k_s
             * (rr_kr = -1) and is not inherited. */
            bool stiffness = (m == FD_MECHANISM_NORMAL && p == N_KN) || (m == FD_MECHANISM_SLIDE && p == S_KS);
            bool friction = (m == FD_MECHANISM_SLIDE && (p == S_FRIC || p == S_FRIC_S || p == S_FRIC_K)) ||
                            (m == FD_MECHANISM_ROLL && (p == R_FRIC || p == R_FRIC_S || p == R_FRIC_K));
            if (stiffness && a >= 0.0 && b >= 0.0) {
                value = in_series(a, b);
            } else if (friction) {
                /* The coefficients as given (-1 where one law gives the other
                 * form); the kernels read the resolved ones below. */
                value = a >= 0.0 && b >= 0.0 ? fmin(a, b) : (a == b ? a : -1.0);
            } else if (a == b) {
                value = a;
            } else {
                return fd_fail(FD_ERR_INVALID_ARGUMENT,
                               "cannot inherit %s parameter '%s': it differs (%g and %g) and PFC does not "
                               "inherit it; give this pair its own law",
                               fd_mechanism_name((fd_mechanism)m), name, a, b);
            }
            out->params[m][p] = value;
        }
        if (model != NULL && (model->kind == FD_KIND_SLIDE_PFC_LINEAR || model->kind == FD_KIND_ROLL_PFC_RRLINEAR)) {
            /* The static and the kinetic coefficient each the minimum, Eq. (11). */
            for (int d = FD_DERIVED_MU_S; d <= FD_DERIVED_MU_K; ++d) {
                out->derived[m][d] = fmin(law_aa->derived[m][d], law_bb->derived[m][d]);
            }
        }
    }
    return FD_OK;
}

/* ---------------------------------------------------------------- table */

static const fd_param_info normal_params[] = {
    {"kn", "N/m", "normal stiffness k_n; -1 = set by the deformability method from emod", -1.0, -1.0, INFINITY,
     "PFC rrlinear Table 2: kn (linear group)"},
    {"dp_nratio", "-", "normal critical damping ratio beta_n: c_n = 2 beta_n sqrt(m_c k_n)", 0.0, 0.0, 1.0,
     "PFC rrlinear Table 2: dp_nratio (dashpot group)"},
    {"rgap", "m", "reference gap g_r: active iff g_s = -overlap - rgap <= 0 (needs contact_margin >= rgap)", 0.0,
     -INFINITY, INFINITY, "PFC rrlinear Table 2: rgap; Activity-Deletion Criteria"},
    {"dp_mode", "-",
     "dashpot mode (integer): 0 full normal & full shear, 1 no-tension normal & full shear, 2 full normal & "
     "slip-cut shear, 3 no-tension normal & slip-cut shear",
     0.0, 0.0, 3.0, "PFC rrlinear Table 2: dp_mode (dashpot group)"},
    {"lin_mode", "-", "normal-force update (integer): 0 absolute k_n (-g_s), 1 incremental", 0.0, 0.0, 1.0,
     "PFC rrlinear Table 2: lin_mode (linear group)"},
    {"emod", "Pa",
     "effective modulus E* of the deformability method: k_n = A E* / L, A = pi min(R1,R2)^2, L = R1 + R2 "
     "(L = R1 at a plane); 0 = use kn",
     0.0, 0.0, INFINITY, "PFC rrlinear Table 3: deformability method, emod (the linear model's k_n = A E* / L)"},
    {"kratio", "-", "normal-to-shear stiffness ratio kappa* of the deformability method: k_s = k_n / kratio "
                    "(0 gives k_s = 0); -1 = use the slide model's ks",
     -1.0, -1.0, INFINITY, "PFC rrlinear Table 2, 3: kratio, deformability method (k_s = k_n / kappa*)"},
};
static const char* const normal_columns[CN_COUNT] = {"normal_elastic_force", "normal_damping_force", "pfc_strain",
                                                     "pfc_dashpot"};
static const char* const normal_units[CN_COUNT] = {"N", "N", "J", "J"};

/* Where the static and kinetic pairs of coefficients come from: PFC has one. */
#define STATIC_KINETIC_SOURCE "fricdem: static/kinetic switch of Fang & Negrut Sec. 3.1 (PFC has one coefficient)"

static const fd_param_info slide_params[] = {
    {"ks", "N/m", "shear stiffness k_s; -1 = k_n / kratio (the normal model's deformability method)", -1.0, -1.0,
     INFINITY, "PFC rrlinear Table 2: ks (linear group)"},
    {"fric", "-",
     "friction coefficient mu, static = kinetic: |F_s^l| <= mu F_n^l (or fric_s and fric_k instead); -1 = not given",
     -1.0, -1.0, INFINITY, "PFC rrlinear Table 2: fric (linear group)"},
    {"dp_sratio", "-", "shear critical damping ratio beta_s: c_s = 2 beta_s sqrt(m_c k_s)", 0.0, 0.0, 1.0,
     "PFC rrlinear Table 2: dp_sratio (dashpot group)"},
    {"fric_s", "-",
     "static friction coefficient, instead of fric: a sticking contact slips when |F_s^l| exceeds fric_s F_n^l; "
     "-1 = not given",
     -1.0, -1.0, INFINITY, STATIC_KINETIC_SOURCE},
    {"fric_k", "-", "kinetic friction coefficient (with fric_s, <= it): the cap while slipping; -1 = fric_s", -1.0,
     -1.0, INFINITY, STATIC_KINETIC_SOURCE},
};
static const char* const slide_columns[CS_COUNT] = {"pfc_fs_x", "pfc_fs_y", "pfc_fs_z", "lin_slip", "pfc_slip"};
static const char* const slide_units[CS_COUNT] = {"N", "N", "N", "0=stick|1=slip", "J"};

static const fd_param_info roll_params[] = {
    {"rr_fric", "-",
     "rolling friction coefficient mu_r, static = kinetic: |M^r| <= mu_r R F_n^l (Eq. 7; or rr_fric_s and rr_fric_k "
     "instead); -1 = not given",
     -1.0, -1.0, INFINITY, "PFC rrlinear Eq. (7): M* = mu_r R F_n^l; Table 2: rr_fric"},
    {"rr_kr", "N m/rad", "rolling stiffness k_r; -1 = k_s R^2 (Eq. 4, R of Eq. 5, R2 = infinity at a plane)", -1.0,
     -1.0, INFINITY, "PFC rrlinear Eq. (4): k_r = k_s R^2; Table 2: rr_kr"},
    {"rr_fric_s", "-",
     "static rolling friction coefficient, instead of rr_fric: a sticking contact starts to roll when |M^r| exceeds "
     "rr_fric_s R F_n^l; -1 = not given",
     -1.0, -1.0, INFINITY, STATIC_KINETIC_SOURCE},
    {"rr_fric_k", "-", "kinetic rolling friction coefficient (with rr_fric_s, <= it): the cap while rolling; -1 = "
     "rr_fric_s", -1.0, -1.0, INFINITY, STATIC_KINETIC_SOURCE},
};
static const char* const roll_columns[CR_COUNT] = {"rr_moment_x", "rr_moment_y",  "rr_moment_z",
                                                   "rr_slip",     "pfc_rrstrain", "pfc_rrslip"};
static const char* const roll_units[CR_COUNT] = {"N m", "N m", "N m", "0=stick|1=slip", "J", "J"};

const fd_submodel fd_pfc_submodels[] = {
    FD_SUBMODEL("pfc_linear", FD_MECHANISM_NORMAL, normal_params,
                "Itasca PFC linear model, normal part: F_n^l = k_n (-g_s) (or incremental), no tension, active "
                "iff g_s = -overlap - rgap <= 0, plus a dashpot 2 beta_n sqrt(m_c k_n) d(overlap)/dt per dp_mode.",
                .kind = FD_KIND_NORMAL_PFC_LINEAR, .history_size = HN_SIZE, .resolve = resolve_normal,
                FD_SUBMODEL_COLUMNS(normal_columns, normal_units)),
    FD_SUBMODEL("pfc_linear", FD_MECHANISM_SLIDE, slide_params,
                "Itasca PFC linear model, shear part: F_s^l := F_s^l - k_s dU_s capped at fric F_n^l, plus a "
                "dashpot 2 beta_s sqrt(m_c k_s) (cut while slipping in dp_mode 2, 3); needs normal 'pfc_linear'.",
                .kind = FD_KIND_SLIDE_PFC_LINEAR, .history_size = H_SPRING_SIZE, .resolve = resolve_slide,
                FD_SUBMODEL_COLUMNS(slide_columns, slide_units)),
    FD_SUBMODEL("pfc_rrlinear", FD_MECHANISM_ROLL, roll_params,
                "Itasca PFC rrlinear rolling resistance, Eq. (2)-(8): M^r := M^r - k_r dtheta_b capped at "
                "rr_fric R F_n^l, on body i and its reaction on body j; needs normal 'pfc_linear'.",
                .kind = FD_KIND_ROLL_PFC_RRLINEAR, .history_size = H_SPRING_SIZE, .resolve = resolve_roll,
                FD_SUBMODEL_COLUMNS(roll_columns, roll_units)),
};
const int fd_pfc_submodel_count = FD_COUNT_OF(fd_pfc_submodels);
