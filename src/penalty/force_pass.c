/* The force pass of the penalty stepper, as a list of stages (penalty.h
 * gives the design and why):
 *
 *   0. the neighbour list, rebuilt when a body has moved half the skin
 *      (neighbor.c);
 *   1. distance pass, per thread over its rows: which entries touch, into a
 *      short list (distance_pass.c);
 *   2. serial: contacts numbered in key order (ids of new contacts, places in
 *      the record), pool slots handed to new contacts, failures reported in
 *      key order;
 *   3. law pass, per thread over its touching contacts in descending key
 *      order: the laws, the loads onto the two bodies or into the thread's
 *      buffer for a body of a later thread's range (law_pass.c);
 *   4. serial: the buffered loads, latest thread first; the ledger's ended
 *      contacts and the events, in key order.
 *
 * Between stages 3 and 4 the threads' rows move for the next pass by the
 * times stages 1 and 3 took on each thread (neighbor.c): any split gives
 * the same bits, so only the time follows the cores' speeds.
 *
 * The commit of a step frees the pool slots of contacts that ended and makes
 * the recorded contacts the world's; a rollback undoes stage 3 of a careful
 * step (a step made in place wrote its springs over: its rewind point
 * answers, src/penalty/rewind.c).
 *
 * Must not touch: the engine, the complementarity stepper, files, ranks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "contact/fang_negrut_lane.h"
#include "core/cache.h"
#include "core/error.h"
#include "core/grow.h"
#include "penalty/penalty_internal.h"
#include "penalty/sphere_block.h"
#include "world/world_store.h"

void fd_penalty_free(fd_penalty* penalty)
{
    fd_rewind_free(penalty->rewind);
    fd_neighbor_list_free(&penalty->lists[0]);
    fd_neighbor_list_free(&penalty->lists[1]);
    fd_contact_pool_free(&penalty->pool);
    free(penalty->scratch);
    fd_pair_scratch_free(penalty->search);
    free(penalty->reference_position);
    for (int t = 0; t < penalty->thread_count; ++t) {
        fd_penalty_thread* th = &penalty->threads[t];
        FD_FREE_ALL(th->touching, th->separation, th->slots, th->remote, th->ended, th->new_slots, th->new_keys,
                    th->book_groups, th->book_entries, th->wall_loads);
        for (int b = 0; b < FD_BLOCKS_PER_CHUNK; ++b) {
            free(th->block[b]);
        }
        for (int s = 0; s < FD_FN_PAIRINGS; ++s) {
            free(th->fn_block[s]);
        }
        free(th->fn_single);
    }
    FD_FREE_ALL(penalty->threads, penalty->law_sphere_kernel, penalty->block_law_index, penalty->block_laws,
                penalty->fn_lane_index, penalty->fn_lane_laws, penalty->body_turns, penalty->released,
                penalty->removed_energies, penalty->body_work);
    memset(penalty, 0, sizeof *penalty);
}

/* *array resized to `laws` elements; false (the old block kept) when out of memory. */
static bool resize_per_law(void** array, size_t laws, size_t element_size)
{
    void* resized = realloc(*array, laws * element_size);
    if (resized == NULL) {
        return false;
    }
    *array = resized;
    return true;
}

fd_status fd_penalty_prepare(fd_world* world, double skin)
{
    fd_penalty* p = world->penalty;
    if (p->cache_bytes == 0) {
        p->cache_bytes = fd_last_level_cache_bytes();
    }
    size_t laws = (size_t)(world->law_count > 0 ? world->law_count : 1);
    /* Each array stays valid (its old block) where another's growth fails. */
    bool grown = resize_per_law((void**)&p->law_sphere_kernel, laws, sizeof *p->law_sphere_kernel);
    grown = resize_per_law((void**)&p->block_law_index, laws, sizeof *p->block_law_index) && grown;
    grown = resize_per_law((void**)&p->block_laws, laws, sizeof *p->block_laws) && grown;
    grown = resize_per_law((void**)&p->fn_lane_index, laws, sizeof *p->fn_lane_index) && grown;
    grown = resize_per_law((void**)&p->fn_lane_laws, laws, sizeof *p->fn_lane_laws) && grown;
    if (!grown) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory");
    }
    bool* flags = p->law_sphere_kernel;
    int* block_index = p->block_law_index;
    fd_block_law* block_laws = p->block_laws;
    int* fn_index = p->fn_lane_index;
    fd_fn_lane_law* fn_laws = p->fn_lane_laws;
    p->fn_lane_law_count = 0;
    /* LAMMPS's wall conventions (world.lammps_arms) put a plane's contact
     * elsewhere (contact_details.c): those pairs keep the registry path. */
    p->fn_planes = !world->def.lammps_arms;
    for (int l = 0; l < world->law_count; ++l) {
        fn_index[l] = fd_fn_lane_law_of(&world->laws[l], l, world->def.time_step, &fn_laws[p->fn_lane_law_count])
                          ? p->fn_lane_law_count++
                          : -1;
    }
    p->block_law_count = 0;
    int stride = 1;
    for (int l = 0; l < world->law_count; ++l) {
        flags[l] = fd_law_has_sphere_kernel(&world->laws[l]);
        if (flags[l]) {
            int count = fd_law_constant_count(&world->laws[l]);
            stride = count > stride ? count : stride;
        }
        block_index[l] = fd_block_law_of(&world->laws[l], l, world->def.time_step, &block_laws[p->block_law_count])
                             ? p->block_law_count++
                             : -1;
        if (block_index[l] >= 0) {
            block_laws[block_index[l]].lammps_arms = world->def.lammps_arms;
            block_laws[block_index[l]].legacy_torque = world->def.lammps_arms && world->def.lammps_legacy_torque;
        }
    }
    if (p->fn_lane_law_count > 0 && stride < FD_FN_PAIR_CONSTANTS) {
        stride = FD_FN_PAIR_CONSTANTS; /* the lanes' pair constants (penalty_internal.h) */
    }
    p->tracks_turns = false;
    for (int l = 0; l < world->law_count; ++l) {
        const fd_submodel* slide = world->laws[l].submodel[FD_MECHANISM_SLIDE];
        p->tracks_turns = p->tracks_turns || (slide != NULL && slide->kind == FD_KIND_SLIDE_FANG_NEGRUT);
    }
    /* The ledger's books per slot: the mechanisms up to the highest any law has. */
    int book_count = 0;
    for (int l = 0; l < world->law_count && world->def.energy_ledger; ++l) {
        for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
            book_count = world->laws[l].submodel[m] != NULL && m + 1 > book_count ? m + 1 : book_count;
        }
    }
    bool lifetime_books = book_count > 0 && world->def.contact_energy_books;
    if (skin != p->skin || stride != p->constant_stride || book_count != p->book_count ||
        lifetime_books != p->lifetime_books) {
        p->dirty = true;
    }
    if ((stride != p->constant_stride || book_count != p->book_count || lifetime_books != p->lifetime_books) &&
        p->pool.used > 0) {
        /* The pool's slots hold constant_stride constants each: a law change
         * (only before the first step) starts it afresh. */
        fd_contact_pool_free(&p->pool);
        p->lists[0].count = p->lists[1].count = 0;
        p->lists[0].body_count = p->lists[1].body_count = -1;
    }
    p->skin = skin;
    p->constant_stride = stride;
    p->book_count = book_count;
    p->lifetime_books = lifetime_books;
    /* A list built before this prepare carries over: a rebuild decides. */
    if (p->lists[p->current].row_start != NULL && p->lists[p->current].body_count != world->body_count) {
        p->dirty = true;
    }
    return FD_OK;
}

static fd_status reserve_threads(fd_world* world, int threads)
{
    fd_penalty* p = world->penalty;
    if (threads > p->thread_count) {
        fd_penalty_thread* grown = realloc(p->threads, (size_t)threads * sizeof *grown);
        if (grown == NULL) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for the contact pass");
        }
        memset(grown + p->thread_count, 0, (size_t)(threads - p->thread_count) * sizeof *grown);
        p->threads = grown;
        p->thread_count = threads;
    }
    for (int t = 0; t < threads; ++t) {
        fd_penalty_thread* th = &p->threads[t];
        bool blocks = true;
        for (int b = 0; b < FD_BLOCKS_PER_CHUNK; ++b) {
            if (th->block[b] == NULL) {
                th->block[b] = aligned_alloc(64, (sizeof(fd_sphere_block) + 63) / 64 * 64);
            }
            blocks = blocks && th->block[b] != NULL;
        }
        for (int s = 0; s < FD_FN_PAIRINGS; ++s) {
            if (th->fn_block[s] == NULL) {
                th->fn_block[s] = aligned_alloc(64, (sizeof(fd_fn_block) + 63) / 64 * 64);
            }
            blocks = blocks && th->fn_block[s] != NULL;
        }
        if (th->fn_single == NULL) {
            th->fn_single = aligned_alloc(64, (sizeof(fd_fn_block) + 63) / 64 * 64);
        }
        blocks = blocks && th->fn_single != NULL;
        if (!blocks) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for the contact pass");
        }
    }
    return FD_OK;
}

/* ---------------------------------------------------------------- stage 0 */

static bool list_is_stale(const fd_world* world)
{
    const fd_penalty* p = world->penalty;
    const fd_neighbor_list* list = &p->lists[p->current];
    double half_skin = 0.5 * p->skin;
    return p->dirty || world->list_stale || list->row_start == NULL || list->body_count != world->body_count ||
           list->thread_count != world->def.thread_count || !(p->max_displacement_squared <= half_skin * half_skin);
}

static fd_status refresh_list(fd_world* world)
{
    fd_penalty* p = world->penalty;
    if (!list_is_stale(world)) {
        /* A list that stands for long (a chute flows for a thousand steps
         * between rebuilds) sees contacts begin, each in a slot far from
         * its key's neighbours: packed again when it pays (fd_packing_pays). */
        fd_neighbor_list* list = &p->lists[p->current];
        p->passes_since_packed++;
        if (fd_packing_pays(p) && list->row_start != NULL) {
            fd_neighbor_list_repack(world, list); /* out of memory: it stays as it is, which works */
        }
        return FD_OK;
    }
    return fd_penalty_rebuild_list(world, true);
}

/* ---------------------------------------------------------------- stage 2 */

/* Slots for the contacts that begin in this pass, thread by thread in key
 * order: slots freed by earlier passes first, then new ones at the end. */
static bool hand_out_slots(fd_world* world, int threads, int64_t new_total)
{
    fd_penalty* p = world->penalty;
    fd_contact_pool* pool = &p->pool;
    int64_t fresh = new_total - pool->free_count;
    if (fresh > 0 && !fd_contact_pool_reserve(pool, pool->used + fresh, world->history_stride, p->constant_stride,
                                              p->book_count, p->lifetime_books)) {
        return false;
    }
    if (!fd_contact_pool_reserve(pool, pool->used, world->history_stride, p->constant_stride, p->book_count,
                                 p->lifetime_books)) {
        return false;
    }
    p->begun_since_packed += new_total;
    for (int t = 0; t < threads; ++t) {
        fd_penalty_thread* th = &p->threads[t];
        if (!fd_grow((void**)&th->new_slots, &th->new_slot_capacity, th->new_count + 1,
                     sizeof *th->new_slots) ||
            !fd_grow((void**)&th->new_keys, &th->new_key_capacity, th->new_count + 1, sizeof *th->new_keys)) {
            return false;
        }
        for (int64_t k = 0; k < th->new_count; ++k) {
            th->new_slots[k] = pool->free_count > 0 ? pool->free_slots[--pool->free_count] : (int32_t)pool->used++;
        }
    }
    return true;
}

bool fd_contact_set_reserve(const fd_world* world, fd_contact_set* set, int64_t count)
{
    if (count <= set->capacity) {
        return true;
    }
    /* An eighth to spare, not a doubling: a record is 720 bytes, and at 10^6
     * spheres a doubled set held 0.6 GB it never used. */
    int64_t wanted = count + count / 8 + 64;
    int capacity = wanted < INT32_MAX ? (int)wanted : INT32_MAX;
    if (capacity < count) {
        return false;
    }
    fd_contact* contacts = realloc(set->contacts, (size_t)capacity * sizeof *contacts);
    if (contacts == NULL) {
        return false;
    }
    set->contacts = contacts;
    size_t columns = (size_t)(world->column_count > 0 ? world->column_count : 1);
    double* column_values = realloc(set->columns, (size_t)capacity * columns * sizeof(double));
    if (column_values == NULL) {
        return false;
    }
    set->columns = column_values;
    set->capacity = capacity;
    return true;
}

/* Each body's rotation over the step just made, q1 q0* (R(q1) R(q0)^T is
 * its matrix; q0 where the stepper put it: in body_turns itself after a step
 * made in place, p->stepping_in_place, else in the saved buffers): an
 * unturned body gets (1, 0, 0, 0), whose fd_mat3_from_quat is the identity
 * to the bit. */
static bool make_body_turns(fd_world* world, int threads)
{
    fd_penalty* p = world->penalty;
    if (!fd_grow((void**)&p->body_turns, &p->body_turn_capacity, world->body_count, sizeof *p->body_turns)) {
        return false;
    }
    /* (before may be turns: each is read before it is written) */
    const fd_quat* before = p->stepping_in_place ? p->body_turns : world->saved_orientation;
    const fd_quat* after = world->orientation;
    fd_quat* turns = p->body_turns;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (int b = 0; b < world->body_count; ++b) {
        if (memcmp(&before[b], &after[b], sizeof before[b]) == 0) {
            turns[b] = (fd_quat){1.0, 0.0, 0.0, 0.0};
        } else {
            turns[b] = fd_quat_mul(after[b], fd_quat_conjugate(before[b]));
        }
    }
    return true;
}

/* The bytes the law pass reads through, for law_ahead (penalty.h): the
 * bodies' (FD_PARTNER_BYTES a body), the list's entries (partner, contact
 * slot, kind and law) and each live contact's touching record, springs,
 * pair constants, slip state and ledger books, in one buffer for a pass that
 * writes them over (pool.flip 0: a step made in place) and in both for one
 * that reads one and writes the other; the books as the pool keeps them
 * (lifetime books, or the stored energies alone). An estimate, not an
 * account. */
static size_t law_pass_bytes(const fd_world* world, const fd_neighbor_list* list)
{
    const fd_penalty* p = world->penalty;
    const fd_contact_pool* pool = &p->pool;
    size_t entry_bytes = sizeof *list->partner + sizeof *list->contact + sizeof *list->kind + sizeof *list->law;
    size_t buffers = pool->flip ? 2 : 1;
    size_t book_bytes = pool->lifetime_books ? sizeof **pool->books : sizeof **pool->stored;
    size_t slot_bytes = sizeof(fd_touch) + buffers * (size_t)world->history_stride * sizeof(double) +
                        (size_t)p->constant_stride * sizeof *pool->constants + sizeof *pool->state +
                        buffers * (size_t)pool->book_count * book_bytes;
    int64_t live = pool->used - pool->free_count;
    return (size_t)world->body_count * FD_PARTNER_BYTES + (size_t)list->count * entry_bytes +
           (size_t)(live > 0 ? live : 0) * slot_bytes;
}

fd_status fd_penalty_force_pass(fd_world* world, bool record, bool elapsed)
{
    fd_penalty* p = world->penalty;
    fd_world_profile* profile = &world->profile;
    double start = fd_wall_seconds();
    p->stage = 0;
    fd_status status = refresh_list(world);
    if (status != FD_OK) {
        return status;
    }
    p->spring_time_step = elapsed ? world->def.time_step : 0.0;
    /* A step made in place writes the springs and books over (its rewind
     * point answers for a failure); the set-up pass and a careful step into
     * the other buffers, which the commit makes the current ones. */
    p->pool.flip = elapsed && p->stepping_in_place ? 0 : 1;
    for (int b = 0; b < p->block_law_count; ++b) {
        p->block_laws[b].spring_time_step = p->spring_time_step;
    }
    for (int l = 0; l < p->fn_lane_law_count; ++l) {
        p->fn_lane_laws[l].time_step = world->def.time_step;
    }
    fd_neighbor_list* list = &p->lists[p->current];
    int threads = list->thread_count;
    p->partners_ahead = (size_t)world->body_count * FD_PARTNER_BYTES > p->cache_bytes;
    p->law_ahead = law_pass_bytes(world, list) > p->cache_bytes / 2;
    status = reserve_threads(world, threads);
    if (status != FD_OK) {
        return status;
    }
    p->turns_ready = elapsed && p->tracks_turns;
    if (p->turns_ready && !make_body_turns(world, threads)) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for %d body rotations", world->body_count);
    }
    double listed = fd_wall_seconds();
    profile->broad_phase += listed - start;

    /* Stage 1. */
#pragma omp parallel for schedule(static, 1) num_threads(threads) if (threads > 1)
    for (int t = 0; t < threads; ++t) {
        double begun = threads > 1 ? fd_wall_seconds() : 0.0;
        fd_distance_pass(world, list, &p->threads[t], list->thread_row[t], list->thread_row[t + 1], record);
        p->threads[t].busy = threads > 1 ? fd_wall_seconds() - begun : 0.0;
    }
    /* Stage 2. */
    int64_t total = 0, new_total = 0;
    uint64_t next_id = world->next_contact_id;
    for (int t = 0; t < threads; ++t) {
        fd_penalty_thread* th = &p->threads[t];
        if (th->failure != FD_PASS_OK) {
            return fd_distance_failure(world, list, th);
        }
        th->first_contact = total;
        th->first_id = next_id;
        total += th->touching_count;
        new_total += th->new_count;
        next_id += (uint64_t)th->new_count;
    }
    bool ledger = world->def.energy_ledger;
    p->pool_used_before = p->pool.used;
    p->pool_free_before = p->pool.free_count;
    p->pass_in_place = record && world->def.contact_output == FD_CONTACT_OUTPUT_ON_REQUEST;
    p->record_set = p->pass_in_place ? &world->contacts : &world->previous;
    if (p->pass_in_place) {
        p->unrecorded = true; /* until the commit: the set is being written over */
    }
    if (!hand_out_slots(world, threads, new_total) ||
        (record && !fd_contact_set_reserve(world, p->record_set, total))) {
        p->pool.used = p->pool_used_before;
        p->pool.free_count = p->pool_free_before;
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for %lld contacts", (long long)total);
    }
    double tested = fd_wall_seconds();
    profile->narrow_phase += tested - listed;

    /* Stage 3. */
    p->stage = 1;
#pragma omp parallel for schedule(static, 1) num_threads(threads) if (threads > 1)
    for (int t = 0; t < threads; ++t) {
        double begun = threads > 1 ? fd_wall_seconds() : 0.0;
        fd_law_pass(world, list, &p->threads[t], list->thread_row[t + 1], record, ledger);
        p->threads[t].busy += threads > 1 ? fd_wall_seconds() - begun : 0.0;
    }
    double evaluated = fd_wall_seconds();
    /* The next pass's rows by the threads' speeds in this one: cores that
     * run at different speeds (a shared machine) then finish together. */
    fd_neighbor_list_follow_speeds(list, p->threads);
    profile->contact_models += evaluated - tested;

    /* Stage 4. */
    world->next_contact_id = next_id;
    for (int t = threads - 1; t >= 0; --t) {
        const fd_penalty_thread* th = &p->threads[t];
        if (th->failure == FD_PASS_OUT_OF_MEMORY) {
            return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory in the contact pass");
        }
        for (int64_t k = 0; k < th->remote_count; ++k) {
            const fd_remote_load* load = &th->remote[k];
            world->forces[load->body] = fd_v3_add(world->forces[load->body], load->force);
            world->torques[load->body] = fd_v3_add(world->torques[load->body], load->torque);
        }
    }
    if (ledger) {
        status = fd_retire_books(world, list);
        if (status != FD_OK) {
            return status;
        }
        fd_book_step_sums(world, list);
    }
    p->pass_touching_count = total;
    p->pass_recorded = record;
    p->record_set->count = record ? (int)total : 0;
    status = world->def.events ? fd_raise_events(world, list) : FD_OK;
    if (!world->def.events) {
        world->event_count = 0;
    }
    profile->accumulate += fd_wall_seconds() - evaluated;
    profile->contact_steps += (double)total;
    profile->steps++;
    return status;
}

/* ---------------------------------------------------------------- commit and rollback */

void fd_penalty_commit(fd_world* world)
{
    fd_penalty* p = world->penalty;
    if (p->stage == 1) {
        p->pool.parity ^= p->pool.flip; /* the springs and books the pass wrote are those now */
        /* Contacts that ended give their slots back, for later passes. */
        fd_neighbor_list* list = &p->lists[p->current];
        fd_contact_pool* pool = &p->pool;
        for (int t = 0; t < list->thread_count; ++t) {
            const fd_penalty_thread* th = &p->threads[t];
            for (int64_t k = 0; k < th->ended_count; ++k) {
                int32_t e = th->ended[k];
                if (fd_grow((void**)&pool->free_slots, &pool->free_capacity, pool->free_count + 1,
                            sizeof *pool->free_slots)) {
                    pool->free_slots[pool->free_count++] = list->contact[e];
                }
                list->contact[e] = FD_NO_CONTACT;
            }
        }
    }
    p->stage = 0;
    p->touching_count = p->pass_touching_count;
    p->unrecorded = !p->pass_recorded;
    if (p->pass_recorded && !p->pass_in_place) {
        fd_contact_set swap = world->contacts;
        world->contacts = world->previous;
        world->previous = swap;
    }
    p->pass_in_place = false;
}

void fd_penalty_rollback(fd_world* world)
{
    fd_penalty* p = world->penalty;
    world->event_count = 0;
    p->dirty = true; /* a fresh list for the restored state */
    p->pass_in_place = false; /* its records, if any, stay unreadable (p->unrecorded) */
    if (p->stage == 0) {
        return;
    }
    fd_neighbor_list* list = &p->lists[p->current];
    fd_contact_pool* pool = &p->pool;
    for (int t = 0; t < list->thread_count; ++t) {
        const fd_penalty_thread* th = &p->threads[t];
        for (int64_t k = 0; k < th->touching_count; ++k) {
            int32_t e = th->touching[k].entry;
            int32_t slot = list->contact[e];
            if ((pool->state[slot] >> 4 & FD_ENTRY_TOUCHING) == 0) {
                list->contact[e] = FD_NO_CONTACT; /* it began in the failed pass */
                continue;
            }
            /* The springs and books of the pass went to the other buffers:
             * nothing to undo. */
            pool->state[slot] >>= 4;
        }
    }
    pool->used = p->pool_used_before;
    pool->free_count = p->pool_free_before;
    p->stage = 0;
}

/* ---------------------------------------------------------------- queries */

size_t fd_penalty_memory(const fd_world* world)
{
    const fd_penalty* p = world->penalty;
    size_t bytes = fd_neighbor_list_memory(&p->lists[0]) + fd_neighbor_list_memory(&p->lists[1]) +
                   fd_contact_pool_memory(&p->pool, world->history_stride, p->constant_stride) +
                   p->scratch_capacity +
                   fd_pair_scratch_memory(p->search);
    bytes += (size_t)p->reference_capacity * sizeof(fd_vec3) + (size_t)p->body_turn_capacity * sizeof(fd_quat);
    bytes += fd_rewind_memory(p->rewind);
    for (int t = 0; t < p->thread_count; ++t) {
        const fd_penalty_thread* th = &p->threads[t];
        bytes += (size_t)th->touching_capacity * sizeof(fd_touch) + (size_t)th->separation_capacity * sizeof(fd_vec3) +
                 (size_t)th->slot_capacity * sizeof(fd_generic_slot) +
                 (size_t)th->remote_capacity * sizeof(fd_remote_load) + (size_t)th->ended_capacity * sizeof(int32_t) +
                 (size_t)th->new_slot_capacity * sizeof(int32_t) + FD_BLOCKS_PER_CHUNK * sizeof(fd_sphere_block) +
                 (FD_FN_PAIRINGS + 1) * sizeof(fd_fn_block) +
                 (size_t)th->book_group_capacity * sizeof(fd_book_group);
    }
    return bytes;
}
