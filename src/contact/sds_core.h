/* The arithmetic of the spring-dashpot-sliders, as stateless inline steps
 * (LAMMPS GRANULAR's *_kernel.h idea): one definition that the registry
 * kernels (sds.c, sds_torque.c, through fd_contact_input) and the penalty
 * stepper's sphere kernels (src/penalty/) both inline, so that a contact
 * gives the same bits whichever path evaluates it.
 *
 * Each step returns its load, its new spring, whether it slips, and its
 * energy books for the step; a caller that keeps no books ignores them and
 * the compiler drops their arithmetic.
 *
 * Equations: C-SDS paper (papers/002), Eq. (1)-(3) for the discontinuous
 * update (D-SDS, LAMMPS's order: spring advanced, then tested), Eq. (10) for
 * the continuous one (C-SDS: force from the spring at the start of the step,
 * spring advanced at the rate of Eq. 10). The derivations and the energy
 * books are in sds.c and sds_torque.c.
 *
 * Must not touch: the world, the steppers, files (the steppers call the laws). */
#ifndef FD_CONTACT_SDS_CORE_H
#define FD_CONTACT_SDS_CORE_H

#include "core/math.h"

/* One update of a vector slider (slide force, or the rolling pseudo-force). */
typedef struct fd_sds_vector_step {
    fd_vec3 force;      /* on body i */
    fd_vec3 spring;     /* xi after the step */
    bool slipping;
    double stored;      /* J in the spring after the step */
    double dashpot;     /* J dissipated by the dashpot over the step */
    double slip;        /* J dissipated by slip (>= 0) */
    double created;     /* J created by the D-SDS reset (>= 0) */
} fd_sds_vector_step;

/* One update of the scalar twisting slider. */
typedef struct fd_sds_scalar_step {
    double torque;      /* on body i, along n */
    double spring;
    bool slipping;
    double stored, dashpot, slip, created;
} fd_sds_scalar_step;

/* The stored spring turned into the tangent plane of the unit normal n,
 * keeping its length (C-SDS paper Sec. 2: "the displacement vector must be
 * rotated back into the contact plane every time it is updated"; LAMMPS's
 * projection and rescale, Luding 2008 Eq. 17): the projection times
 * sqrt(|xi|^2 / |xi_p|^2), or zero when either length is zero. Written
 * without branches (fd_select), as are the updates below, so that the
 * penalty stepper's block kernel vectorises them. */
static inline __attribute__((always_inline)) fd_vec3 fd_sds_into_plane(fd_vec3 xi, fd_vec3 n)
{
    double length_squared = fd_v3_dot(xi, xi);
    fd_vec3 projected = fd_v3_mul_add(xi, -fd_v3_dot(xi, n), n);
    double projected_squared = fd_v3_dot(projected, projected);
    double scale = sqrt(length_squared / projected_squared); /* not finite when a length is zero: not chosen */
    bool defined = (length_squared > 0.0) & (projected_squared > 0.0);
    return fd_v3_select(defined, fd_v3_scale(scale, projected), fd_v3(0.0, 0.0, 0.0));
}

/* The spring turned into the tangent plane as LAMMPS's legacy pair styles
 * (gran/hooke/history, gran/hertz/history) turn it: its normal component
 * removed, its length not restored. A slide law's `legacy_projection`
 * chooses this over fd_sds_into_plane. */
static inline __attribute__((always_inline)) fd_vec3 fd_sds_project(fd_vec3 xi, fd_vec3 n)
{
    return fd_v3_mul_add(xi, -fd_v3_dot(xi, n), n);
}

/* Every update below takes two times: `advance`, over which the spring
 * moves (the step's dt, or 0 in a set-up pass, when no time has passed:
 * fd_penalty.spring_time_step), and dt, over which the loads act (the
 * dashpot's and slider's books). They differ only in a set-up pass.
 *
 * D-SDS: xi_p = xi + dt v (Eq. 2), F_S = -k xi_p - gamma v (Eq. 1); when
 * |F_S| > F_max the force is F_max F_S / |F_S| and the spring is reset to
 * -(F + gamma v) / k (Eq. 3). The reset's energy change is slip (a loss) or
 * created (a gain). xi is the spring already in the tangent plane;
 * inverse_k = 1 / k. Both outcomes are formed and the slip state picks one
 * (stick and slip alternate from contact to contact: a branch would be
 * mispredicted about as often as not). */
static inline __attribute__((always_inline)) fd_sds_vector_step
fd_dsds_vector_step(double k, double inverse_k, double gamma, double limit, double dt, double advance, fd_vec3 xi,
                    fd_vec3 v)
{
    fd_sds_vector_step s;
    fd_vec3 spring = fd_v3_mul_add(xi, advance, v);
    fd_vec3 damping = fd_v3_scale(gamma, v);
    fd_vec3 test = fd_v3_sub(fd_v3_scale(-k, spring), damping);
    double test_squared = fd_v3_dot(test, test);
    double predicted = 0.5 * k * fd_v3_dot(spring, spring);
    s.slipping = test_squared > limit * limit;
    double ratio = limit / sqrt(test_squared); /* not finite at |F_S| = 0, which never slips */
    s.force = fd_v3_scale(fd_select(s.slipping, ratio, 1.0), test);
    fd_vec3 reset = fd_v3_scale(-inverse_k, fd_v3_add(s.force, damping));
    s.spring = fd_v3_select(s.slipping, reset, spring);
    s.stored = 0.5 * k * fd_v3_dot(s.spring, s.spring);
    s.dashpot = gamma * fd_v3_dot(v, v) * dt; /* F = -k xi - gamma v holds after the reset too */
    double change = s.stored - predicted;
    s.created = fd_select(change > 0.0, change, 0.0);
    s.slip = fd_select(change < 0.0, -change, 0.0);
    return s;
}

/* C-SDS: F_S = -k xi - gamma v at the spring the step starts from,
 * F = min(|F_S|, F_max) F_S / |F_S|, xi += dt r with r = -(F + k xi) / gamma
 * (Eq. 10), which is v itself while sticking (taken as such, sparing the
 * round-off of (gamma v) / gamma). The slider takes v - r and dissipates
 * -F . (v - r) dt >= 0. Needs gamma > 0 (checked when the law is resolved);
 * inverse_gamma = 1 / gamma. */
static inline __attribute__((always_inline)) fd_sds_vector_step
fd_csds_vector_step(double k, double gamma, double inverse_gamma, double limit, double dt, double advance, fd_vec3 xi,
                    fd_vec3 v)
{
    fd_sds_vector_step s;
    fd_vec3 spring_force = fd_v3_scale(-k, xi);
    fd_vec3 test = fd_v3_sub(spring_force, fd_v3_scale(gamma, v));
    double test_squared = fd_v3_dot(test, test);
    s.slipping = test_squared > limit * limit;
    double ratio = limit / sqrt(test_squared);
    s.force = fd_v3_scale(fd_select(s.slipping, ratio, 1.0), test);
    fd_vec3 rate = fd_v3_select(s.slipping, fd_v3_scale(inverse_gamma, fd_v3_sub(spring_force, s.force)), v);
    s.spring = fd_v3_mul_add(xi, advance, rate);
    s.stored = 0.5 * k * fd_v3_dot(s.spring, s.spring);
    s.dashpot = gamma * fd_v3_dot(rate, rate) * dt;
    double slip = -fd_v3_dot(s.force, fd_v3_sub(v, rate)) * dt;
    s.slip = fd_select(s.slipping & (slip > 0.0), slip, 0.0);
    s.created = 0.0;
    return s;
}

/* Twisting D-SDS as LAMMPS `twisting sds` / `marshall`: xi += dt w (Eq. 2),
 * T_S = -k xi - gamma w (Eq. 1); when |T_S| > T_max the torque is capped
 * against the twist rate, -T_max sgn(w) (LAMMPS; sds_torque.c says where this
 * differs from capping along T_S), and the spring is reset by Eq. (3) (to 0
 * for k = 0: marshall's k vanishes with the contact radius). Both outcomes
 * are formed; the slip state picks one. */
static inline __attribute__((always_inline)) fd_sds_scalar_step
fd_dsds_scalar_step(double k, double gamma, double limit, double dt, double advance, double xi, double w)
{
    fd_sds_scalar_step s;
    double spring = xi + advance * w;
    double test = -k * spring - gamma * w;
    double predicted = 0.5 * k * spring * spring;
    s.slipping = fabs(test) > limit;
    double capped = -limit * (double)((w > 0.0) - (w < 0.0));
    double reset = fd_select(k > 0.0, -(capped + gamma * w) / k, 0.0);
    s.torque = fd_select(s.slipping, capped, test);
    s.spring = fd_select(s.slipping, reset, spring);
    s.stored = 0.5 * k * s.spring * s.spring;
    s.dashpot = gamma * w * w * dt;
    double change = s.stored - predicted;
    s.created = fd_select(change > 0.0, change, 0.0);
    s.slip = fd_select(change < 0.0, -change, 0.0);
    return s;
}

/* Twisting C-SDS (Eq. 10), as fd_csds_vector_step for a scalar; needs
 * gamma > 0 (checked when the law is resolved). */
static inline __attribute__((always_inline)) fd_sds_scalar_step
fd_csds_scalar_step(double k, double gamma, double limit, double dt, double advance, double xi, double w)
{
    fd_sds_scalar_step s;
    double spring_torque = -k * xi;
    double test = spring_torque - gamma * w;
    s.slipping = fabs(test) > limit;
    s.torque = fd_select(s.slipping, copysign(limit, test), test);
    double rate = fd_select(s.slipping, (spring_torque - s.torque) / gamma, w);
    s.spring = xi + advance * rate;
    s.stored = 0.5 * k * s.spring * s.spring;
    s.dashpot = gamma * rate * rate * dt;
    double slip = -s.torque * (w - rate) * dt;
    s.slip = fd_select(s.slipping & (slip > 0.0), slip, 0.0);
    s.created = 0.0;
    return s;
}

/* A turn is small when |a| < 0.1: its cosine and sine are then their Taylor
 * series to a^12 (the first term left out is below 1e-22 of the result:
 * exact to round-off). */
static inline __attribute__((always_inline)) bool fd_small_turn(double a) { return a * a < 0.01; }
static inline __attribute__((always_inline)) double fd_small_turn_cos(double a)
{
    double a2 = a * a;
    return 1.0 + a2 * (-1.0 / 2 + a2 * (1.0 / 24 + a2 * (-1.0 / 720 + a2 * (1.0 / 40320 +
           a2 * (-1.0 / 3628800 + a2 * (1.0 / 479001600))))));
}
static inline __attribute__((always_inline)) double fd_small_turn_sin(double a)
{
    double a2 = a * a;
    return a * (1.0 + a2 * (-1.0 / 6 + a2 * (1.0 / 120 + a2 * (-1.0 / 5040 + a2 * (1.0 / 362880 +
           a2 * (-1.0 / 39916800 + a2 * (1.0 / 6227020800.0)))))));
}

/* Carries a tangent-plane vector from the contact frame with unit normal
 * `from` to the one with unit normal `to`: the minimal rotation (Rodrigues,
 * a = from x to, c = from . to: R v = c v + a x v + (a . v) a / (1 + c)),
 * then a turn by `twist` (rad) about `to`, then into the new tangent plane
 * at the old length (which removes round-off). A reversed normal (c = -1)
 * has no minimal rotation: only the projection is left. The turn's cosine
 * and sine are cos_twist and sin_twist; the choices are blends, so the
 * penalty stepper's block kernel vectorises this. */
static inline __attribute__((always_inline)) fd_vec3
fd_sds_transport_with(fd_vec3 vector, fd_vec3 from, fd_vec3 to, double twist, double cos_twist, double sin_twist)
{
    double length_squared = fd_v3_dot(vector, vector);
    fd_vec3 axis = fd_v3_cross(from, to);
    double cosine = fd_v3_dot(from, to);
    fd_vec3 rotated = fd_v3_add(fd_v3_add(fd_v3_scale(cosine, vector), fd_v3_cross(axis, vector)),
                                fd_v3_scale(fd_v3_dot(axis, vector) / (1.0 + cosine), axis));
    fd_vec3 carried = fd_v3_select(1.0 + cosine > 1e-6, rotated, vector);
    fd_vec3 turned = fd_v3_add(fd_v3_scale(cos_twist, carried), fd_v3_scale(sin_twist, fd_v3_cross(to, carried)));
    carried = fd_v3_select(twist != 0.0, turned, carried);
    fd_vec3 in_plane = fd_v3_reject(carried, to);
    double planar_squared = fd_v3_dot(in_plane, in_plane);
    fd_vec3 out = fd_v3_select(planar_squared > 0.0, fd_v3_scale(sqrt(length_squared / planar_squared), in_plane),
                               fd_v3(0.0, 0.0, 0.0));
    return fd_v3_select(length_squared == 0.0, vector, out);
}

static inline __attribute__((always_inline)) fd_vec3
fd_sds_transport_inline(fd_vec3 vector, fd_vec3 from, fd_vec3 to, double twist)
{
    bool small = fd_small_turn(twist);
    return fd_sds_transport_with(vector, from, to, twist, small ? fd_small_turn_cos(twist) : cos(twist),
                                 small ? fd_small_turn_sin(twist) : sin(twist));
}

/* The rolling spring before this step's update: zero for a new contact (no
 * previous normal), else carried from the previous frame (transport 0:
 * fd_sds_transport_with, the twist's cosine and sine given) or projected and
 * rescaled as LAMMPS does when its normal part matters against the limit,
 * |xi . n| k > 1e-10 F_max (transport 1). Blends, as above. */
static inline __attribute__((always_inline)) fd_vec3
fd_roll_spring_carried_with(fd_vec3 xi, fd_vec3 previous_normal, fd_vec3 n, bool lammps_transport, double twist,
                            double cos_twist, double sin_twist, double k, double limit)
{
    fd_vec3 carried = fd_sds_transport_with(xi, previous_normal, n, twist, cos_twist, sin_twist);
    double normal_part = fd_v3_dot(xi, n);
    fd_vec3 projected = fd_v3_mul_add(xi, -normal_part, n);
    double projected_length = fd_v3_length(projected);
    fd_vec3 rescaled = fd_v3_select(projected_length > 0.0, fd_v3_scale(fd_v3_length(xi) / projected_length, projected),
                                    fd_v3(0.0, 0.0, 0.0));
    fd_vec3 lammps = fd_v3_select(fabs(normal_part) * k > 1e-10 * limit, rescaled, xi);
    fd_vec3 out = fd_v3_select(lammps_transport, lammps, carried);
    return fd_v3_select(fd_v3_dot(previous_normal, previous_normal) > 0.0, out, fd_v3(0.0, 0.0, 0.0));
}

static inline __attribute__((always_inline)) fd_vec3
fd_roll_spring_carried(fd_vec3 xi, fd_vec3 previous_normal, fd_vec3 n, bool lammps_transport, double twist, double k,
                       double limit)
{
    bool small = fd_small_turn(twist);
    return fd_roll_spring_carried_with(xi, previous_normal, n, lammps_transport, twist,
                                       small ? fd_small_turn_cos(twist) : cos(twist),
                                       small ? fd_small_turn_sin(twist) : sin(twist), k, limit);
}

#endif
