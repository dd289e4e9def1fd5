/* Domain decomposition of the penalty stepper: each rank's roles, and what
 * ranks send each other (the boxes are domain.c's; partition.h explains why
 * the result is the one process's to the bit).
 *
 * Must not touch: files, MPI itself (app/mpi_run.c carries the messages). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "body/body.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/sort_keys.h"
#include "parallel/partition.h"
#include "engine/engine.h"
#include "penalty/penalty.h"
#include "world/world_store.h"

/* ---------------------------------------------------------------- roles */

/* Body b's flags: held (the motion flags it had) or dormant. A dormant body
 * carries a removed body's flag: every loop that skips static bodies or
 * removed slots skips it (src/engine/removal.c), and the integration does
 * not even copy its state (FD_MOTION_DORMANT). */
static void set_held(fd_world* world, const fd_partition* part, int b, bool held)
{
    if (held) {
        world->motion[b].flags = part->held_flags[b];
        world->is_removed[b] = false;
    } else {
        part->held_flags[b] = world->motion[b].flags;
        world->motion[b].flags = FD_MOTION_REMOVED | FD_MOTION_DORMANT;
        world->is_removed[b] = true;
    }
}

/* The world's lists made again at the next force pass (after flags changed). */
static void flags_changed(fd_world* world)
{
    world->special_listed = -1;
    world->penalty->dirty = true;
}

/* FD_MOTION_PASSIVE on the ghosts (`ghosts`), off every other held body:
 * a pair of two ghosts, or of a ghost and a wall, is no body's of this
 * rank (each load it makes is on a ghost, whose state and loads come from
 * its owner after every step, and its springs are forgotten at a migration,
 * fd_partition_unpack_migration), so the pair search leaves it out: 2-3 %
 * of a rank's pairs on the 10^5 pile. Off on every body while one rank
 * holds the whole world for a write (fd_partition_hold_everything). */
static void mark_passive(fd_partition* part, bool ghosts)
{
    fd_world* world = part->world;
    for (int b = 0; b < world->body_count; ++b) {
        if (world->is_removed[b]) {
            continue; /* dormant or gone: held_flags has its flags, put right when it is held again */
        }
        if (ghosts && part->role[b] == FD_ROLE_GHOST) {
            world->motion[b].flags |= FD_MOTION_PASSIVE;
        } else {
            world->motion[b].flags &= ~(uint32_t)FD_MOTION_PASSIVE;
        }
    }
}

/* Body b held again, or set dormant, by its role now. */
static void hold(fd_partition* part, int b, bool held)
{
    if (held != (part->role[b] != FD_ROLE_DORMANT)) {
        set_held(part->world, part, b, held);
        flags_changed(part->world);
    }
}

/* Whether this rank answers for contact (i, j): it owns the first of its
 * bodies that is not a wall (that copy's springs are exact). */
bool fd_partition_answers_for(const fd_partition* part, int i, int j)
{
    return part->role[part->role[i] == FD_ROLE_SHARED ? j : i] == FD_ROLE_OWNED;
}

static bool in_zone(const fd_partition* part, fd_vec3 x)
{
    for (int z = 0; z < part->zone_count; ++z) {
        if (x.x >= part->zone_low[z][0] && x.x <= part->zone_high[z][0] && x.y >= part->zone_low[z][1] &&
            x.y <= part->zone_high[z][1] && x.z >= part->zone_low[z][2] && x.z <= part->zone_high[z][2]) {
            return true;
        }
    }
    return false;
}

/* Whether rank r holds a body at x: near its box, or in an inlet's zone. */
static bool rank_holds(const fd_partition* part, int rank, fd_vec3 x)
{
    return fd_domain_near(part->domain, rank, x) || in_zone(part, x);
}

/* The ranks that hold body b next: its owner's, and those within the halo. */
static bool held_by(const fd_partition* part, int b, int rank)
{
    return part->role[b] == FD_ROLE_SHARED || rank_holds(part, rank, part->world->position[b]);
}

/* The bodies this rank owns, ascending, from the roles. */
static bool list_owned(fd_partition* part)
{
    const fd_world* world = part->world;
    part->owned_count = 0;
    for (int b = 0; b < world->body_count; ++b) {
        if (part->role[b] != FD_ROLE_OWNED) {
            continue;
        }
        if (!fd_grow((void**)&part->owned, &part->owned_capacity, part->owned_count + 1, sizeof(int32_t))) {
            return false;
        }
        part->owned[part->owned_count++] = b;
    }
    return true;
}

/* Owned body b into the ghost list of each other rank that holds it. */
static bool list_holders(fd_partition* part, int b)
{
    for (int r = 0; r < part->domain->ranks; ++r) {
        if (r == part->rank || !rank_holds(part, r, part->world->position[b])) {
            continue;
        }
        if (!fd_grow((void**)&part->ghost_of[r], &part->ghost_capacity[r], part->ghost_count[r] + 1,
                     sizeof(int32_t))) {
            return false;
        }
        part->ghost_of[r][part->ghost_count[r]++] = b;
    }
    return true;
}

/* At a migration (and the start): the owned bodies, each rank's ghosts of
 * them by where they are now (as every rank decides its roles), and the
 * reference positions the next drift counts from. Between migrations the
 * lists keep these holders (forget_gone, adopt_new_bodies): a body that has
 * since left a rank's halo is still that rank's ghost, and still sent. */
static bool list_ghosts(fd_partition* part)
{
    const fd_world* world = part->world;
    for (int r = 0; r < part->domain->ranks; ++r) {
        part->ghost_count[r] = 0;
    }
    for (int b = 0; b < world->body_count; ++b) {
        part->reference[b] = world->position[b]; /* the drift counts from here */
    }
    if (!list_owned(part)) {
        return false;
    }
    for (int64_t k = 0; k < part->owned_count; ++k) {
        if (!list_holders(part, part->owned[k])) {
            return false;
        }
    }
    return true;
}

/* After an outlet's removals: the lists without the bodies gone. */
static bool forget_gone(fd_partition* part)
{
    for (int r = 0; r < part->domain->ranks; ++r) {
        int64_t kept = 0;
        for (int64_t k = 0; k < part->ghost_count[r]; ++k) {
            int b = part->ghost_of[r][k];
            if (part->role[b] == FD_ROLE_OWNED) {
                part->ghost_of[r][kept++] = b;
            }
        }
        part->ghost_count[r] = kept;
    }
    return list_owned(part);
}

static fd_status unsupported(const char* what)
{
    return fd_fail(FD_ERR_UNSUPPORTED, "domain decomposition (more than one process): %s is not supported yet", what);
}

fd_status fd_partition_init(fd_partition* part, fd_world* world, fd_domain* domain, int rank)
{
    memset(part, 0, sizeof *part);
    part->builds_seen = -1; /* the first measure of the moves is body by body */
    if (world->def.stepper != FD_STEPPER_PENALTY) {
        return unsupported("the complementarity stepper");
    }
    if (!world->prepared) {
        fd_status status = fd_world_prepare(world);
        if (status != FD_OK) {
            return status;
        }
    }
    int n = world->body_count, ranks = domain->ranks;
    world->outlets_by_caller = true; /* fd_partition_remove does them, on every rank alike */
    /* One process's inlets insert after its outlets removed (into the slots
     * just freed): the ranks' inlets wait for the removals, which the
     * owners find after the step (fd_partition_run_inlets). */
    world->inlets_by_caller = true;
    part->world = world;
    part->body_count = n;
    /* Each inlet's zone: its region's box widened by every reach its
     * placement test may look (a body's and a sphere's radius, the contact
     * margin, the inlet's clearance or the isolation clearance, at most 1.5
     * skins) plus a migration's drift (a skin) with room to spare. */
    double largest = 0.0;
    for (int b = 0; b < n; ++b) {
        largest = world->is_wall[b] ? largest : fmax(largest, world->bounding_radii[b]);
    }
    part->zone_count = world->inlet_count;
    part->zone_low = calloc((size_t)(world->inlet_count > 0 ? world->inlet_count : 1), sizeof *part->zone_low);
    part->zone_high = calloc((size_t)(world->inlet_count > 0 ? world->inlet_count : 1), sizeof *part->zone_high);
    if (part->zone_low == NULL || part->zone_high == NULL) {
        fd_partition_free(part);
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory");
    }
    for (int i = 0; i < world->inlet_count; ++i) {
        double radius_max = 0.0;
        fd_world_inlet_bounds(world, i, part->zone_low[i], part->zone_high[i], &radius_max);
        double pad = 2.0 * fmax(largest, radius_max) + world->def.contact_margin +
                     fmax(world->inlets[i].def.clearance, 0.0) + 3.0 * world->penalty->skin;
        for (int a = 0; a < 3; ++a) {
            part->zone_low[i][a] -= pad;
            part->zone_high[i][a] += pad;
        }
    }
    part->next_id = world->next_contact_id;
    part->domain = domain;
    part->rank = rank;
    part->role = calloc((size_t)(n > 0 ? n : 1), sizeof *part->role);
    part->held_flags = calloc((size_t)(n > 0 ? n : 1), sizeof *part->held_flags);
    part->reference = calloc((size_t)(n > 0 ? n : 1), sizeof *part->reference);
    part->ghost_of = calloc((size_t)ranks, sizeof *part->ghost_of);
    part->ghost_count = calloc((size_t)ranks, sizeof *part->ghost_count);
    part->ghost_capacity = calloc((size_t)ranks, sizeof *part->ghost_capacity);
    if (!part->role || !part->held_flags || !part->reference || !part->ghost_of || !part->ghost_count ||
        !part->ghost_capacity) {
        fd_partition_free(part);
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory for %d bodies", n);
    }
    /* Every body is held as the world was made; then each takes its role. */
    for (int b = 0; b < n; ++b) {
        part->role[b] = FD_ROLE_GHOST;
        part->held_flags[b] = world->motion[b].flags;
    }
    for (int b = 0; b < n; ++b) {
        if (world->is_removed[b]) {
            part->role[b] = FD_ROLE_GONE; /* an outlet's tombstone (a resumed run) */
        } else if (world->is_wall[b]) {
            part->role[b] = FD_ROLE_SHARED;
        } else if (fd_domain_owner(domain, world->position[b]) == rank) {
            part->role[b] = FD_ROLE_OWNED;
        } else if (!rank_holds(part, rank, world->position[b])) {
            hold(part, b, false);
            part->role[b] = FD_ROLE_DORMANT;
        }
    }
    mark_passive(part, true);
    /* The whole world's contacts are exact here: keep those of the pairs
     * with a body this rank owns (the others it does not list). */
    fd_penalty_contacts contacts;
    fd_status status = fd_penalty_gather(world, &contacts);
    if (status != FD_OK) {
        fd_partition_free(part);
        return status;
    }
    int stride = contacts.history_stride;
    int64_t kept = 0;
    for (int64_t k = 0; k < contacts.count; ++k) {
        int i = contacts.pairs[2 * k], j = contacts.pairs[2 * k + 1];
        bool listed = (part->role[i] == FD_ROLE_OWNED || part->role[j] == FD_ROLE_OWNED) &&
                      part->role[i] != FD_ROLE_DORMANT && part->role[j] != FD_ROLE_DORMANT &&
                      part->role[i] != FD_ROLE_GONE && part->role[j] != FD_ROLE_GONE;
        if (!listed) {
            continue;
        }
        contacts.pairs[2 * kept] = i;
        contacts.pairs[2 * kept + 1] = j;
        contacts.id[kept] = contacts.id[k];
        contacts.first_step[kept] = contacts.first_step[k];
        contacts.state[kept] = contacts.state[k];
        memmove(contacts.springs + (size_t)kept * (size_t)stride, contacts.springs + (size_t)k * (size_t)stride,
                (size_t)stride * sizeof(double));
        if (contacts.book_count > 0) { /* the ledger's books (a resumed run's are the checkpoint's) */
            memmove(contacts.books + (size_t)kept * (size_t)contacts.book_count,
                    contacts.books + (size_t)k * (size_t)contacts.book_count,
                    (size_t)contacts.book_count * sizeof *contacts.books);
        }
        ++kept;
    }
    contacts.count = kept;
    status = fd_penalty_install(world, &contacts);
    fd_penalty_contacts_free(&contacts);
    if (status != FD_OK || !list_ghosts(part)) {
        fd_partition_free(part);
        return status != FD_OK ? status : fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory");
    }
    return FD_OK;
}

void fd_partition_free(fd_partition* part)
{
    if (part->ghost_of != NULL) {
        for (int r = 0; r < part->domain->ranks; ++r) {
            free(part->ghost_of[r]);
        }
    }
    FD_FREE_ALL(part->ghost_of, part->ghost_count, part->ghost_capacity, part->role, part->held_flags, part->reference,
                part->new_contacts, part->owned, part->zone_low, part->zone_high, part->holders);
    if (part->world != NULL && part->world->penalty->book_rows == part->book_rows) {
        part->world->penalty->book_rows = NULL; /* the world books alone again (free the partition first) */
    }
    free(part->book_rows);
    free(part->wall_loads);
    memset(part, 0, sizeof *part);
}

/* The largest displacement squared since the last migration, body by body. */
static double exact_largest_move(const fd_partition* part)
{
    const fd_world* world = part->world;
    double largest = 0.0;
    for (int64_t k = 0; k < part->owned_count; ++k) {
        int b = part->owned[k];
        fd_vec3 moved = fd_v3_sub(world->position[b], part->reference[b]);
        if (world->periodic.any) {
            moved = fd_v3_sub(moved, fd_periodic_near_offset(&world->periodic, moved));
        }
        double squared = fd_v3_dot(moved, moved);
        largest = squared > largest ? squared : largest; /* fmax is a call to libm */
    }
    return largest;
}

double fd_partition_largest_move(fd_partition* part)
{
    /* Measured body by body only when the neighbour list was built (every
     * dozen steps or so): the positions are the list's references then, so
     * a body's move since the migration is at most that measure plus the
     * list's largest displacement since (the triangle inequality). */
    const fd_penalty* p = part->world->penalty;
    if (p->rebuilds != part->builds_seen) {
        part->builds_seen = p->rebuilds;
        part->move_at_build = sqrt(exact_largest_move(part));
    }
    double bound = part->move_at_build + sqrt(p->max_displacement_squared);
    return bound * bound;
}

double fd_partition_list_drift(const fd_partition* part) { return part->world->penalty->max_displacement_squared; }

bool fd_partition_share_list_drift(fd_partition* part, double largest_squared)
{
    fd_penalty* p = part->world->penalty;
    double drift = sqrt(largest_squared), grown = drift - part->list_drift;
    part->list_drift = drift;
    /* The maximum over all bodies, as one process's rebuild test has it. */
    p->max_displacement_squared = fmax(p->max_displacement_squared, largest_squared);
    bool rebuild = drift + 2.0 * fmax(grown, 0.0) > 0.5 * p->skin;
    if (rebuild) {
        p->dirty = true;
    }
    return rebuild;
}

fd_status fd_partition_pack_kinetic_terms(const fd_partition* part, fd_parcel* out, double sum[2])
{
    const fd_world* world = part->world;
    out->word_count = 0;
    sum[0] = sum[1] = 0.0;
    if (!fd_grow((void**)&out->words, &out->word_capacity,
                 FD_PARTITION_KINETIC_WORDS * part->owned_count + 1, sizeof *out->words)) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory for the kinetic energy");
    }
    for (int64_t k = 0; k < part->owned_count; ++k) {
        int b = part->owned[k];
        if (world->colds[b].type != FD_BODY_DYNAMIC) {
            continue;
        }
        fd_body_state state = fd_world_state(world, b);
        double energy[2] = {0.5 * world->colds[b].mass * fd_v3_length_squared(state.velocity),
                            fd_body_kinetic_rotational(&state, &world->masses[b])};
        uint64_t* at = out->words + out->word_count;
        at[0] = (uint64_t)b;
        memcpy(at + 1, energy, sizeof energy);
        sum[0] += energy[0];
        sum[1] += energy[1];
        out->word_count += FD_PARTITION_KINETIC_WORDS;
    }
    return FD_OK;
}

/* ---------------------------------------------------------------- records */

static fd_body_record record_of(const fd_world* world, int b, fd_role role)
{
    fd_vec3 x = world->position[b], v = world->velocity[b], w = world->angular_velocity[b];
    fd_vec3 f = world->forces[b], t = world->torques[b];
    fd_quat q = world->orientation[b];
    return (fd_body_record){
        .body = b,
        .role = (int32_t)role,
        .position = {x.x, x.y, x.z},
        .orientation = {q.w, q.x, q.y, q.z},
        .velocity = {v.x, v.y, v.z},
        .angular_velocity = {w.x, w.y, w.z},
        .force = {f.x, f.y, f.z},
        .torque = {t.x, t.y, t.z},
    };
}

static void put_record(fd_world* world, const fd_body_record* r)
{
    int b = r->body;
    world->position[b] = fd_v3(r->position[0], r->position[1], r->position[2]);
    world->orientation[b] = (fd_quat){r->orientation[0], r->orientation[1], r->orientation[2], r->orientation[3]};
    world->velocity[b] = fd_v3(r->velocity[0], r->velocity[1], r->velocity[2]);
    world->angular_velocity[b] = fd_v3(r->angular_velocity[0], r->angular_velocity[1], r->angular_velocity[2]);
    world->forces[b] = fd_v3(r->force[0], r->force[1], r->force[2]);
    world->torques[b] = fd_v3(r->torque[0], r->torque[1], r->torque[2]);
}

int64_t fd_partition_ghost_count(const fd_partition* part, int to) { return part->ghost_count[to]; }

void fd_partition_pack_ghosts(const fd_partition* part, int to, fd_body_record* out)
{
    for (int64_t k = 0; k < part->ghost_count[to]; ++k) {
        out[k] = record_of(part->world, part->ghost_of[to][k], FD_ROLE_GHOST);
    }
}

void fd_partition_put_bodies(fd_partition* part, const fd_body_record* records, int64_t count)
{
    for (int64_t k = 0; k < count; ++k) {
        put_record(part->world, &records[k]);
    }
}

int64_t fd_partition_owned_count(const fd_partition* part) { return part->owned_count; }

void fd_partition_pack_owned(const fd_partition* part, fd_body_record* out)
{
    for (int64_t k = 0; k < part->owned_count; ++k) {
        out[k] = record_of(part->world, part->owned[k], FD_ROLE_OWNED);
    }
}

void fd_partition_owned_positions(const fd_partition* part, fd_vec3* out)
{
    for (int64_t k = 0; k < part->owned_count; ++k) {
        out[k] = part->world->position[part->owned[k]];
    }
}

void fd_partition_hold_everything(fd_partition* part, bool everything)
{
    fd_penalty* p = part->world->penalty;
    bool was_dirty = p->dirty;
    for (int b = 0; b < part->world->body_count; ++b) {
        if (part->role[b] == FD_ROLE_DORMANT) {
            set_held(part->world, part, b, everything);
        }
    }
    mark_passive(part, !everything);
    flags_changed(part->world);
    if (everything) {
        part->dirty_before_holding = was_dirty;
        part->builds_before_holding = p->rebuilds;
    } else if (p->rebuilds == part->builds_before_holding) {
        /* The flags are back as they were and no list was built meanwhile
         * (an output only reads): the list stands, as it did (a rebuild of
         * rank 0's alone at every output made the others wait for it). */
        p->dirty = part->dirty_before_holding;
    }
}

/* ---------------------------------------------------------------- inlets */

/* The bodies the inlets just inserted: held by every rank (they are in
 * their inlet's zone), owned by the rank whose box holds them. */
static fd_status adopt_new_bodies(fd_partition* part)
{
    fd_world* world = part->world;
    int n = world->body_count;
    if (n > part->body_count) {
        uint8_t* role = realloc(part->role, (size_t)n * sizeof *role);
        if (role != NULL) {
            part->role = role;
        }
        uint32_t* flags = realloc(part->held_flags, (size_t)n * sizeof *flags);
        if (flags != NULL) {
            part->held_flags = flags;
        }
        fd_vec3* reference = realloc(part->reference, (size_t)n * sizeof *reference);
        if (reference != NULL) {
            part->reference = reference;
        }
        if (role == NULL || flags == NULL || reference == NULL) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory for %d bodies", n);
        }
        for (int b = part->body_count; b < n; ++b) {
            part->role[b] = FD_ROLE_GONE; /* taken below, as a filled slot is */
        }
    }
    bool adopted = false, set_dormant = false;
    for (int b = 0; b < n; ++b) {
        if (part->role[b] != FD_ROLE_GONE || world->is_removed[b]) {
            continue;
        }
        /* A new body, held everywhere (it is in its inlet's zone); its
         * drift counts from where it went in. */
        part->held_flags[b] = world->motion[b].flags;
        part->reference[b] = world->position[b];
        bool owned = fd_domain_owner(part->domain, world->position[b]) == part->rank;
        part->role[b] = owned ? FD_ROLE_OWNED : FD_ROLE_GHOST;
        if (!owned) {
            world->motion[b].flags |= FD_MOTION_PASSIVE; /* (mark_passive) */
        }
        if (!owned && !rank_holds(part, part->rank, world->position[b])) {
            set_held(world, part, b, false);
            part->role[b] = FD_ROLE_DORMANT;
            set_dormant = true;
        }
        /* sent from now on to the ranks that took it as a ghost (the same
         * test of the same position, on each of them) */
        if (owned && !list_holders(part, b)) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory");
        }
        adopted = true;
    }
    part->body_count = n;
    if (set_dormant) {
        flags_changed(world); /* a held body's flags are as the inlet made them: the list took it */
    }
    if (adopted && !list_owned(part)) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory");
    }
    return FD_OK;
}

fd_status fd_partition_run_inlets(fd_partition* part)
{
    if (part->world->inlet_count == 0) {
        return FD_OK;
    }
    fd_status status = fd_world_insert_from_inlets(part->world);
    return status == FD_OK ? adopt_new_bodies(part) : status;
}

/* ---------------------------------------------------------------- outlets */

int64_t fd_partition_leaving(fd_partition* part, uint64_t** words)
{
    int64_t count = 0;
    for (int64_t k = 0; k < part->owned_count; ++k) {
        count += fd_world_outlet_of(part->world, part->owned[k]) >= 0;
    }
    *words = malloc((size_t)(count > 0 ? count : 1) * sizeof **words);
    if (*words == NULL) {
        return -1;
    }
    count = 0;
    for (int64_t k = 0; k < part->owned_count; ++k) {
        int b = part->owned[k], outlet = fd_world_outlet_of(part->world, b);
        if (outlet >= 0) {
            (*words)[count++] = (uint64_t)(uint32_t)b << 32 | (uint32_t)outlet;
        }
    }
    return count;
}

fd_status fd_partition_remove(fd_partition* part, const uint64_t* sorted_words, int64_t count)
{
    if (count == 0) {
        return FD_OK;
    }
    fd_world* world = part->world;
    int32_t* bodies = count <= INT32_MAX ? calloc((size_t)count, sizeof *bodies) : NULL;
    double* mass = count <= INT32_MAX ? calloc((size_t)count, sizeof *mass) : NULL;
    if (bodies == NULL || mass == NULL) {
        free(bodies);
        free(mass);
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory removing %lld bodies at the outlets", (long long)count);
    }
    for (int64_t k = 0; k < count; ++k) {
        int b = (int)(sorted_words[k] >> 32);
        bodies[k] = b;
        mass[k] = world->colds[b].mass; /* the removal zeroes it */
        if (part->role[b] == FD_ROLE_DORMANT) {
            set_held(world, part, b, true); /* a live body to the removal, as it is in one process */
        }
    }
    fd_status status = fd_world_remove_slots(world, bodies, (int)count);
    for (int64_t k = 0; status == FD_OK && k < count; ++k) {
        fd_outlet* outlet = &world->outlets[sorted_words[k] & 0xffffffffu];
        outlet->removed++;
        outlet->removed_mass += mass[k];
        part->role[bodies[k]] = FD_ROLE_GONE;
    }
    free(bodies);
    free(mass);
    flags_changed(world);
    if (status == FD_OK && !forget_gone(part)) {
        status = fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory");
    }
    return status;
}

/* ---------------------------------------------------------------- migration */

/* The ledger's books a contact carries (book_count of them, 5 words each):
 * every rank's world keeps the same (the same laws). */
static int contact_books(const fd_partition* part)
{
    return part->world->def.energy_ledger ? part->world->penalty->book_count : 0;
}

int fd_partition_contact_words(const fd_partition* part)
{
    return 4 + part->world->history_stride + FD_PARTITION_BOOK_WORDS * contact_books(part);
}

static bool add_body(fd_parcel* parcel, fd_body_record record)
{
    if (!fd_grow((void**)&parcel->bodies, &parcel->body_capacity, parcel->body_count + 1,
                 sizeof *parcel->bodies)) {
        return false;
    }
    parcel->bodies[parcel->body_count++] = record;
    return true;
}

static bool add_contact(fd_parcel* parcel, const fd_penalty_contacts* contacts, int64_t k, int words, int books)
{
    if (!fd_grow((void**)&parcel->words, &parcel->word_capacity, parcel->word_count + words,
                 sizeof *parcel->words)) {
        return false;
    }
    uint64_t* out = parcel->words + parcel->word_count;
    int stride = contacts->history_stride;
    out[0] = (uint64_t)(uint32_t)contacts->pairs[2 * k] << 32 | (uint32_t)contacts->pairs[2 * k + 1];
    out[1] = contacts->id[k];
    out[2] = (uint64_t)contacts->first_step[k];
    out[3] = contacts->state[k];
    memcpy(out + 4, contacts->springs + (size_t)k * (size_t)stride, (size_t)stride * sizeof(double));
    /* The ledger's books: a contact's lifetime books, or its springs'
     * stored energies (the rest zero), which it releases when it ends. */
    memset(out + 4 + stride, 0, (size_t)(FD_PARTITION_BOOK_WORDS * books) * sizeof *out);
    for (int m = 0; m < books && m < contacts->book_count && contacts->books != NULL; ++m) {
        memcpy(out + 4 + stride + FD_PARTITION_BOOK_WORDS * m,
               &contacts->books[(size_t)k * (size_t)contacts->book_count + (size_t)m], sizeof(fd_energy_books));
    }
    parcel->word_count += words;
    return true;
}

/* Whether another rank holds both bodies of contact (i, j) next. */
static bool held_elsewhere(const fd_partition* part, int i, int j)
{
    if (part->holders_ready) {
        return (part->holders[i] & part->holders[j] & ~(UINT64_C(1) << part->rank)) != 0;
    }
    for (int r = 0; r < part->domain->ranks; ++r) {
        if (r != part->rank && held_by(part, i, r) && held_by(part, j, r)) {
            return true;
        }
    }
    return false;
}

/* The contacts this rank answers for that another rank holds next. */
static bool sent_elsewhere(const void* context, int i, int j)
{
    const fd_partition* part = context;
    return fd_partition_answers_for(part, i, j) && held_elsewhere(part, i, j);
}

/* The rows that may hold such a contact: a wall's (held everywhere: its
 * partner decides), and those of bodies another rank holds next. */
static bool row_sent_elsewhere(const void* context, int i)
{
    const fd_partition* part = context;
    return !part->holders_ready || part->role[i] == FD_ROLE_SHARED ||
           (part->holders[i] & ~(UINT64_C(1) << part->rank)) != 0;
}

/* The contacts this rank keeps through a migration: those it answers for
 * (its bodies' exact copies). The others come from the ranks that answer
 * for them, or go (a copy between two ghosts may be wrong). */
static bool kept_here(const void* context, int i, int j) { return fd_partition_answers_for(context, i, j); }
/* The rows that may hold a contact this rank does not keep: every row but
 * those of the bodies it owns (it answers for all of their contacts). */
static bool row_not_owned(const void* context, int i)
{
    const fd_partition* part = context;
    return part->role[i] != FD_ROLE_OWNED;
}

/* holders[b] for every body this rank holds (fd_partition.holders); not
 * ready (the per-rank tests stay) with more than 64 ranks or out of memory. */
static void find_holders(fd_partition* part)
{
    const fd_world* world = part->world;
    int ranks = part->domain->ranks;
    part->holders_ready = false;
    if (ranks > 64 || !fd_grow((void**)&part->holders, &part->holders_capacity, world->body_count,
                               sizeof *part->holders)) {
        return;
    }
    for (int b = 0; b < world->body_count; ++b) {
        uint64_t mask = 0;
        if (part->role[b] != FD_ROLE_DORMANT && part->role[b] != FD_ROLE_GONE) {
            for (int r = 0; r < ranks; ++r) {
                mask |= held_by(part, b, r) ? UINT64_C(1) << r : 0;
            }
        }
        part->holders[b] = mask;
    }
    part->holders_ready = true;
}

fd_status fd_partition_pack_migration(fd_partition* part, fd_parcel* parcels)
{
    const fd_world* world = part->world;
    int ranks = part->domain->ranks;
    for (int r = 0; r < ranks; ++r) {
        parcels[r].body_count = parcels[r].word_count = 0;
    }
    find_holders(part);
    /* Each owned body to the other ranks that hold it next, with its role
     * there (this rank keeps its own copy: unpack sets its role). */
    for (int64_t k = 0; k < part->owned_count; ++k) {
        int b = part->owned[k];
        int owner = fd_domain_owner(part->domain, world->position[b]);
        for (int r = 0; r < ranks; ++r) {
            bool held = part->holders_ready ? (part->holders[b] >> r) & 1u : held_by(part, b, r);
            if (r != part->rank && held &&
                !add_body(&parcels[r], record_of(world, b, r == owner ? FD_ROLE_OWNED : FD_ROLE_GHOST))) {
                part->holders_ready = false;
                return fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory");
            }
        }
    }
    /* Each contact whose first non-wall body this rank owns (its springs are
     * exact) to the other ranks that hold both bodies next. */
    fd_penalty_contacts contacts;
    fd_status status = fd_penalty_gather_where(world, row_sent_elsewhere, sent_elsewhere, part, &contacts);
    if (status != FD_OK) {
        return status;
    }
    int words = fd_partition_contact_words(part);
    for (int64_t k = 0; k < contacts.count && status == FD_OK; ++k) {
        int i = contacts.pairs[2 * k], j = contacts.pairs[2 * k + 1];
        /* (a rank lists only the pairs with a body it owns: mark_passive) */
        int owner_i = part->role[i] == FD_ROLE_SHARED ? -1 : fd_domain_owner(part->domain, world->position[i]);
        int owner_j = part->role[j] == FD_ROLE_SHARED ? -1 : fd_domain_owner(part->domain, world->position[j]);
        for (int r = 0; r < ranks; ++r) {
            bool both = part->holders_ready ? ((part->holders[i] & part->holders[j]) >> r) & 1u
                                            : held_by(part, i, r) && held_by(part, j, r);
            bool listed = both && (owner_i == r || owner_j == r);
            if (r != part->rank && listed && !add_contact(&parcels[r], &contacts, k, words, contact_books(part))) {
                status = fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory");
                break;
            }
        }
    }
    fd_penalty_contacts_free(&contacts);
    return status; /* holders stay ready for the unpacking, which ends them */
}

/* A copy of `count` records of `per` words, sorted by their first word (a
 * contact's key); NULL when out of memory. */
static uint64_t* sorted_copy(const uint64_t* words, int64_t count, int per)
{
    uint64_t* sorted = malloc((size_t)(count > 0 ? count * per : 1) * sizeof *sorted);
    if (sorted != NULL && count > 0) {
        memcpy(sorted, words, (size_t)(count * per) * sizeof *sorted);
        qsort(sorted, (size_t)count, (size_t)per * sizeof *sorted, fd_compare_keys);
    }
    return sorted;
}

/* Contacts in the words of parcels, sorted by key, into the world: a fresh
 * list at the bodies' current state with only them (`fresh`), or the
 * list rebuilt carrying the contacts the world keeps, them added. */
static fd_status install_words(fd_partition* part, const uint64_t* words, int64_t word_count, bool fresh)
{
    fd_world* world = part->world;
    int stride = world->history_stride, per = fd_partition_contact_words(part);
    int64_t count = word_count / per;
    uint64_t* sorted = sorted_copy(words, count, per);
    int books = contact_books(part);
    fd_penalty_contacts contacts = {.history_stride = stride, .book_count = books,
                                    .lifetime_books = world->penalty->lifetime_books};
    contacts.pairs = malloc((size_t)(count > 0 ? count : 1) * 2 * sizeof *contacts.pairs);
    contacts.id = malloc((size_t)(count > 0 ? count : 1) * sizeof *contacts.id);
    contacts.first_step = malloc((size_t)(count > 0 ? count : 1) * sizeof *contacts.first_step);
    contacts.state = malloc((size_t)(count > 0 ? count : 1) * sizeof *contacts.state);
    contacts.springs = malloc((size_t)(count > 0 ? count : 1) * (size_t)(stride > 0 ? stride : 1) * sizeof(double));
    contacts.books = books > 0 ? malloc((size_t)(count > 0 ? count : 1) * (size_t)books * sizeof *contacts.books)
                               : NULL;
    fd_status status = FD_OK;
    if (sorted == NULL || !contacts.pairs || !contacts.id || !contacts.first_step || !contacts.state ||
        !contacts.springs || (books > 0 && !contacts.books)) {
        status = fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory for %lld contacts",
                         (long long)count);
    } else {
        for (int64_t k = 0; k < count; ++k) {
            const uint64_t* in = sorted + k * per;
            contacts.pairs[2 * k] = (int32_t)(in[0] >> 32);
            contacts.pairs[2 * k + 1] = (int32_t)(in[0] & 0xffffffffu);
            contacts.id[k] = in[1];
            contacts.first_step[k] = (int64_t)in[2];
            contacts.state[k] = (uint8_t)in[3];
            memcpy(contacts.springs + (size_t)k * (size_t)stride, in + 4, (size_t)stride * sizeof(double));
            if (books > 0) {
                memcpy(contacts.books + (size_t)k * (size_t)books, in + 4 + stride,
                       (size_t)books * sizeof *contacts.books);
            }
        }
        contacts.count = count;
        status = fresh ? fd_penalty_install(world, &contacts) : fd_penalty_rebuild_adding(world, &contacts);
    }
    free(sorted);
    fd_penalty_contacts_free(&contacts);
    return status;
}

fd_status fd_partition_unpack_migration(fd_partition* part, const fd_body_record* bodies, int64_t body_count,
                                        const uint64_t* words, int64_t word_count)
{
    fd_world* world = part->world;
    int n = world->body_count;
    /* The roles sent; what nobody sent is no longer held. */
    uint8_t* next = malloc((size_t)(n > 0 ? n : 1));
    if (next == NULL) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory");
    }
    for (int b = 0; b < n; ++b) {
        bool kept = part->role[b] == FD_ROLE_SHARED || part->role[b] == FD_ROLE_GONE;
        next[b] = kept ? part->role[b] : FD_ROLE_DORMANT;
    }
    for (int64_t k = 0; k < part->owned_count; ++k) { /* what pack sent the others, for this rank */
        int b = part->owned[k];
        bool owned = fd_domain_owner(part->domain, world->position[b]) == part->rank;
        bool held = part->holders_ready ? (part->holders[b] >> part->rank) & 1u : held_by(part, b, part->rank);
        next[b] = owned ? FD_ROLE_OWNED : (held ? FD_ROLE_GHOST : FD_ROLE_DORMANT);
    }
    for (int64_t k = 0; k < body_count; ++k) {
        next[bodies[k].body] = (uint8_t)bodies[k].role;
        put_record(world, &bodies[k]);
    }
    /* The contacts it answered for stay (by the roles before); the others
     * come from the ranks that answer for them. */
    fd_penalty_drop_contacts(world, row_not_owned, kept_here, part);
    part->holders_ready = false; /* the roles change now */
    for (int b = 0; b < n; ++b) {
        if (part->role[b] != FD_ROLE_GONE) {
            hold(part, b, next[b] != FD_ROLE_DORMANT);
        }
        part->role[b] = next[b];
    }
    free(next);
    mark_passive(part, true);
    fd_status status = install_words(part, words, word_count, false);
    if (status == FD_OK && !list_ghosts(part)) {
        status = fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory");
    }
    part->migrations++;
    part->list_drift = 0.0; /* the list was built again */
    return status;
}

void fd_parcel_free(fd_parcel* parcel)
{
    free(parcel->bodies);
    free(parcel->words);
    memset(parcel, 0, sizeof *parcel);
}

fd_status fd_partition_pack_answered(const fd_partition* part, fd_parcel* out)
{
    out->word_count = 0;
    fd_penalty_contacts contacts;
    fd_status status = fd_penalty_gather(part->world, &contacts);
    if (status != FD_OK) {
        return status;
    }
    int words = fd_partition_contact_words(part);
    for (int64_t k = 0; k < contacts.count && status == FD_OK; ++k) {
        int i = contacts.pairs[2 * k], j = contacts.pairs[2 * k + 1];
        if (fd_partition_answers_for(part, i, j) && !add_contact(out, &contacts, k, words, contact_books(part))) {
            status = fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory");
        }
    }
    fd_penalty_contacts_free(&contacts);
    return status;
}

fd_status fd_partition_install_everything(fd_partition* part, const fd_body_record* bodies, int64_t body_count,
                                          const uint64_t* words, int64_t word_count)
{
    fd_partition_put_bodies(part, bodies, body_count);
    fd_partition_hold_everything(part, true);
    return install_words(part, words, word_count, true);
}

int fd_partition_record_words(const fd_partition* part)
{
    return (int)((sizeof(fd_contact) + sizeof(uint64_t) - 1) / sizeof(uint64_t)) + part->world->column_count;
}

fd_status fd_partition_pack_records(const fd_partition* part, fd_parcel* out)
{
    const fd_world* world = part->world;
    const fd_contact_set* set = &world->contacts;
    int words = fd_partition_record_words(part), columns = world->column_count;
    out->word_count = 0;
    for (int c = 0; c < set->count; ++c) {
        const fd_contact* contact = &set->contacts[c];
        if (!fd_partition_answers_for(part, contact->body_i, contact->body_j)) {
            continue;
        }
        if (!fd_grow((void**)&out->words, &out->word_capacity, out->word_count + words, sizeof *out->words)) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory for the contacts' records");
        }
        uint64_t* at = out->words + out->word_count;
        memset(at, 0, (size_t)words * sizeof *at);
        memcpy(at, contact, sizeof *contact); /* the key first: the words sort by it */
        memcpy(at + words - columns, set->columns + (size_t)c * (size_t)columns, (size_t)columns * sizeof(double));
        out->word_count += words;
    }
    return FD_OK;
}

fd_status fd_partition_put_records(fd_partition* part, const uint64_t* words, int64_t word_count, int64_t* own_count)
{
    fd_world* world = part->world;
    fd_contact_set* set = &world->contacts;
    int per = fd_partition_record_words(part), columns = world->column_count;
    int64_t count = word_count / per;
    uint64_t* sorted = sorted_copy(words, count, per);
    if (sorted == NULL || !fd_contact_set_reserve(world, set, count)) {
        free(sorted);
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory for %lld records", (long long)count);
    }
    for (int64_t c = 0; c < count; ++c) {
        memcpy(&set->contacts[c], sorted + c * per, sizeof set->contacts[c]);
        memcpy(set->columns + (size_t)c * (size_t)columns, sorted + c * per + per - columns,
               (size_t)columns * sizeof(double));
    }
    free(sorted);
    set->count = (int)count;
    *own_count = world->penalty->touching_count;
    world->penalty->touching_count = count;
    world->penalty->unrecorded = false;
    return FD_OK;
}

void fd_partition_end_records(fd_partition* part, int64_t own_count)
{
    part->world->penalty->touching_count = own_count;
}

void fd_partition_sum_wall_loads(fd_partition* part)
{
    fd_world* world = part->world;
    const fd_contact_set* set = &world->contacts;
    for (int b = 0; b < world->body_count; ++b) {
        if (part->role[b] == FD_ROLE_SHARED) {
            /* a wall's step starts from no load (stepper.c: a static body's) */
            world->forces[b] = fd_v3(0.0, 0.0, 0.0);
            world->torques[b] = fd_v3(0.0, 0.0, 0.0);
        }
    }
    for (int c = set->count - 1; c >= 0; --c) {
        const fd_contact* record = &set->contacts[c];
        int i = record->body_i, j = record->body_j;
        if (part->role[i] == FD_ROLE_SHARED) {
            world->forces[i] = fd_v3_add(world->forces[i], record->applied_force);
            world->torques[i] = fd_v3_add(world->torques[i], record->applied_torque_i);
        }
        if (part->role[j] == FD_ROLE_SHARED) {
            world->forces[j] = fd_v3_sub(world->forces[j], record->applied_force);
            world->torques[j] = fd_v3_add(world->torques[j], record->applied_torque_j);
        }
    }
}
