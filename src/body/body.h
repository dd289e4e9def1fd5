/* Rigid-body time integration, per body, and a body's mass data (fd_body_mass,
 * fd_body_extra: the world stores one per body and the steppers read them).
 * The door of src/body/; it knows nothing of the world that stores bodies.
 *
 * Both integrators are a sequence of kicks (velocity updates from forces)
 * and drifts (position updates from velocities):
 *   symplectic Euler (Fang & Negrut Sec. 4): kick(dt), drift(dt);
 *   velocity Verlet: kick(dt/2), drift(dt), new forces, kick(dt/2).
 *
 * Rotation. A kick adds the torque impulse to the angular momentum in the
 * body frame. A drift is the exact torque-free motion of the body over h:
 * for an isotropic body (sphere, disk) that is the exponential map
 * q1 = exp(omega h) q0 of the paper; for an anisotropic body (ellipsoid)
 * Euler's equations with their gyroscopic term are integrated by the
 * symmetric splitting of the free rotor into rotations about the principal
 * axes (Dullweber, Leimkuhler & McLachlan, J. Chem. Phys. 107 (1997) 5840):
 * each sub-step is an exact rotation, so |L| is kept to round-off and the
 * energy error stays bounded at O((omega h)^2) with no drift, where an
 * explicit Euler step of the gyroscopic term would pump energy in.
 *
 * Must not touch: the world that stores bodies, the steppers. */
#ifndef FD_BODY_H
#define FD_BODY_H

#include "core/math.h"
#include "fricdem/types.h"

/* What few bodies have: axis locks, external loads, seal friction. Kept
 * apart (one allocation per such body) so that a plain body's mass data
 * stays small. */
typedef struct fd_body_extra {
    fd_quat lock_frame;
    fd_vec3 locked_velocity;      /* lock-frame components held fixed */
    fd_vec3 locked_angular_velocity;
    fd_vec3 external_force;
    fd_vec3 external_torque;
    fd_vec3 friction_axis;        /* complementarity stepper: generalized friction on this translation */
    double friction_force;        /* N, its limit; 0 = none */
} fd_body_extra;

/* The extras of a body without any: identity lock frame, zero loads. */
extern const fd_body_extra fd_no_extra;

typedef struct fd_body_mass {
    double inverse_mass;          /* 1/kg; 0 for static bodies */
    fd_vec3 inertia;              /* principal, body frame, kg m^2 */
    fd_vec3 inverse_inertia;      /* 0 for static bodies */
    bool isotropic;               /* all three moments equal: the free rotation is an exact exponential map */
    uint8_t lock_translation;     /* FD_LOCK_* bits */
    uint8_t lock_rotation;
    fd_body_extra* extra;         /* NULL when the body has none (fd_body_extras) */
} fd_body_mass;

static inline const fd_body_extra* fd_body_extras(const fd_body_mass* mass)
{
    return mass->extra != NULL ? mass->extra : &fd_no_extra;
}

/* v += h F / m, L_body += h tau_body; then the locks. Returns the work the
 * locks did (J): the kinetic energy they changed, for the energy ledger. */
double fd_body_kick(fd_body_state* state, const fd_body_mass* mass, fd_vec3 force, fd_vec3 torque, double h);
/* x += h v; free rotation over h; then the locks. Returns the locks' work (J). */
double fd_body_drift(fd_body_state* state, const fd_body_mass* mass, double h);
/* Holds the locked components of v and omega at their locked values;
 * returns the kinetic energy this changed (J), 0 for a body without locks. */
double fd_body_apply_locks(fd_body_state* state, const fd_body_mass* mass);
/* Kinetic energy, translational and rotational (J). */
double fd_body_kinetic_rotational(const fd_body_state* state, const fd_body_mass* mass);

#endif
