/* A body's kicks, drift and locks (body.h gives the schemes and why). Owns
 * the arithmetic of one body's step; the loops over bodies are the
 * steppers' (src/penalty/stepper.c writes the sphere case inline).
 *
 * Must not touch: the world that stores bodies, the steppers. */
#include "body/body.h"

const fd_body_extra fd_no_extra = {.lock_frame = {1.0, 0.0, 0.0, 0.0}};

static fd_vec3 lock_components(fd_vec3 value, uint32_t locks, fd_quat frame, fd_vec3 locked)
{
    if (locks == 0) {
        return value;
    }
    fd_vec3 local = fd_quat_rotate_inverse(frame, value);
    if (locks & FD_LOCK_X) local.x = locked.x;
    if (locks & FD_LOCK_Y) local.y = locked.y;
    if (locks & FD_LOCK_Z) local.z = locked.z;
    return fd_quat_rotate(frame, local);
}

static double kinetic_energy(const fd_body_state* state, const fd_body_mass* mass)
{
    double translational = mass->inverse_mass > 0.0 ? 0.5 * fd_v3_length_squared(state->velocity) / mass->inverse_mass
                                                    : 0.0;
    return translational + fd_body_kinetic_rotational(state, mass);
}

double fd_body_apply_locks(fd_body_state* state, const fd_body_mass* mass)
{
    if ((mass->lock_translation | mass->lock_rotation) == 0) {
        return 0.0;
    }
    double before = kinetic_energy(state, mass);
    state->velocity = lock_components(state->velocity, mass->lock_translation, fd_body_extras(mass)->lock_frame,
                                      fd_body_extras(mass)->locked_velocity);
    state->angular_velocity = lock_components(state->angular_velocity, mass->lock_rotation,
                                              fd_body_extras(mass)->lock_frame,
                                              fd_body_extras(mass)->locked_angular_velocity);
    return kinetic_energy(state, mass) - before;
}

double fd_body_kick(fd_body_state* state, const fd_body_mass* mass, fd_vec3 force, fd_vec3 torque, double h)
{
    state->velocity = fd_v3_mul_add(state->velocity, h * mass->inverse_mass, force);
    if (mass->isotropic) {
        state->angular_velocity = fd_v3_mul_add(state->angular_velocity, h * mass->inverse_inertia.x, torque);
    } else {
        fd_quat q = state->orientation;
        fd_vec3 momentum = fd_v3_hadamard(mass->inertia, fd_quat_rotate_inverse(q, state->angular_velocity));
        momentum = fd_v3_mul_add(momentum, h, fd_quat_rotate_inverse(q, torque));
        state->angular_velocity = fd_quat_rotate(q, fd_v3_hadamard(mass->inverse_inertia, momentum));
    }
    return fd_body_apply_locks(state, mass);
}

/* Exact flow of H_k = L_k^2 / (2 I_k) over h: the body turns about its own
 * axis k by phi = h L_k / I_k, and L in body axes turns by -phi. */
static void rotor_substep(fd_quat* orientation, fd_vec3* momentum, int axis, double inverse_inertia, double h)
{
    double phi = h * fd_v3_component(*momentum, axis) * inverse_inertia;
    fd_vec3 unit = axis == 0 ? fd_v3(1, 0, 0) : (axis == 1 ? fd_v3(0, 1, 0) : fd_v3(0, 0, 1));
    fd_quat turn = fd_quat_from_axis_angle(unit, phi);
    *orientation = fd_quat_mul(*orientation, turn);
    *momentum = fd_quat_rotate_inverse(turn, *momentum);
}

double fd_body_drift(fd_body_state* state, const fd_body_mass* mass, double h)
{
    state->position = fd_v3_mul_add(state->position, h, state->velocity);
    if (mass->isotropic) {
        /* Paper Sec. 4: orientation advanced by the exponential map of omega h. */
        state->orientation =
            fd_quat_renormalize(fd_quat_mul(fd_quat_from_rotation_vector(fd_v3_scale(h, state->angular_velocity)),
                                            state->orientation));
    } else {
        fd_quat q = state->orientation;
        fd_vec3 momentum = fd_v3_hadamard(mass->inertia, fd_quat_rotate_inverse(q, state->angular_velocity));
        rotor_substep(&q, &momentum, 0, mass->inverse_inertia.x, 0.5 * h);
        rotor_substep(&q, &momentum, 1, mass->inverse_inertia.y, 0.5 * h);
        rotor_substep(&q, &momentum, 2, mass->inverse_inertia.z, h);
        rotor_substep(&q, &momentum, 1, mass->inverse_inertia.y, 0.5 * h);
        rotor_substep(&q, &momentum, 0, mass->inverse_inertia.x, 0.5 * h);
        state->orientation = fd_quat_normalize(q);
        state->angular_velocity = fd_quat_rotate(state->orientation, fd_v3_hadamard(mass->inverse_inertia, momentum));
    }
    return fd_body_apply_locks(state, mass);
}

double fd_body_kinetic_rotational(const fd_body_state* state, const fd_body_mass* mass)
{
    fd_vec3 body_omega = fd_quat_rotate_inverse(state->orientation, state->angular_velocity);
    return 0.5 * fd_v3_dot(body_omega, fd_v3_hadamard(mass->inertia, body_omega));
}
