/* The arithmetic of the Mindlin tangential spring, as one stateless inline
 * step (the idea of sds_core.h): the registry kernel (mindlin.c, through
 * fd_contact_input) and the penalty stepper's sphere kernel
 * (src/penalty/sphere_kernel.h) both inline it, so that a contact gives the
 * same bits whichever path evaluates it. mindlin.c says where each formula
 * comes from; in short, per step:
 *
 *   k = k_t a                       Mindlin (1949): 8 G* a, a = sqrt(R_eff delta)
 *   rescale: h *= a / a_prev        when a < a_prev (the _rescale variants)
 *   h into the tangent plane, length kept (Luding 2008, Eq. 17)
 *   h += v dt                       displacement history (mindlin, mindlin_rescale)
 *   h -= k v dt                     force history (the /force variants; Thornton et al. 2013, Eq. 18)
 *   F_S = -k h - gamma v  or  h - gamma v
 *   |F_S| > F_max: F = F_max F_S / |F_S|, h reset so that F_S = F
 *
 * in LAMMPS's order (pair_granular.cpp of 29 Sep 2021). F_max is mu_s N in
 * stick and mu_k N in slip (the mode the step starts in), the switch of
 * Fang & Negrut Sec. 3.1 (fang_negrut.c, cap_and_switch). Choices inside the
 * step are blends (fd_select), as in sds_core.h.
 *
 * Must not touch: the world, the steppers, files (the steppers call the laws). */
#ifndef FD_CONTACT_MINDLIN_CORE_H
#define FD_CONTACT_MINDLIN_CORE_H

#include "contact/sds_core.h"

/* History block of the mindlin slide models (doubles). */
enum {
    FD_MINDLIN_H_SPRING = 0, /* displacement (m) or elastic force (N, the /force variants), world (3) */
    FD_MINDLIN_H_MODE = 3,   /* 0 stick (limit mu_s N), 1 slip (limit mu_k N) */
    FD_MINDLIN_H_RADIUS = 4, /* contact radius a of the last step (m): the rescale and the energy books */
    FD_MINDLIN_HISTORY = 5,
};

/* The energy in the spring of stiffness k holding h: k h^2 / 2 for a
 * displacement, h^2 / 2k for a force (zero at k = 0, where a force history
 * is zero too). */
static inline __attribute__((always_inline)) double fd_mindlin_energy(bool force_history, double k, fd_vec3 h)
{
    double squared = fd_v3_dot(h, h);
    double of_force = fd_select(k > 0.0, 0.5 * squared / k, 0.0); /* not finite at k = 0: not chosen */
    return force_history ? of_force : 0.5 * k * squared;
}

/* One update. k_t: Pa (k = k_t a); radius, previous_radius: a now and at the
 * last step (0 for a new contact); gamma: the tangential dashpot, N s/m;
 * static_limit, kinetic_limit: mu_s |N|, mu_k |N|; spring: the history as
 * stored (not yet in the tangent plane of the unit normal n); v: the relative
 * tangential velocity of body i's surface against body j's.
 *
 * Books: stored is the spring's energy after the step. The energy changes
 * that no force does work for are booked as slip (a loss) or created (a
 * gain): the stiffness change k_t (a - a_prev) at a held history, with the
 * rescale; and the reset of the spring while slipping (as fd_dsds_vector_step). */
static inline __attribute__((always_inline)) fd_sds_vector_step
fd_mindlin_step(bool rescale, bool force_history, bool legacy_projection, double k_t, double radius,
                double previous_radius, double gamma, double static_limit, double kinetic_limit, bool was_slipping,
                double dt, double advance, fd_vec3 spring, fd_vec3 n, fd_vec3 v)
{
    fd_sds_vector_step s;
    double k = k_t * radius;
    double before = fd_mindlin_energy(force_history, k_t * previous_radius, spring);
    /* LAMMPS rescales before it turns the history into the plane. */
    bool shrinks = rescale & (radius < previous_radius);
    double factor = radius / previous_radius; /* not finite for a new contact (a_prev = 0): never chosen */
    fd_vec3 held = fd_v3_select(shrinks, fd_v3_scale(factor, spring), spring);
    double resized = fd_mindlin_energy(force_history, k, held);
    /* Into the tangent plane keeping its length (LAMMPS pair granular), or
     * only projected (the legacy gran/hertz/history). */
    fd_vec3 h = legacy_projection ? fd_sds_project(held, n) : fd_sds_into_plane(held, n);
    fd_vec3 advanced = force_history ? fd_v3_mul_add(h, -k * advance, v) : fd_v3_mul_add(h, advance, v);
    fd_vec3 damping = fd_v3_scale(gamma, v);
    fd_vec3 test = fd_v3_sub(force_history ? advanced : fd_v3_scale(-k, advanced), damping);
    double test_squared = fd_v3_dot(test, test);
    double limit = was_slipping ? kinetic_limit : static_limit;
    s.slipping = test_squared > limit * limit;
    double ratio = limit / sqrt(test_squared); /* not finite at |F_S| = 0, which never slips */
    s.force = fd_v3_scale(fd_select(s.slipping, ratio, 1.0), test);
    /* The reset: the spring that gives the capped force, F = -k h - gamma v
     * (or h - gamma v). Without a contact area (a = 0: no overlap, within a
     * contact margin) there is no spring: it holds nothing. */
    fd_vec3 elastic = fd_v3_add(s.force, damping);
    fd_vec3 reset = force_history ? elastic : fd_v3_scale(-1.0 / k, elastic); /* not finite at k = 0: not kept */
    fd_vec3 kept = fd_v3_select(s.slipping, reset, advanced);
    s.spring = fd_v3_select(k > 0.0, kept, fd_v3(0.0, 0.0, 0.0));
    s.stored = fd_mindlin_energy(force_history, k, s.spring);
    s.dashpot = gamma * fd_v3_dot(v, v) * dt; /* F = F_S holds after the reset too */
    double stiffening = resized - before;
    double reset_change = s.stored - fd_mindlin_energy(force_history, k, advanced);
    s.created = fd_select(stiffening > 0.0, stiffening, 0.0) + fd_select(reset_change > 0.0, reset_change, 0.0);
    s.slip = fd_select(stiffening < 0.0, -stiffening, 0.0) + fd_select(reset_change < 0.0, -reset_change, 0.0);
    return s;
}

/* fd_mindlin_step on a contact's history block h (FD_MINDLIN_H_*): the
 * spring, the slip mode and the last contact radius read from it and written
 * back, for the generic slide kernel (mindlin.c) and the sphere kernel alike. */
static inline __attribute__((always_inline)) fd_sds_vector_step
fd_mindlin_step_history(double* h, bool rescale, bool force_history, bool legacy_projection, double k_t,
                        double radius, double gamma, double static_limit, double kinetic_limit, double dt,
                        double advance, fd_vec3 n, fd_vec3 v)
{
    fd_sds_vector_step s = fd_mindlin_step(
        rescale, force_history, legacy_projection, k_t, radius, h[FD_MINDLIN_H_RADIUS], gamma, static_limit,
        kinetic_limit, h[FD_MINDLIN_H_MODE] != 0.0, dt, advance,
        fd_v3(h[FD_MINDLIN_H_SPRING], h[FD_MINDLIN_H_SPRING + 1], h[FD_MINDLIN_H_SPRING + 2]), n, v);
    h[FD_MINDLIN_H_SPRING] = s.spring.x;
    h[FD_MINDLIN_H_SPRING + 1] = s.spring.y;
    h[FD_MINDLIN_H_SPRING + 2] = s.spring.z;
    h[FD_MINDLIN_H_MODE] = s.slipping ? 1.0 : 0.0;
    h[FD_MINDLIN_H_RADIUS] = radius;
    return s;
}

#endif
