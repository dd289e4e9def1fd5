/* Rigid-body time integration, per body. The door of src/body/.
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
 * explicit Euler step of the gyroscopic term would pump energy in. */
#ifndef FD_BODY_H
#define FD_BODY_H

#include "core/math.h"
#include "fricdem/types.h"

typedef struct fd_body_mass fd_body_mass;

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
