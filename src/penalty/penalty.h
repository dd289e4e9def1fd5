/* The penalty stepper's contact pipeline: Verlet neighbour list, force pass,
 * sphere kernels. The door of src/penalty/.
 *
 * Design (issue 9; measured choices in bench/README.md):
 *
 *  - Neighbour list with a skin. Pairs whose bounding spheres come within
 *    contact_margin + skin are listed once, rebuilt only when some body has
 *    moved more than half the skin since the last build (LAMMPS `neigh_modify
 *    check yes`), or when bodies were added, moved by hand or the laws changed.
 *    The list is a half list in CSR form, row i holding its partners j > i in
 *    ascending order: entries are in contact-key order (i, j).
 *
 *  - Per-entry data split by use, in arrays per field: what the distance test
 *    reads (partner, kind), what the laws read and write (pair constants,
 *    history, a state byte), and what only output reads (contact id, first
 *    step, lifetime energy books when the ledger is on). History lives beside
 *    its entry and is carried to the new list by key at each rebuild.
 *
 *  - Two passes per force evaluation: a distance test over all entries that
 *    compacts the touching ones into a short list per thread (a pair that
 *    stays apart costs a distance test and a byte read), then the laws over
 *    that list.
 *
 *  - One kernel per pair kind: sphere-sphere and sphere-plane pairs whose law
 *    has a sphere kernel (hooke or hertz with the spring-dashpot-slider
 *    family) take a straight path that computes the normal, the overlap and
 *    the contact point and nothing else; sphere-sphere pairs of a Fang &
 *    Negrut law take its vector lanes (contact/fang_negrut_lane.h, the
 *    registry path's bits); every other pair (ellipsoids, the other Fang &
 *    Negrut pairs, PFC, prescribed normal force) takes the generic path, the
 *    full narrow phase and the registry's kernels.
 *
 *  - Results do not depend on the thread count. Each thread owns a range of
 *    rows (balanced by entries) and walks its touching contacts in DESCENDING
 *    key order, adding each contact's loads to its two bodies at once. The
 *    sum on a body b is then always, whatever the threads: its external load,
 *    then its own row (b, c) in descending c, then the pairs (a, b) in
 *    descending a. A load on a body of a later thread's range (only pairs
 *    that cross a range boundary) goes to a buffer of its thread; the buffers
 *    are applied after the pass, latest thread first, each in its order,
 *    which continues the same descending sequence.
 *
 *  - Contact details (full geometry, loads, model columns) are written to the
 *    world's contact set only on the force passes that record them
 *    (fd_world_def.contact_output); the energy ledger and the events only
 *    when switched on (fd_world_def.energy_ledger, .events).
 *
 *  - The bodies are stepped in place, and a failed step (a non-finite
 *    state, a blow-up) is rolled back by a rewind point (rewind.c): every
 *    FD_REWIND_INTERVAL steps a copy of the bodies' states and of the
 *    contacts, as a checkpoint keeps them; a failure puts it back, makes the
 *    steps since again (the same bits: restarts are bit for bit) and then
 *    the failing step once more the careful way, with the state and force
 *    buffers swapped, which the failure rolls back as before: the contacts'
 *    springs and books, which a pass reads from one buffer and writes to
 *    the other, are simply not flipped; the state bytes shift back and the
 *    contacts begun in the step give their slots back. The careful way is
 *    also every step's where the ledger needs the state before the step
 *    (external loads, locks, moving walls), and a rank of several keeps no
 *    rewind point (a failure stops every rank).
 *
 * Must not touch: the engine, the complementarity stepper, files, ranks. */
#ifndef FD_PENALTY_H
#define FD_PENALTY_H

#include <stdint.h>

#include "core/math.h"
#include "fricdem/types.h"

typedef struct fd_world fd_world;

/* Block laws a chunk of the law pass can run through the block kernel. */
enum { FD_BLOCKS_PER_CHUNK = 2 };

/* What an entry is, fixed when the list is built. Kinds from
 * FD_PAIR_GENERIC on take the registry's kernels; FD_PAIR_GENERIC gets
 * fd_collide's full narrow phase, the sphere shapes after it (kind -
 * FD_PAIR_GENERIC_SPHERES is their shape pairing) the cheap distance test
 * and their geometry from the centres (round_pair.c). */
enum {
    FD_PAIR_SPHERE_SPHERE = 0,   /* two spheres, a law with a sphere kernel */
    FD_PAIR_SPHERE_PLANE = 1,    /* body i a sphere, body j a plane, a law with a sphere kernel */
    FD_PAIR_PLANE_SPHERE = 2,    /* body i a plane, body j a sphere, a law with a sphere kernel */
    FD_PAIR_GENERIC = 3,         /* other shapes (an ellipsoid) */
    FD_PAIR_GENERIC_SPHERES = 4, /* + 0, 1, 2: sphere shapes as above with a law of the registry only */
    FD_PAIR_NEVER = 7,           /* a law whose materials never touch (normal none): never tested */
};

/* The state byte of a contact: the low nibble after the last force pass,
 * the high nibble the one before. */
enum {
    FD_ENTRY_TOUCHING = 1u << 0,
    FD_ENTRY_SLIP_SLIDE = 1u << 1,  /* FD_ENTRY_SLIP_SLIDE << (mechanism - 1) per mechanism */
    FD_ENTRY_SLIP_ROLL = 1u << 2,
    FD_ENTRY_SLIP_SPIN = 1u << 3,
    FD_ENTRY_NOW = 0x0f,
};

#define FD_NO_LAW UINT16_MAX
#define FD_NO_CONTACT (-1)

/* The neighbour list: 8 bytes per entry, what the distance pass reads. */
typedef struct fd_neighbor_list {
    int body_count;               /* rows: bodies when built */
    int64_t* row_start;           /* body_count + 1 */
    int64_t count;                /* entries */
    int64_t capacity;
    int32_t* partner;             /* body j of each entry (j > its row) */
    uint8_t* kind;                /* FD_PAIR_* */
    uint16_t* law;                /* index into the world's laws, or FD_NO_LAW */
    int32_t* contact;             /* the entry's contact in the pool, or FD_NO_CONTACT */
    int thread_count;
    /* thread_count + 1 row bounds, at multiples of FD_BOOK_GROUP_ROWS (the
     * ledger's groups are one thread's), moved between passes to follow the
     * threads' measured speeds (fd_neighbor_list_follow_speeds). */
    int32_t* thread_row;
    /* The work of rows [0, FD_BOOK_GROUP_ROWS g), in units of one entry's
     * distance test, for g = 0 .. ceil(weighted_rows / FD_BOOK_GROUP_ROWS):
     * what the split of rows between threads weighs. */
    double* group_weight;
    int weighted_rows;            /* rows when the weights were counted (later rows weigh nothing) */
    double* bound_target;         /* thread_count + 1: the weights the bounds aim at (scratch) */
} fd_neighbor_list;

/* The touching contacts' own data, one slot each: what only a contact needs
 * (its springs, its constants, its identity, its books), so that the many
 * listed pairs that do not touch cost no more than their entry. Compacted in
 * key order at each rebuild (the law pass then reads it in order); a contact
 * that begins takes a slot freed earlier, or a new one at the end. */
typedef struct fd_contact_pool {
    int64_t used;                 /* slots [0, used) handed out since the last compaction */
    int64_t capacity;
    /* history_stride per slot, twice: a pass reads its springs from
     * history[parity] and writes them to history[parity ^ flip], and the
     * books below the same way; the commit of the step flips the parity by
     * `flip`, a failed step leaves it (its rollback). `flip` is 0 in a pass
     * of a step made in place (springs and books written over: the rewind
     * point answers for a failure, rewind.c), else 1. */
    double* history[2];
    int parity, flip;
    double* constants;            /* constant_stride per slot: the pair's constants for the sphere kernels */
    uint64_t* id;
    int64_t* first_step;          /* step the contact began at */
    uint8_t* state;               /* FD_ENTRY_* bits */
    /* With the ledger on, book_count per slot (mechanisms 0 .. book_count -
     * 1: up to the highest any law has), two buffers with the springs'
     * parity: the lifetime books when the world keeps them
     * (fd_world_def.contact_energy_books: a pass adds its increments to the
     * books it read and writes the sums to the other buffer, read and
     * written for every contact every step), else only the springs' stored
     * energy, written by each pass and read when the contact ends (the
     * world's totals take the step sums directly, fd_book_group). Only the
     * mechanisms some law has take room: hooke + dsds keeps 2 of the 4. */
    fd_energy_books* books[2];    /* lifetime_books, else NULL */
    double* stored[2];            /* without lifetime_books, else NULL */
    int book_count;
    bool lifetime_books;
    int32_t* free_slots;          /* slots of contacts that ended, to be handed out again */
    int64_t free_count, free_capacity;
} fd_contact_pool;

/* A touching contact found by the distance pass. */
typedef struct fd_touch {
    int32_t entry;
    int32_t row;                  /* body i */
} fd_touch;

/* The geometry of a generic pair, found by the distance pass. */
typedef struct fd_generic_slot fd_generic_slot;

/* The ledger's step sums of a group of FD_BOOK_GROUP_ROWS rows: each
 * contact's step books (stored energies and the step's increments) added in
 * key order within the group, the groups then summed in order after the
 * pass (fd_penalty_book_step). Thread ranges start at multiples of
 * FD_BOOK_GROUP_ROWS, so a group is one thread's, and every sum is the same
 * for any thread count; nothing per contact is read or written for it. */
enum { FD_BOOK_GROUP_ROWS = 64 };
typedef struct fd_book_group {
    int32_t group;                /* rows group * FD_BOOK_GROUP_ROWS ... */
    fd_energy_books books[FD_MECHANISM_COUNT];
} fd_book_group;

/* Under a domain decomposition (src/parallel/partition.h), which of a
 * row's contacts a rank books (fd_penalty.book_rows, per body i of the
 * row): one rank answers for each contact, and the ledger's step sums are
 * one process's only when every contact is booked once, in one process's
 * order. A group of rows that one rank answers for whole is summed as in one
 * process; the contacts of a group shared between ranks are booked one by
 * one (fd_book_entry) and summed on the rank that writes the ledger. */
typedef enum fd_book_row {
    FD_BOOK_ROW_GROUP = 0,        /* its group is this rank's whole: summed here */
    FD_BOOK_ROW_NONE = 1,         /* another rank answers for its contacts */
    FD_BOOK_ROW_EACH = 2,         /* this rank answers for them, in a shared group: one by one */
    FD_BOOK_ROW_WALL = 3,         /* a wall: the owner of the other body answers, one by one */
    FD_BOOK_ROW_KIND = 3,         /* the bits above */
    FD_BOOK_ROW_TRACKED = 4,      /* a flag: a wall whose reaction the rank that writes the ledger sums
                                   * (a moving wall's work: fd_wall_load) */
} fd_book_row;

/* The load a contact this rank answers for put on a tracked wall, as the
 * pass added it (the force on body i, minus it on j, and each body's
 * torque), with its key. */
typedef struct fd_wall_load {
    uint64_t key;                 /* (i << 32) | j */
    fd_vec3 force, torque_i, torque_j;
} fd_wall_load;

/* One contact's step books (stored energies and the step's increments, as
 * the pass adds them to its group's sums), or the stored energies a
 * contact that ended released, with its key. */
typedef struct fd_book_entry {
    uint64_t key;                 /* (i << 32) | j */
    fd_energy_books books[FD_MECHANISM_COUNT];
} fd_book_entry;

/* A load on a body of a later thread's range. */
typedef struct fd_remote_load {
    fd_vec3 force;
    fd_vec3 torque;
    int32_t body;
} fd_remote_load;

/* The work of one thread in one force pass. */
typedef struct fd_penalty_thread {
    fd_touch* touching;
    int64_t touching_count, touching_capacity;
    /* With periodic axes: x_i - x_j at the nearest image of each touching
     * sphere-sphere pair, indexed as touching (the distance pass computed
     * it; the law pass's block lanes read it rather than find the image
     * again). Without, the positions' difference is cheaper than a copy. m */
    fd_vec3* separation;
    int64_t separation_capacity;
    fd_generic_slot* slots;
    int32_t slot_count, slot_capacity;
    fd_remote_load* remote;
    int64_t remote_count, remote_capacity;
    int32_t* ended;               /* entries whose contact ended in this pass */
    int64_t ended_count, ended_capacity;
    int64_t new_count;            /* contacts that began in this pass */
    int32_t* new_slots;           /* their pool slots, in key order */
    uint64_t* new_keys;           /* their keys (i << 32 | j), the same order (the ranks number them, src/parallel) */
    int64_t new_slot_capacity, new_key_capacity;
    int64_t first_contact;        /* index of its first touching contact in key order */
    uint64_t first_id;            /* id of its first new contact */
    /* The block kernel's lanes (sphere_block.h): one block per block law of
     * a chunk, so that a chunk mixing two such laws (grains with grains and
     * with a wall of spheres) keeps both in the kernel. */
    struct fd_sphere_block* block[FD_BLOCKS_PER_CHUNK];
    /* Fang & Negrut's sphere lanes (contact/fang_negrut_lane.h): a chunk's
     * contacts of one lane law, and one contact alone (another law's, or
     * the lane that a pass recording or keeping books takes after the
     * registry's path). */
    struct fd_fn_block* fn_block[3]; /* per pairing (FD_FN_PAIRINGS): spheres, sphere-plane, plane-sphere */
    struct fd_fn_block* fn_single;
    fd_book_group* book_groups;   /* the ledger's step sums of its groups, in the order met (rows descending) */
    int64_t book_group_count, book_group_capacity;
    fd_book_entry* book_entries;  /* with book_rows: the contacts booked one by one, in the order met */
    int64_t book_entry_count, book_entry_capacity;
    fd_wall_load* wall_loads;     /* with book_rows: the loads on tracked walls, in the order met */
    int64_t wall_load_count, wall_load_capacity;
    int32_t failed_entry;         /* first entry whose pair is unsupported or has no law, or -1 */
    int failure;                  /* 0, 1 unsupported pair, 2 no law, 3 out of memory */
    double busy;                  /* s, this pass's distance and law passes on this thread */
    double cost;                  /* s per unit of row weight, smoothed over passes (0: not measured yet) */
} fd_penalty_thread;

typedef struct fd_penalty {
    fd_neighbor_list lists[2];
    int current;                  /* lists[current] is in use; the other keeps its arrays for the next build */
    fd_contact_pool pool;
    /* A work area kept from build to build (fd_scratch_block) that the pair
     * search's arrays (pair_search.c) and then the packing of the pool
     * (neighbor.c) use one after the other: the peak memory holds the larger
     * of the two, not both (issue 19). */
    void* scratch;
    size_t scratch_capacity;
    struct fd_pair_scratch* search; /* the pair search's buffers of pairs found (pair_search.c) */
    int64_t pool_used_before;     /* the pool's used and free counts before the pass in progress */
    int64_t pool_free_before;
    bool dirty;                   /* rebuild before the next pass (bodies added or moved, laws changed) */
    double skin;                  /* m, in use */
    fd_vec3* reference_position;  /* per body, at the last build: the rebuild test */
    int reference_capacity;
    double max_displacement_squared; /* m^2 since the last build, updated by the drift */
    int64_t appended;             /* bodies taken into a standing list (fd_penalty_append_isolated) */
    int constant_stride;          /* pair constants per entry */
    int book_count;               /* ledger books per slot (0: ledger off); see fd_contact_pool */
    bool lifetime_books;          /* and whether they are each contact's lifetime books, or stored energies */
    bool* law_sphere_kernel;      /* per law of the world: has a sphere kernel (sphere_kernel.h) */
    int* block_law_index;         /* per law of the world: its block law (sphere_block.h), or -1 */
    struct fd_block_law* block_laws;
    int block_law_count;
    int* fn_lane_index;           /* per law of the world: its Fang & Negrut lane law, or -1 */
    struct fd_fn_lane_law* fn_lane_laws;
    int fn_lane_law_count;
    bool fn_planes;               /* sphere-plane pairs take the lanes too (not under LAMMPS's wall conventions) */
    fd_penalty_thread* threads;
    int thread_count;
    int64_t touching_count;       /* contacts after the last committed pass */
    int64_t pass_touching_count;  /* contacts of the pass in progress */
    bool pass_recorded;           /* the pass in progress records (into record_set) */
    /* Where the pass in progress records: the world's spare contact set,
     * which the commit makes the current one (a failed step leaves the last
     * good one); or, when the world records on request, the current set
     * itself (pass_in_place), whose records a failed step leaves unreadable:
     * one set instead of two (2 x 648 B a contact, 2.3 GB at 10^6 spheres),
     * the stale one kept only so that it could be swapped in. */
    struct fd_contact_set* record_set;
    bool pass_in_place;
    int64_t rebuilds;             /* neighbour-list builds so far */
    bool unrecorded;              /* the last pass did not write the world's contact set (false before any pass) */
    int stage;                    /* of the pass in progress: 0 nothing changed yet, 1 laws evaluated */
    /* The time over which the pass in progress advances the contacts'
     * springs (s): the step's time step, or 0 in the set-up pass of
     * fd_world_prepare, which evaluates the loads of the state as it is
     * without any time having passed (LAMMPS's history_update = 0 in its
     * set-up): a contact touching at t = 0 starts unstretched and each step
     * adds what happened during it (issue 18). PFC's incremental updates keep
     * PFC's own cycle, which counts one increment at the first evaluation
     * (contact/pfc.c, pfc_cycle_time). */
    double spring_time_step;
    /* Each body's rotation over the step (fd_contact_input.turn_i), made at
     * the start of a pass that follows a step when a law tracks points on
     * the bodies (Fang & Negrut): one matrix per body instead of rotations
     * into and out of both bodies' frames per contact. */
    bool tracks_turns;            /* some law reads them (set at prepare) */
    /* Contacts begun since the pool was last packed in key order (at a
     * rebuild, or by fd_neighbor_list_repack): each took a free slot
     * anywhere, or one at the end. */
    int64_t begun_since_packed;
    int64_t passes_since_packed;  /* force passes over a standing list since then */
    bool turns_ready;             /* body_turns holds the step of the pass in progress */
    fd_quat* body_turns;          /* each body's turn over the step, q1 q0* ((1, 0, 0, 0) unturned): the
                                   * Fang & Negrut paths make the matrices they carry vectors with */
    int64_t body_turn_capacity;
    /* The rewind point (rewind.c; NULL until the first step made in place). */
    struct fd_rewind* rewind;
    /* The step in progress writes the state over the state before it (then
     * make_body_turns finds the orientations before the step in body_turns
     * itself, filled before the drift; else in the saved buffers). */
    bool stepping_in_place;
    /* The largest cache's bytes (core/cache.h, read at the first prepare),
     * and whether the pass in progress asks for data ahead: the distance
     * pass for the partners' body states where the per-body arrays its
     * partners' reads stream through (FD_PARTNER_BYTES a body) outgrow that
     * cache; the law pass for the partners' states, the entries' fields and
     * the slots' data where all that it reads (force_pass.c) outgrows
     * half of it (penalty_internal.h). */
    size_t cache_bytes;
    bool partners_ahead;
    bool law_ahead;
    /* Under a domain decomposition (NULL in one process): an fd_book_row
     * per body, set by the rank before each step; then a pass leaves the
     * world's ledger totals alone, its books staying in the threads'
     * book_groups and book_entries and the released energies of the
     * contacts that ended, this rank's, in `released` (key order), for the
     * rank that sums them (src/parallel/partition_ledger.c). */
    const uint8_t* book_rows;
    fd_book_entry* released;
    int64_t released_count, released_capacity;
    /* And when bodies are removed (an outlet's), the energy each body this
     * rank owns takes away (src/engine/removal.c; `released` then holds the
     * springs' energy of its contacts that this rank answers for). */
    struct fd_removed_energy* removed_energies;
    int64_t removed_energy_count, removed_energy_capacity;
    /* And after each step, the work of the external loads and locks on each
     * dynamic body this rank owns, where not zero (src/engine/world_prepare.c,
     * fd_world_book_step_work: a zero adds nothing to the totals). */
    struct fd_body_work* body_work;
    int64_t body_work_count, body_work_capacity;
} fd_penalty;

/* A body's external loads' and locks' work over a step (J). */
typedef struct fd_body_work {
    int32_t body;
    double external, constraint;
} fd_body_work;

/* A removed body's kinetic plus gravitational energy and the gravitational
 * part (J), as the ledger books them (src/engine/removal.c). */
typedef struct fd_removed_energy {
    int32_t body;
    double energy, gravitational;
} fd_removed_energy;

void fd_penalty_free(fd_penalty* penalty);

/* The penalty stepper's step (stepper.c): the world one time step on,
 * or at the last good step with an error. */
fd_status fd_penalty_step(fd_world* world);
/* Its force pass at the current state (external loads, then contacts);
 * prepare runs it for the initial state. */
fd_status fd_penalty_forces(fd_world* world);
/* Set-up at fd_world_prepare: the skin (m) and the pair constants the laws
 * need; the list is rebuilt at the next pass. */
fd_status fd_penalty_prepare(fd_world* world, double skin);

/* The contact pass of the penalty stepper at the world's current state:
 * forces and torques (world->forces, world->torques must hold the external
 * loads) from every touching contact; records the contact set when asked,
 * books the ledger and raises the events when switched on. `elapsed`: the
 * pass follows a time step (false: the set-up pass, whose springs advance
 * by nothing; fd_penalty.spring_time_step). */
fd_status fd_penalty_force_pass(fd_world* world, bool record, bool elapsed);

/* Undoes the last force pass (springs, states, contacts begun) after a
 * failed step; the world restores its bodies and books. A list rebuilt in the
 * pass is kept (it holds every contact of the state before too) and built
 * afresh at the next pass. */
void fd_penalty_rollback(fd_world* world);

/* Between steps: ends the contacts of the bodies just marked removed
 * (world->is_removed), as contacts that part end (their books into the
 * world's totals, the springs' energy released, their pool slots free), in
 * key order, and has the next pass build the list without them
 * (src/penalty/release.c; src/engine/removal.c says why). */
fd_status fd_penalty_release_removed(fd_world* world);

/* Between steps, after bodies were appended (an inlet's spheres), each with
 * a gap larger than contact_margin + fd_penalty_isolation_clearance to every
 * other body: the neighbour list takes them as empty rows, their positions
 * as the references of the rebuild test, instead of being rebuilt at the
 * next pass (the rebuild a pour of 10^6 spheres would otherwise pay every
 * step). False when it cannot (no list yet, or one to be rebuilt anyway, a
 * periodic world): the next pass rebuilds it. Results are the same either
 * way; only the cost differs (src/penalty/neighbor.c). */
bool fd_penalty_append_isolated(fd_world* world);

/* The clearance (m) beyond contact_margin that an appended body must keep
 * from every other body for fd_penalty_append_isolated: the skin plus the
 * largest displacement since the last build; negative when no list can
 * take appended bodies (then inserting costs a rebuild). */
double fd_penalty_isolation_clearance(const fd_world* world);

/* Marks the step in progress as committed: its recorded contacts become the
 * world's contact set. */
void fd_penalty_commit(fd_world* world);


/* Bytes the pipeline holds now (the neighbour lists and the scratch). */
size_t fd_penalty_memory(const fd_world* world);

/* The contacts of the pool in key order, as a checkpoint keeps them
 * (snapshot.c): what the next force pass reads of each. */
typedef struct fd_penalty_contacts {
    int64_t count;
    int64_t capacity;             /* the contacts the arrays have room for */
    int32_t* pairs;               /* 2 per contact: bodies i < j */
    uint64_t* id;
    int64_t* first_step;
    uint8_t* state;               /* FD_ENTRY_* bits, both nibbles */
    double* springs;              /* history_stride per contact */
    fd_energy_books* books;       /* book_count per contact; NULL when 0 (ledger off) */
    int history_stride, book_count;
    bool lifetime_books;          /* the books are lifetime books (else their stored energies only, the rest 0) */
} fd_penalty_contacts;
/* Copies the live contacts out (between steps); *out owns its arrays. */
fd_status fd_penalty_gather(const fd_world* world, fd_penalty_contacts* out);
/* The same into the arrays of an earlier gather (*out, or zeroed) where they
 * have room: a gather repeated every few hundred steps (the rewind point,
 * rewind.c) then touches no new page, and frees nothing the heap could not
 * give back. */
fd_status fd_penalty_gather_again(const fd_world* world, fd_penalty_contacts* out);
/* Which contacts, by pair (i < j), a caller wants (the ranks' migrations). */
typedef bool (*fd_pair_filter)(const void* context, int i, int j);
/* Whether row i (the contacts (i, j), j > i) may hold a contact a caller
 * wants: a cheap test that spares the rows that hold none. */
typedef bool (*fd_row_filter)(const void* context, int i);
/* The live contacts whose pairs `wanted` accepts, in key order; `rows`
 * (NULL: every row) skips the rows it refuses. */
fd_status fd_penalty_gather_where(const fd_world* world, fd_row_filter rows, fd_pair_filter wanted,
                                  const void* context, fd_penalty_contacts* out);
/* Between steps: forgets the contacts whose pairs `kept` refuses (the next
 * list build leaves them behind), in the rows `rows` accepts (NULL: all;
 * a row it refuses keeps every contact). */
void fd_penalty_drop_contacts(fd_world* world, fd_row_filter rows, fd_pair_filter kept, const void* context);
/* Builds the neighbour list at the current state, carrying the contacts
 * still held, and adds those of `in` (key order; their pairs within reach
 * and without a contact): a migration's, without a checkpoint's fresh
 * install of every contact. */
fd_status fd_penalty_rebuild_adding(fd_world* world, const fd_penalty_contacts* in);
void fd_penalty_contacts_free(fd_penalty_contacts* contacts);
/* Into a prepared world whose bodies hold the checkpoint's state: builds
 * the neighbour list there and puts the contacts in it. */
fd_status fd_penalty_install(fd_world* world, const fd_penalty_contacts* in);

/* What the ranks (src/parallel) share with the penalty stepper's books and
 * records: the step's ledger sums and the gathered contact set.
 *
 * A step's books added to sums, every mechanism (the books of a mechanism
 * a law lacks are zero; a loop of constant length, so that sums kept in a
 * caller's locals stay in registers). */
static inline void fd_add_books(fd_energy_books* sums, const fd_energy_books* step)
{
    for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
        sums[m].stored += step[m].stored;
        sums[m].dashpot += step[m].dashpot;
        sums[m].slip += step[m].slip;
        sums[m].created += step[m].created;
        sums[m].work += step[m].work;
    }
}
/* A step's books, summed, into the world's totals and stored energies. */
void fd_book_step(fd_world* world, const fd_energy_books step[FD_MECHANISM_COUNT]);
/* Room for `count` records in a contact set (the pass records into
 * p->record_set, above; a rank of several gathers every
 * rank's there, src/parallel). */
bool fd_contact_set_reserve(const fd_world* world, struct fd_contact_set* set, int64_t count);

#endif
