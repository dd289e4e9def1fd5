/* The sphere lanes of Fang & Negrut (fang_negrut_lane.h). Each step below
 * names the function of fang_negrut.c (or round_pair.c, normal.c,
 * contact_details.c) whose operations it repeats, in their order: the
 * equations are cited there. Where fang_negrut.c branches, a lane forms
 * both outcomes and blends (fd_select), which gives the branch's bits; where
 * it would call the library (atan2 outside the series, App. B's fallback
 * frame) or take a path that only a stopped contact point takes, the lane
 * is marked for the caller's registry path instead.
 *
 * Must not touch: the world, the steppers, files (the steppers call the laws). */
#include <math.h>

#include "contact/fang_negrut_lane.h"
#include "core/math.h"

bool fd_fn_lane_law_of(const fd_contact_law* law, int index, double time_step, fd_fn_lane_law* out)
{
    const fd_submodel* normal = law->submodel[FD_MECHANISM_NORMAL];
    const fd_submodel* slide = law->submodel[FD_MECHANISM_SLIDE];
    const fd_submodel* roll = law->submodel[FD_MECHANISM_ROLL];
    const fd_submodel* spin = law->submodel[FD_MECHANISM_SPIN];
    if (normal == NULL || (normal->kind != FD_KIND_NORMAL_HOOKE && normal->kind != FD_KIND_NORMAL_HERTZ) ||
        slide == NULL || slide->kind != FD_KIND_SLIDE_FANG_NEGRUT ||
        (roll != NULL && roll->kind != FD_KIND_ROLL_FANG_NEGRUT) ||
        (spin != NULL && spin->kind != FD_KIND_SPIN_FANG_NEGRUT)) {
        return false;
    }
    /* The scatter writes the law's springs and carries only what lies past
     * them: the blocks must fill the law's history from its start. */
    int size = FD_FN_SLIDE_HISTORY + (roll != NULL ? FD_FN_ROLL_HISTORY : 0) + (spin != NULL ? FD_FN_SPIN_HISTORY : 0);
    if (law->history_size != size || law->history_offset[FD_MECHANISM_SLIDE] + FD_FN_SLIDE_HISTORY > size ||
        (roll != NULL && law->history_offset[FD_MECHANISM_ROLL] + FD_FN_ROLL_HISTORY > size) ||
        (spin != NULL && law->history_offset[FD_MECHANISM_SPIN] + FD_FN_SPIN_HISTORY > size)) {
        return false;
    }
    const double* p = law->params[FD_MECHANISM_NORMAL];
    bool hertz = normal->kind == FD_KIND_NORMAL_HERTZ;
    /* fd_normal_dashpot_factor's cases, fixed by the law */
    int factor = hertz ? (p[FD_HERTZ_ETA_N] > 0.0 || p[FD_HERTZ_ETA_N_MASS] > 0.0
                              ? 0
                              : (p[FD_HERTZ_ETA_N_VISCO] > 0.0 ? 1 : 2))
                       : (p[FD_HOOKE_ETA_N_VISCO] > 0.0 ? 1 : 0);
    *out = (fd_fn_lane_law){
        .law = index,
        .history_size = law->history_size,
        .has_roll = roll != NULL,
        .has_spin = spin != NULL,
        .clamp = p[hertz ? FD_HERTZ_LIMIT_DAMPING : FD_HOOKE_LIMIT_DAMPING] != 0.0,
        .hertz = hertz,
        .dashpot_factor = factor,
        .k_n = hertz ? 0.0 : p[FD_HOOKE_STIFFNESS],
        .slide = law->params[FD_MECHANISM_SLIDE],
        .roll = law->params[FD_MECHANISM_ROLL],
        .spin = law->params[FD_MECHANISM_SPIN],
        .time_step = time_step,
    };
    /* Each mechanism's springs from its offset in the history, into its rows
     * of the block (slide, roll, spin: fd_fn_block.springs). */
    const int offset[FD_MECHANISM_COUNT] = {0, law->history_offset[FD_MECHANISM_SLIDE],
                                            law->history_offset[FD_MECHANISM_ROLL],
                                            law->history_offset[FD_MECHANISM_SPIN]};
    const int first_row[FD_MECHANISM_COUNT] = {0, 0, FD_FN_SLIDE_HISTORY, FD_FN_SLIDE_HISTORY + FD_FN_ROLL_HISTORY};
    const int count[FD_MECHANISM_COUNT] = {0, FD_FN_SLIDE_HISTORY, roll != NULL ? FD_FN_ROLL_HISTORY : 0,
                                           spin != NULL ? FD_FN_SPIN_HISTORY : 0};
    for (int m = FD_MECHANISM_SLIDE; m < FD_MECHANISM_COUNT; ++m) {
        for (int k = 0; k < count[m]; ++k) {
            out->spring_row[offset[m] + k] = (int8_t)(first_row[m] + k);
        }
    }
    out->springs_in_order = true;
    for (int h = 0; h < size; ++h) {
        out->springs_in_order = out->springs_in_order && out->spring_row[h] == h;
    }
    return true;
}

#define B FD_FN_BLOCK
#define LANE static inline __attribute__((always_inline))

/* The matrix of a body's turn (fd_mat3_from_quat, as the registry path makes it). */
LANE fd_mat3 turn_matrix(const double (*turn)[B], int c)
{
    return fd_mat3_from_quat((fd_quat){turn[0][c], turn[1][c], turn[2][c], turn[3][c]});
}

/* fd_mat3_apply. */
LANE fd_vec3 turned(const fd_mat3* m, fd_vec3 v)
{
    return fd_v3_add(fd_v3_add(fd_v3_scale(v.x, m->cx), fd_v3_scale(v.y, m->cy)), fd_v3_scale(v.z, m->cz));
}

/* fd_v3_normalize. */
LANE fd_vec3 normalized(fd_vec3 a)
{
    double length = fd_v3_length(a);
    return fd_v3_select(length > 0.0, fd_v3_scale(1.0 / length, a), a);
}

/* fd_small_atan2 in range; *outside marks the others. */
LANE double small_atan2(double y, double x, bool* outside)
{
    *outside = *outside | !fd_small_atan2_in_range(y, x);
    return fd_small_atan2_series(y, x);
}

/* continue_frame; *degenerate marks App. B's fallback. */
LANE fd_vec3 continued_frame(fd_vec3 n, fd_vec3 u0, fd_vec3 w0, bool* degenerate)
{
    fd_vec3 u = fd_v3_reject(fd_v3_add(u0, fd_v3_cross(w0, n)), n);
    double length = fd_v3_length(u);
    *degenerate = *degenerate | !(length > 1e-12);
    return fd_v3_scale(1.0 / length, u);
}

/* arc_length: on a sphere, or on a plane (the chord in the tangent plane). */
LANE double arc(bool sphere, fd_vec3 centre, fd_vec3 from, fd_vec3 to, fd_vec3 normal, bool* outside)
{
    if (sphere) {
        fd_vec3 a = fd_v3_sub(from, centre), b = fd_v3_sub(to, centre);
        double angle = small_atan2(fd_v3_length(fd_v3_cross(a, b)), fd_v3_dot(a, b), outside);
        return angle * fd_v3_length(b);
    }
    return fd_v3_length(fd_v3_reject(fd_v3_sub(to, from), normal));
}

/* pair_average. */
LANE double pair_average(double value_i, bool dynamic_i, double value_j, bool dynamic_j)
{
    return fd_select(dynamic_i & dynamic_j, 0.5 * (value_i + value_j), fd_select(dynamic_i, value_i, value_j));
}

/* cap_and_switch on two components; returns the new mode. */
LANE double cap_two(double* s0, double* s1, double mode, double static_limit, double kinetic_limit)
{
    double magnitude = sqrt(*s0 * *s0 + *s1 * *s1);
    double limit = fd_select(mode == 0.0, static_limit, kinetic_limit);
    bool positive = limit > 0.0;
    bool exceeds = (positive & (magnitude > limit)) | (!positive & (magnitude > 0.0));
    double scale = fd_select(positive, limit / magnitude, 0.0);
    *s0 = fd_select(exceeds, *s0 * scale, *s0);
    *s1 = fd_select(exceeds, *s1 * scale, *s1);
    return fd_select(exceeds, 1.0, 0.0);
}

/* cap_and_switch on one component. */
LANE double cap_one(double* value, double mode, double static_limit, double kinetic_limit)
{
    double magnitude = fabs(*value);
    double limit = fd_select(mode == 0.0, static_limit, kinetic_limit);
    bool positive = limit > 0.0;
    bool exceeds = (positive & (magnitude > limit)) | (!positive & (magnitude > 0.0));
    double scale = fd_select(positive, limit / magnitude, 0.0);
    *value = fd_select(exceeds, *value * scale, *value);
    return fd_select(exceeds, 1.0, 0.0);
}

/* damper_share of two components (count 2) or one (e1 = d1 = 0 is not the
 * same sum: one_component selects the one-term sums). */
LANE double damper_share(double e0, double e1, double d0, double d1, bool one_component, double limit)
{
    double ee = 0.0, ed = 0.0, dd = 0.0;
    ee += e0 * e0;
    ed += e0 * d0;
    dd += d0 * d0;
    ee = fd_select(one_component, ee, ee + e1 * e1);
    ed = fd_select(one_component, ed, ed + e1 * d1);
    dd = fd_select(one_component, dd, dd + d1 * d1);
    double total = ee + 2.0 * ed + dd;
    double room = limit * limit - ee;
    double beta = (-ed + sqrt(ed * ed + dd * fd_select(room > 0.0, room, 0.0))) / dd;
    double clamped = fd_select(beta < 0.0, 0.0, fd_select(beta > 1.0, 1.0, beta));
    return fd_select(!(total > limit * limit) | !(dd > 0.0), 1.0, clamped);
}

LANE fd_vec3 in_frame(fd_vec3 u, fd_vec3 w, double c0, double c1)
{
    return fd_v3_add(fd_v3_scale(c0, u), fd_v3_scale(c1, w));
}

/* What both roll_one_body calls share. */
typedef struct lane_contact {
    fd_vec3 n, u, w;
    fd_vec3 position_i, position_j, point_i, point_j;
    double mass_i, mass_j, inertia_i, inertia_j;
    double normal_force, inverse_stiffness, inverse_time_step;
} lane_contact;

/* roll_one_body for a sphere, its deflection in roll[at], [at + 1] and its
 * mode in roll[mode_at]; the torque on the body. */
LANE fd_vec3 roll_one(const fd_fn_lane_law* law, const lane_contact* k, fd_fn_block* b, int c, fd_vec3 path,
                      fd_vec3 along, fd_vec3 outward, double kappa_own, double kappa_other, double k_r_derived,
                      int at, int mode_at, unsigned* slip, bool* fallback)
{
    const double* slide = law->slide;
    const double* roll = law->roll;
    *fallback = *fallback | (fd_v3_length_squared(along) == 0.0); /* the direction from the stored deflection */
    double kappa_sum = kappa_own + kappa_other;
    double k_r = fd_select(roll[FD_FN_ROLL_K_R] == FD_FN_DERIVED, k_r_derived, roll[FD_FN_ROLL_K_R]);
    fd_vec3 theta = fd_v3_scale(kappa_own, path);
    double t0 = b->roll[at][c] + fd_v3_dot(theta, k->u);
    double t1 = b->roll[at + 1][c] + fd_v3_dot(theta, k->w);
    double half_curvature = 0.5 * kappa_sum * k->inverse_stiffness;
    double static_limit = slide[FD_FN_SLIDE_MU_S] * k->normal_force * half_curvature;
    double kinetic_limit = slide[FD_FN_SLIDE_MU_K] * k->normal_force * half_curvature;
    double mode = cap_two(&t0, &t1, b->roll[mode_at][c], static_limit, kinetic_limit);
    b->roll[at][c] = t0;
    b->roll[at + 1][c] = t1;
    b->roll[mode_at][c] = mode;
    fd_vec3 elastic = fd_v3_cross(outward, fd_v3_scale(k_r, in_frame(k->u, k->w, t0, t1)));
    /* The damper, in stick only. */
    double d_r = roll[FD_FN_ROLL_D_R];
    fd_vec3 axis = fd_v3_cross(outward, along);
    bool dynamic_i = k->mass_i > 0.0, dynamic_j = k->mass_j > 0.0;
    /* rocking_inertia: I + m (|arm|^2 - (arm . axis)^2) of each dynamic body about its surface point. */
    fd_vec3 arm_i = fd_v3_sub(k->point_i, k->position_i), arm_j = fd_v3_sub(k->point_j, k->position_j);
    double along_i = fd_v3_dot(arm_i, axis), along_j = fd_v3_dot(arm_j, axis);
    double rocking_i =
        fd_select(dynamic_i, k->inertia_i + k->mass_i * (fd_v3_length_squared(arm_i) - along_i * along_i), 0.0);
    double rocking_j =
        fd_select(dynamic_j, k->inertia_j + k->mass_j * (fd_v3_length_squared(arm_j) - along_j * along_j), 0.0);
    double rocking = pair_average(rocking_i, dynamic_i, rocking_j, dynamic_j);
    /* pair_inertia: the isotropic inertias. */
    double centre = pair_average(fd_select(dynamic_i, k->inertia_i, 0.0), dynamic_i,
                                 fd_select(dynamic_j, k->inertia_j, 0.0), dynamic_j);
    double inertia = fd_select(roll[FD_FN_ROLL_ROCKING] != 0.0, rocking, centre);
    d_r = fd_select(d_r == FD_FN_DERIVED, 2.0 * sqrt(inertia * k_r), d_r);
    double damping_rate = d_r * k->inverse_time_step;
    double share = damper_share(k_r * t0, k_r * t1, damping_rate * fd_v3_dot(theta, k->u),
                                damping_rate * fd_v3_dot(theta, k->w), false, k_r * static_limit);
    damping_rate = fd_select(slide[FD_FN_SLIDE_CAP_TOTAL] != 0.0, damping_rate * share, damping_rate);
    fd_vec3 damping = fd_v3_cross(outward, fd_v3_scale(damping_rate, theta));
    bool stick = mode == 0.0;
    *slip |= stick ? 0u : 1u << FD_MECHANISM_ROLL;
    /* roll_one_body's out-parameters start at zero: in slip the damper adds +0. */
    return fd_v3_add(elastic, fd_v3_select(stick, damping, fd_v3(0.0, 0.0, 0.0)));
}

/* One contact. */
LANE void lane(fd_fn_block* restrict b, int c, const fd_fn_lane_law* law, bool has_roll, bool has_spin,
               fd_fn_shapes shapes)
{
    const double* slide = law->slide;
    bool fallback = false;
    unsigned slip = 0u;
    /* round_pair.c, fd_round_pair_geometry. */
    fd_vec3 position_i = FD_LANE_LOAD3(b->position_i, c), position_j = FD_LANE_LOAD3(b->position_j, c);
    fd_vec3 n, point_i, point_j;
    double penetration, curvature_i, curvature_j;
    if (shapes == FD_FN_SPHERES) {
        /* body j's image already in position_j */
        double radius_i = b->radius_i[c], radius_j = b->radius_j[c];
        fd_vec3 offset = fd_v3_sub(position_i, position_j);
        double distance = fd_v3_length(offset);
        n = fd_v3_select(distance > 0.0, fd_v3_scale(1.0 / distance, offset), fd_v3(0, 0, 1));
        penetration = radius_i + radius_j - distance;
        point_i = fd_v3_mul_add(position_i, -radius_i, n);
        point_j = fd_v3_mul_add(position_j, radius_j, n);
        curvature_i = 1.0 / radius_i;
        curvature_j = 1.0 / radius_j;
    } else {
        /* the sphere as "i", turned round when the plane is body i */
        bool plane_first = shapes == FD_FN_PLANE_I;
        double radius = plane_first ? b->radius_j[c] : b->radius_i[c];
        fd_vec3 centre = plane_first ? position_j : position_i;
        fd_vec3 plane = plane_first ? position_i : position_j;
        fd_vec3 outward = FD_LANE_LOAD3(b->plane_normal, c);
        double height = fd_v3_dot(fd_v3_sub(centre, plane), outward);
        fd_vec3 sphere_point = fd_v3_mul_add(centre, -radius, outward);
        fd_vec3 plane_point = fd_v3_mul_add(centre, -height, outward);
        penetration = radius - height;
        n = plane_first ? fd_v3_neg(outward) : outward;
        point_i = plane_first ? plane_point : sphere_point;
        point_j = plane_first ? sphere_point : plane_point;
        curvature_i = plane_first ? 0.0 : 1.0 / radius;
        curvature_j = plane_first ? 1.0 / radius : 0.0;
        /* evaluate_generic adds body j's image offset, 0 beside a wall */
        position_j = fd_v3_add(position_j, fd_v3(0.0, 0.0, 0.0));
    }
    /* contact_details.c, evaluate_generic: the midpoint, the arms, the overlap's rate. */
    fd_vec3 point = fd_v3_scale(0.5, fd_v3_add(point_i, point_j));
    fd_vec3 arm_i = fd_v3_sub(point, position_i), arm_j = fd_v3_sub(point, position_j);
    fd_vec3 velocity_i = fd_v3_add(FD_LANE_LOAD3(b->velocity_i, c), fd_v3_cross(FD_LANE_LOAD3(b->spin_i, c), arm_i));
    fd_vec3 velocity_j = fd_v3_add(FD_LANE_LOAD3(b->velocity_j, c), fd_v3_cross(FD_LANE_LOAD3(b->spin_j, c), arm_j));
    double penetration_rate = fd_v3_dot(fd_v3_sub(velocity_j, velocity_i), n);
    /* normal.c, fd_normal_evaluate: hooke or hertz, the dashpot's prefactor
     * times fd_normal_dashpot_factor. */
    double overlap = fd_select(penetration > 0.0, penetration, 0.0);
    /* (both forms and every factor are formed and one kept: a loop per
     * form measured no faster at twice the code) */
    double elastic_force = fd_select(law->hertz, b->hertz_constant[c] * overlap * sqrt(overlap), law->k_n * overlap);
    double factor = fd_select(law->dashpot_factor == 0, 1.0,
                              fd_select(law->dashpot_factor == 1, sqrt(b->effective_radius[c] * overlap),
                                        sqrt(sqrt(overlap))));
    double damping_force = fd_select(overlap > 0.0, b->dashpot[c] * factor * penetration_rate, 0.0);
    double total = elastic_force + damping_force;
    double normal_force = fd_select(law->clamp & !(total > 0.0), 0.0, total);
    /* friction.c: the limits scale with |N|. */
    lane_contact k = {
        .n = n,
        .position_i = position_i,
        .position_j = position_j,
        .point_i = point_i,
        .point_j = point_j,
        .mass_i = b->mass_i[c],
        .mass_j = b->mass_j[c],
        .inertia_i = b->inertia_i[c],
        .inertia_j = b->inertia_j[c],
        .normal_force = fabs(normal_force),
    };
    /* fang_negrut.c, kinematics_step. */
    fd_vec3 u0 = FD_LANE_LOAD3(b->slide + FD_FN_H_U, c), w0 = FD_LANE_LOAD3(b->slide + FD_FN_H_W, c);
    fd_mat3 turn_i = turn_matrix(b->turn_i, c), turn_j = turn_matrix(b->turn_j, c);
    fd_vec3 u_i = continued_frame(n, turned(&turn_i, u0), turned(&turn_i, w0), &fallback);
    fd_vec3 u_j = continued_frame(n, turned(&turn_j, u0), turned(&turn_j, w0), &fallback);
    k.u = u_i;
    k.w = fd_v3_cross(n, u_i);
    fd_vec3 w_j = fd_v3_cross(n, u_j);
    double psi = small_atan2(fd_v3_dot(n, fd_v3_cross(u_j, u_i)), fd_v3_dot(u_j, u_i), &fallback);
    fd_vec3 painted_i = fd_v3_add(position_i, turned(&turn_i, FD_LANE_LOAD3(b->slide + FD_FN_H_ARM_I, c)));
    fd_vec3 painted_j = fd_v3_add(position_j, turned(&turn_j, FD_LANE_LOAD3(b->slide + FD_FN_H_ARM_J, c)));
    fd_vec3 path_i = normalized(fd_v3_reject(fd_v3_sub(point, painted_i), n));
    fd_vec3 path_j = normalized(fd_v3_reject(fd_v3_sub(point, painted_j), n));
    fd_vec3 along_i = path_i;
    fd_vec3 p_i = fd_v3_scale(arc(shapes != FD_FN_PLANE_I, position_i, painted_i, point, n, &fallback), path_i);
    fd_vec3 along_j = fd_v3_add(fd_v3_scale(fd_v3_dot(path_j, u_j), k.u), fd_v3_scale(fd_v3_dot(path_j, w_j), k.w));
    fd_vec3 p_j = fd_v3_scale(arc(shapes != FD_FN_PLANE_J, position_j, painted_j, point, n, &fallback), along_j);
    /* fd_fang_negrut_evaluate. */
    k.inverse_stiffness = 1.0 / slide[FD_FN_SLIDE_K_E];
    k.inverse_time_step = 1.0 / law->time_step;

    /* slide_kernel. */
    double mu_s = slide[FD_FN_SLIDE_MU_S], mu_k = slide[FD_FN_SLIDE_MU_K], stiffness = slide[FD_FN_SLIDE_K_E];
    fd_vec3 delta = fd_v3_sub(p_i, p_j);
    double delta_u = fd_v3_dot(delta, k.u), delta_w = fd_v3_dot(delta, k.w);
    double s0 = b->slide[FD_FN_H_S][c] + delta_u;
    double s1 = b->slide[FD_FN_H_S + 1][c] + delta_w;
    double slide_mode = cap_two(&s0, &s1, b->slide[FD_FN_H_SLIDE_MODE][c], mu_s * k.normal_force * k.inverse_stiffness,
                                mu_k * k.normal_force * k.inverse_stiffness);
    b->slide[FD_FN_H_S][c] = s0;
    b->slide[FD_FN_H_S + 1][c] = s1;
    b->slide[FD_FN_H_SLIDE_MODE][c] = slide_mode;
    bool slide_stick = slide_mode == 0.0;
    slip |= slide_stick ? 0u : 1u << FD_MECHANISM_SLIDE;
    fd_vec3 elastic = fd_v3_scale(stiffness, in_frame(k.u, k.w, s0, s1));
    double damping = slide[FD_FN_SLIDE_K_D];
    bool dynamic_i = k.mass_i > 0.0, dynamic_j = k.mass_j > 0.0;
    double m_ij = pair_average(k.mass_i, dynamic_i, k.mass_j, dynamic_j);
    damping = fd_select(damping == FD_FN_DERIVED, 2.0 * sqrt(m_ij * stiffness), damping);
    double damping_rate = damping * k.inverse_time_step;
    double share = damper_share(stiffness * s0, stiffness * s1, damping_rate * delta_u, damping_rate * delta_w, false,
                                mu_s * k.normal_force);
    share = fd_select(slide[FD_FN_SLIDE_CAP_TOTAL] != 0.0, share, 1.0);
    fd_vec3 viscous = fd_v3_scale(share * damping_rate, in_frame(k.u, k.w, delta_u, delta_w));
    fd_vec3 slide_force = fd_v3_add(elastic, fd_v3_select(slide_stick, viscous, fd_v3(0.0, 0.0, 0.0)));

    /* roll_kernel: both bodies, K_R from the first (the same curvature sum). */
    fd_vec3 roll_i = fd_v3(0.0, 0.0, 0.0), roll_j = fd_v3(0.0, 0.0, 0.0);
    if (has_roll) {
        double kappa_sum = curvature_i + curvature_j;
        double k_r = 4.0 * law->roll[FD_FN_ROLL_ETA_R] * stiffness / (kappa_sum * kappa_sum);
        roll_i = roll_one(law, &k, b, c, p_i, along_i, fd_v3_neg(n), curvature_i, curvature_j, k_r, FD_FN_H_THETA_I,
                          FD_FN_H_ROLL_MODE_I, &slip, &fallback);
        roll_j = roll_one(law, &k, b, c, p_j, along_j, n, curvature_j, curvature_i, k_r, FD_FN_H_THETA_J,
                          FD_FN_H_ROLL_MODE_J, &slip, &fallback);
    }

    /* spin_kernel (fang_negrut, not the Hertz variant). */
    fd_vec3 spin_i = fd_v3(0.0, 0.0, 0.0), spin_j = fd_v3(0.0, 0.0, 0.0);
    if (has_spin) {
        const double* spin = law->spin;
        double curvature = spin[FD_FN_SPIN_CURVATURE];
        curvature = fd_select(curvature == FD_FN_DERIVED,
                              0.5 * (curvature_i + curvature_i + curvature_j + curvature_j), curvature);
        double k_psi = fd_select(spin[FD_FN_SPIN_K_PSI] == FD_FN_DERIVED,
                                 spin[FD_FN_SPIN_ETA_PSI] * stiffness / (curvature * curvature),
                                 spin[FD_FN_SPIN_K_PSI]);
        double d_psi = spin[FD_FN_SPIN_D_PSI];
        double psi_total = b->spin[FD_FN_H_PSI][c] + psi;
        double static_limit = curvature * mu_s * k.normal_force * k.inverse_stiffness;
        double kinetic_limit = curvature * mu_k * k.normal_force * k.inverse_stiffness;
        bool finite_limit = isfinite(static_limit);
        static_limit = fd_select(finite_limit, static_limit, 0.0);
        kinetic_limit = fd_select(finite_limit, kinetic_limit, 0.0);
        double spin_mode = cap_one(&psi_total, b->spin[FD_FN_H_SPIN_MODE][c], static_limit, kinetic_limit);
        b->spin[FD_FN_H_PSI][c] = psi_total;
        b->spin[FD_FN_H_SPIN_MODE][c] = spin_mode;
        bool spin_stick = spin_mode == 0.0;
        slip |= spin_stick ? 0u : 1u << FD_MECHANISM_SPIN;
        double spin_elastic = k_psi * psi_total;
        spin_elastic = fd_select(isfinite(spin_elastic), spin_elastic, 0.0);
        double centre = pair_average(fd_select(dynamic_i, k.inertia_i, 0.0), dynamic_i,
                                     fd_select(dynamic_j, k.inertia_j, 0.0), dynamic_j);
        d_psi = fd_select(d_psi == FD_FN_DERIVED, 2.0 * sqrt(centre * k_psi), d_psi);
        double spin_rate = d_psi * k.inverse_time_step;
        double spin_damping = spin_rate * psi;
        double spin_share = damper_share(spin_elastic, 0.0, spin_damping, 0.0, true,
                                         fd_select(isfinite(k_psi), k_psi * static_limit, 0.0));
        spin_rate = fd_select(slide[FD_FN_SLIDE_CAP_TOTAL] != 0.0, spin_rate * spin_share, spin_rate);
        double viscous_torque = fd_select(spin_stick, spin_rate * psi, 0.0);
        spin_i = fd_v3_scale(-(spin_elastic + viscous_torque), n);
        spin_j = fd_v3_scale(spin_elastic + viscous_torque, n);
    }

    /* kinematics_store. */
    FD_LANE_STORE3(b->slide + FD_FN_H_ARM_I, c, fd_v3_sub(point, position_i));
    FD_LANE_STORE3(b->slide + FD_FN_H_ARM_J, c, fd_v3_sub(point, position_j));
    FD_LANE_STORE3(b->slide + FD_FN_H_U, c, k.u);
    FD_LANE_STORE3(b->slide + FD_FN_H_W, c, k.w);

    /* evaluate_generic: the force on i and the torques about both centres. */
    fd_vec3 force = fd_v3_add(fd_v3_scale(normal_force, n), slide_force);
    FD_LANE_STORE3(b->force, c, force);
    FD_LANE_STORE3(b->torque_i, c, fd_v3_add(fd_v3_cross(arm_i, force), fd_v3_add(roll_i, spin_i)));
    FD_LANE_STORE3(b->torque_j, c, fd_v3_add(fd_v3_cross(arm_j, fd_v3_neg(force)), fd_v3_add(roll_j, spin_j)));
    b->slip[c] = (double)slip;
    b->fallback[c] = fd_select(fallback, 1.0, 0.0);
}


/* One function per combination, each with its own clones: the loops are
 * those of one function that holds all twelve, but GCC's register
 * allocation grows faster than a function's size (one function took 81 s
 * to compile at -O3, the twelve take 58 s). */
typedef void (*fn_block_kernel)(fd_fn_block* restrict block, const fd_fn_lane_law* law);

#define FD_FN_KERNEL(name, has_roll, has_spin, shapes)                                                                 \
    static FD_VECTOR_CLONES __attribute__((noinline)) void name(fd_fn_block* restrict block,                           \
                                                                const fd_fn_lane_law* law)                             \
    {                                                                                                                  \
        int count = block->count;                                                                                      \
        _Pragma("omp simd") for (int c = 0; c < count; ++c) {                                                          \
            lane(block, c, law, has_roll, has_spin, shapes);                                                           \
        }                                                                                                              \
    }
/* A pairing's four: [roll][spin], each absent or present. */
#define FD_FN_KERNELS(name, shapes)                                                                                    \
    FD_FN_KERNEL(name##_slide, false, false, shapes)                                                                   \
    FD_FN_KERNEL(name##_spin, false, true, shapes)                                                                     \
    FD_FN_KERNEL(name##_roll, true, false, shapes)                                                                     \
    FD_FN_KERNEL(name##_roll_spin, true, true, shapes)
#define FD_FN_RUNS(name) {{name##_slide, name##_spin}, {name##_roll, name##_roll_spin}}

FD_FN_KERNELS(spheres, FD_FN_SPHERES)
FD_FN_KERNELS(plane_j, FD_FN_PLANE_J)
FD_FN_KERNELS(plane_i, FD_FN_PLANE_I)

/* [fd_fn_shapes][roll][spin] */
static const fn_block_kernel fn_runs[FD_FN_PAIRINGS][2][2] = {
    [FD_FN_SPHERES] = FD_FN_RUNS(spheres), [FD_FN_PLANE_J] = FD_FN_RUNS(plane_j), [FD_FN_PLANE_I] = FD_FN_RUNS(plane_i)};

void fd_fn_block_run(fd_fn_block* restrict block, const fd_fn_lane_law* law, fd_fn_shapes shapes)
{
    fn_runs[shapes][law->has_roll ? 1 : 0][law->has_spin ? 1 : 0](block, law);
}
