/* The trajectory's frames: the bodies', the contacts' and the observables'
 * values of one step, gathered through the public API and appended to their
 * series (output_trajectory.c owns the file, its datasets and indexes; this
 * file only fills frames and must not create or close anything). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "io/h5md_series.h"

static void* grow(fd_trajectory* t, scratch* s, size_t bytes)
{
    if (bytes > s->bytes) {
        size_t size = s->bytes ? s->bytes : 4096;
        while (size < bytes) {
            size *= 2;
        }
        void* data = realloc(s->data, size);
        if (!data) {
            fd_fail(FD_ERR_OUT_OF_MEMORY, "trajectory '%s': out of memory", t->h5_path);
            return NULL;
        }
        s->data = data;
        s->bytes = size;
    }
    return s->data;
}

fd_status fd_trajectory_write_bodies(fd_trajectory* t, const fd_world* world, int64_t frame, int64_t n)
{
    /* reals: position 3, orientation 4, velocity 3, angular velocity 3, radius, mass per row. */
    const int64_t width[] = {3, 4, 3, 3, 1, 1};
    double* reals = grow(t, &t->reals, (size_t)(n > 0 ? n : 1) * 15 * sizeof(double));
    int32_t* smalls = grow(t, &t->smalls, (size_t)(n > 0 ? n : 1) * 2 * sizeof(int32_t));
    int64_t* ids = grow(t, &t->integers, (size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    fd_body_state* states = grow(t, &t->states, STATE_BLOCK * sizeof(fd_body_state));
    if (!reals || !smalls || !ids || !states) {
        return FD_ERR_OUT_OF_MEMORY;
    }
    double* field[6];
    field[0] = reals;
    for (int k = 1; k < 6; ++k) {
        field[k] = field[k - 1] + width[k - 1] * n;
    }
    int32_t* species = smalls;
    int32_t* shapes = smalls + n;
    for (int64_t first = 0; first < n; first += STATE_BLOCK) {
        int count = (int)(n - first < STATE_BLOCK ? n - first : STATE_BLOCK);
        fd_status status = fd_world_get_states(world, (int)first, count, states);
        if (status != FD_OK) {
            return status;
        }
        for (int j = 0; j < count; ++j) {
            int64_t i = first + j;
            const fd_body_state* s = &states[j];
            double* p = field[0] + 3 * i;
            double* q = field[1] + 4 * i;
            double* v = field[2] + 3 * i;
            double* w = field[3] + 3 * i;
            p[0] = s->position.x, p[1] = s->position.y, p[2] = s->position.z;
            q[0] = s->orientation.w, q[1] = s->orientation.x, q[2] = s->orientation.y, q[3] = s->orientation.z;
            v[0] = s->velocity.x, v[1] = s->velocity.y, v[2] = s->velocity.z;
            w[0] = s->angular_velocity.x, w[1] = s->angular_velocity.y, w[2] = s->angular_velocity.z;
            fd_body_id id = fd_world_body_at(world, (int)i);
            if (!fd_body_is_valid(world, id)) { /* a removed body's slot (its state is NaN already) */
                field[4][i] = field[5][i] = NAN;
                species[i] = shapes[i] = -1;
                ids[i] = -1;
                continue;
            }
            fd_body_info info = fd_body_get_info(world, id);
            /* A plane's bounding radius is infinite: NaN, so that ParaView's
             * glyphs and bounds pass over it (they skip NaN, not infinity). */
            field[4][i] = isfinite(info.bounding_radius) ? info.bounding_radius : NAN;
            field[5][i] = info.mass;
            species[i] = info.material.index1 - 1;
            shapes[i] = (int32_t)info.shape.type;
            ids[i] = i;
        }
    }
    t->body_rows = n > t->body_rows ? n : t->body_rows;
    const void* data[BODY_ELEMENT_COUNT] = {
        [BODY_POSITION] = field[0], [BODY_ORIENTATION] = field[1], [BODY_VELOCITY] = field[2],
        [BODY_ANGULAR_VELOCITY] = field[3], [BODY_RADIUS] = field[4], [BODY_MASS] = field[5],
        [BODY_SPECIES] = species, [BODY_SHAPE] = shapes, [BODY_ID] = ids,
    };
    fd_status status = FD_OK;
    for (int e = 0; e < BODY_ELEMENT_COUNT && status == FD_OK; ++e) {
        status = fd_trajectory_append(t, &t->bodies[e], frame, t->body_rows, n, data[e]);
    }
    return status;
}

static void put3(double* out, fd_vec3 v)
{
    out[0] = v.x, out[1] = v.y, out[2] = v.z;
}

fd_status fd_trajectory_write_contacts(fd_trajectory* t, const fd_world* world, int64_t frame, int64_t n)
{
    if (!fd_world_contacts_recorded(world)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "output: the trajectory needs the contact details of step %lld, which the world did not "
                       "record (call fd_world_request_contacts before a step when fd_output_wants_contacts says so)",
                       (long long)fd_world_step_count(world));
    }
    /* Reals per row: the fixed elements' components, then the model columns. */
    int64_t width = 0, offset[CONTACT_ELEMENT_COUNT];
    for (int e = 0; e < CONTACT_ELEMENT_COUNT; ++e) {
        offset[e] = width;
        const element_spec* spec = &contact_elements[e];
        width += spec->type != SERIES_F64 ? 0 : spec->components ? spec->components : 1;
    }
    const int64_t rows = n > 0 ? n : 1;
    double* reals = grow(t, &t->reals, (size_t)(rows * (width + t->model_count)) * sizeof(double));
    int64_t* ids = grow(t, &t->integers, (size_t)rows * sizeof(int64_t));
    int32_t* pairs = grow(t, &t->smalls, (size_t)rows * 2 * sizeof(int32_t));
    if (!reals || !ids || !pairs) {
        return FD_ERR_OUT_OF_MEMORY;
    }
    double* field[CONTACT_ELEMENT_COUNT];
    for (int e = 0; e < CONTACT_ELEMENT_COUNT; ++e) {
        field[e] = reals + offset[e] * n;
    }
    double* model = reals + width * n;
    for (int64_t k = 0; k < n; ++k) {
        fd_contact_view c;
        fd_status status = fd_world_get_contact(world, (int)k, &c);
        if (status != FD_OK) {
            return status;
        }
        const fd_contact_geometry* g = &c.geometry;
        const fd_contact_loads* l = &c.loads;
        /* The contact point: the midpoint of the points on the two surfaces, as in contacts.csv. */
        double* point = field[CONTACT_POSITION] + 3 * k;
        point[0] = 0.5 * (g->point_i.x + g->point_j.x);
        point[1] = 0.5 * (g->point_i.y + g->point_j.y);
        point[2] = 0.5 * (g->point_i.z + g->point_j.z);
        ids[k] = (int64_t)c.id;
        pairs[2 * k] = c.body_i.index1 - 1;
        pairs[2 * k + 1] = c.body_j.index1 - 1;
        put3(field[CONTACT_NORMAL] + 3 * k, g->normal);
        field[CONTACT_PENETRATION][k] = g->penetration;
        field[CONTACT_NORMAL_FORCE][k] = l->normal_force;
        put3(field[CONTACT_SLIDE_FORCE] + 3 * k, l->slide_force);
        put3(field[CONTACT_ROLL_I] + 3 * k, l->roll_torque_i);
        put3(field[CONTACT_ROLL_J] + 3 * k, l->roll_torque_j);
        put3(field[CONTACT_SPIN_I] + 3 * k, l->spin_torque_i);
        put3(field[CONTACT_SPIN_J] + 3 * k, l->spin_torque_j);
        for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
            field[CONTACT_STORED][4 * k + m] = c.energy[m].stored;
            field[CONTACT_DASHPOT][4 * k + m] = c.energy[m].dashpot;
            field[CONTACT_SLIP][4 * k + m] = c.energy[m].slip;
            field[CONTACT_CREATED][4 * k + m] = c.energy[m].created;
            field[CONTACT_WORK][4 * k + m] = c.energy[m].work;
        }
        for (int m = 0; m < t->model_count; ++m) {
            model[m * n + k] = (c.columns && m < c.column_count) ? c.columns[m] : NAN;
        }
    }
    t->contact_rows = n > t->contact_rows ? n : t->contact_rows;
    fd_status status = FD_OK;
    for (int e = 0; e < CONTACT_ELEMENT_COUNT && status == FD_OK; ++e) {
        status = fd_trajectory_append(t, &t->contact[e], frame, t->contact_rows, n,
                                      e == CONTACT_ID ? (const void*)ids : field[e]);
    }
    for (int m = 0; m < t->model_count && status == FD_OK; ++m) {
        status = fd_trajectory_append(t, &t->model[m], frame, t->contact_rows, n, model + m * n);
    }
    return status == FD_OK ? fd_trajectory_append(t, &t->pairs, frame, t->contact_rows, n, pairs) : status;
}

fd_status fd_trajectory_write_observables(fd_trajectory* t, const fd_world* world, int64_t frame, int64_t bodies)
{
    fd_world_energy e = fd_world_get_energy(world);
    double total = e.kinetic_translational + e.kinetic_rotational + e.gravitational;
    for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
        total += e.stored[m];
    }
    const int32_t counts[3] = {(int32_t)bodies, fd_world_live_body_count(world), fd_world_contact_count(world)};
    const void* data[OBSERVABLE_COUNT] = {
        [OBSERVE_COUNT] = &counts[0],
        [OBSERVE_BODIES] = &counts[1],
        [OBSERVE_CONTACTS] = &counts[2],
        [OBSERVE_KINETIC_TRANSLATIONAL] = &e.kinetic_translational,
        [OBSERVE_KINETIC_ROTATIONAL] = &e.kinetic_rotational,
        [OBSERVE_GRAVITATIONAL] = &e.gravitational,
        [OBSERVE_STORED] = e.stored,
        [OBSERVE_DASHPOT] = e.dashpot,
        [OBSERVE_SLIP] = e.slip,
        [OBSERVE_CREATED] = e.created,
        [OBSERVE_RELEASED] = &e.released,
        [OBSERVE_EXTERNAL_WORK] = &e.external_work,
        [OBSERVE_CONSTRAINT_WORK] = &e.constraint_work,
        [OBSERVE_INSERTED] = &e.inserted,
        [OBSERVE_REMOVED] = &e.removed,
        [OBSERVE_TOTAL] = &total,
        [OBSERVE_CLOSURE_ERROR] = &e.closure_error,
    };
    fd_status status = FD_OK;
    for (int o = 0; o < OBSERVABLE_COUNT && status == FD_OK; ++o) {
        status = fd_trajectory_append(t, &t->observables[o], frame, 0, 1, data[o]);
    }
    return status;
}
