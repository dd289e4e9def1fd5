/* Walls under a prescribed motion: a static body (infinite mass, nothing
 * moves it) whose pose is a closed-form function of time (fd_wall_motion in
 * include/fricdem/types.h), so it never drifts by round-off and a resumed run
 * puts it at the same bits. Its velocity and angular velocity are stored as a
 * body's are, so every contact law sees the wall's surface velocity at the
 * contact point through the relative velocity, with no law knowing walls.
 *
 * Must not touch: the steppers, the engine, files, ranks (they call the world). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collide/collide.h"
#include "core/error.h"
#include "world/world_store.h"

static bool vec_is_zero(fd_vec3 v) { return v.x == 0.0 && v.y == 0.0 && v.z == 0.0; }

fd_wall_motion fd_default_wall_motion(void)
{
    return (fd_wall_motion){0};
}

/* g(tau, T): the distance covered at unit final speed reached linearly over
 * T; its derivative g' = min(tau / T, 1). */
static double ramped_distance(double tau, double ramp)
{
    if (tau <= 0.0) {
        return 0.0;
    }
    return tau < ramp ? 0.5 * tau * tau / ramp : tau - 0.5 * ramp;
}

static double ramped_speed(double tau, double ramp)
{
    if (tau <= 0.0) {
        return 0.0;
    }
    return tau < ramp ? tau / ramp : 1.0;
}

static bool motion_is_finite(const fd_wall_motion* m)
{
    return fd_v3_is_finite(m->velocity) && isfinite(m->velocity_ramp) && fd_v3_is_finite(m->amplitude) &&
           isfinite(m->frequency) && fd_v3_is_finite(m->angular_velocity) && isfinite(m->angular_velocity_ramp) &&
           isfinite(m->start_time);
}

/* Puts (or replaces) body b's motion in the list kept sorted by body, so
 * that walls move in body order whatever order they were set in. */
static fd_status set_part_motion(fd_world* world, int b, const fd_wall_motion* motion)
{
    int at = 0;
    while (at < world->moving_wall_count && world->moving_walls[at].body < b) {
        ++at;
    }
    bool replaces = at < world->moving_wall_count && world->moving_walls[at].body == b;
    if (!replaces) {
        if (world->moving_wall_count == world->moving_wall_capacity) {
            int capacity = world->moving_wall_capacity > 0 ? 2 * world->moving_wall_capacity : 4;
            fd_moving_wall* walls = realloc(world->moving_walls, (size_t)capacity * sizeof *walls);
            if (walls == NULL) {
                return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
            }
            world->moving_walls = walls;
            world->moving_wall_capacity = capacity;
        }
        memmove(&world->moving_walls[at + 1], &world->moving_walls[at],
                (size_t)(world->moving_wall_count - at) * sizeof *world->moving_walls);
        world->moving_wall_count++;
    }
    world->moving_walls[at] = (fd_moving_wall){
        .body = b,
        .motion = *motion,
        .reference_position = world->position[b],
        .reference_orientation = world->orientation[b],
        .start_time = fmax(motion->start_time, world->time),
        .turns_a_plane = world->colds[b].shape.type == FD_SHAPE_PLANE && !vec_is_zero(motion->angular_velocity),
    };
    return FD_OK;
}

fd_status fd_world_set_wall_motion(fd_world* world, fd_body_id id, const fd_wall_motion* motion)
{
    if (world == NULL || motion == NULL) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "fd_world_set_wall_motion: null argument");
    }
    fd_world_note_change(world);
    if (!fd_world_holds(world, id)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "fd_world_set_wall_motion: invalid body handle");
    }
    int b = (int)id.index1 - 1;
    const char* name = world->body_names[b];
    if (world->colds[b].type != FD_BODY_STATIC) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "body '%s': only a static body (a wall) takes a prescribed motion; a dynamic body moves by its "
                       "loads", name);
    }
    if (!motion_is_finite(motion)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "body '%s': wall motion: every value must be finite", name);
    }
    if (motion->velocity_ramp < 0.0 || motion->angular_velocity_ramp < 0.0 || motion->frequency < 0.0 ||
        motion->start_time < 0.0) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "body '%s': wall motion: velocity_ramp, angular_velocity_ramp, frequency and start_time must "
                       "be >= 0",
                       name);
    }
    if (!vec_is_zero(motion->amplitude) && !(motion->frequency > 0.0)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "body '%s': wall motion: an amplitude needs a frequency > 0 Hz", name);
    }
    if (world->def.stepper != FD_STEPPER_PENALTY) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "body '%s': moving walls need the penalty stepper (the complementarity stepper treats static "
                       "bodies as fixed)",
                       name);
    }
    if (world->colds[b].wall_group != b) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "body '%s' is part of the wall '%s': set the motion on the wall (its parts share one pose)",
                       name, world->body_names[world->colds[b].wall_group]);
    }
    /* Every part of the wall (a drum's shell and caps, a mesh's patches:
     * contiguous after the first, fd_world_create_wall) takes the motion. */
    for (int part = b; part < world->body_count && world->colds[part].wall_group == b; ++part) {
        if (set_part_motion(world, part, motion) != FD_OK) {
            return FD_ERR_OUT_OF_MEMORY;
        }
    }
    /* The list's range test of a turning wall depends on its motion
     * (fd_world_wall_reach): a new motion gets a new list. */
    world->list_stale = true;
    fd_world_move_walls(world);
    return FD_OK;
}

void fd_world_move_walls(fd_world* world)
{
    for (int k = 0; k < world->moving_wall_count; ++k) {
        const fd_moving_wall* wall = &world->moving_walls[k];
        const fd_wall_motion* m = &wall->motion;
        int b = wall->body;
        double tau = world->time - wall->start_time;
        double phase = 2.0 * FD_PI * m->frequency * (tau > 0.0 ? tau : 0.0);
        fd_vec3 x = fd_v3_mul_add(wall->reference_position, ramped_distance(tau, m->velocity_ramp), m->velocity);
        x = fd_v3_mul_add(x, sin(phase), m->amplitude);
        fd_vec3 v = fd_v3_scale(ramped_speed(tau, m->velocity_ramp), m->velocity);
        if (tau > 0.0) {
            v = fd_v3_mul_add(v, 2.0 * FD_PI * m->frequency * cos(phase), m->amplitude);
        }
        double speed = fd_v3_length(m->angular_velocity);
        fd_quat q = wall->reference_orientation;
        fd_vec3 w = fd_v3(0.0, 0.0, 0.0);
        if (speed > 0.0) {
            fd_vec3 axis = fd_v3_scale(1.0 / speed, m->angular_velocity);
            double angle = speed * ramped_distance(tau, m->angular_velocity_ramp);
            q = fd_quat_normalize(fd_quat_mul(fd_quat_from_axis_angle(axis, angle), q));
            w = fd_v3_scale(ramped_speed(tau, m->angular_velocity_ramp), m->angular_velocity);
        }
        world->position[b] = x;
        world->orientation[b] = q;
        world->velocity[b] = v;
        world->angular_velocity[b] = w;
        if (world->colds[b].shape.type == FD_SHAPE_PLANE) {
            world->plane_normals[b] = fd_quat_rotate(q, world->colds[b].shape.plane_normal);
        }
    }
}

void fd_world_book_wall_work(fd_world* world, double h)
{
    /* Power given to the bodies: -(F . v + T . omega), F and T the contacts'
     * reaction on the wall; trapezoidal over the step in both the reaction
     * and the wall's velocities (exact for a wall at constant velocity when
     * the reaction is linear in time). */
    for (int k = 0; k < world->moving_wall_count; ++k) {
        int b = world->moving_walls[k].body;
        double power_before = fd_v3_dot(world->saved_forces[b], world->saved_velocity[b]) +
                              fd_v3_dot(world->saved_torques[b], world->saved_angular_velocity[b]);
        double power_after = fd_v3_dot(world->forces[b], world->velocity[b]) +
                             fd_v3_dot(world->torques[b], world->angular_velocity[b]);
        world->energy_totals.external_work -= 0.5 * h * (power_before + power_after);
    }
}

void fd_world_forget_wall_motion(fd_world* world, int b)
{
    for (int k = 0; k < world->moving_wall_count; ++k) {
        if (world->moving_walls[k].body == b) {
            memmove(&world->moving_walls[k], &world->moving_walls[k + 1],
                    (size_t)(world->moving_wall_count - k - 1) * sizeof *world->moving_walls);
            world->moving_wall_count--;
            return;
        }
    }
}

void fd_world_free_walls(fd_world* world)
{
    free(world->moving_walls);
    world->moving_walls = NULL;
    world->moving_wall_count = world->moving_wall_capacity = 0;
}

fd_wall_reaction fd_body_get_reaction(const fd_world* world, fd_body_id id)
{
    fd_wall_reaction reaction = {0};
    if (world == NULL || !fd_world_holds(world, id)) {
        return reaction;
    }
    int b = (int)id.index1 - 1;
    if (world->colds[b].type != FD_BODY_STATIC || world->forces == NULL) {
        return reaction;
    }
    reaction.force = world->forces[b];
    reaction.torque = world->torques[b];
    reaction.power = -(fd_v3_dot(reaction.force, world->velocity[b]) +
                       fd_v3_dot(reaction.torque, world->angular_velocity[b]));
    return reaction;
}

double fd_world_wall_gap(const fd_world* world, const fd_vec3* positions, int wall, fd_vec3 x, double r, double reach)
{
    if (world->colds[wall].shape.type == FD_SHAPE_PLANE) {
        return fd_v3_dot(world->plane_normals[wall], fd_v3_sub(x, positions[wall])) - r;
    }
    fd_shape sphere = {.type = FD_SHAPE_SPHERE, .radius = r, .bounding_radius = r};
    fd_pose sphere_pose = {x, fd_quat_identity()};
    fd_pose wall_pose = {positions[wall], world->orientation[wall]};
    fd_contact_geometry g;
    if (fd_collide(&sphere, sphere_pose, &world->colds[wall].shape, wall_pose, reach, &g) == FD_COLLIDE_TOUCHING) {
        return -g.penetration;
    }
    return INFINITY;
}

fd_wall_reach fd_world_wall_reach(const fd_world* world, int wall)
{
    const fd_shape* shape = &world->colds[wall].shape;
    fd_wall_reach reach = {.kind = FD_WALL_REACH_SPHERE, .origin = world->position[wall],
                           .radius = shape->bounding_radius};
    if (shape->type == FD_SHAPE_PLANE) {
        reach.kind = FD_WALL_REACH_PLANE;
        reach.axis = world->plane_normals[wall];
        return reach;
    }
    if (shape->type != FD_SHAPE_CYLINDER && shape->type != FD_SHAPE_DISK) {
        return reach; /* a mesh patch: its bounding sphere */
    }
    fd_vec3 axis = fd_quat_rotate(world->orientation[wall], fd_v3(0.0, 0.0, 1.0));
    /* The shell or disk keeps its place as it turns only about its own axis
     * (a drum); turning about another axis it sweeps its bounding sphere,
     * which then stands for it until the list is rebuilt. */
    for (int k = 0; k < world->moving_wall_count; ++k) {
        const fd_moving_wall* moving = &world->moving_walls[k];
        if (moving->body == wall) {
            fd_vec3 w = moving->motion.angular_velocity;
            if (fd_v3_length(fd_v3_cross(w, axis)) > 1e-12 * fd_v3_length(w)) {
                return reach;
            }
        }
    }
    reach.axis = axis;
    reach.radius = shape->radius;
    if (shape->type == FD_SHAPE_CYLINDER) {
        reach.kind = FD_WALL_REACH_SHELL;
        reach.half_length = 0.5 * shape->length;
    } else {
        reach.kind = FD_WALL_REACH_DISK;
        reach.inner_radius = shape->inner_radius;
        reach.offset = shape->offset;
    }
    return reach;
}
