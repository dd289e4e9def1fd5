/* Stage 3 of a force pass: the law of every touching contact, and its loads
 * onto the two bodies.
 *
 * A thread takes its touching contacts FD_BLOCK at a time in descending key
 * order. In a chunk, the sphere-sphere contacts of one block law go to the
 * vectorised block kernel (sphere_block.h), and so do its sphere-plane
 * contacts (a block of planes) on a pass that does not record; every other contact is
 * evaluated at once into its slot (the scalar sphere kernel, or the generic
 * path of contact_details.c). Then the chunk's loads go onto the bodies slot
 * by slot, so the order of the sums is the one penalty.h explains whatever
 * kernel computed a load.
 *
 * A contact that begins takes a pool slot (handed out in stage 2), its
 * springs start at zero and its pair constants are computed; every contact
 * reads its springs and books from one buffer and writes them to the other
 * (pool->flip: the commit of the step flips them, a rollback leaves them),
 * or, in a step made in place, writes them over (the same buffer: the
 * stepper's rewind point answers for a failure, rewind.c).
 *
 * Must not touch: the engine, the complementarity stepper, files, ranks. */
#include <math.h>
#include <string.h>

#include "contact/fang_negrut_lane.h"
#include "penalty/block_books.h"
#include "penalty/fn_lanes.h"
#include "penalty/penalty_internal.h"
#include "penalty/sphere_block.h"
#include "world/world_store.h"

_Static_assert(FD_FN_BLOCK >= FD_BLOCK, "a chunk's Fang & Negrut contacts fit one lane block");
_Static_assert(FD_FN_PAIRINGS == sizeof((fd_penalty_thread){0}.fn_block) / sizeof(fd_fn_block*),
               "a lane block per pairing");
_Static_assert(FD_BLOCK <= 127 && FD_BLOCKS_PER_CHUNK <= 127, "slot_block and slot_lane fit int8_t");

/* A contact that begins: its slot, springs, books, constants and identity. */
static __attribute__((noinline)) void begin_contact(fd_world* world, fd_neighbor_list* list, int32_t e, int i, int j,
                                                    int32_t slot, uint64_t id)
{
    fd_contact_pool* pool = &world->penalty->pool;
    int stride = world->history_stride, constant_stride = world->penalty->constant_stride;
    list->contact[e] = slot;
    if (list->kind[e] < FD_PAIR_GENERIC) {
        fd_pair_constants(world, &world->laws[list->law[e]], i, j,
                          pool->constants + (size_t)slot * (size_t)constant_stride);
    } else if (fd_fn_lane_law_of_pair(world->penalty, list, e) >= 0) {
        fd_fn_pair_constants(world, &world->laws[list->law[e]], list->kind[e] - FD_PAIR_GENERIC_SPHERES, i, j,
                             pool->constants + (size_t)slot * (size_t)constant_stride);
    }
    /* Both buffers, whichever way the pass writes (pool->flip): a mechanism
     * the law lacks is never written again, and a later careful step makes
     * the other buffer the current one. */
    for (int k = 0; k < 2; ++k) {
        if (stride > 0) {
            memset(pool->history[k] + (size_t)slot * (size_t)stride, 0, (size_t)stride * sizeof(double));
        }
        if (world->def.energy_ledger && pool->lifetime_books) {
            memset(pool->books[k] + (size_t)slot * (size_t)pool->book_count, 0,
                   (size_t)pool->book_count * sizeof(fd_energy_books));
        } else if (world->def.energy_ledger) {
            memset(pool->stored[k] + (size_t)slot * (size_t)pool->book_count, 0,
                   (size_t)pool->book_count * sizeof(double));
        }
    }
    pool->id[slot] = id;
    pool->first_step[slot] = world->step_count;
    pool->state[slot] = 0;
}

/* A sphere-plane contact's geometry, bodies i and j in the list's order:
 * n into body i, the overlap, body i's surface velocity minus body j's at
 * the contact point, and each body's arm to it. Both the scalar kernel's
 * path and the block of planes' gather take it from here. */
typedef struct plane_pair {
    fd_vec3 n, relative, arm_i, arm_j;
    double overlap;
} plane_pair;

static inline __attribute__((always_inline)) plane_pair plane_pair_geometry(const fd_world* world, uint8_t kind,
                                                                           int i, int j)
{
    /* Sphere s against plane p: n_p the plane's outward normal, the centre
     * at height h over it, the contact point between the surfaces. */
    bool plane_first = kind == FD_PAIR_PLANE_SPHERE;
    int sphere = plane_first ? j : i, plane = plane_first ? i : j;
    double radius = world->bounding_radii[sphere];
    fd_vec3 position_s = world->position[sphere], position_p = world->position[plane];
    fd_vec3 plane_normal = world->plane_normals[plane];
    double height = fd_v3_dot(fd_v3_sub(position_s, position_p), plane_normal);
    plane_pair out;
    out.overlap = radius - height;
    /* LAMMPS's fix wall/gran takes the contact at R (velocity and torque). */
    double a_s = world->def.lammps_arms ? radius : radius - 0.5 * out.overlap;
    fd_vec3 point = fd_v3_mul_add(position_s, -a_s, plane_normal);
    fd_vec3 arm_s = fd_v3_scale(-a_s, plane_normal);
    fd_vec3 arm_p = fd_v3_sub(point, position_p);
    fd_vec3 surface_s = fd_v3_sub(world->velocity[sphere],
                                  fd_v3_scale(a_s, fd_v3_cross(world->angular_velocity[sphere], plane_normal)));
    fd_vec3 surface_p = fd_v3_add(world->velocity[plane], fd_v3_cross(world->angular_velocity[plane], arm_p));
    out.n = plane_first ? fd_v3_neg(plane_normal) : plane_normal;
    out.relative = plane_first ? fd_v3_sub(surface_p, surface_s) : fd_v3_sub(surface_s, surface_p);
    out.arm_i = plane_first ? arm_p : arm_s;
    out.arm_j = plane_first ? arm_s : arm_p;
    return out;
}

/* A sphere-sphere or sphere-plane contact through the scalar sphere kernel
 * (sphere_kernel.h): its geometry from the centres, the law, the loads. */
static inline __attribute__((always_inline)) fd_pair_loads sphere_pair(fd_world* world, fd_penalty* penalty,
                                                                      const fd_neighbor_list* list,
                                                                      int32_t e, int i, int j, int32_t slot,
                                                                      bool ledger, bool record, int64_t index,
                                                                      fd_energy_books* step_books_out)
{
    const fd_body_state state_i = fd_world_state(world, i), state_j = fd_world_state(world, j);
    const fd_body_state* si = &state_i;
    const fd_body_state* sj = &state_j;
    const double* radii = world->bounding_radii;
    fd_contact_pool* pool = &penalty->pool;
    const fd_contact_law* law = &world->laws[list->law[e]];
    const double* constants = pool->constants + (size_t)slot * (size_t)penalty->constant_stride;
    int stride = world->history_stride;
    double* history = fd_springs_to_update(pool, slot, stride);
    uint8_t kind = list->kind[e];
    fd_pair_loads out;
    fd_vec3 n, relative;
    double overlap;
    fd_vec3 offset = {0.0, 0.0, 0.0};
    fd_vec3 arm_i = {0, 0, 0}, arm_j = {0, 0, 0};
    double a_i = 0.0, a_j = 0.0;
    if (kind == FD_PAIR_SPHERE_SPHERE) {
        fd_vec3 d = fd_v3_sub(si->position, sj->position);
        if (world->periodic.any) {
            offset = fd_periodic_near_offset(&world->periodic, d);
            d = fd_v3_sub(d, offset);
        }
        double distance = sqrt(fd_v3_dot(d, d));
        /* Coincident centres: +z, deterministically (narrowphase.c). */
        n = distance > 0.0 ? fd_v3_scale(1.0 / distance, d) : fd_v3(0.0, 0.0, 1.0);
        overlap = radii[i] + radii[j] - distance;
        /* The contact point halfway between the two surfaces: a_i from centre
         * i and a_j from centre j along the line of centres. */
        a_i = radii[i] - 0.5 * overlap;
        a_j = radii[j] - 0.5 * overlap;
        /* The sliding velocity's arms: the same point, or LAMMPS's full radii. */
        bool lammps = world->def.lammps_arms;
        relative = fd_v3_sub(fd_v3_sub(si->velocity, sj->velocity),
                             fd_v3_cross(fd_v3_add(fd_v3_scale(lammps ? radii[i] : a_i, si->angular_velocity),
                                                   fd_v3_scale(lammps ? radii[j] : a_j, sj->angular_velocity)),
                                         n));
    } else {
        plane_pair pair = plane_pair_geometry(world, kind, i, j);
        n = pair.n;
        overlap = pair.overlap;
        relative = pair.relative;
        arm_i = pair.arm_i;
        arm_j = pair.arm_j;
    }
    /* With the ledger the step books go straight to the caller's (its
     * chunk's sums take them from there). */
    fd_energy_books record_books[FD_MECHANISM_COUNT];
    fd_energy_books* step_books = ledger ? step_books_out : record_books;
    if (ledger || record) {
        /* Book by book: a memset of the 160 bytes is a slow `rep stos`. */
        for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
            step_books[m].stored = step_books[m].dashpot = step_books[m].slip = 0.0;
            step_books[m].created = step_books[m].work = 0.0;
        }
    }
    fd_sphere_loads loads = fd_sphere_kernel(law, constants, world->def.time_step, penalty->spring_time_step, n,
                                             overlap, relative,
                                             si->angular_velocity, sj->angular_velocity,
                                             pool->state[slot] & (FD_ENTRY_NOW & ~FD_ENTRY_TOUCHING), history,
                                             ledger || record ? step_books : NULL);
    out.force = fd_v3_mul_add(loads.slide_force, loads.normal_force, n);
    fd_vec3 roll_spin = fd_v3_mul_add(loads.roll_torque, loads.spin_torque, n);
    if (kind == FD_PAIR_SPHERE_SPHERE) {
        /* arm_i = -a_i n, arm_j = +a_j n: arm x F = -a n x F_t for both (the
         * full radii for LAMMPS's legacy pair styles). */
        if (world->def.lammps_arms && world->def.lammps_legacy_torque) {
            a_i = radii[i];
            a_j = radii[j];
        }
        fd_vec3 turn = fd_v3_cross(n, loads.slide_force);
        out.torque_i = fd_v3_sub(roll_spin, fd_v3_scale(a_i, turn));
        out.torque_j = fd_v3_neg(fd_v3_add(roll_spin, fd_v3_scale(a_j, turn)));
    } else {
        out.torque_i = fd_v3_add(fd_v3_cross(arm_i, out.force), roll_spin);
        out.torque_j = fd_v3_sub(fd_v3_cross(arm_j, fd_v3_neg(out.force)), roll_spin);
    }
    out.slip = loads.slip;
    if (ledger) {
        fd_book_slot(pool, slot, step_books, 0xfu);
    }
    if (record) {
        fd_record_sphere_contact(world, list, e, i, j, slot, index, offset, n, &loads, step_books, out.force, ledger);
    }
    return out;
}

/* The scalar sphere kernel with books, out of line: the few contacts that
 * take it in a ledger run (sphere-plane, wide turns) do not widen the chunk
 * loops, which then stay the plain pass's. */
static __attribute__((noinline)) fd_pair_loads sphere_pair_booked(fd_world* world, fd_penalty* penalty,
                                                                 const fd_neighbor_list* list,
                                                                 int32_t e, int i, int j, int32_t slot, int64_t index,
                                                                 fd_energy_books* step_books_out)
{
    return sphere_pair(world, penalty, list, e, i, j, slot, true, false, index, step_books_out);
}

/* sphere_pair for a pass's instantiation (record and ledger constants). */
static inline __attribute__((always_inline)) fd_pair_loads sphere_pair_of_pass(fd_world* world, fd_penalty* penalty,
                                                                              const fd_neighbor_list* list, int32_t e,
                                                                              int i, int j, int32_t slot, bool ledger,
                                                                              bool record, int64_t index,
                                                                              fd_energy_books* step_books_out)
{
    if (ledger && !record) {
        return sphere_pair_booked(world, penalty, list, e, i, j, slot, index, step_books_out);
    }
    return sphere_pair(world, penalty, list, e, i, j, slot, ledger, record, index, step_books_out);
}

/* The mechanisms a law has (bit 1 << mechanism). */
static unsigned block_mechanisms(const fd_contact_law* law)
{
    unsigned mechanisms = 0;
    for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
        mechanisms |= law->submodel[m] != NULL ? 1u << m : 0u;
    }
    return mechanisms;
}

/* The books and record of a contact the block kernel evaluated. */
static __attribute__((noinline)) void block_lane_details(fd_world* world, const fd_neighbor_list* list,
                                                         const fd_sphere_block* block, int c, int32_t e, int i, int j,
                                                         int32_t slot, int64_t index, fd_vec3 offset, bool ledger,
                                                         bool record, unsigned slip)
{
    fd_energy_books step_books[FD_MECHANISM_COUNT];
    for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
        step_books[m] = (fd_energy_books){block->books[m][0][c], block->books[m][1][c], block->books[m][2][c],
                                          block->books[m][3][c], 0.0};
    }
    unsigned mechanisms = block_mechanisms(&world->laws[list->law[e]]);
    if (ledger) {
        fd_book_slot(&world->penalty->pool, slot, step_books, mechanisms);
    }
    if (record) {
        for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
            if (!(mechanisms & (1u << m))) {
                step_books[m] = (fd_energy_books){0};
            }
        }
        fd_vec3 n = fd_v3(block->normal[0][c], block->normal[1][c], block->normal[2][c]);
        fd_vec3 force = fd_v3(block->force[0][c], block->force[1][c], block->force[2][c]);
        fd_sphere_loads loads = {
            .normal_force = block->normal_force[c],
            .elastic_force = block->elastic_force[c],
            .damping_force = block->damping_force[c],
            .slide_force = fd_v3(block->slide_force[0][c], block->slide_force[1][c], block->slide_force[2][c]),
            .roll_torque = fd_v3(block->roll_torque[0][c], block->roll_torque[1][c], block->roll_torque[2][c]),
            .spin_torque = block->twist_torque[c],
            .slip = slip,
        };
        fd_record_sphere_contact(world, list, e, i, j, slot, index, offset, n, &loads, step_books, force, ledger);
    }
}

/* The load of a contact this rank answers for on a tracked wall (penalty.h,
 * fd_wall_load); false when out of memory. */
static bool store_wall_load(fd_penalty_thread* th, int i, int j, fd_vec3 force, fd_vec3 torque_i, fd_vec3 torque_j)
{
    if (th->wall_load_count == th->wall_load_capacity &&
        !fd_grow((void**)&th->wall_loads, &th->wall_load_capacity, th->wall_load_count + 1,
                 sizeof *th->wall_loads)) {
        return false;
    }
    th->wall_loads[th->wall_load_count++] =
        (fd_wall_load){(uint64_t)(uint32_t)i << 32 | (uint32_t)j, force, torque_i, torque_j};
    return true;
}

/* A block lane's new sliding spring, and its rolling spring with the
 * normal it was turned to, into the contact's springs. */
static inline __attribute__((always_inline)) void put_slide_lane(double* restrict history,
                                                                 const fd_sphere_block* restrict block, int c)
{
    history[0] = block->spring_after[0][c];
    history[1] = block->spring_after[1][c];
    history[2] = block->spring_after[2][c];
}
static inline __attribute__((always_inline)) void put_roll_lane(double* restrict roll,
                                                                const fd_sphere_block* restrict block, int c)
{
    roll[0] = block->roll_spring_after[0][c];
    roll[1] = block->roll_spring_after[1][c];
    roll[2] = block->roll_spring_after[2][c];
    roll[3] = block->normal[0][c];
    roll[4] = block->normal[1][c];
    roll[5] = block->normal[2][c];
}

/* A contact's loads onto its two bodies: i's here, j's too when this
 * thread holds its row, else into the thread's buffer for the serial
 * stage. False when out of memory. */
static inline __attribute__((always_inline)) bool add_loads(fd_penalty_thread* th, fd_vec3* forces, fd_vec3* torques,
                                                            int i, int j, int end_row, fd_vec3 force, fd_vec3 torque_i,
                                                            fd_vec3 torque_j)
{
    forces[i] = fd_v3_add(forces[i], force);
    torques[i] = fd_v3_add(torques[i], torque_i);
    if (j < end_row) {
        forces[j] = fd_v3_sub(forces[j], force);
        torques[j] = fd_v3_add(torques[j], torque_j);
        return true;
    }
    if (th->remote_count == th->remote_capacity &&
        !fd_grow((void**)&th->remote, &th->remote_capacity, th->remote_count + 1, sizeof *th->remote)) {
        return false;
    }
    th->remote[th->remote_count++] = (fd_remote_load){fd_v3_neg(force), torque_j, j};
    return true;
}

/* A block lane's inputs of the law, whatever its geometry: the pair's
 * normal dashpot, the springs before the step and the last slip state. */
static inline __attribute__((always_inline)) void gather_law_inputs(fd_sphere_block* restrict block, int c,
                                                                    const fd_contact_pool* pool,
                                                                    const fd_block_law* law, int32_t slot,
                                                                    const double* history, int constant_stride)
{
    const double* constants = pool->constants + (size_t)slot * (size_t)constant_stride;
    block->damping[c] = constants[0];
    block->spring[0][c] = history[0];
    block->spring[1][c] = history[1];
    block->spring[2][c] = history[2];
    /* The last step's slip state (the pass writes the new one in its loads'
     * loop). */
    block->was_slipping[c] = (double)(pool->state[slot] & (FD_ENTRY_NOW & ~FD_ENTRY_TOUCHING));
    if (law->roll != FD_KIND_NONE || law->spin != FD_KIND_NONE) {
        block->effective_radius[c] = constants[1];
        const double* roll = history + law->roll_offset;
        block->roll_spring[0][c] = roll[0];
        block->roll_spring[1][c] = roll[1];
        block->roll_spring[2][c] = roll[2];
        block->roll_normal[0][c] = roll[3];
        block->roll_normal[1][c] = roll[4];
        block->roll_normal[2][c] = roll[5];
        block->twist_spring[c] = history[law->spin_offset];
        block->wide_turn[c] = 0.0;
    }
}

/* Whether some lane's rolling spring turned too far for the block. */
static inline bool any_wide_turn(const fd_sphere_block* block)
{
    double wide = 0.0;
    for (int c = 0; c < block->count; ++c) {
        wide += block->wide_turn[c] != 0.0;
    }
    return wide > 0.0;
}

/* The commonest chunk, on a pass that does not record (and, with the
 * ledger, in one process: every row's books summed by its group): every
 * contact a lane of a block of one law (spheres, or planes: slot s is lane
 * slot_lane[s] of block slot_block[s]), and no lane whose rolling spring
 * turned too far (all of them, then, as the slot-by-slot loop of law_pass
 * would take them). The springs go back mechanism by mechanism, with the
 * law's tests out of the loops; then the loads onto the bodies in slot
 * order, as that loop adds them. False when out of memory. */
static inline __attribute__((always_inline)) bool scatter_blocks(fd_penalty_thread* th, fd_contact_pool* pool,
                                                                 fd_sphere_block* const* blocks,
                                                                 const int8_t* slot_block, const int8_t* slot_lane,
                                                                 const fd_block_law* law, int chunk,
                                                                 const int32_t* slot_contact,
                                                                 const int32_t* slot_i, const int32_t* slot_j,
                                                                 double* springs_after, int stride,
                                                                 fd_vec3* forces, fd_vec3* torques, int end_row,
                                                                 bool ledger, int32_t* running_group,
                                                                 fd_energy_books* running)
{
    if (law->slide != FD_KIND_NONE) {
        for (int s = 0; s < chunk; ++s) {
            put_slide_lane(springs_after + (size_t)slot_contact[s] * (size_t)stride, blocks[slot_block[s]],
                           slot_lane[s]);
        }
    }
    if (law->roll != FD_KIND_NONE) {
        for (int s = 0; s < chunk; ++s) {
            put_roll_lane(springs_after + (size_t)slot_contact[s] * (size_t)stride + law->roll_offset,
                          blocks[slot_block[s]], slot_lane[s]);
        }
    }
    if (law->spin != FD_KIND_NONE) {
        for (int s = 0; s < chunk; ++s) {
            springs_after[(size_t)slot_contact[s] * (size_t)stride + law->spin_offset] =
                blocks[slot_block[s]]->twist_spring_after[slot_lane[s]];
        }
    }
    if (ledger && !fd_book_blocks(th, pool, blocks, slot_block, slot_lane, law, chunk, slot_contact, slot_i,
                               running_group, running)) {
        return false;
    }
    uint8_t* state = pool->state;
    for (int s = 0; s < chunk; ++s) {
        int i = slot_i[s], j = slot_j[s];
        int32_t slot = slot_contact[s];
        const fd_sphere_block* block = blocks[slot_block[s]];
        int c = slot_lane[s];
        fd_vec3 force = fd_v3(block->force[0][c], block->force[1][c], block->force[2][c]);
        fd_vec3 torque_i = fd_v3(block->torque_i[0][c], block->torque_i[1][c], block->torque_i[2][c]);
        fd_vec3 torque_j = fd_v3(block->torque_j[0][c], block->torque_j[1][c], block->torque_j[2][c]);
        unsigned slip = (unsigned)block->slip[c]; /* a small integer as a double: no branch */
        state[slot] = (uint8_t)(((unsigned)state[slot] << 4) | slip | FD_ENTRY_TOUCHING);
        if (!add_loads(th, forces, torques, i, j, end_row, force, torque_i, torque_j)) {
            return false;
        }
    }
    return true;
}

/* How many contacts ahead of the one in hand the law pass asks for a
 * contact's springs and constants: enough to cover a memory latency with
 * the work of a few contacts, and few enough that the lines are still there
 * when the contact comes (8 and 16 measured the same on the 10^4 pile). */
#define FD_PREFETCH_AHEAD 8

/* Asks for the cache lines of `bytes` (> 0) bytes from `start`, to be read
 * or to be written: every 64 bytes from the start, then the last byte's
 * line (asking for each spanned line once, a count that varies with the
 * alignment, measured no faster). */
static inline __attribute__((always_inline)) void prefetch_lines(const void* start, size_t bytes, bool for_write)
{
    const char* first = start;
    for (size_t b = 0; b < bytes; b += 64) {
        if (for_write) {
            __builtin_prefetch(first + b, 1, 3);
        } else {
            __builtin_prefetch(first + b, 0, 3);
        }
    }
    if (for_write) {
        __builtin_prefetch(first + bytes - 1, 1, 3);
    } else {
        __builtin_prefetch(first + bytes - 1, 0, 3);
    }
}

/* Asks the memory for what the pass reads and writes of a contact's slot:
 * its springs in both buffers (read the one, written the other) and its
 * pair constants. The pass walks the pool's slots downwards, each contact's
 * springs a few cache lines that straddle their ends; the hardware's
 * prefetchers did not keep up: on the Fang & Negrut pile (23 doubles of
 * springs a contact) the first load of each contact's springs took a fifth
 * of the whole step (perf), and asking ahead took the step to 0.71x at
 * 10^4, 0.75x at 10^5, and rolling + twisting dsds (10 doubles) to ~0.97x
 * (alternated pairs); hooke + dsds (3 doubles, within a line) went to
 * ~1.04x, so the pass asks only for springs longer than a line. The
 * ledger's books asked for the same way made its pass slower (1.07x). No
 * result depends on it. */
static inline __attribute__((always_inline)) void prefetch_slot(const fd_contact_pool* pool,
                                                               const double* springs_before, double* springs_after,
                                                               int stride, int constant_stride, int32_t slot)
{
    if (slot == FD_NO_CONTACT) {
        return; /* a contact that begins: its slot is not known yet */
    }
    size_t bytes = (size_t)stride * sizeof(double);
    if (bytes > 0) { /* (no springs: no arrays, and no offset on NULL) */
        prefetch_lines(springs_before + (size_t)slot * (size_t)stride, bytes, false);
        prefetch_lines(springs_after + (size_t)slot * (size_t)stride, bytes, true);
    }
    __builtin_prefetch(pool->constants + (size_t)slot * (size_t)constant_stride, 0, 3);
}

/* Asks for the lines of body b's states that the law pass reads (position,
 * velocity, angular velocity, bounding radius) and writes (force, torque). */
static inline __attribute__((always_inline)) void prefetch_body(const fd_vec3* position, const fd_vec3* velocity,
                                                               const fd_vec3* angular_velocity,
                                                               const fd_vec3* forces, const fd_vec3* torques,
                                                               const double* radii, int b)
{
    __builtin_prefetch(&position[b], 0, 3);
    __builtin_prefetch(&velocity[b], 0, 3);
    __builtin_prefetch(&angular_velocity[b], 0, 3);
    __builtin_prefetch(&radii[b], 0, 3);
    __builtin_prefetch(&forces[b], 1, 3);
    __builtin_prefetch(&torques[b], 1, 3);
}

/* `record` and `ledger` are constants in each instantiation below, so the
 * hot one carries no record or book code. */
static inline __attribute__((always_inline)) void law_pass(fd_world* world, fd_neighbor_list* list,
                                                            fd_penalty_thread* th, int end_row, bool record,
                                                            bool ledger)
{
    fd_penalty* p = world->penalty;
    fd_contact_pool* pool = &p->pool;
    fd_vec3* forces = world->forces;
    fd_vec3* torques = world->torques;
    const fd_vec3* restrict position = world->position;
    const fd_vec3* restrict velocity = world->velocity;
    const fd_vec3* restrict angular_velocity = world->angular_velocity;
    const double* restrict radii = world->bounding_radii;
    const fd_periodic* periodic = &world->periodic;
    bool any_periodic = periodic->any;
    int stride = world->history_stride;
    /* The springs' two buffers (fd_springs_before, _after): nothing in the
     * pass moves or flips them. */
    const double* springs_before = fd_springs_before(pool, 0, stride);
    double* springs_after = fd_springs_after(pool, 0, stride);
    int constant_stride = p->constant_stride;
    /* Springs that span more than a cache line are asked for ahead
     * (prefetch_slot); a line or less, the hardware's prefetchers keep up. */
    bool ask_ahead = (size_t)stride * sizeof(double) > 64;
    /* Where what the pass reads outgrows the cache (penalty.h, law_ahead),
     * it asks for both bodies' states, the entries' fields and the slots'
     * data ahead: the pass reads some fifteen arrays at once (the entries',
     * the pool's, body i's and j's), more streams than the hardware's
     * prefetchers follow, and the partners' come in a few strides too many.
     * The 10^6 pile, hooke + dsds, the law stage (medians of three
     * alternated runs): 61.7 -> 59.1 ms with the entries, -> 57.9 with the
     * partners' radii, -> 55.2 with the slots' constants, slip states and
     * springs (asking for the springs' other buffer, written, measured no
     * faster). */
    bool law_ahead = p->law_ahead;
    int64_t new_left = th->new_count;         /* new contacts take their slots counted down */
    uint64_t next_id = th->first_id + (uint64_t)th->new_count;
    int32_t generic_left = th->slot_count;    /* generic geometries, counted down */
    const int* block_law_index = p->block_law_index;
    /* The list's and the thread's arrays, read once: the calls on the rare
     * paths (a contact that begins, the scalar kernels) would otherwise
     * make the compiler read the pointers again for every contact. The
     * entries' contact slots are written by begin_contact (its own entry,
     * after this pass read it). */
    const fd_touch* touching = th->touching;
    const fd_vec3* separation = th->separation; /* with periodic axes (distance_pass.c) */
    const int32_t* partner = list->partner;
    const int32_t* entry_contact = list->contact;
    const uint8_t* entry_kind = list->kind;
    const uint16_t* entry_law = list->law;
    int8_t slot_block[FD_BLOCK];                 /* which block, or -1: not in a block */
    int8_t slot_lane[FD_BLOCK];                  /* its lane in that block */
    int32_t slot_fn[FD_BLOCK];                   /* its lane in th->fn_block, or -1 */
    int32_t slot_contact[FD_BLOCK];
    int32_t slot_i[FD_BLOCK], slot_j[FD_BLOCK];
    fd_pair_loads slot_loads[FD_BLOCK];
    fd_energy_books slot_books[FD_BLOCK][FD_MECHANISM_COUNT]; /* the ledger's step books of the scalar paths */
    fd_vec3 lane_offset[FD_BLOCKS_PER_CHUNK][FD_BLOCK];
    th->book_group_count = 0;
    th->book_entry_count = 0;
    th->wall_load_count = 0;
    const uint8_t* book_rows = p->book_rows;
    /* The sums of the group of rows being summed (fd_book_group), kept here
     * rather than in the list: each contact adds to them, and a sum in
     * memory would wait for the store of the one before. */
    int32_t running_group = -1;
    fd_energy_books running[FD_MECHANISM_COUNT];
    memset(running, 0, sizeof running);
    for (int64_t top = th->touching_count - 1; top >= 0; top -= FD_BLOCK) {
        int chunk = top + 1 < FD_BLOCK ? (int)(top + 1) : FD_BLOCK;
        int block_law[FD_BLOCKS_PER_CHUNK]; /* each block's key: 2 * its law + 1 for planes; -1 unused */
        for (int b = 0; b < FD_BLOCKS_PER_CHUNK; ++b) {
            th->block[b]->count = 0;
            block_law[b] = -1;
        }
        int fn_block_law[FD_FN_PAIRINGS]; /* per pairing (fd_fn_shapes) */
        for (int f = 0; f < FD_FN_PAIRINGS; ++f) {
            th->fn_block[f]->count = 0;
            fn_block_law[f] = -1;
        }
        for (int s = 0; s < chunk; ++s) {
            int64_t k = top - s;
            if (law_ahead && k >= FD_ENTRY_AHEAD) {
                int32_t far = touching[k - FD_ENTRY_AHEAD].entry;
                __builtin_prefetch(&partner[far], 0, 3);
                __builtin_prefetch(&entry_contact[far], 0, 3);
                __builtin_prefetch(&entry_kind[far], 0, 3);
                __builtin_prefetch(&entry_law[far], 0, 3);
            }
            if (ask_ahead && k >= FD_PREFETCH_AHEAD) {
                prefetch_slot(pool, springs_before, springs_after, stride, constant_stride,
                              entry_contact[touching[k - FD_PREFETCH_AHEAD].entry]);
            }
            if (law_ahead && k >= FD_PARTNER_AHEAD) {
                const fd_touch far = touching[k - FD_PARTNER_AHEAD];
                int ahead = partner[far.entry];
                prefetch_body(position, velocity, angular_velocity, forces, torques, radii, ahead);
                /* Body i's too: its rows come in order, but with a contact
                 * count that varies from row to row, a stride the hardware's
                 * prefetchers do not follow (the 10^6 pile's law stage
                 * 54.4 -> 49.8 and 51.9 -> 50.3 ms, medians of two sets of
                 * three alternated runs; rolling + twisting 78.2 -> 74.9). */
                prefetch_body(position, velocity, angular_velocity, forces, torques, radii, far.row);
                /* Its slot's pair constants, slip state and springs (their
                 * first line; longer springs are asked for whole above). */
                int32_t ahead_slot = entry_contact[far.entry];
                if (ahead_slot != FD_NO_CONTACT && !ask_ahead && stride > 0) {
                    __builtin_prefetch(pool->constants + (size_t)ahead_slot * (size_t)constant_stride, 0, 3);
                    __builtin_prefetch(pool->state + ahead_slot, 1, 3);
                    __builtin_prefetch(springs_before + (size_t)ahead_slot * (size_t)stride, 0, 3);
                }
            }
            const fd_touch touch = touching[k];
            int32_t e = touch.entry;
            int i = touch.row, j = partner[e];
            int64_t index = th->first_contact + k; /* this contact's place in key order */
            int32_t slot = entry_contact[e];
            bool is_new = slot == FD_NO_CONTACT;
            if (is_new) {
                slot = th->new_slots[--new_left];
                th->new_keys[new_left] = (uint64_t)(uint32_t)i << 32 | (uint32_t)j;
                begin_contact(world, list, e, i, j, slot, --next_id);
            }
            slot_contact[s] = slot;
            slot_i[s] = i;
            slot_j[s] = j;
            slot_fn[s] = -1;
            const double* history = springs_before + (size_t)slot * (size_t)stride;
            uint8_t kind = entry_kind[e];
            /* A sphere-plane contact takes a block of planes, except on a
             * pass that records (its record is the scalar path's). */
            bool on_plane = kind != FD_PAIR_SPHERE_SPHERE;
            int law_block = kind == FD_PAIR_SPHERE_SPHERE || (kind < FD_PAIR_GENERIC && !record)
                                ? block_law_index[entry_law[e]]
                                : -1;
            int block_key = law_block >= 0 ? 2 * law_block + on_plane : -1; /* block_law's entries */
            /* The chunk's block for this law and geometry: the first free or
             * its own (the first block's, most often: one law in the chunk). */
            int which = block_key >= 0 && block_law[0] == block_key ? 0 : -1;
            for (int b = 0; b < FD_BLOCKS_PER_CHUNK && block_key >= 0 && which < 0; ++b) {
                if (block_law[b] < 0) {
                    block_law[b] = block_key;
                    th->block[b]->planes = on_plane;
                }
                which = block_law[b] == block_key ? b : -1;
            }
            if (which >= 0) {
                /* A lane of the block: its inputs, gathered. */
                fd_sphere_block* block = th->block[which];
                int c = block->count++;
                slot_block[s] = (int8_t)which;
                slot_lane[s] = (int8_t)c;
                if (on_plane) {
                    /* A block of planes: the scalar path's geometry. */
                    plane_pair pair = plane_pair_geometry(world, kind, i, j);
                    FD_LANE_STORE3(block->plane_normal, c, pair.n);
                    block->plane_overlap[c] = pair.overlap;
                    FD_LANE_STORE3(block->plane_relative, c, pair.relative);
                    FD_LANE_STORE3(block->arm_i, c, pair.arm_i);
                    FD_LANE_STORE3(block->arm_j, c, pair.arm_j);
                } else {
                    /* x_i - x_j at the nearest image; with periodic axes the
                     * distance pass's (the same operations on the same
                     * positions), found once. */
                    fd_vec3 d = any_periodic ? separation[k] : fd_v3_sub(position[i], position[j]);
                    if (record) {
                        lane_offset[which][c] = any_periodic
                                                    ? fd_periodic_near_offset(periodic,
                                                                              fd_v3_sub(position[i], position[j]))
                                                    : fd_v3(0.0, 0.0, 0.0);
                    }
                    FD_LANE_STORE3(block->separation, c, d);
                    FD_LANE_STORE3(block->velocity_i, c, velocity[i]);
                    FD_LANE_STORE3(block->velocity_j, c, velocity[j]);
                    block->radius_i[c] = radii[i];
                    block->radius_j[c] = radii[j];
                }
                FD_LANE_STORE3(block->spin_i, c, angular_velocity[i]);
                FD_LANE_STORE3(block->spin_j, c, angular_velocity[j]);
                gather_law_inputs(block, c, pool, &p->block_laws[law_block], slot, history, constant_stride);
                continue;
            }
            slot_block[s] = -1;
            if (kind < FD_PAIR_GENERIC) {
                slot_loads[s] =
                    sphere_pair_of_pass(world, p, list, e, i, j, slot, ledger, record, index, slot_books[s]);
            } else if (kind == FD_PAIR_GENERIC) {
                const fd_generic_slot* geometry = &th->slots[--generic_left];
                slot_loads[s] = fd_generic_pair(world, list, e, i, j, slot, geometry, geometry->offset.x,
                                                geometry->offset.y, geometry->offset.z, is_new, ledger, record, index,
                                                slot_books[s]);
            } else {
                /* Fang & Negrut's sphere lanes take a plain pass's contacts
                 * of one lane law, a chunk at a time (fn_lanes.c). */
                int fn = fd_fn_lane_law_of_entry(p, list, e, is_new);
                int shapes = kind - FD_PAIR_GENERIC_SPHERES; /* an fd_fn_shapes where fn >= 0 */
                if (fn >= 0 && !record && !ledger && (fn_block_law[shapes] < 0 || fn_block_law[shapes] == fn) &&
                    fd_fn_gather(world, th->fn_block[shapes], th->fn_block[shapes]->count, shapes, i, j, slot,
                                 &p->fn_lane_laws[fn])) {
                    fn_block_law[shapes] = fn;
                    slot_fn[s] = shapes * FD_FN_BLOCK + th->fn_block[shapes]->count++;
                    continue;
                }
                /* A round pair of a registry law: its geometry now, from the centres. */
                fd_generic_slot geometry;
                int pairing = kind - FD_PAIR_GENERIC_SPHERES;
                fd_vec3 offset = record ? fd_round_pair_record_geometry(world, i, j, pairing, &geometry)
                                        : fd_round_pair_geometry(world, i, j, pairing, &geometry);
                /* (springs written over, in a step made in place: the
                 * lane below must read them as they were) */
                double* springs = springs_after + (size_t)slot * (size_t)stride;
                size_t lane_bytes = fn >= 0 ? (size_t)p->fn_lane_laws[fn].history_size * sizeof(double) : 0;
                bool over = fn >= 0 && springs == springs_before + (size_t)slot * (size_t)stride;
                double held[FD_FN_SPRINGS], registry[FD_FN_SPRINGS];
                if (over) {
                    memcpy(held, springs, lane_bytes);
                }
                slot_loads[s] = fd_generic_pair(world, list, e, i, j, slot, &geometry, offset.x, offset.y, offset.z,
                                                is_new, ledger, record, index, slot_books[s]);
                /* A lane's contact on a pass that records or keeps books
                 * (which the registry's path just did): its loads and
                 * springs from the lane all the same, so that the motion
                 * does not depend on what is written when. */
                if (over) {
                    memcpy(registry, springs, lane_bytes);
                    memcpy(springs, held, lane_bytes);
                }
                fd_pair_loads lane_loads;
                if (fn >= 0 &&
                    fd_fn_single(world, &p->fn_lane_laws[fn], th->fn_single, shapes, i, j, slot, &lane_loads)) {
                    slot_loads[s] = lane_loads;
                } else if (over) {
                    memcpy(springs, registry, lane_bytes); /* the lane left it to the registry's path */
                }
            }
        }
        const fd_block_law* chunk_law[FD_BLOCKS_PER_CHUNK]; /* each block's law (NULL: unused) */
        for (int b = 0; b < FD_BLOCKS_PER_CHUNK; ++b) {
            fd_sphere_block* block = th->block[b];
            chunk_law[b] = block->count > 0 ? &p->block_laws[block_law[b] / 2] : NULL;
            if (block->count == 0) {
                continue;
            }
            const fd_block_law* law = chunk_law[b];
            if (record) {
                fd_sphere_block_run_full(block, law);
            } else if (ledger) {
                fd_sphere_block_run_books(block, law);
            } else {
                fd_sphere_block_run(block, law);
            }
        }
        bool fn_lanes = false;
        for (int f = 0; f < FD_FN_PAIRINGS; ++f) {
            if (th->fn_block[f]->count > 0) {
                const fd_fn_lane_law* fn_law = &p->fn_lane_laws[fn_block_law[f]];
                fd_fn_gather_springs(th->fn_block[f], fn_law, pool, stride);
                fd_fn_block_run(th->fn_block[f], fn_law, (fd_fn_shapes)f);
                fd_fn_scatter_springs(th->fn_block[f], fn_law, pool, stride);
                fn_lanes = true;
            }
        }
        for (int s = 0; s < chunk && fn_lanes; ++s) {
            if (slot_fn[s] < 0) {
                continue;
            }
            int f = slot_fn[s] / FD_FN_BLOCK, c = slot_fn[s] % FD_FN_BLOCK;
            const fd_fn_block* fn_block = th->fn_block[f];
            int32_t slot = slot_contact[s];
            if (fn_block->fallback[c] == 0.0) {
                slot_loads[s] = fd_fn_lane_loads(fn_block, c);
                continue;
            }
            /* What the lanes leave to the registry (fang_negrut_lane.h). */
            int32_t e = th->touching[top - s].entry;
            int i = slot_i[s], j = slot_j[s];
            fd_generic_slot geometry;
            fd_vec3 offset = fd_round_pair_geometry(world, i, j, list->kind[e] - FD_PAIR_GENERIC_SPHERES, &geometry);
            slot_loads[s] = fd_generic_pair(world, list, e, i, j, slot, &geometry, offset.x, offset.y, offset.z,
                                            false, false, false, th->first_contact + top - s, slot_books[s]);
        }
        /* Every contact of the chunk a lane of one law's blocks, none turned too far? */
        int in_blocks = 0;
        bool one_law = chunk_law[0] != NULL;
        for (int b = 0; b < FD_BLOCKS_PER_CHUNK && one_law; ++b) {
            const fd_sphere_block* block = th->block[b];
            in_blocks += block->count;
            one_law = block->count == 0 || (chunk_law[b] == chunk_law[0] &&
                                             (chunk_law[b]->roll == FD_KIND_NONE || !any_wide_turn(block)));
        }
        if (!record && (!ledger || book_rows == NULL) && one_law && in_blocks == chunk) {
            if (!scatter_blocks(th, pool, th->block, slot_block, slot_lane, chunk_law[0], chunk, slot_contact, slot_i,
                                slot_j, springs_after, stride, forces, torques, end_row, ledger, &running_group,
                                running)) {
                th->failure = FD_PASS_OUT_OF_MEMORY;
                return;
            }
            continue;
        }
        /* The chunk's loads onto the bodies, slot by slot. */
        for (int s = 0; s < chunk; ++s) {
            int64_t k = top - s;
            int i = slot_i[s], j = slot_j[s];
            int32_t slot = slot_contact[s];
            int which = slot_block[s] >= 0 ? slot_block[s] : 0;
            int c = slot_block[s] >= 0 ? slot_lane[s] : -1;
            const fd_sphere_block* block = th->block[which];
            const fd_block_law* law = chunk_law[which];
            fd_vec3 force, torque_i, torque_j;
            unsigned slip;
            if (c >= 0 && law->roll != FD_KIND_NONE && block->wide_turn[c] != 0.0) {
                /* The rolling spring turns too far for the block: the scalar
                 * kernel, with the library's sine and cosine. */
                int32_t e = th->touching[k].entry;
                slot_loads[s] = sphere_pair_of_pass(world, p, list, e, i, j, slot, ledger, record,
                                                    th->first_contact + k,
                                                    slot_books[s]);
                c = -1;
            }
            if (c >= 0) {
                force = fd_v3(block->force[0][c], block->force[1][c], block->force[2][c]);
                torque_i = fd_v3(block->torque_i[0][c], block->torque_i[1][c], block->torque_i[2][c]);
                torque_j = fd_v3(block->torque_j[0][c], block->torque_j[1][c], block->torque_j[2][c]);
                slip = (unsigned)block->slip[c]; /* a small integer as a double: no branch */
                double* history = springs_after + (size_t)slot * (size_t)stride;
                if (law->slide != FD_KIND_NONE) {
                    put_slide_lane(history, block, c);
                }
                if (law->roll != FD_KIND_NONE) {
                    put_roll_lane(history + law->roll_offset, block, c);
                }
                if (law->spin != FD_KIND_NONE) {
                    history[law->spin_offset] = block->twist_spring_after[c];
                }
                if (record) {
                    block_lane_details(world, list, block, c, th->touching[k].entry, i, j, slot,
                                       th->first_contact + k, lane_offset[which][c], ledger, record, slip);
                } else if (ledger) {
                    fd_book_block_lane(pool, block, law, c, slot);
                }
            } else {
                force = slot_loads[s].force;
                torque_i = slot_loads[s].torque_i;
                torque_j = slot_loads[s].torque_j;
                slip = slot_loads[s].slip;
            }
            int book_row = ledger && book_rows != NULL ? fd_book_row_of(book_rows, i, j) : FD_BOOK_ROW_GROUP;
            if (ledger && book_row == FD_BOOK_ROW_GROUP) {
                if (!fd_enter_row_group(th, &running_group, running, i)) {
                    th->failure = FD_PASS_OUT_OF_MEMORY;
                    return;
                }
                if (c >= 0) {
                    fd_add_block_books(running, block, law, c);
                } else {
                    fd_add_books(running, slot_books[s]);
                }
            } else if (ledger && book_row == FD_BOOK_ROW_EACH &&
                       !fd_store_book_entry(th, i, j, c >= 0 ? block : NULL, law, c, slot_books[s])) {
                th->failure = FD_PASS_OUT_OF_MEMORY;
                return;
            }
            if (ledger && book_rows != NULL && book_row != FD_BOOK_ROW_NONE &&
                ((book_rows[i] | book_rows[j]) & FD_BOOK_ROW_TRACKED) &&
                !store_wall_load(th, i, j, force, torque_i, torque_j)) {
                th->failure = FD_PASS_OUT_OF_MEMORY;
                return;
            }
            unsigned state = pool->state[slot];
            if (record) {
                fd_record_identity(world, list, th->touching[k].entry, i, j, slot, th->first_contact + k, state, slip);
                fd_contact* recorded = &p->record_set->contacts[th->first_contact + k];
                recorded->applied_force = force;
                recorded->applied_torque_i = torque_i;
                recorded->applied_torque_j = torque_j;
            }
            pool->state[slot] = (uint8_t)((state << 4) | slip | FD_ENTRY_TOUCHING);
            if (!add_loads(th, forces, torques, i, j, end_row, force, torque_i, torque_j)) {
                th->failure = FD_PASS_OUT_OF_MEMORY;
                return;
            }
        }
    }
    if (ledger && running_group >= 0 && !fd_store_book_group(th, running_group, running)) {
        th->failure = FD_PASS_OUT_OF_MEMORY;
    }
}

static void law_pass_plain(fd_world* w, fd_neighbor_list* l, fd_penalty_thread* t, int end)
{
    law_pass(w, l, t, end, false, false);
}
static void law_pass_ledger(fd_world* w, fd_neighbor_list* l, fd_penalty_thread* t, int end)
{
    law_pass(w, l, t, end, false, true);
}
static void law_pass_record(fd_world* w, fd_neighbor_list* l, fd_penalty_thread* t, int end)
{
    law_pass(w, l, t, end, true, false);
}
static void law_pass_record_ledger(fd_world* w, fd_neighbor_list* l, fd_penalty_thread* t, int end)
{
    law_pass(w, l, t, end, true, true);
}

void fd_law_pass(fd_world* world, fd_neighbor_list* list, fd_penalty_thread* th, int end_row, bool record,
                 bool ledger)
{
    if (record) {
        (ledger ? law_pass_record_ledger : law_pass_record)(world, list, th, end_row);
    } else {
        (ledger ? law_pass_ledger : law_pass_plain)(world, list, th, end_row);
    }
}
