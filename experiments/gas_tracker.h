/* Measurements of a granular gas of spheres, taken through the public API
 * after every step: granular temperatures and, per contact, the energy of
 * the colliding pair from the start of the contact to its end, with the
 * bound on what the time integration alone can add to it. Used by
 * experiments/granular_gas.c (the driver of the granular-gas experiment,
 * docs/validation/granular_gas.md) and tests/test_gas.c.
 *
 * The energy of a collision. Contact c between spheres i and j exists from
 * step n0 to step n1 (symplectic Euler: the forces computed at step n are
 * applied by the kick of step n + 1). Its pair energy, in the pair's
 * centre-of-mass frame (momentum is conserved, so this is the lab energy
 * less a constant), is
 *   E_start = KE(n0) + k_n delta(n0)^2 / 2                (slide spring: 0, new)
 *   E_end   = KE(n1 + 1) + k_t |xi(n1 + 1)|^2 / 2         (normal spring: 0, apart)
 * with KE = m_eff |v_i - v_j|^2 / 2 + I_i |w_i|^2 / 2 + I_j |w_j|^2 / 2 and
 * xi(n1 + 1) the slide spring the last update left, which the engine
 * discards when the contact ends (it is counted at the end, so that energy a
 * slide model put into its spring is not hidden by the discard). A collision
 * is binary when neither body touched anything else from n0 to n1; only then
 * is E_end - E_start the collision's own doing.
 *
 * The integration bound. Over one step, exactly (docs/validation/granular_gas.md):
 *   E(n+1) - E(n) = dt D(n) + R(n),
 *   D = -N ddelta/dt + k_n delta ddelta/dt + F_t . v_t + k_t xi~ . r,
 * the power of the contact laws at the discrete state (xi~ the spring turned
 * into the tangent plane, r = (xi(n+1) - xi~)/dt its rate), and
 *   R <= G + k_n dd^2 / 2 + k_n delta |dd - dt ddelta/dt| + k_t |xi(n+1) - xi~|^2 / 2,
 *   G = dt^2/2 (|F|^2/m_i + |F|^2/m_j + |a_i x F|^2/I_i + |a_j x F|^2/I_j),
 * dd = delta(n+1) - delta(n): the second-order terms of symplectic Euler and
 * of the spring's explicit update. For hooke + C-SDS, D <= 0 at every step
 * (normal: -c (ddelta/dt)^2 or, clamped, k delta ddelta/dt < 0; slide: the
 * C-SDS paper's Eq. 11 at the discrete state), so a binary collision obeys
 * E_end - E_start <= B = sum of the R bounds, to round-off. Summed exactly
 * (the normal term with its sign) the second-order terms give I, and
 * E_end - E_start - I = sum of dt D is the contact laws' own energy balance
 * over the collision (model_work): <= 0 for C-SDS, to round-off. For D-SDS the
 * reset of the spring (Eq. 3) is a jump, not a rate: its slipping steps
 * count k_t |dt v_t|^2 / 2 in B (the part its update shares with sticking).
 *
 * Energy created by the slide model. At each step its own balance,
 *   dt F_t . v_t + k_t (|xi(n+1)|^2 - |xi(n)|^2) / 2,
 * the work of its force on the relative motion plus the change of its
 * spring energy, is what it took from (< 0: slip and dashpot) or put into
 * (> 0) the bodies and its spring. Its positive part, summed, is reported as
 * created_slide: for D-SDS the spring resets of Eq. (3) that load the spring
 * against the motion; for C-SDS only the O(dt^2) term of its explicit update,
 * k_t |xi(n+1) - xi~|^2 / 2 (the first-order part is <= 0). This is the
 * tracker's own measure; the engine's energy ledger (created[SLIDE]) is read
 * beside it. */
#ifndef FD_EXPERIMENTS_GAS_TRACKER_H
#define FD_EXPERIMENTS_GAS_TRACKER_H

#include "fricdem/fricdem.h"

/* One contact that has ended (or was open when the run stopped). */
typedef struct gas_collision {
    uint64_t id;
    int body_i, body_j;
    int64_t first_step, last_step; /* n0, n1 */
    bool binary;                   /* no other contact on either body during n0..n1 */
    bool ended;                    /* false: still open at the end of the run (not analysed) */
    double energy_start;           /* J, E_start (pair, centre-of-mass frame) */
    double energy_end;             /* J, E_end, including spring_left */
    double kinetic_start;          /* J, KE(n0) */
    double kinetic_end;            /* J, KE(n1 + 1) */
    double spring_left;            /* J, k_t |xi(n1 + 1)|^2 / 2, discarded by the engine */
    double integration;            /* J, I: the second-order terms summed exactly (G + normal + spring step) */
    double model_work;             /* J, E_end - E_start - I = sum of dt D: the contact laws' own balance */
    double bound;                  /* J, B >= I: the same terms with the signed normal one bounded */
    double roundoff;               /* J, round-off allowance on E_end - E_start */
    double normal_speed;           /* m/s, approach speed of the contact points at n0 (-v_rel . n) */
    double tangential_speed;       /* m/s, |v_t| of the contact points at n0 */
    double restitution;            /* -g_n(after) / g_n(before), g = v_i - v_j of the centres */
    double tangential_restitution; /* beta = -g_c,t(after) . g_c,t(before) / |g_c,t(before)|^2 at the contact points */
    double created_ledger;         /* J, fd_contact_view.energy[SLIDE].created at n1 (0 until the ledger lands) */
    double created_slide;          /* J, sum over its steps of the positive part of the slide model's balance */
    int steps;                     /* n1 - n0 + 1 */
    int slip_steps;                /* steps with the slide model slipping */
} gas_collision;

/* Whole-gas quantities at one step. Temperatures are per degree of freedom,
 * in energy units: T_trans = sum m |v - V|^2 / (3 N), T_rot = sum I |w|^2 / (3 N). */
typedef struct gas_sample {
    double time;                   /* s */
    int64_t step;
    double temperature_trans;      /* J */
    double temperature_rot;        /* J */
    double kinetic_trans;          /* J, sum m |v - V|^2 / 2 */
    double kinetic_rot;            /* J */
    double normal_spring;          /* J, sum over contacts of k_n delta^2 / 2 */
    double slide_spring;           /* J, sum over contacts of k_t |xi|^2 / 2 */
    double created_ledger;         /* J, fd_world_get_energy().created[SLIDE] (0 until the ledger lands) */
    double created_slide;          /* J, created_slide summed over all contacts and steps so far */
    int contacts;
    int64_t collisions;            /* contacts begun so far (after prepare) */
    fd_vec3 momentum;              /* kg m/s, total */
} gas_sample;

typedef struct gas_tracker gas_tracker;

/* Checks that the world is a gas this tracker understands (spheres only, one
 * material, law hooke + dsds or csds, no roll or spin model, symplectic
 * Euler, no gravity or external loads) and must be called after
 * fd_world_prepare and before the first step; NULL with a message in
 * *message otherwise. */
gas_tracker* gas_tracker_create(const fd_world* world, char* message, size_t message_size);
void gas_tracker_free(gas_tracker* tracker);
/* Call once right after gas_tracker_create and after every fd_world_step. */
fd_status gas_tracker_observe(gas_tracker* tracker, const fd_world* world);
/* Closes the contacts still open (marked ended = false). Call once at the end. */
void gas_tracker_finish(gas_tracker* tracker);
gas_sample gas_tracker_sample(const gas_tracker* tracker, const fd_world* world);
int gas_tracker_collision_count(const gas_tracker* tracker);
const gas_collision* gas_tracker_collision_at(const gas_tracker* tracker, int index);
/* "dsds" or "csds", and the law's k_n, k_t, gamma_t, mu, restitution. */
const char* gas_tracker_slide_model(const gas_tracker* tracker);
double gas_tracker_param(const gas_tracker* tracker, const char* name);

#endif
