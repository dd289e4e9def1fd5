/* Fang & Negrut friction: slide force, roll torque and spin torque from the
 * path of the contact point on both bodies (paper 003, Sec. 2 and 3, App. B
 * and C), and the legacy constant-torque rolling model of App. A.2, Eq. (8).
 *
 * One kinematics step, three kernels. Per contact and step (t0 -> t1):
 *
 *  1. The points "painted" at t0 on each body (the cross C_i^0 on i, the dot
 *     C_j^0 on j) move with their bodies: at t1 each is its body's centre
 *     plus the arm it had at t0 turned by the body's rotation over the step.
 *  2. The contact frame (n, u, w) of t0, turned likewise by each body's
 *     rotation, is continued on each body by App. B: (u1, w1) maximises
 *     u0 . u + w0 . w over orthonormal pairs of the new tangent plane with
 *     w = n x u. Since w0 . (n x u) = (w0 x n) . u the maximiser is
 *     u1 = unit(P (u0 + w0 x n)), P the tangent projector: a closed form of
 *     the paper's theta* (App. B), with no branch to choose.
 *  3. The spin angle psi (Sec. 2.2) is the signed angle about n that takes
 *     j's frame u_bar1 onto i's frame u1 (positive counterclockwise seen
 *     from the tip of n: right-hand rule about n).
 *  4. p_i = s_i unit(P (C_i^1 - C_i^0)), with s_i the geodesic arc from
 *     C_i^0 to C_i^1 on body i (exact on spheres and planes, the chord on
 *     ellipsoids as Sec. 4.5 does), and likewise p_bar_j on j; the
 *     counter-spin (Sec. 3.1, Fig. 3) turns p_bar_j by the angle taking
 *     u_bar1 to u1: p_j keeps its angle to the frame. After it the two
 *     frames coincide and are stored on both bodies for the next step.
 *
 * Slide (Eq. 1a-1c): S += p_i - p_j, E_f = K_E S capped a posteriori with the
 * stick/slip switch of Sec. 3.1, D_f = K_D dS/dt. The force acts on body i;
 * body j gets its opposite. (Sign: a sphere j dragged without rotation over
 * ground i moves the ground's contact point along its motion, p_i > 0,
 * p_j = 0, so F_i points along the motion and F_j = -F_i opposes it.)
 *
 * Roll (Eq. 2-2c, Table 1): for each body b, theta_b = kappa_b p_b with
 * kappa_b the normal curvature of b along p_b, Theta_b += theta_b, capped like
 * S with Theta^s = mu_s N (kappa_i + kappa_j) / (2 K_E) (Eq. 2c), stiffness
 * K_R = 4 eta_r K_E / (kappa_i + kappa_j)^2 (Eq. 2b), damping
 * D_R = 2 sqrt(I_ij K_R). Direction in 3-D: Theta_b lies in the tangent
 * plane along the path of the contact point over b, and the torque on b is
 * tau_b = n_b x (K_R Theta_b + D_R theta_b / dt), n_b the outward normal of b
 * (-n for i, +n for j, since n points into i). Check: a ball j rolls along +x
 * on ground i below it, so n = -z (into the ground), omega_y > 0; its contact
 * point leaves the painted dot behind, p_j = +x, and tau_j = (-z) x (+x) = -y
 * opposes omega_y. The same formula holds with the ball as body i (n = +z,
 * n_i = -z, p_i = +x, tau_i = -y). The two
bodies' torques differ in general (App. A.2, last paragraph).
 *
 * Spin (Eq. 3-3d): Psi += psi, T_E = K_psi Psi capped at K S^S (stick) or
 * K S^S_k (slip), T_D = D_psi psi / dt; a negative Psi gives a positive torque
 * on body i (Sec. 3.3): tau_i = -(T_E + T_D) n, tau_j = +(T_E + T_D) n.
 *
 * Everything is recomputed each step from the current curvature and normal
 * force (Sec. 4.5); a new contact starts with zero history and zero loads.
 *
 * Must not touch: the world, the steppers, files (the steppers call the laws). */
#include <math.h>
#include <string.h>

#include "contact/fang_negrut_lane.h"
#include "contact/model.h"
#include "core/error.h"

/* ---------------------------------------------------------------- parameters */

/* Parameter and history layouts, FD_FN_DERIVED: contact/fang_negrut_lane.h (the
 * sphere lane of the penalty stepper reads them too). */

/* Output columns. */
enum {
    C_SLIDE_ELASTIC = 0, /* xyz */
    C_SLIDE_DAMPING = 3, /* xyz */
    C_SLIDE_MODE = 6,
    C_S = 7,             /* xyz */
    C_P_I = 10,          /* xyz */
    C_P_J = 13,          /* xyz */
    C_PSI = 16,
    SLIDE_COLUMNS = 17,
};
enum {
    C_ROLL_ELASTIC_I = 0, C_ROLL_DAMPING_I = 3, C_ROLL_ELASTIC_J = 6, C_ROLL_DAMPING_J = 9,
    C_ROLL_MODE_I = 12, C_ROLL_MODE_J = 13, C_THETA_I = 14, C_THETA_J = 17, ROLL_COLUMNS = 20,
};
enum { C_SPIN_ELASTIC = 0, C_SPIN_DAMPING = 1, C_SPIN_MODE = 2, C_PSI_TOTAL = 3, SPIN_COLUMNS = 4 };
enum { C_LEGACY_TORQUE = 0, LEGACY_COLUMNS = 1 };

/* ---------------------------------------------------------------- helpers */

/* The per-contact helpers are inlined into fd_fang_negrut_evaluate: called,
 * each fd_vec3 argument and result went through the stack (a 24-byte struct
 * is passed in memory), and a load of two of its doubles right after their
 * two stores is a store-forwarding stall (a third of roll_one_body's time). */
#define FN_INLINE static inline __attribute__((always_inline))

static fd_vec3 load3(const double* h) { return fd_v3(h[0], h[1], h[2]); }
static void store3(double* h, fd_vec3 v) { h[0] = v.x; h[1] = v.y; h[2] = v.z; }
static void column3(double* columns, const int* index, int at, fd_vec3 v)
{
    columns[index[at]] = v.x;
    columns[index[at + 1]] = v.y;
    columns[index[at + 2]] = v.z;
}

/* App. B in closed form: the unit u of the tangent plane (normal n) that
 * maximises u0 . u + w0 . (n x u). */
FN_INLINE fd_vec3 continue_frame(fd_vec3 n, fd_vec3 u0, fd_vec3 w0)
{
    fd_vec3 u = fd_v3_reject(fd_v3_add(u0, fd_v3_cross(w0, n)), n);
    double length = fd_v3_length(u);
    return length > 1e-12 ? fd_v3_scale(1.0 / length, u) : fd_v3_any_orthogonal(n);
}

/* Geodesic length on a body's surface between two of its points (Sec. 2.1):
 * on a sphere the angle the two points make at the centre times the tracked
 * point's distance from it (exact, and blind to the point's motion along the
 * normal as the overlap changes); on planes and ellipsoids the chord in the
 * tangent plane (exact on planes, Sec. 4.5 on ellipsoids). */
FN_INLINE double arc_length(fd_shape_type shape, fd_vec3 centre, fd_vec3 from, fd_vec3 to, fd_vec3 normal)
{
    if (shape == FD_SHAPE_SPHERE) {
        fd_vec3 a = fd_v3_sub(from, centre), b = fd_v3_sub(to, centre);
        double angle = fd_small_atan2(fd_v3_length(fd_v3_cross(a, b)), fd_v3_dot(a, b));
        return angle * fd_v3_length(b);
    }
    return fd_v3_length(fd_v3_reject(fd_v3_sub(to, from), normal));
}

/* Normal curvature of a surface along the unit tangent t (Euler's formula).
 * An umbilic surface (a sphere, a plane) curves alike in every direction:
 * its curvature, whatever its (then arbitrary) principal directions. */
FN_INLINE double normal_curvature(const double curvature[2], const fd_vec3 direction[2], fd_vec3 t)
{
    if (curvature[0] == curvature[1]) {
        return curvature[0];
    }
    double c0 = fd_v3_dot(t, direction[0]), c1 = fd_v3_dot(t, direction[1]);
    return curvature[0] * c0 * c0 + curvature[1] * c1 * c1;
}

/* Moment of inertia of a dynamic body about the world unit axis. */
FN_INLINE double inertia_about(const fd_body_state* state, fd_vec3 inertia, fd_vec3 axis)
{
    if (inertia.x == inertia.y && inertia.y == inertia.z) {
        return inertia.x; /* isotropic (a sphere): the same about every axis, no rotation needed */
    }
    fd_vec3 local = fd_quat_rotate_inverse(state->orientation, axis);
    return inertia.x * local.x * local.x + inertia.y * local.y * local.y + inertia.z * local.z * local.z;
}

/* The paper's fictitious mass and inertia m_ij, I_ij (Eq. 1c, 3d): the average
 * of the two bodies', or the dynamic body's when the other is fixed. */
FN_INLINE double pair_average(double value_i, bool dynamic_i, double value_j, bool dynamic_j)
{
    if (dynamic_i && dynamic_j) {
        return 0.5 * (value_i + value_j);
    }
    return dynamic_i ? value_i : value_j;
}

FN_INLINE double pair_inertia(const fd_contact_input* input, fd_vec3 axis)
{
    bool dynamic_i = input->mass_i > 0.0, dynamic_j = input->mass_j > 0.0;
    double inertia_i = dynamic_i ? inertia_about(input->state_i, input->inertia_i, axis) : 0.0;
    double inertia_j = dynamic_j ? inertia_about(input->state_j, input->inertia_j, axis) : 0.0;
    return pair_average(inertia_i, dynamic_i, inertia_j, dynamic_j);
}

static double squared2(const double* v) { return v[0] * v[0] + v[1] * v[1]; }

/* The a-posteriori cap of Sec. 3.1 on a micro-deflection vector of 2
 * components (or 1), with the stick/slip switch. Returns the new mode. */
FN_INLINE double cap_and_switch(double* value, int count, double mode, double static_limit, double kinetic_limit)
{
    /* Deflections are micrometres to radians: no overflow, so no need for hypot(). */
    double magnitude = count == 2 ? sqrt(value[0] * value[0] + value[1] * value[1]) : fabs(value[0]);
    double limit = mode == 0.0 ? static_limit : kinetic_limit;
    if (limit > 0.0 ? magnitude > limit : magnitude > 0.0) {
        double scale = limit > 0.0 ? limit / magnitude : 0.0; /* back onto the limit (none without one) */
        for (int k = 0; k < count; ++k) {
            value[k] *= scale;
        }
        return 1.0; /* stick -> slip, or stays in slip */
    }
    return 0.0; /* within its limit: stays in stick, or slip -> stick below the kinetic cap */
}

/* The share beta in [0, 1] of a stick damper's load that keeps the total
 * |elastic + beta damping| within limit (issue 10: spring plus damper never
 * exceed the static limit). The elastic part is within the limit already (the
 * cap of Sec. 3.1), so the root of |e + beta d|^2 = L^2 in [0, 1] exists:
 * beta = (-e.d + sqrt((e.d)^2 + |d|^2 (L^2 - |e|^2))) / |d|^2. Components in
 * the tangent plane (2) or about the normal (1). */
FN_INLINE double damper_share(const double* elastic, const double* damping, int count, double limit)
{
    double ee = 0.0, ed = 0.0, dd = 0.0;
    for (int k = 0; k < count; ++k) {
        ee += elastic[k] * elastic[k];
        ed += elastic[k] * damping[k];
        dd += damping[k] * damping[k];
    }
    double total = ee + 2.0 * ed + dd;
    if (!(total > limit * limit) || !(dd > 0.0)) {
        return 1.0; /* within the limit (or no damper load): the paper's load as it is */
    }
    double room = limit * limit - ee;
    double beta = (-ed + sqrt(ed * ed + dd * (room > 0.0 ? room : 0.0))) / dd;
    return beta < 0.0 ? 0.0 : (beta > 1.0 ? 1.0 : beta);
}

/* ---------------------------------------------------------------- kinematics */

typedef struct fn_kinematics {
    fd_vec3 n, u, w;     /* contact frame at t1, common to both bodies after the counter-spin */
    fd_vec3 p_i, p_j;    /* world, in the tangent plane; p_j after the counter-spin */
    fd_vec3 along_i, along_j; /* their unit directions (zero where the point did not move) */
    fd_vec3 point;       /* the tracked point at t1, painted for the next step */
    /* 1 / K_E and 1 / dt, once per contact: the limits and dashpot rates
     * below multiply by them instead of dividing a dozen times. */
    double inverse_stiffness, inverse_time_step;
    double psi;          /* spin angle (rad) */
} fn_kinematics;

/* The point painted on both bodies and tracked: the midpoint of the two
 * surface points, where the penalty stepper applies the loads. The paper's
 * rigid contact has one point; with an overlap delta the surface points lie
 * delta apart, and tracking each body's own surface point would measure a
 * sphere's rotation at the arm R while the force acts at R - delta/2: a
 * relative slip of omega delta/2 that does no work, so a leak in the energy
 * books that does not shrink with the step (about 0.1% of the energy of a
 * sphere dropped on a plane at 3% overlap). With zero overlap (a prescribed
 * normal force) both are the same point. */
FN_INLINE fd_vec3 tracked_point(const fd_contact_geometry* g)
{
    return fd_v3_scale(0.5, fd_v3_add(g->point_i, g->point_j));
}

static void kinematics_start(const fd_contact_input* input, fn_kinematics* k)
{
    k->n = input->geometry->normal;
    k->point = tracked_point(input->geometry);
    k->u = fd_v3_any_orthogonal(k->n); /* arbitrary at the onset (Sec. 2.2) */
    k->w = fd_v3_cross(k->n, k->u);
    k->p_i = k->p_j = k->along_i = k->along_j = fd_v3(0, 0, 0);
    k->psi = 0.0;
}

/* A vector carried by a body over the step: turned by the body's rotation
 * since the last step (NULL: it did not turn, or no time has passed). */
FN_INLINE fd_vec3 carried(const fd_mat3* turn, const double* stored)
{
    return turn != NULL ? fd_mat3_apply(turn, load3(stored)) : load3(stored);
}

FN_INLINE void kinematics_step(const fd_contact_input* input, const double* history, fn_kinematics* k)
{
    const fd_contact_geometry* g = input->geometry;
    const fd_body_state* si = input->state_i;
    const fd_body_state* sj = input->state_j;
    fd_vec3 n = g->normal;
    k->n = n;

    /* Sec. 2.2 / App. B: continue each body's frame into the new tangent plane. */
    fd_vec3 u_i = continue_frame(n, carried(input->turn_i, history + FD_FN_H_U),
                                 carried(input->turn_i, history + FD_FN_H_W));
    fd_vec3 u_j = continue_frame(n, carried(input->turn_j, history + FD_FN_H_U),
                                 carried(input->turn_j, history + FD_FN_H_W));
    k->u = u_i;
    k->w = fd_v3_cross(n, u_i);
    fd_vec3 w_j = fd_v3_cross(n, u_j);

    /* Spin angle: from j's frame to i's, right-handed about n. */
    k->psi = fd_small_atan2(fd_v3_dot(n, fd_v3_cross(u_j, u_i)), fd_v3_dot(u_j, u_i));

    /* Painted points carried to t1, and the paths p_i, p_bar_j (Sec. 3.1, Fig. 2). */
    fd_vec3 painted_i = fd_v3_add(si->position, carried(input->turn_i, history + FD_FN_H_ARM_I));
    fd_vec3 painted_j = fd_v3_add(sj->position, carried(input->turn_j, history + FD_FN_H_ARM_J));
    fd_vec3 point = k->point = tracked_point(g);
    fd_vec3 path_i = fd_v3_normalize(fd_v3_reject(fd_v3_sub(point, painted_i), n));
    fd_vec3 path_j = fd_v3_normalize(fd_v3_reject(fd_v3_sub(point, painted_j), n));
    k->along_i = path_i;
    k->p_i = fd_v3_scale(arc_length(input->shape_i, si->position, painted_i, point, n), path_i);
    /* Counter-spin (Fig. 3): keep p_bar_j's components in j's frame, read
     * them in i's (a rotation about n: the direction stays a unit vector). */
    k->along_j = fd_v3_add(fd_v3_scale(fd_v3_dot(path_j, u_j), k->u), fd_v3_scale(fd_v3_dot(path_j, w_j), k->w));
    k->p_j = fd_v3_scale(arc_length(input->shape_j, sj->position, painted_j, point, n), k->along_j);
}

/* After the step both frames coincide: store (u, w) and paint the new
 * contact point on both bodies (as arms from their centres). */
FN_INLINE void kinematics_store(const fd_contact_input* input, const fn_kinematics* k, double* history)
{
    store3(history + FD_FN_H_ARM_I, fd_v3_sub(k->point, input->state_i->position));
    store3(history + FD_FN_H_ARM_J, fd_v3_sub(k->point, input->state_j->position));
    store3(history + FD_FN_H_U, k->u);
    store3(history + FD_FN_H_W, k->w);
}

/* ---------------------------------------------------------------- kernels */

FN_INLINE fd_vec3 in_frame(const fn_kinematics* k, const double* components)
{
    return fd_v3_add(fd_v3_scale(components[0], k->u), fd_v3_scale(components[1], k->w));
}

/* Eq. (1a)-(1c) with the cap and switch of Sec. 3.1; returns the force on body i. */
FN_INLINE fd_vec3 slide_kernel(const double* params, const fd_contact_input* input, double normal_force,
                            const fn_kinematics* k, double* history, double* columns, const int* column_index)
{
    double mu_s = params[FD_FN_SLIDE_MU_S], mu_k = params[FD_FN_SLIDE_MU_K], stiffness = params[FD_FN_SLIDE_K_E];
    fd_vec3 delta = fd_v3_sub(k->p_i, k->p_j); /* Eq. (1a) */
    double delta_uw[2] = {fd_v3_dot(delta, k->u), fd_v3_dot(delta, k->w)};
    double* s = history + FD_FN_H_S;
    s[0] += delta_uw[0];
    s[1] += delta_uw[1];
    /* Energy books: the cap takes energy out of the spring (slip). */
    fd_energy_books* books = &input->energy[FD_MECHANISM_SLIDE];
    double predicted_energy = 0.5 * stiffness * squared2(s);
    history[FD_FN_H_SLIDE_MODE] = cap_and_switch(s, 2, history[FD_FN_H_SLIDE_MODE],
                                                 mu_s * normal_force * k->inverse_stiffness,
                                                 mu_k * normal_force * k->inverse_stiffness);
    books->stored = 0.5 * stiffness * squared2(s);
    books->slip = predicted_energy - books->stored;
    *input->slip_flags |= history[FD_FN_H_SLIDE_MODE] == 1.0 ? 1u << FD_MECHANISM_SLIDE : 0u;
    fd_vec3 elastic = fd_v3_scale(stiffness, in_frame(k, s));
    /* Eq. (1b); the dashpot acts in stick mode only (Sec. 5: "damping acting
     * during stick mode only"): in slip the force is the capped elastic part. */
    fd_vec3 viscous = fd_v3(0, 0, 0);
    if (history[FD_FN_H_SLIDE_MODE] == 0.0) {
        double damping = params[FD_FN_SLIDE_K_D];
        if (damping == FD_FN_DERIVED) {
            double m_ij = pair_average(input->mass_i, input->mass_i > 0.0, input->mass_j, input->mass_j > 0.0);
            damping = 2.0 * sqrt(m_ij * stiffness); /* Eq. (1c) */
        }
        double share = 1.0, damping_rate = damping * k->inverse_time_step; /* K_D / dt */
        if (params[FD_FN_SLIDE_CAP_TOTAL] != 0.0) {
            /* A contact born sliding has a short spring and a dashpot load of
             * K_D v_t: without this cap the force at impact is many times mu N
             * (issue 10). The dashpot gives way; the stick/slip switch stays
             * the spring's (Sec. 3.1), so the spring may still reach mu_s N. */
            double elastic_uw[2] = {stiffness * s[0], stiffness * s[1]};
            double damping_uw[2] = {damping_rate * delta_uw[0], damping_rate * delta_uw[1]};
            share = damper_share(elastic_uw, damping_uw, 2, mu_s * normal_force);
        }
        viscous = fd_v3_scale(share * damping_rate, in_frame(k, delta_uw));
        books->dashpot = share * damping_rate * squared2(delta_uw); /* K_D |dS/dt|^2 dt */
    }
    if (columns != NULL) {
        column3(columns, column_index, C_SLIDE_ELASTIC, elastic);
        column3(columns, column_index, C_SLIDE_DAMPING, viscous);
        columns[column_index[C_SLIDE_MODE]] = history[FD_FN_H_SLIDE_MODE];
        column3(columns, column_index, C_S, in_frame(k, s));
        column3(columns, column_index, C_P_I, k->p_i);
        column3(columns, column_index, C_P_J, k->p_j);
        columns[column_index[C_PSI]] = k->psi;
    }
    return fd_v3_add(elastic, viscous);
}

/* The inertia a roll damper acts against: the rocking inertia of each
 * dynamic body about the axis through its contact point, I_axis + m d^2 with
 * d the arm's distance from the axis (7/5 m R^2 for a sphere on its point),
 * averaged like the paper's I_ij. The paper's D_R = 2 sqrt(I_ij K_R) uses the
 * inertia about the centre, which is about half of critical for a sphere
 * rocking on its contact point: it overshoots past the static roll limit and
 * rolls away on an incline it should hold (issue 10; docs/models/fang-negrut.md). */
FN_INLINE double rocking_inertia(const fd_contact_input* input, fd_vec3 axis)
{
    bool dynamic_i = input->mass_i > 0.0, dynamic_j = input->mass_j > 0.0;
    double rocking[2] = {0.0, 0.0};
    const fd_body_state* states[2] = {input->state_i, input->state_j};
    const fd_vec3 points[2] = {input->geometry->point_i, input->geometry->point_j};
    const double masses[2] = {input->mass_i, input->mass_j};
    const fd_vec3 inertias[2] = {input->inertia_i, input->inertia_j};
    for (int b = 0; b < 2; ++b) {
        if (masses[b] > 0.0) {
            fd_vec3 arm = fd_v3_sub(points[b], states[b]->position);
            double along = fd_v3_dot(arm, axis);
            rocking[b] = inertia_about(states[b], inertias[b], axis) +
                         masses[b] * (fd_v3_length_squared(arm) - along * along);
        }
    }
    return pair_average(rocking[0], dynamic_i, rocking[1], dynamic_j);
}

/* Books of one body's roll torque by the work it does on that body (issue
 * 10, section 2). The deflection increment theta_b follows the contact point
 * over b's surface, which moves with b's rotation but also when the bodies
 * slide or orbit each other; the torque tau_b = n_b x (K_R Theta + D theta/dt)
 * works only through b's rotation: tau_b . omega_b = -(K_R Theta + D theta/dt)
 * . theta_rot / dt, with theta_rot = (n_b x omega_b) dt the deflection b's
 * rotation alone would make (on a sphere rolling on a plane theta_rot = theta,
 * and these books are the paper's). So:
 *  - the spring's gain K_R Theta_mid . theta (Theta_mid the mean of Theta
 *    before and after the increment, so the gain is exact) less what its
 *    torque takes out of b's rotation, K_R Theta_mid . theta_rot, is energy
 *    the tracking rule puts into the spring from no body: created when
 *    positive; when negative the rotation lost more than the spring gained:
 *    slip (dissipated by the mechanism);
 *  - the damper's work -tau_D . omega_b dt is dashpot when it takes energy
 *    out, created when it puts energy in.
 * The cap's loss (Sec. 3.1) is booked by the caller as before. */
static void book_roll_work(fd_energy_books* books, const fd_body_state* state, bool dynamic, fd_vec3 outward,
                           fd_vec3 theta, fd_vec3 theta_mid, double k_r, double damping_rate, double time_step)
{
    fd_vec3 omega = dynamic ? state->angular_velocity : fd_v3(0, 0, 0);
    fd_vec3 theta_rot = fd_v3_scale(time_step, fd_v3_cross(outward, omega));
    double unworked_gain = k_r * fd_v3_dot(theta_mid, fd_v3_sub(theta, theta_rot));
    if (unworked_gain >= 0.0) {
        books->created += unworked_gain;
    } else {
        books->slip -= unworked_gain;
    }
    double damper_out = damping_rate * fd_v3_dot(theta, theta_rot); /* -tau_D . omega_b dt */
    if (damper_out >= 0.0) {
        books->dashpot += damper_out;
    } else {
        books->created -= damper_out;
    }
}

/* Eq. (2)-(2c) for one body: returns the roll torque on it. */
FN_INLINE fd_vec3 roll_one_body(const double* roll_params, const double* slide_params, const fd_contact_input* input,
                             double normal_force, const fn_kinematics* k, fd_vec3 path, fd_vec3 path_direction,
                             fd_vec3 outward,
                             const double own_curvature[2], const fd_vec3 own_direction[2],
                             const double other_curvature[2], const fd_vec3 other_direction[2],
                             const fd_body_state* own_state, bool own_dynamic, double* theta_total, double* mode,
                             fd_vec3* elastic_out, fd_vec3* damping_out, fd_energy_books* books,
                             double cached_stiffness[2])
{
    *elastic_out = *damping_out = fd_v3(0, 0, 0);
    /* The direction the curvatures are taken along: the path, or the stored
     * deflection when the point did not move this step. */
    fd_vec3 along = path_direction;
    if (fd_v3_length_squared(along) == 0.0) {
        along = fd_v3_normalize(in_frame(k, theta_total));
    }
    if (fd_v3_length_squared(along) == 0.0) {
        *mode = 0.0;
        return fd_v3(0, 0, 0);
    }
    double kappa_own = normal_curvature(own_curvature, own_direction, along);
    double kappa_other = normal_curvature(other_curvature, other_direction, along);
    double kappa_sum = kappa_own + kappa_other;
    if (!(kappa_sum > 0.0)) {
        /* Table 1, "mirror": K_R infinite, thresholds 0; no rolling here. */
        theta_total[0] = theta_total[1] = 0.0;
        return fd_v3(0, 0, 0);
    }
    double stiffness = slide_params[FD_FN_SLIDE_K_E];
    double k_r = roll_params[FD_FN_ROLL_K_R];
    if (k_r == FD_FN_DERIVED) {
        /* Eq. (2b). Two round bodies give both the same curvature sum: the
         * second takes the first one's K_R (the same bits, one division less). */
        k_r = kappa_sum == cached_stiffness[0]
                  ? cached_stiffness[1]
                  : 4.0 * roll_params[FD_FN_ROLL_ETA_R] * stiffness / (kappa_sum * kappa_sum);
        cached_stiffness[0] = kappa_sum;
        cached_stiffness[1] = k_r;
    }
    fd_vec3 theta = fd_v3_scale(kappa_own, path);                          /* Eq. (2) */
    fd_vec3 theta_before = in_frame(k, theta_total);
    theta_total[0] += fd_v3_dot(theta, k->u);
    theta_total[1] += fd_v3_dot(theta, k->w);
    fd_vec3 theta_mid = fd_v3_scale(0.5, fd_v3_add(theta_before, in_frame(k, theta_total)));
    double half_curvature = 0.5 * kappa_sum * k->inverse_stiffness; /* (kappa_i + kappa_j) / (2 K_E) */
    double static_limit = slide_params[FD_FN_SLIDE_MU_S] * normal_force * half_curvature; /* Eq. (2c) */
    double kinetic_limit = slide_params[FD_FN_SLIDE_MU_K] * normal_force * half_curvature;
    double predicted_energy = 0.5 * k_r * squared2(theta_total);
    *mode = cap_and_switch(theta_total, 2, *mode, static_limit, kinetic_limit);
    double energy = 0.5 * k_r * squared2(theta_total);
    books->stored += energy;
    books->slip += predicted_energy - energy;
    *elastic_out = fd_v3_cross(outward, fd_v3_scale(k_r, in_frame(k, theta_total)));
    double damping_rate = 0.0; /* D_R / dt as applied, N m / rad */
    if (*mode == 0.0) { /* stick only, as for the slide dashpot */
        double d_r = roll_params[FD_FN_ROLL_D_R];
        if (d_r == FD_FN_DERIVED) {
            fd_vec3 axis = fd_v3_cross(outward, along); /* unit: along lies in the tangent plane */
            double inertia = roll_params[FD_FN_ROLL_ROCKING] != 0.0 ? rocking_inertia(input, axis)
                                                                     : pair_inertia(input, axis);
            d_r = 2.0 * sqrt(inertia * k_r); /* Sec. 3.2, against the rocking inertia unless rocking = 0 */
        }
        damping_rate = d_r * k->inverse_time_step;
        if (slide_params[FD_FN_SLIDE_CAP_TOTAL] != 0.0) {
            /* As for the slide: the total torque stays within the static roll
             * limit K_R Theta^s (Eq. 2c); the damper gives way. */
            double elastic_uw[2] = {k_r * theta_total[0], k_r * theta_total[1]};
            double damping_uw[2] = {damping_rate * fd_v3_dot(theta, k->u), damping_rate * fd_v3_dot(theta, k->w)};
            damping_rate *= damper_share(elastic_uw, damping_uw, 2, k_r * static_limit);
        }
        *damping_out = fd_v3_cross(outward, fd_v3_scale(damping_rate, theta));
    }
    *input->slip_flags |= *mode == 1.0 ? 1u << FD_MECHANISM_ROLL : 0u; /* either body's roll slipping */
    if (!input->books_unread) { /* 7 % of a Fang & Negrut step at 10^4 with all three mechanisms */
        book_roll_work(books, own_state, own_dynamic, outward, theta, theta_mid, k_r, damping_rate, input->time_step);
    }
    return fd_v3_add(*elastic_out, *damping_out);
}

FN_INLINE void roll_kernel(const double* roll_params, const double* slide_params, const fd_contact_input* input,
                        double normal_force, const fn_kinematics* k, double* history, double* columns,
                        const int* column_index, fd_contact_loads* loads)
{
    const fd_contact_geometry* g = input->geometry;
    fd_vec3 elastic_i, damping_i, elastic_j, damping_j;
    double cached_stiffness[2] = {NAN, NAN}; /* curvature sum and K_R of the first body */
    loads->roll_torque_i = roll_one_body(roll_params, slide_params, input, normal_force, k, k->p_i, k->along_i,
                                         fd_v3_neg(k->n), g->curvature_i, g->principal_dir_i, g->curvature_j,
                                         g->principal_dir_j, input->state_i, input->mass_i > 0.0,
                                         history + FD_FN_H_THETA_I, &history[FD_FN_H_ROLL_MODE_I], &elastic_i,
                                         &damping_i, &input->energy[FD_MECHANISM_ROLL], cached_stiffness);
    loads->roll_torque_j = roll_one_body(roll_params, slide_params, input, normal_force, k, k->p_j, k->along_j, k->n,
                                         g->curvature_j, g->principal_dir_j, g->curvature_i, g->principal_dir_i,
                                         input->state_j, input->mass_j > 0.0, history + FD_FN_H_THETA_J,
                                         &history[FD_FN_H_ROLL_MODE_J], &elastic_j, &damping_j,
                                         &input->energy[FD_MECHANISM_ROLL], cached_stiffness);
    if (columns != NULL) {
        column3(columns, column_index, C_ROLL_ELASTIC_I, elastic_i);
        column3(columns, column_index, C_ROLL_DAMPING_I, damping_i);
        column3(columns, column_index, C_ROLL_ELASTIC_J, elastic_j);
        column3(columns, column_index, C_ROLL_DAMPING_J, damping_j);
        columns[column_index[C_ROLL_MODE_I]] = history[FD_FN_H_ROLL_MODE_I];
        columns[column_index[C_ROLL_MODE_J]] = history[FD_FN_H_ROLL_MODE_J];
        column3(columns, column_index, C_THETA_I, in_frame(k, history + FD_FN_H_THETA_I));
        column3(columns, column_index, C_THETA_J, in_frame(k, history + FD_FN_H_THETA_J));
    }
}

/* Hertz contact radius a = (3 N R / (4 E_eff))^(1/3) (App. C, Eq. 15). */
static double hertz_contact_radius(const fd_contact_input* input, double normal_force)
{
    double compliance = (1.0 - input->poisson_ratio_i * input->poisson_ratio_i) / input->youngs_modulus_i +
                        (1.0 - input->poisson_ratio_j * input->poisson_ratio_j) / input->youngs_modulus_j;
    double radius = input->geometry->effective_radius;
    if (!(normal_force > 0.0) || !isfinite(radius)) {
        return 0.0;
    }
    return cbrt(3.0 * normal_force * radius * compliance / 4.0);
}

/* Eq. (3)-(3d), or App. C for the Hertz variant. */
FN_INLINE void spin_kernel(const fd_submodel* model, const double* spin_params, const double* slide_params,
                        const fd_contact_input* input, double normal_force, const fn_kinematics* k, double* history,
                        double* columns, const int* column_index, fd_contact_loads* loads)
{
    const fd_contact_geometry* g = input->geometry;
    double stiffness = slide_params[FD_FN_SLIDE_K_E];
    double curvature, k_psi, d_psi;
    if (model->kind == FD_KIND_SPIN_FANG_NEGRUT_HERTZ) {
        double a = hertz_contact_radius(input, normal_force);
        curvature = a > 0.0 ? 1.0 / a : INFINITY; /* App. C: K = 1/a */
        k_psi = 0.5 * a * a * stiffness;          /* Eq. (13) */
        d_psi = spin_params[FD_FN_SPIN_HERTZ_D_PSI];
    } else {
        curvature = spin_params[FD_FN_SPIN_CURVATURE];
        if (curvature == FD_FN_DERIVED) {
            /* Mean curvature of the contact (App. C, Fig. 19: mean of the principal curvatures;
             * summed over both surfaces, so a sphere on a plane gives 1/R). */
            curvature = 0.5 * (g->curvature_i[0] + g->curvature_i[1] + g->curvature_j[0] + g->curvature_j[1]);
        }
        k_psi = spin_params[FD_FN_SPIN_K_PSI] == FD_FN_DERIVED
                    ? spin_params[FD_FN_SPIN_ETA_PSI] * stiffness / (curvature * curvature)
                    : spin_params[FD_FN_SPIN_K_PSI]; /* Eq. (3c) */
        d_psi = spin_params[FD_FN_SPIN_D_PSI];
    }
    double* psi_total = history + FD_FN_H_PSI;
    psi_total[0] += k->psi; /* Eq. (3) */
    double static_limit = curvature * slide_params[FD_FN_SLIDE_MU_S] * normal_force * k->inverse_stiffness;
    double kinetic_limit = curvature * slide_params[FD_FN_SLIDE_MU_K] * normal_force * k->inverse_stiffness;
    if (!isfinite(static_limit)) {
        static_limit = kinetic_limit = 0.0; /* no contact patch: no spin resistance */
    }
    double predicted_energy = 0.5 * k_psi * psi_total[0] * psi_total[0];
    history[FD_FN_H_SPIN_MODE] = cap_and_switch(psi_total, 1, history[FD_FN_H_SPIN_MODE], static_limit, kinetic_limit);
    *input->slip_flags |= history[FD_FN_H_SPIN_MODE] == 1.0 ? 1u << FD_MECHANISM_SPIN : 0u;
    double elastic = k_psi * psi_total[0];
    fd_energy_books* books = &input->energy[FD_MECHANISM_SPIN];
    double energy = 0.5 * k_psi * psi_total[0] * psi_total[0];
    if (isfinite(energy) && isfinite(predicted_energy)) {
        books->stored = energy;
        books->slip = predicted_energy - energy;
    }
    /* Eq. (3a), (3b); stick only, as for the slide dashpot. */
    double viscous = 0.0;
    if (!isfinite(elastic)) {
        elastic = 0.0;
    }
    if (history[FD_FN_H_SPIN_MODE] == 0.0) {
        if (d_psi == FD_FN_DERIVED) {
            d_psi = 2.0 * sqrt(pair_inertia(input, k->n) * k_psi); /* Eq. (3d) */
        }
        double damping_rate = d_psi * k->inverse_time_step;
        if (slide_params[FD_FN_SLIDE_CAP_TOTAL] != 0.0) {
            /* As for the slide: |T_E + T_D| stays within the static limit
             * K_psi K S^S (Eq. 3b); the damper gives way. */
            double damping = damping_rate * k->psi;
            damping_rate *= damper_share(&elastic, &damping, 1, isfinite(k_psi) ? k_psi * static_limit : 0.0);
        }
        viscous = damping_rate * k->psi;
        books->dashpot = damping_rate * k->psi * k->psi;
    }
    /* A negative Psi gives a positive torque on body i (Sec. 3.3). */
    loads->spin_torque_i = fd_v3_scale(-(elastic + viscous), k->n);
    loads->spin_torque_j = fd_v3_scale(elastic + viscous, k->n);
    if (columns != NULL) {
        columns[column_index[C_SPIN_ELASTIC]] = elastic;
        columns[column_index[C_SPIN_DAMPING]] = viscous;
        columns[column_index[C_SPIN_MODE]] = history[FD_FN_H_SPIN_MODE];
        columns[column_index[C_PSI_TOTAL]] = psi_total[0];
    }
}

/* App. A.2, Eq. (7)-(8): M_r = -omega_rel / |omega_rel| mu_r R_eff F_n on
 * body i, the opposite on body j; zero when omega_rel is exactly zero (the
 * "zero divided by zero" the paper points at). */
static void legacy_roll_kernel(const double* params, const fd_contact_input* input, double normal_force,
                               double* columns, const int* column_index, fd_contact_loads* loads)
{
    fd_vec3 relative = fd_v3_sub(input->state_i->angular_velocity, input->state_j->angular_velocity);
    double speed = fd_v3_length(relative);
    double radius = input->geometry->effective_radius;
    double magnitude = speed > 0.0 && isfinite(radius) ? params[FD_FN_LEGACY_MU_R] * radius * normal_force : 0.0;
    fd_vec3 torque = speed > 0.0 ? fd_v3_scale(-magnitude / speed, relative) : fd_v3(0, 0, 0);
    loads->roll_torque_i = torque;
    loads->roll_torque_j = fd_v3_neg(torque);
    /* A pure slider: tau_i . omega_i + tau_j . omega_j = -M |omega_rel|. */
    input->energy[FD_MECHANISM_ROLL].slip = magnitude * speed * input->time_step;
    if (columns != NULL) {
        columns[column_index[C_LEGACY_TORQUE]] = magnitude;
    }
}

/* ---------------------------------------------------------------- entry points */

void fd_fang_negrut_evaluate(const fd_contact_law* law, const fd_contact_input* input, double normal_force,
                             double* history, double* columns, fd_contact_loads* loads)
{
    const fd_submodel* roll = law->submodel[FD_MECHANISM_ROLL];
    const fd_submodel* spin = law->submodel[FD_MECHANISM_SPIN];
    double* slide_history = history + law->history_offset[FD_MECHANISM_SLIDE];
    const double* slide_params = law->params[FD_MECHANISM_SLIDE];
    fn_kinematics k;
    if (input->is_new) {
        /* Onset of contact: no history, no friction loads (Sec. 3). */
        kinematics_start(input, &k);
        kinematics_store(input, &k, slide_history);
        return;
    }
    kinematics_step(input, slide_history, &k);
    k.inverse_stiffness = 1.0 / slide_params[FD_FN_SLIDE_K_E];
    k.inverse_time_step = 1.0 / input->time_step;
    if (input->spring_time_step == 0.0) {
        /* A set-up pass (fd_world_prepare, e.g. after a body was moved
         * between steps): no time has passed, so the points travelled
         * nothing; the loads are the springs' as they stand, and the
         * points are painted anew where the contact is now. */
        k.p_i = k.p_j = k.along_i = k.along_j = fd_v3(0, 0, 0);
        k.psi = 0.0;
    }
    loads->slide_force = slide_kernel(slide_params, input, normal_force, &k, slide_history, columns,
                                      law->column_index[FD_MECHANISM_SLIDE]);
    if (roll != NULL && roll->kind == FD_KIND_ROLL_FANG_NEGRUT) {
        roll_kernel(law->params[FD_MECHANISM_ROLL], slide_params, input, normal_force, &k,
                    history + law->history_offset[FD_MECHANISM_ROLL], columns, law->column_index[FD_MECHANISM_ROLL],
                    loads);
    }
    if (spin != NULL && (spin->kind == FD_KIND_SPIN_FANG_NEGRUT || spin->kind == FD_KIND_SPIN_FANG_NEGRUT_HERTZ)) {
        spin_kernel(spin, law->params[FD_MECHANISM_SPIN], slide_params, input, normal_force, &k,
                    history + law->history_offset[FD_MECHANISM_SPIN], columns, law->column_index[FD_MECHANISM_SPIN],
                    loads);
    }
    kinematics_store(input, &k, slide_history);
}

void fd_legacy_roll_evaluate(const fd_contact_law* law, const fd_contact_input* input, double normal_force,
                             double* columns, fd_contact_loads* loads)
{
    legacy_roll_kernel(law->params[FD_MECHANISM_ROLL], input, normal_force, columns,
                       law->column_index[FD_MECHANISM_ROLL], loads);
}

fd_status fd_fang_negrut_check_law(const fd_contact_law* law)
{
    const fd_submodel* slide = law->submodel[FD_MECHANISM_SLIDE];
    bool tracked = slide != NULL && slide->kind == FD_KIND_SLIDE_FANG_NEGRUT;
    for (int m = FD_MECHANISM_ROLL; m <= FD_MECHANISM_SPIN; ++m) {
        const fd_submodel* model = law->submodel[m];
        bool needs_tracking = model != NULL && (model->kind == FD_KIND_ROLL_FANG_NEGRUT ||
                                                model->kind == FD_KIND_SPIN_FANG_NEGRUT ||
                                                model->kind == FD_KIND_SPIN_FANG_NEGRUT_HERTZ);
        if (needs_tracking && !tracked) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT,
                           "%s model '%s' needs slide model 'fang_negrut' (it shares its contact-point tracking and "
                           "takes mu_s, mu_k, K_E from it)",
                           fd_mechanism_name((fd_mechanism)m), model->info.name);
        }
    }
    const fd_submodel* roll = law->submodel[FD_MECHANISM_ROLL];
    if (roll != NULL && roll->kind == FD_KIND_ROLL_FANG_NEGRUT) {
        double rocking = law->params[FD_MECHANISM_ROLL][FD_FN_ROLL_ROCKING];
        if (rocking != 0.0 && rocking != 1.0) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT, "roll model 'fang_negrut': rocking is 0 or 1 (got %g)", rocking);
        }
    }
    if (tracked) {
        const double* p = law->params[FD_MECHANISM_SLIDE];
        if (p[FD_FN_SLIDE_CAP_TOTAL] != 0.0 && p[FD_FN_SLIDE_CAP_TOTAL] != 1.0) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT, "slide model 'fang_negrut': cap_total is 0 or 1 (got %g)",
                           p[FD_FN_SLIDE_CAP_TOTAL]);
        }
        if (!(p[FD_FN_SLIDE_MU_S] >= p[FD_FN_SLIDE_MU_K] && p[FD_FN_SLIDE_MU_K] > 0.0)) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT,
                           "slide model 'fang_negrut' needs mu_s >= mu_k > 0 (Sec. 3.1; got mu_s = %g, mu_k = %g)",
                           p[FD_FN_SLIDE_MU_S], p[FD_FN_SLIDE_MU_K]);
        }
    }
    return FD_OK;
}

/* ---------------------------------------------------------------- resolve (material checks) */

static fd_status resolve_spin_hertz(const double* params, const fd_material* a, const fd_material* b, double* derived)
{
    if (!(a->youngs_modulus > 0.0) || !(b->youngs_modulus > 0.0)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "spin model 'fang_negrut_hertz' needs youngs_modulus > 0 for materials '%s' and '%s' "
                       "(App. C)",
                       a->name, b->name);
    }
    return FD_OK;
}

/* ---------------------------------------------------------------- table */

static const fd_param_info slide_params_table[] = {
    {"mu_s", "-", "static friction coefficient (mu_s >= mu_k > 0)", NAN, 0.0, INFINITY,
     "Fang & Negrut Sec. 3.1: static threshold S_s^S = mu_s N / K_E"},
    {"mu_k", "-", "kinetic friction coefficient", NAN, 0.0, INFINITY,
     "Fang & Negrut Sec. 3.1: kinetic threshold S_k^S = mu_k N / K_E"},
    {"K_E", "N/m", "slide stiffness of the micro-deformation (Eq. 1b)", NAN, 1e-300, INFINITY,
     "Fang & Negrut Eq. (1b)"},
    {"K_D", "N s/m", "slide damping; -1 = 2 sqrt(m_ij K_E), Eq. (1c)", FD_FN_DERIVED, FD_FN_DERIVED, INFINITY,
     "Fang & Negrut Eq. (1b); default Eq. (1c)"},
    {"cap_total", "-",
     "1: spring plus stick damper never exceed the static limit of each mechanism (slide mu_s N, roll and spin "
     "as Eq. 2c, 3b); 0: the paper's form, dampers uncapped on top of the capped springs",
     1.0, 0.0, 1.0,
     "fricdem: cap on spring plus damper; 0 = Fang & Negrut Eq. (1b), (3b) (docs/models/fang-negrut.md)"},
};
static const fd_param_info roll_params_table[] = {
    {"eta_r", "-", "rolling resistance coefficient: sets K_R by Eq. (2b), so the roll torque limit K_R Theta^s", NAN,
     0.0, INFINITY, "Fang & Negrut Eq. (2b): eta_r = eta_e / eta_theta^2 (Eq. 2a)"},
    {"K_R", "N m/rad", "roll stiffness; -1 = 4 eta_r K_E / (kappa_i + kappa_j)^2, Eq. (2b)", FD_FN_DERIVED,
     FD_FN_DERIVED, INFINITY, "Fang & Negrut Eq. (2b)"},
    {"D_R", "N m s/rad",
     "roll damping; -1 = 2 sqrt(I K_R), I the bodies' mean inertia about the rolling axis (Sec. 3.2), through "
     "the contact point unless rocking = 0",
     FD_FN_DERIVED, FD_FN_DERIVED, INFINITY, "Fang & Negrut Sec. 3.2: D_R = 2 sqrt(I_ij K_R)"},
    {"rocking", "-",
     "1: the derived D_R uses the inertia about the contact point, I + m d^2 (7/5 m R^2 for a sphere), critical "
     "for rocking; 0: the paper's I_ij about the centre, about half of critical",
     1.0, 0.0, 1.0, "fricdem: inertia about the contact point; 0 = Fang & Negrut Sec. 3.2's I_ij"},
};
static const fd_param_info legacy_params_table[] = {
    {"mu_r", "-", "rolling friction coefficient of Eq. (8)", NAN, 0.0, INFINITY, "Fang & Negrut App. A.2 Eq. (8)"},
};
static const fd_param_info spin_params_table[] = {
    {"eta_psi", "-", "spin energy ratio of Eq. (3c)", NAN, 0.0, INFINITY, "Fang & Negrut Eq. (3c)"},
    {"curvature", "1/m", "spin curvature K of the thresholds K S^S; -1 = mean curvature of the contact",
     FD_FN_DERIVED, FD_FN_DERIVED, INFINITY,
     "Fang & Negrut Sec. 3.3 (S^psi = K S^S) and Eq. (3c); -1: mean curvature, App. C (Fig. 19)"},
    {"K_psi", "N m/rad", "spin stiffness; -1 = eta_psi K_E / K^2, Eq. (3c)", FD_FN_DERIVED, FD_FN_DERIVED, INFINITY,
     "Fang & Negrut Eq. (3c)"},
    {"D_psi", "N m s/rad", "spin damping; -1 = 2 sqrt(I_ij K_psi), Eq. (3d)", FD_FN_DERIVED, FD_FN_DERIVED, INFINITY,
     "Fang & Negrut Eq. (3b); default Eq. (3d)"},
};
static const fd_param_info spin_hertz_params_table[] = {
    {"D_psi", "N m s/rad", "spin damping; -1 = 2 sqrt(I_ij K_psi), Eq. (3d)", FD_FN_DERIVED, FD_FN_DERIVED, INFINITY,
     "Fang & Negrut Eq. (3b); default Eq. (3d)"},
};

static const char* const slide_columns[SLIDE_COLUMNS] = {
    "slide_elastic_x", "slide_elastic_y", "slide_elastic_z", "slide_damping_x", "slide_damping_y", "slide_damping_z",
    "slide_mode", "S_x", "S_y", "S_z", "p_i_x", "p_i_y", "p_i_z", "p_j_x", "p_j_y", "p_j_z", "psi",
};
static const char* const slide_units[SLIDE_COLUMNS] = {
    "N", "N", "N", "N", "N", "N", "0=stick|1=slip", "m", "m", "m", "m", "m", "m", "m", "m", "m", "rad",
};
static const char* const roll_columns[ROLL_COLUMNS] = {
    "roll_elastic_i_x", "roll_elastic_i_y", "roll_elastic_i_z", "roll_damping_i_x", "roll_damping_i_y",
    "roll_damping_i_z", "roll_elastic_j_x", "roll_elastic_j_y", "roll_elastic_j_z", "roll_damping_j_x",
    "roll_damping_j_y", "roll_damping_j_z", "roll_mode_i", "roll_mode_j", "Theta_i_x", "Theta_i_y", "Theta_i_z",
    "Theta_j_x", "Theta_j_y", "Theta_j_z",
};
static const char* const roll_units[ROLL_COLUMNS] = {
    "N m", "N m", "N m", "N m", "N m", "N m", "N m", "N m", "N m", "N m", "N m", "N m",
    "0=stick|1=slip", "0=stick|1=slip", "rad", "rad", "rad", "rad", "rad", "rad",
};
static const char* const spin_columns[SPIN_COLUMNS] = {"spin_elastic", "spin_damping", "spin_mode", "Psi"};
static const char* const spin_units[SPIN_COLUMNS] = {"N m", "N m", "0=stick|1=slip", "rad"};
static const char* const legacy_columns[LEGACY_COLUMNS] = {"legacy_roll_torque"};
static const char* const legacy_units[LEGACY_COLUMNS] = {"N m"};

const fd_submodel fd_friction_submodels[] = {
    FD_SUBMODEL("fang_negrut", FD_MECHANISM_SLIDE, slide_params_table,
                "Fang & Negrut slide force from the tracked contact point (Eq. 1a-1c): micro-deflection S += "
                "p_i - p_j, elastic K_E S capped at mu_s N (stick) or mu_k N (slip) with the a-posteriori "
                "switch of Sec. 3.1, damping K_D dS/dt in stick; spring plus damper within mu_s N unless "
                "cap_total = 0.",
                .kind = FD_KIND_SLIDE_FANG_NEGRUT, .history_size = FD_FN_SLIDE_HISTORY,
                FD_SUBMODEL_COLUMNS(slide_columns, slide_units)),
    FD_SUBMODEL("fang_negrut", FD_MECHANISM_ROLL, roll_params_table,
                "Fang & Negrut roll torque (Eq. 2-2c, Table 1): Theta_b += kappa_b p_b per body, stiffness "
                "4 eta_r K_E / (kappa_i + kappa_j)^2, thresholds mu N (kappa_i + kappa_j) / (2 K_E); needs "
                "slide model fang_negrut (mu_s, mu_k, K_E).",
                .kind = FD_KIND_ROLL_FANG_NEGRUT, .history_size = FD_FN_ROLL_HISTORY,
                FD_SUBMODEL_COLUMNS(roll_columns, roll_units)),
    FD_SUBMODEL("legacy_constant_torque", FD_MECHANISM_ROLL, legacy_params_table,
                "Legacy constant-torque rolling resistance (Fang & Negrut App. A.2, Eq. 8): "
                "M_r = -omega_rel / |omega_rel| mu_r R_eff F_n, which chatters at rest.",
                .kind = FD_KIND_ROLL_LEGACY, FD_SUBMODEL_COLUMNS(legacy_columns, legacy_units)),
    FD_SUBMODEL("fang_negrut", FD_MECHANISM_SPIN, spin_params_table,
                "Fang & Negrut spin torque (Eq. 3-3d): Psi += psi, K_psi = eta_psi K_E / K^2, thresholds "
                "K mu N / K_E; needs slide model fang_negrut.",
                .kind = FD_KIND_SPIN_FANG_NEGRUT, .history_size = FD_FN_SPIN_HISTORY,
                FD_SUBMODEL_COLUMNS(spin_columns, spin_units)),
    FD_SUBMODEL("fang_negrut_hertz", FD_MECHANISM_SPIN, spin_hertz_params_table,
                "Fang & Negrut spin torque with the Hertz-based stiffness of App. C: K = 1/a, K_psi = a^2 K_E / 2, "
                "a = (3 N R_eff / (4 E_eff))^(1/3) from youngs_modulus and poisson_ratio of both materials.",
                .kind = FD_KIND_SPIN_FANG_NEGRUT_HERTZ, .history_size = FD_FN_SPIN_HISTORY,
                .resolve = resolve_spin_hertz, FD_SUBMODEL_COLUMNS(spin_columns, spin_units)),
};
const int fd_friction_submodel_count = FD_COUNT_OF(fd_friction_submodels);
