/* Shared between the files of src/penalty/ only.
 *
 * Must not touch: the engine, the complementarity stepper, files, ranks. */
#ifndef FD_PENALTY_INTERNAL_H
#define FD_PENALTY_INTERNAL_H

#include <string.h>

#include "broadphase/broadphase.h"
#include "contact/model.h"
#include "core/grow.h"
#include "penalty/penalty.h"
#include "penalty/sphere_kernel.h"

/* The rewind point of the steps made in place (rewind.c; penalty.h says
 * why): taken every FD_REWIND_INTERVAL steps, and again whenever the world
 * was changed from outside its steps (fd_world_note_change). */
enum { FD_REWIND_INTERVAL = 256 };
/* Rewind points at most one per FD_REWIND_SPACING steps: a world changed
 * from outside more often (an inlet that inserts every step, a script that
 * sets a body every step) is stepped the careful way in between, which
 * costs what every step cost before the steps were made in place, not a
 * copy of the world a step. */
enum { FD_REWIND_SPACING = 32 };
/* Whether the next step made in place needs a new rewind point first. */
bool fd_rewind_due(const fd_world* world);
/* Whether one was taken less than FD_REWIND_SPACING steps ago. */
bool fd_rewind_taken_lately(const fd_world* world);
/* A rewind point at the world's state now, between steps: the bodies'
 * states and loads into the world's saved buffers, the contacts gathered. */
fd_status fd_rewind_take(fd_world* world);
/* The world back at its rewind point (bodies, contacts, clocks and books). */
fd_status fd_rewind_restore(fd_world* world);
/* The rewind point no longer holds (a careful step used the saved buffers). */
void fd_rewind_forget(fd_world* world);
void fd_rewind_free(struct fd_rewind* rewind);
/* Bytes the rewind point holds beyond the world's saved buffers (its contacts). */
size_t fd_rewind_memory(const struct fd_rewind* rewind);

struct fd_generic_slot {
    fd_contact_geometry geometry;
    fd_vec3 offset;               /* periodic image of body j */
};

/* Asking for the partners' body states ahead (penalty.h, partners_ahead):
 * the bytes a body's partners are read through in the force pass (position,
 * velocity, angular velocity, force and torque, bounding radius), and how
 * many contacts (law pass) or entries (distance pass) ahead. The
 * 10^6-sphere pile in lattice order: the law pass 68-81 -> 61-66 ms, the
 * distance pass 18.7-20.0 -> 15.7-16.6 ms; where the arrays fit the cache
 * (10^4) the asking cost the law pass 3 %, so it is asked for only beyond.
 * The law pass asks on its own test (penalty.h, law_ahead), for the
 * partners' and body i's states and the slots' data FD_PARTNER_AHEAD
 * contacts ahead and the entries' fields FD_ENTRY_AHEAD ahead
 * (law_pass.c), where the bytes it reads (force_pass.c, law_pass_bytes)
 * outgrow half the cache: the cache is shared
 * with the other cores, and the pass's arrays are not all it holds. The
 * piles, hooke + dsds, law stage: at 10^4 (2-3 MB) asking costs 11 %; at
 * 10^5 (21 MB of a 32 MB cache, the springs counted once as a step made in
 * place reads them; 26 MB as first counted) it gains 2 %, with the ledger
 * (23 MB) 6 %, where the distance pass's asking would lose 2 % of the step
 * (its bodies' 13 MB fit); at 10^6 12 %. */
enum { FD_PARTNER_BYTES = 5 * 24 + 8, FD_PARTNER_AHEAD = 16, FD_ENTRY_AHEAD = 32 };

/* Whether packing the pool in key order again pays (neighbor.c). Contacts
 * that began since the last packing each sit in a slot far from its key's
 * neighbours, where the law pass's read of its springs and constants misses
 * the caches. Packing costs about b per contact; each strayed slot costs
 * about a per pass. With B contacts begun over S passes since the last
 * packing, of U in all, packing when B S > 2 (b / a) U makes the sum of the
 * two per pass least (the strays grow by B / S a pass: their cost over S
 * passes is a B S / 2 against b U for the packing). Measured on the chute
 * (bench/chute, packing at fixed fractions of the pool: 1/8, 1/32, every
 * pass): b ~ 7 ns, a ~ 35 ns, so B S > 2 U / 5; at least 64 begun, so that
 * a small pool is not packed for a few. */
static inline bool fd_packing_pays(const fd_penalty* p)
{
    return p->begun_since_packed > 64 && p->begun_since_packed * p->passes_since_packed > 2 * p->pool.used / 5;
}

/* Failures a thread's pass reports (fd_penalty_thread.failure). */
enum { FD_PASS_OK = 0, FD_PASS_UNSUPPORTED = 1, FD_PASS_NO_LAW = 2, FD_PASS_OUT_OF_MEMORY = 3 };

/* What the law of one contact gives its two bodies. */
typedef struct fd_pair_loads {
    fd_vec3 force;                /* on body i; body j takes the opposite */
    fd_vec3 torque_i, torque_j;
    unsigned slip;                /* FD_ENTRY_SLIP_* */
} fd_pair_loads;

/* A slot's springs as the pass in progress found them, and as it leaves them. */
static inline double* fd_springs_before(const fd_contact_pool* pool, int32_t slot, int stride)
{
    return pool->history[pool->parity] + (size_t)slot * (size_t)stride;
}
static inline double* fd_springs_after(const fd_contact_pool* pool, int32_t slot, int stride)
{
    return pool->history[pool->parity ^ pool->flip] + (size_t)slot * (size_t)stride;
}

/* The springs a registry kernel updates in place: the pass's output, holding
 * the springs as the pass found them (the same buffer in a step made in
 * place, nothing to copy; else a copy). */
static inline double* fd_springs_to_update(const fd_contact_pool* pool, int32_t slot, int stride)
{
    double* after = fd_springs_after(pool, slot, stride);
    const double* before = fd_springs_before(pool, slot, stride);
    if (after != before) {
        memcpy(after, before, (size_t)stride * sizeof(double));
    }
    return after;
}

/* A slot's lifetime books as the pass in progress found them, and as it leaves them. */
static inline fd_energy_books* fd_books_before(const fd_contact_pool* pool, int32_t slot)
{
    return pool->books[pool->parity] + (size_t)slot * (size_t)pool->book_count;
}
static inline fd_energy_books* fd_books_after(const fd_contact_pool* pool, int32_t slot)
{
    return pool->books[pool->parity ^ pool->flip] + (size_t)slot * (size_t)pool->book_count;
}
/* after = before + this step's increments (stored: the step's), for the
 * mechanisms in `mechanisms` (bit 1 << mechanism); the others keep zero. */
static inline void fd_book_lifetime(fd_energy_books* after, const fd_energy_books* before,
                                    const fd_energy_books* step, unsigned mechanisms, int book_count)
{
    for (int m = 0; m < book_count; ++m) {
        if (mechanisms & (1u << m)) {
            after[m].stored = step[m].stored;
            after[m].dashpot = before[m].dashpot + step[m].dashpot;
            after[m].slip = before[m].slip + step[m].slip;
            after[m].created = before[m].created + step[m].created;
            after[m].work = before[m].work + step[m].work;
        }
    }
}
/* Without lifetime books, a slot's stored energies, the same way. */
static inline double* fd_stored_before(const fd_contact_pool* pool, int32_t slot)
{
    return pool->stored[pool->parity] + (size_t)slot * (size_t)pool->book_count;
}
static inline double* fd_stored_after(const fd_contact_pool* pool, int32_t slot)
{
    return pool->stored[pool->parity ^ pool->flip] + (size_t)slot * (size_t)pool->book_count;
}
/* A slot's stored energy of mechanism m as the pass found it, either way. */
static inline double fd_slot_stored_before(const fd_contact_pool* pool, int32_t slot, int m)
{
    return pool->lifetime_books ? fd_books_before(pool, slot)[m].stored : fd_stored_before(pool, slot)[m];
}
/* A contact's books after the pass: its lifetime books from the step's
 * (fd_book_lifetime), or its stored energies. */
static inline void fd_book_slot(const fd_contact_pool* pool, int32_t slot, const fd_energy_books* step,
                                unsigned mechanisms)
{
    if (pool->lifetime_books) {
        fd_book_lifetime(fd_books_after(pool, slot), fd_books_before(pool, slot), step, mechanisms, pool->book_count);
        return;
    }
    double* stored = fd_stored_after(pool, slot);
    for (int m = 0; m < pool->book_count; ++m) {
        if (mechanisms & (1u << m)) {
            stored[m] = step[m].stored;
        }
    }
}


/* Stage 1 (distance_pass.c): the touching entries of rows [first_row,
 * end_row) into the thread's list (`record`: the pass records contact
 * details, so generic geometries are complete); and the message of a
 * thread's failure. */
void fd_distance_pass(const fd_world* world, const fd_neighbor_list* list, fd_penalty_thread* th, int first_row,
                      int end_row, bool record);
fd_status fd_distance_failure(const fd_world* world, const fd_neighbor_list* list, const fd_penalty_thread* th);

/* Round pairs of the registry's laws (round_pair.c; `shapes` is the kind
 * less FD_PAIR_GENERIC_SPHERES): fd_collide's touching test and geometry
 * computed from the centres, bit for bit, without principal directions or
 * body-frame points; and fd_collide's full geometry for a record. Both also
 * return body j's image offset (out->offset), which the caller hands on in
 * registers: read back from `out` just after these stores, it stalled the
 * load (a 16-byte load of two 8-byte stores cannot be forwarded). The
 * touching test and the image offset: round_pair.h. */
fd_vec3 fd_round_pair_geometry(const fd_world* world, int i, int j, int shapes, fd_generic_slot* out);
fd_vec3 fd_round_pair_record_geometry(const fd_world* world, int i, int j, int shapes, fd_generic_slot* out);

/* The effective mass of a pair, a static body (mass 0) counting as infinite. */
static inline double fd_pair_effective_mass(double mass_i, double mass_j)
{
    if (mass_i <= 0.0) {
        return mass_j;
    }
    if (mass_j <= 0.0) {
        return mass_i;
    }
    return mass_i * mass_j / (mass_i + mass_j);
}

/* A contact's slip states (FD_ENTRY_SLIP_*) from a kernel's slip flags
 * (1 << mechanism): the same bits, the normal mechanism's left out. */
_Static_assert(FD_ENTRY_SLIP_SLIDE == 1u << FD_MECHANISM_SLIDE && FD_ENTRY_SLIP_ROLL == 1u << FD_MECHANISM_ROLL &&
                   FD_ENTRY_SLIP_SPIN == 1u << FD_MECHANISM_SPIN,
               "FD_ENTRY_SLIP_* are the mechanisms' bits");
static inline unsigned fd_entry_slip_of_flags(unsigned flags)
{
    return flags & (FD_ENTRY_SLIP_SLIDE | FD_ENTRY_SLIP_ROLL | FD_ENTRY_SLIP_SPIN);
}

/* Fang & Negrut's sphere lanes (fn_lanes.c; contact/fang_negrut_lane.h):
 * the lane law of an entry whose contacts the lanes may take, whatever the
 * pass (or -1): a round pair of a lane law, sphere-sphere or, outside
 * LAMMPS's wall conventions, sphere-plane; the lane law of an entry the
 * pass in progress takes through them: besides, a contact that has begun
 * before and an elapsed pass; lane c of a
 * block filled from the world and the slot's springs (false: a body whose
 * inertia is not isotropic, which the lanes do not take); the lane's loads
 * and springs into the pass's buffers; and one contact through a lane
 * alone (false where it falls back: the caller's registry path stands). */
static inline int fd_fn_lane_law_of_pair(const fd_penalty* p, const fd_neighbor_list* list, int32_t e)
{
    uint8_t kind = list->kind[e];
    bool lane_kind = kind == FD_PAIR_GENERIC_SPHERES + FD_PAIR_SPHERE_SPHERE ||
                     (p->fn_planes && (kind == FD_PAIR_GENERIC_SPHERES + FD_PAIR_SPHERE_PLANE ||
                                       kind == FD_PAIR_GENERIC_SPHERES + FD_PAIR_PLANE_SPHERE));
    return lane_kind && list->law[e] != FD_NO_LAW ? p->fn_lane_index[list->law[e]] : -1;
}
static inline int fd_fn_lane_law_of_entry(const fd_penalty* p, const fd_neighbor_list* list, int32_t e, bool is_new)
{
    return is_new || !p->turns_ready ? -1 : fd_fn_lane_law_of_pair(p, list, e);
}
/* The pair's constants the lanes read, which a contact keeps in its pool constants
 * from its first step on (law_pass.c begin_contact, snapshot.c): read in
 * slot order, where the bodies' would be read at random. */
enum {
    FD_FN_PAIR_DASHPOT = 0,       /* the normal dashpot's prefactor (fd_normal_dashpot_prefactor) */
    FD_FN_PAIR_RADIUS = 1,        /* + 0, 1: the radii, m */
    FD_FN_PAIR_MASS = 3,          /* + 0, 1: the masses, kg (0: static) */
    FD_FN_PAIR_INERTIA = 5,       /* + 0, 1: the moments of inertia, kg m^2 (NaN: not isotropic) */
    FD_FN_PAIR_EFFECTIVE_RADIUS = 7, /* m */
    FD_FN_PAIR_HERTZ = 8,         /* hertz's K = 4/3 E* sqrt(R_eff) (0 for hooke) */
    FD_FN_PAIR_CONSTANTS = 9,
};
void fd_fn_pair_constants(const fd_world* world, const fd_contact_law* law, int shapes, int i, int j, double* out);
bool fd_fn_single(fd_world* world, const struct fd_fn_lane_law* law, struct fd_fn_block* block, int shapes, int i,
                  int j, int32_t slot, fd_pair_loads* out);

/* Stage 3 (law_pass.c) for one thread, in each of its four forms. */
void fd_law_pass(fd_world* world, fd_neighbor_list* list, fd_penalty_thread* th, int end_row, bool record,
                 bool ledger);

/* Contact details (contact_details.c). A generic pair through the
 * registry's kernels (with its record and books; with the ledger its step
 * books also into step_books_out, FD_MECHANISM_COUNT of them; the image
 * offset of body j as three doubles, passed in registers: an fd_vec3
 * argument goes through the stack and is read back across the stores that
 * wrote it); the record
 * and books of a sphere contact; the identity part of any record; the
 * lifetime books; the events of a pass; the springs' energy of the contacts
 * that ended. */
fd_pair_loads fd_generic_pair(fd_world* world, const fd_neighbor_list* list, int32_t e, int i, int j, int32_t slot,
                              const fd_generic_slot* geometry, double offset_x, double offset_y, double offset_z,
                              bool is_new, bool ledger, bool record, int64_t index, fd_energy_books* step_books_out);
void fd_record_sphere_contact(fd_world* world, const fd_neighbor_list* list, int32_t e, int i, int j, int32_t slot,
                              int64_t index, fd_vec3 offset, fd_vec3 n, const fd_sphere_loads* loads,
                              const fd_energy_books* step_books, fd_vec3 force, bool ledger);
void fd_record_identity(fd_world* world, const fd_neighbor_list* list, int32_t e, int i, int j, int32_t slot,
                        int64_t index, unsigned state, unsigned slip);
fd_status fd_raise_events(fd_world* world, const fd_neighbor_list* list);
fd_status fd_retire_books(fd_world* world, const fd_neighbor_list* list);
/* On a rank of several (book_rows set): the springs' energy of contact (i,
 * j) in `slot`, which ends, kept in `released` when this rank answers for it
 * (for the rank that writes the ledger); false when out of memory
 * (release.c). */
bool fd_keep_released(fd_penalty* p, int i, int j, int32_t slot);
void fd_book_step_sums(fd_world* world, const fd_neighbor_list* list);
/* Under a decomposition, how this rank books contact (i, j) (penalty.h,
 * fd_book_row: GROUP, NONE or EACH): a wall's contacts by the owner of the
 * other body. */
static inline int fd_book_row_of(const uint8_t* book_rows, int i, int j)
{
    int row = book_rows[i] & FD_BOOK_ROW_KIND;
    if (row != FD_BOOK_ROW_WALL) {
        return row;
    }
    int other = book_rows[j] & FD_BOOK_ROW_KIND;
    return other == FD_BOOK_ROW_GROUP || other == FD_BOOK_ROW_EACH ? FD_BOOK_ROW_EACH : FD_BOOK_ROW_NONE;
}

void fd_neighbor_list_free(fd_neighbor_list* list);
/* Room for `entries` entries and the rows of `body_count` bodies. */
bool fd_neighbor_list_reserve(fd_neighbor_list* list, int64_t entries, int body_count);
/* The rows of the list (row_start, partner, count, body_count) for pairs
 * within `margin` (pair_search.c): 1 built, 0 the world needs the general
 * broad phase (periodic or sparse), -1 out of memory. */
int fd_pair_search(fd_world* world, double margin, fd_neighbor_list* out);
void fd_pair_scratch_free(struct fd_pair_scratch* scratch);
size_t fd_pair_scratch_memory(const struct fd_pair_scratch* scratch);
void fd_contact_pool_free(fd_contact_pool* pool);
/* Room for `count` slots (false when out of memory). */
bool fd_contact_pool_reserve(fd_contact_pool* pool, int64_t count, int history_stride, int constant_stride,
                             int book_count, bool lifetime_books);
/* The other of the two lists built at the current state, made the current
 * one: carrying the current one's contacts, or with none (carry_contacts
 * false: a checkpoint's contacts are placed into it next). */
fd_status fd_penalty_rebuild_list(fd_world* world, bool carry_contacts);
/* Packs the pool's contacts into slots 0, 1, ... in the list's key order
 * again, between passes (the springs and books as committed); a relabelling
 * that changes no result. False when out of memory (the pool is unchanged). */
bool fd_neighbor_list_repack(fd_world* world, fd_neighbor_list* list);
/* Moves the list's thread row bounds for the next pass so that each
 * thread's share of the row weight follows its measured speed (threads'
 * busy times of the pass just made, smoothed in their cost); any split
 * gives the same bits (penalty.h), so only the time depends on it. */
void fd_neighbor_list_follow_speeds(fd_neighbor_list* list, fd_penalty_thread* threads);
size_t fd_neighbor_list_memory(const fd_neighbor_list* list);
size_t fd_contact_pool_memory(const fd_contact_pool* pool, int history_stride, int constant_stride);

/* The sphere kernels' constants of a pair (bodies i < j) under a law, into
 * out[constant_stride]: computed when its contact begins and kept with it. */
void fd_pair_constants(const fd_world* world, const fd_contact_law* law, int i, int j, double* out);

/* Whether a law has a sphere kernel (sphere_kernel.h), and how many pair
 * constants it reads. */
bool fd_law_has_sphere_kernel(const fd_contact_law* law);
int fd_law_constant_count(const fd_contact_law* law);

#endif
