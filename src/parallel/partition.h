/* Domain decomposition of the penalty stepper (issue 14): what each rank
 * holds and what ranks tell each other, whatever carries the bytes (MPI in
 * app/mpi_run.c; one process, for the tests, in
 * fd_partition_step_together).
 *
 * The domain is cut into boxes, one per rank, by recursive coordinate
 * bisection of the bodies (again at a migration when a rank owns more than
 * its share by a margin). A rank owns the bodies in its box and holds as
 * ghosts those within the halo of it (twice the largest
 * bounding radius, the contact margin and twice the neighbour skin: every
 * body a body it owns can touch before the next migration). Walls (planes,
 * meshes) are on every rank.
 *
 * Bit-identical to one process by construction:
 *   - every rank's world is the whole scene's world, with the bodies it does
 *     not hold dormant (left out of the pair search and the integration):
 *     a body's index is the one it has in one process, so its contacts have
 *     the same keys and the loads on it are summed in the same order
 *     (src/penalty/penalty.h);
 *   - a body and every body it touches are on its owner, with exact states:
 *     the loads on it, its contacts' springs and its motion are those of
 *     one process;
 *   - after each step the owners send their ghosts' states and loads
 *     (fd_partition_pack_ghosts): a ghost's own step would miss the
 *     contacts of bodies beyond the halo, and with the owner's loads its
 *     next drift is the owner's to the bit;
 *   - when a body has moved a whole skin since the last migration (the
 *     largest over all ranks), bodies and contacts migrate: each owner sends
 *     its bodies to the ranks that hold them next, and the contacts whose
 *     first non-wall body it owned (those have exact springs) to the ranks
 *     that hold both bodies next and own one of them, where they replace
 *     the old set (fd_penalty_install);
 *   - a rank lists only the pairs with a body it owns (its ghosts are
 *     FD_MOTION_PASSIVE): a pair of two ghosts, or of a ghost and a wall,
 *     loads only ghosts, which the owners overwrite after every step.
 * Contact ids are one process's too: each step's new contacts are numbered
 * in key order over all ranks (fd_partition_take_ids). Storage
 * is not yet split: each rank keeps the arrays of every body (issue 14 asks
 * for ghosts only).
 *
 * Must not touch: files, MPI itself (app/mpi_run.c carries the messages). */
#ifndef FD_PARTITION_H
#define FD_PARTITION_H

#include <stdbool.h>
#include <stdint.h>

#include "core/math.h"
#include "fricdem/fricdem.h"
#include "parallel/domain.h"
#include "world/world_store.h"

typedef enum fd_role {
    FD_ROLE_DORMANT = 0,          /* not held: left out of the search and the integration */
    FD_ROLE_OWNED = 1,
    FD_ROLE_GHOST = 2,
    FD_ROLE_SHARED = 3,           /* a wall: on every rank, stepped by each */
    FD_ROLE_GONE = 4,             /* removed by an outlet: a tombstone on every rank */
} fd_role;

/* A body's state and loads, as an owner sends them. */
typedef struct fd_body_record {
    int32_t body;
    int32_t role;                 /* the receiver's role for it (FD_ROLE_GHOST in an exchange) */
    double position[3], orientation[4], velocity[3], angular_velocity[3], force[3], torque[3];
} fd_body_record;

/* What one rank sends another at a migration: body records and contacts
 * (fd_partition_contact_words words each: the pair, id, first step, state,
 * springs). */
typedef struct fd_parcel {
    fd_body_record* bodies;
    int64_t body_count, body_capacity;
    uint64_t* words;
    int64_t word_count, word_capacity;
} fd_parcel;

/* A contact that began in the step just made. */
typedef struct fd_new_contact {
    uint64_t key;                 /* (i << 32) | j */
    int32_t slot;
    bool answered;                /* this rank answers for it */
} fd_new_contact;

typedef struct fd_partition {
    fd_world* world;
    fd_domain* domain;            /* shared by the partitions of one process's ranks (the tests) */
    int rank;
    uint8_t* role;                /* fd_role per body */
    uint32_t* held_flags;         /* a dormant body's motion flags, for when it is held again */
    fd_vec3* reference;           /* each held body's position at the last migration */
    int32_t* owned;               /* the bodies this rank owns, ascending */
    int64_t owned_count, owned_capacity;
    int32_t** ghost_of;           /* per rank: the owned bodies it holds as ghosts */
    int64_t* ghost_count;
    int64_t* ghost_capacity;
    int64_t migrations;
    /* At a migration of at most 64 ranks: bit r of holders[b] when rank r
     * holds body b next (held_by), found once per held body instead of once
     * per contact and rank (it was a third of a migration's cost). */
    uint64_t* holders;
    int64_t holders_capacity;
    bool holders_ready;
    double list_drift;            /* m: the ranks' largest displacement since their lists' build, last step */
    int64_t builds_seen;          /* the world's neighbour-list builds when move_at_build was measured */
    bool dirty_before_holding;    /* fd_partition_hold_everything: the list's state before holding all, */
    int64_t builds_before_holding; /* and the builds then */
    double move_at_build;         /* m: the largest move of an owned body since the migration, then */
    int body_count;               /* the world's bodies the roles cover (inlets add more) */
    /* Around each inlet's region, a zone every rank holds whole: an inlet
     * places a sphere where it overlaps no body, so every rank's inlet
     * decides the same (and inserts the same spheres) when every body that
     * can reach its region is held exactly everywhere. */
    int zone_count;
    double (*zone_low)[3], (*zone_high)[3];
    uint64_t next_id;             /* the id the next contact to begin takes, as in one process */
    fd_new_contact* new_contacts; /* the step's, between fd_partition_new_keys and the numbering */
    int64_t new_count, new_capacity;
    uint8_t* book_rows;           /* with the ledger: fd_book_row per body (src/penalty/penalty.h) */
    int64_t book_row_capacity;
    bool track_walls;             /* with the ledger: the walls' reactions summed on the writing rank each
                                   * step, for a moving wall's work (set before the first step: a stage may
                                   * set a wall moving; tracked anyway when one moves at the first step) */
    fd_vec3* wall_loads;          /* on the writing rank: per body, 4 vectors of a tracked wall: force and
                                   * torque at the last step, then now (NULL until tracked) */
    int wall_load_bodies;         /* the bodies wall_loads covers */
} fd_partition;

/* Rank `rank`'s part of a world that holds the whole scene at its start
 * (prepared here if it is not): its roles, and its contacts with both bodies
 * held. Refuses what the decomposition does not support yet (the
 * complementarity stepper). */
fd_status fd_partition_init(fd_partition* part, fd_world* world, fd_domain* domain, int rank);
void fd_partition_free(fd_partition* part);

/* At most the largest displacement squared of a body this rank owns since
 * the last migration, and no less (m^2); the ranks' largest decides a
 * migration. */
double fd_partition_largest_move(fd_partition* part);

/* The neighbour lists of all ranks rebuilt at the same steps: a rank that
 * rebuilds alone makes the others wait for it at the step's reduction.
 * After a step, this rank's largest displacement squared since its list
 * was built (m^2), for the ranks' maximum; then that maximum, from which
 * every rank decides alike whether its next step rebuilds (when the largest
 * displacement, grown as much again as in the last step twice over, would
 * pass half the skin). Returns that verdict, the same on every rank. The
 * results do not depend on when lists are rebuilt, only the cost. */
double fd_partition_list_drift(const fd_partition* part);
bool fd_partition_share_list_drift(fd_partition* part, double largest_squared);

/* The kinetic energy of each dynamic body this rank owns, as
 * fd_world_get_energy computes it, in words (ascending index, 3 a body: its
 * index, then the bits of its translational and of its rotational energy,
 * J), so that they travel as the other words do; *sum gets both sums. */
enum { FD_PARTITION_KINETIC_WORDS = 3 };
fd_status fd_partition_pack_kinetic_terms(const fd_partition* part, fd_parcel* out, double sum[2]);

/* After a step: the ghosts this rank owns for rank `to`, and their intake. */
int64_t fd_partition_ghost_count(const fd_partition* part, int to);
void fd_partition_pack_ghosts(const fd_partition* part, int to, fd_body_record* out);
void fd_partition_put_bodies(fd_partition* part, const fd_body_record* records, int64_t count);

/* The bodies this rank owns, for the outputs that one rank writes; and
 * every body held (everything = true: the states just put there are all
 * exact) or back to the roles (false), around that write. */
int64_t fd_partition_owned_count(const fd_partition* part);
void fd_partition_pack_owned(const fd_partition* part, fd_body_record* out);
void fd_partition_owned_positions(const fd_partition* part, fd_vec3* out);
void fd_partition_hold_everything(fd_partition* part, bool everything);

/* Contact ids as one process numbers them: the contacts that began in the
 * step are numbered in key order over all ranks from the world's next id.
 * A rank gives the keys of those it answers for (its first body that is not
 * a wall is owned here; fd_partition_new_keys allocates *keys, the caller
 * frees it; -1 when out of memory), each to the rank that numbers it
 * (fd_partition_numbering_rank: ranks take the ranges of first-body indices
 * in order, so that rank r's keys all precede rank r + 1's). That rank
 * numbers the keys it got (fd_partition_number_keys: ids in the order got,
 * from first_id = the world's next id plus the counts the ranks before it
 * got) and sends the ids back, and each rank takes the ids of its keys in
 * the order fd_partition_new_keys gave them (fd_partition_take_ids, with
 * the count of new contacts over all ranks). Both false when out of
 * memory. */
int64_t fd_partition_new_keys(fd_partition* part, uint64_t** keys);
int fd_partition_numbering_rank(const fd_partition* part, uint64_t key, int ranks);
bool fd_partition_number_keys(const uint64_t* keys, int64_t count, uint64_t first_id, uint64_t* ids);
bool fd_partition_take_ids(fd_partition* part, const uint64_t* ids, int64_t total);

/* For a checkpoint that one rank writes: the contacts this rank answers for
 * (in a parcel's words), and, on the writing rank, every body held with the
 * states sent and every contact installed (the world is then one process's
 * whole world; fd_partition_hold_everything(part, false) after the write
 * gives the rank back its roles, its own contacts staying exact). */
fd_status fd_partition_pack_answered(const fd_partition* part, fd_parcel* out);
fd_status fd_partition_install_everything(fd_partition* part, const fd_body_record* bodies, int64_t body_count,
                                          const uint64_t* words, int64_t word_count);

/* For the outputs that read contacts (contacts.csv, VTU, the trajectory's
 * contacts) at a step every rank recorded: the records this rank answers
 * for (words of fd_partition_record_words), and on the writing rank the
 * world's contact set made of every rank's, in key order (its contact count
 * with it: *own_count keeps the rank's, for fd_partition_end_records after
 * the write). */
int fd_partition_record_words(const fd_partition* part);
fd_status fd_partition_pack_records(const fd_partition* part, fd_parcel* out);
fd_status fd_partition_put_records(fd_partition* part, const uint64_t* words, int64_t word_count, int64_t* own_count);
void fd_partition_end_records(fd_partition* part, int64_t own_count);
/* On the writing rank, after fd_partition_put_records: the walls' loads
 * (every rank adds its contacts' share) summed again from every record, in
 * descending key order from zero, as one process adds them. */
void fd_partition_sum_wall_loads(fd_partition* part);

/* Outlets (src/engine/outlet.c): a rank's world leaves them to these. After
 * a step (its new contacts numbered), the bodies this rank owns in an open
 * outlet's region, as words (body << 32 | outlet) in ascending body order
 * (fd_partition_leaving allocates *words); then every rank removes every
 * rank's, sorted, as one process removes its step's: in ascending index,
 * with the outlets' counts and masses added in that order. */
int64_t fd_partition_leaving(fd_partition* part, uint64_t** words);
fd_status fd_partition_remove(fd_partition* part, const uint64_t* sorted_words, int64_t count);

/* Whether this rank answers for contact (i, j): it owns the first of its
 * bodies that is not a wall (that copy's springs are exact); the contact's
 * records, events and migrations come from this rank. */
bool fd_partition_answers_for(const fd_partition* part, int i, int j);

/* Contact events (world.events, events.csv): after the step's numbering,
 * the events this rank raised for the contacts it answers for, in words
 * (FD_PARTITION_EVENT_WORDS each: key, order, type and mechanism, id, both
 * bodies' ids, step, time); on rank 0 every rank's words become the world's
 * events, in one process's order (key order; a contact's in the order it
 * raised them). */
enum { FD_PARTITION_EVENT_WORDS = 8 };
fd_status fd_partition_pack_events(const fd_partition* part, fd_parcel* out);
fd_status fd_partition_put_events(fd_partition* part, const uint64_t* words, int64_t word_count);

/* The energy ledger (world.energy_ledger) on several ranks
 * (src/parallel/partition_ledger.c): one process books a step's contacts
 * in groups of rows, each summed in key order, then the groups in order,
 * and a contact that ends releases its springs' energy in key order. Each
 * rank books the contacts it answers for: a group of rows it answers for
 * whole as one sum, the others' contacts one by one; the rank that writes
 * the ledger sums every rank's in one process's order, to the bit.
 * Before each step, fd_partition_ledger_rows says which rows this rank
 * books how; after it, fd_partition_pack_ledger gives its books as words
 * (records of fd_partition_ledger_words), and on the summing rank
 * fd_partition_book_ledger adds every rank's to its world's totals (the
 * other ranks' totals stand still). A moving wall's work needs its whole
 * reaction: each rank sends the loads its contacts put on the walls, and
 * the summing rank adds them as one process does; so travel the work of
 * the external loads and locks on the bodies each rank owns, and the
 * energy of the bodies an outlet takes (their owners') and of their
 * contacts' springs. Gravity changed by a stage is booked on the writing rank holding
 * every body (fd_partition_hold_everything). */
enum { FD_PARTITION_BOOK_WORDS = 5 }; /* one fd_energy_books */
fd_status fd_partition_ledger_rows(fd_partition* part);
int fd_partition_ledger_words(const fd_partition* part);
fd_status fd_partition_pack_ledger(const fd_partition* part, fd_parcel* out);
fd_status fd_partition_book_ledger(fd_partition* part, const uint64_t* words, int64_t word_count);
/* After the outlets removed bodies (fd_partition_remove, every rank the
 * same ones): the energy each rank's owned bodies took and the springs'
 * energy of the contacts it answered for, as words; on the summing rank,
 * every rank's booked in one process's order. */
fd_status fd_partition_pack_removals(const fd_partition* part, fd_parcel* out);
fd_status fd_partition_book_removals(fd_partition* part, const uint64_t* words, int64_t word_count);
/* The ledger's test of the kinetic energy against what entered (one
 * process makes it every 64 steps, fd_world_check_energy_gain): each
 * rank's sums over the bodies it owns; the rank that keeps the ledger
 * judges the ranks' sums (fd_world_judge_energy_gain). Summed over the
 * ranks in another order than one process's, the verdict could differ
 * only within round-off of the test's factor of 2. */
fd_energy_gain_parts fd_partition_energy_gain_parts(const fd_partition* part);

/* After a step, once the outlets' bodies are removed on every rank and the
 * ghosts exchanged: the inlets' spheres due now (one process inserts them
 * after its outlets' removals too, into the slots just freed), held by
 * every rank (they are in the inlet's zone, whose bodies every rank holds
 * exactly), each owned by the rank whose box holds it. */
fd_status fd_partition_run_inlets(fd_partition* part);

/* A migration: parcels[r] for every rank r (this one too), then the intake
 * of everything sent to this rank (bodies in any order, contacts in any
 * order). */
int fd_partition_contact_words(const fd_partition* part);
fd_status fd_partition_pack_migration(fd_partition* part, fd_parcel* parcels);
fd_status fd_partition_unpack_migration(fd_partition* part, const fd_body_record* bodies, int64_t body_count,
                                        const uint64_t* words, int64_t word_count);
void fd_parcel_free(fd_parcel* parcel);

/* One step of `ranks` partitions of the same scene in one process, as that
 * many MPI ranks would take it: each steps, the ghosts are exchanged, and
 * bodies migrate when one has moved a whole skin, into boxes cut again
 * first when a rank owns too many. */
fd_status fd_partition_step_together(fd_partition* parts, int ranks);

#endif
