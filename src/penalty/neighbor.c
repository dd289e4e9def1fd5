/* The Verlet neighbour list of the penalty stepper (penalty.h).
 *
 * Built from the broad phase's candidate pairs with the margin widened by the
 * skin: every pair whose bounding spheres come within contact_margin + skin
 * (m) is an entry, in ascending key order, grouped in rows by body i. As long
 * as no body has moved more than half the skin since the build, no pair that
 * is not listed can touch (each of its two bodies moved less than skin / 2),
 * so the list serves every force pass until then.
 *
 * A rebuild carries each entry's contact (state, history, id, first step,
 * books) to the new list by key: both lists are in key order, so one merge
 * per row finds them. A touching pair is always in the new list (it is within
 * the margin, so within the wider reach).
 *
 * Must not touch: the engine, the complementarity stepper, files, ranks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/grow.h"
#include "penalty/penalty_internal.h"
#include "world/world_store.h"

void fd_neighbor_list_free(fd_neighbor_list* list)
{
    FD_FREE_ALL(list->row_start, list->partner, list->kind, list->law, list->contact, list->thread_row,
                list->group_weight, list->bound_target);
    memset(list, 0, sizeof *list);
}

void fd_contact_pool_free(fd_contact_pool* pool)
{
    FD_FREE_ALL(pool->history[0], pool->history[1], pool->constants, pool->id, pool->first_step, pool->state,
                pool->books[0], pool->books[1], pool->stored[0], pool->stored[1], pool->free_slots);
    memset(pool, 0, sizeof *pool);
}

/* The pool's arrays for `capacity` slots (their contents kept). */
static bool resize_pool(fd_contact_pool* pool, int64_t capacity, int history_stride, int constant_stride,
                        int book_count, bool lifetime_books)
{
    if (book_count != pool->book_count || lifetime_books != pool->lifetime_books) {
        /* The books' layout changes (only while the pool is empty: a law
         * change before the first step): start them afresh. */
        for (int k = 0; k < 2; ++k) {
            free(pool->books[k]);
            free(pool->stored[k]);
            pool->books[k] = NULL;
            pool->stored[k] = NULL;
        }
        pool->book_count = book_count;
        pool->lifetime_books = lifetime_books;
    }
    size_t n = (size_t)(capacity > 0 ? capacity : 1);
    size_t springs = n * (size_t)(history_stride > 0 ? history_stride : 1);
    bool ok = fd_resize((void**)&pool->history[0], springs, sizeof *pool->history[0]) &&
              fd_resize((void**)&pool->history[1], springs, sizeof *pool->history[1]) &&
              fd_resize((void**)&pool->constants, n * (size_t)constant_stride, sizeof *pool->constants) &&
              fd_resize((void**)&pool->id, n, sizeof *pool->id) &&
              fd_resize((void**)&pool->first_step, n, sizeof *pool->first_step) &&
              fd_resize((void**)&pool->state, n, sizeof *pool->state) &&
              (book_count == 0 ||
               (lifetime_books
                    ? fd_resize((void**)&pool->books[0], n * (size_t)book_count, sizeof *pool->books[0]) &&
                          fd_resize((void**)&pool->books[1], n * (size_t)book_count, sizeof *pool->books[1])
                    : fd_resize((void**)&pool->stored[0], n * (size_t)book_count, sizeof *pool->stored[0]) &&
                          fd_resize((void**)&pool->stored[1], n * (size_t)book_count, sizeof *pool->stored[1])));
    if (ok) {
        pool->capacity = capacity;
    }
    return ok;
}

bool fd_contact_pool_reserve(fd_contact_pool* pool, int64_t count, int history_stride, int constant_stride,
                             int book_count, bool lifetime_books)
{
    if (count <= pool->capacity && book_count == pool->book_count && lifetime_books == pool->lifetime_books &&
        (book_count == 0 || (lifetime_books ? pool->books[0] != NULL : pool->stored[0] != NULL))) {
        return true;
    }
    return resize_pool(pool, (count > pool->capacity ? count : pool->capacity) + count / 4 + 1024, history_stride,
                       constant_stride, book_count, lifetime_books);
}

/* to[s] = from[source[s]] for the slots s < live, `width` bytes each
 * (whole doubles, or one byte), through `moved` (from and to may be one
 * array). A few words each: copied in place, not by a call to memcpy per
 * contact (a flowing chute packs its pool every few steps). */
static void permute_slots(void* to, const void* from, size_t width, const int32_t* source, int64_t live,
                          unsigned char* moved, int threads)
{
    if (width == 1) {
        const uint8_t* bytes = from;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
        for (int64_t s = 0; s < live; ++s) {
            moved[s] = bytes[source[s]];
        }
    } else {
        const int words = (int)(width / sizeof(double));
        const unsigned char* in = from;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
        for (int64_t s = 0; s < live; ++s) {
            const unsigned char* word = in + (size_t)source[s] * width;
            for (int k = 0; k < words; ++k) { /* (8-byte copies the compiler makes one move each) */
                memcpy(moved + (size_t)s * width + 8 * (size_t)k, word + 8 * (size_t)k, 8);
            }
        }
    }
#pragma omp parallel for schedule(static, 1) num_threads(threads) if (threads > 1)
    for (int t = 0; t < threads; ++t) {
        size_t begin = (size_t)(live * t / threads) * width, end = (size_t)(live * (t + 1) / threads) * width;
        if (end > begin) {
            memcpy((unsigned char*)to + begin, moved + begin, end - begin);
        }
    }
}

/* Moves the contacts of the new list's entries into slots 0, 1, ... in key
 * order (the law pass then walks the pool in order), one array at a time
 * through the penalty's scratch block (the pair search's before: the two
 * are never needed at once, penalty.h). Slots no entry holds are free
 * again. Each array is gathered into the block and copied back: one more
 * sequential pass over the live slots than a copy into a second pool,
 * which would hold a second pool's bytes (49 a contact for hooke + dsds)
 * beside the search's from build to build. */
static bool compact_pool(fd_world* world, fd_neighbor_list* list)
{
    fd_penalty* p = world->penalty;
    fd_contact_pool* pool = &p->pool;
    int stride = world->history_stride;
    int constant_stride = p->constant_stride;
    int book_count = p->book_count;
    bool lifetime_books = p->lifetime_books;
    bool books = book_count > 0 && (lifetime_books ? (void*)pool->books[0] : (void*)pool->stored[0]) != NULL;
    /* Each thread numbers the contacts of its share of the entries from the
     * count of the shares before it: the same slots for any thread count. */
    int threads = world->def.thread_count > 1 ? world->def.thread_count : 1;
    int64_t share_live[64 + 1] = {0};
    threads = threads > 64 ? 64 : threads;
#pragma omp parallel for schedule(static, 1) num_threads(threads) if (threads > 1)
    for (int t = 0; t < threads; ++t) {
        int64_t begin = list->count * t / threads, end = list->count * (t + 1) / threads, live = 0;
        for (int64_t e = begin; e < end; ++e) {
            live += list->contact[e] != FD_NO_CONTACT;
        }
        share_live[t + 1] = live;
    }
    for (int t = 0; t < threads; ++t) {
        share_live[t + 1] += share_live[t];
    }
    int64_t live = share_live[threads];
    size_t widest = sizeof(uint64_t);
    size_t widths[3] = {(size_t)stride * sizeof(double), (size_t)constant_stride * sizeof(double),
                        books ? (size_t)book_count * (lifetime_books ? sizeof(fd_energy_books) : sizeof(double)) : 0};
    for (int k = 0; k < 3; ++k) {
        widest = widths[k] > widest ? widths[k] : widest;
    }
    size_t source_bytes = fd_cache_lines((size_t)live * sizeof(int32_t));
    unsigned char* block = fd_scratch_block(&p->scratch, &p->scratch_capacity, source_bytes + (size_t)live * widest);
    if (block == NULL) {
        return false;
    }
    int32_t* source = (int32_t*)block;
    unsigned char* moved = block + source_bytes;
#pragma omp parallel for schedule(static, 1) num_threads(threads) if (threads > 1)
    for (int t = 0; t < threads; ++t) {
        int64_t begin = list->count * t / threads, end = list->count * (t + 1) / threads;
        int32_t slot = (int32_t)share_live[t];
        for (int64_t e = begin; e < end; ++e) {
            int32_t old = list->contact[e];
            if (old != FD_NO_CONTACT) {
                source[slot] = old;
                list->contact[e] = slot++;
            }
        }
    }
    /* The springs and books as the last pass left them (its parity), into
     * buffer 0, the parity after packing. */
    void* books_before = !books ? NULL
                         : lifetime_books ? (void*)fd_books_before(pool, 0)
                                          : (void*)fd_stored_before(pool, 0);
    if (stride > 0) { /* (no springs: no arrays, and no offset on NULL) */
        permute_slots(pool->history[0], fd_springs_before(pool, 0, stride), widths[0], source, live, moved, threads);
    }
    if (constant_stride > 0) {
        permute_slots(pool->constants, pool->constants, widths[1], source, live, moved, threads);
    }
    permute_slots(pool->id, pool->id, sizeof *pool->id, source, live, moved, threads);
    permute_slots(pool->first_step, pool->first_step, sizeof *pool->first_step, source, live, moved, threads);
    permute_slots(pool->state, pool->state, sizeof *pool->state, source, live, moved, threads);
    if (books) {
        /* Both buffers alike: what a pass never changes (a mechanism the law
         * lacks, the block's untouched fields) is never written again. */
        void* buffers[2] = {lifetime_books ? (void*)pool->books[0] : (void*)pool->stored[0],
                            lifetime_books ? (void*)pool->books[1] : (void*)pool->stored[1]};
        permute_slots(buffers[0], books_before, widths[2], source, live, moved, threads);
        memcpy(buffers[1], buffers[0], (size_t)live * widths[2]);
    }
    pool->parity = 0;
    pool->used = live;
    pool->free_count = 0;
    p->begun_since_packed = 0;
    p->passes_since_packed = 0;
    return true;
}

bool fd_neighbor_list_repack(fd_world* world, fd_neighbor_list* list) { return compact_pool(world, list); }

bool fd_law_has_sphere_kernel(const fd_contact_law* law)
{
    fd_submodel_kind normal = law->submodel[FD_MECHANISM_NORMAL]->kind;
    const fd_submodel* slide = law->submodel[FD_MECHANISM_SLIDE];
    const fd_submodel* roll = law->submodel[FD_MECHANISM_ROLL];
    const fd_submodel* spin = law->submodel[FD_MECHANISM_SPIN];
    bool normal_ok = normal == FD_KIND_NORMAL_HOOKE || normal == FD_KIND_NORMAL_HERTZ;
    bool slide_ok = slide == NULL || slide->kind == FD_KIND_SLIDE_DSDS || slide->kind == FD_KIND_SLIDE_CSDS ||
                    slide->kind == FD_KIND_SLIDE_LINEAR_NOHISTORY || fd_kind_is_mindlin(slide->kind);
    bool roll_ok = roll == NULL || roll->kind == FD_KIND_ROLL_DSDS || roll->kind == FD_KIND_ROLL_CSDS;
    bool spin_ok = spin == NULL || spin->kind == FD_KIND_SPIN_DSDS || spin->kind == FD_KIND_SPIN_CSDS ||
                   spin->kind == FD_KIND_SPIN_MARSHALL;
    return normal_ok && slide_ok && roll_ok && spin_ok;
}

int fd_law_constant_count(const fd_contact_law* law)
{
    if (law->submodel[FD_MECHANISM_NORMAL]->kind == FD_KIND_NORMAL_HERTZ) {
        return 3;
    }
    /* R_eff: for the roll and spin springs, and mindlin's contact radius. */
    const fd_submodel* slide = law->submodel[FD_MECHANISM_SLIDE];
    bool mindlin = slide != NULL && fd_kind_is_mindlin(slide->kind);
    bool viscoelastic = law->params[FD_MECHANISM_NORMAL][FD_HOOKE_ETA_N_VISCO] > 0.0; /* a = sqrt(R_eff delta) */
    return law->submodel[FD_MECHANISM_ROLL] != NULL || law->submodel[FD_MECHANISM_SPIN] != NULL || mindlin ||
                   viscoelastic
               ? 2
               : 1;
}

/* The pair's constants for the sphere kernels, fixed for the life of the
 * entry: [0] the normal dashpot's prefactor (fd_normal_dashpot_prefactor:
 * N s/m, or N s/m^(5/4) for hertz's Tsuji form), [1] R_eff (m), [2] hertz's
 * K = 4/3 E* sqrt(R_eff) (Johnson Eq. 4.23), with m the pair's effective
 * mass (the dynamic one's against a static body). */
static void pair_constants(const fd_contact_law* law, double mass_i, double mass_j, double radius_i, double radius_j,
                           bool plane_j, int stride, double* out)
{
    double effective_mass = mass_i <= 0.0 ? mass_j : (mass_j <= 0.0 ? mass_i : mass_i * mass_j / (mass_i + mass_j));
    double effective_radius = plane_j ? radius_i : 1.0 / (1.0 / radius_i + 1.0 / radius_j);
    const double* derived = law->derived[FD_MECHANISM_NORMAL];
    double c0 = fd_normal_dashpot_prefactor(law, effective_mass, effective_radius);
    double hertz_constant = law->submodel[FD_MECHANISM_NORMAL]->kind == FD_KIND_NORMAL_HERTZ
                                ? fd_hertz_constant(derived, effective_radius)
                                : 0.0;
    double values[3] = {c0, effective_radius, hertz_constant};
    for (int k = 0; k < stride && k < 3; ++k) {
        out[k] = values[k];
    }
}

void fd_pair_constants(const fd_world* world, const fd_contact_law* law, int i, int j, double* out)
{
    bool plane_i = world->is_wall[i], plane_j = world->is_wall[j];
    /* per (sphere, other): the order of the pair does not matter for them */
    int sphere = plane_i ? j : i, other = plane_i ? i : j;
    pair_constants(law, world->motion[sphere].mass, world->motion[other].mass, world->bounding_radii[sphere],
                   world->bounding_radii[other], plane_i || plane_j, world->penalty->constant_stride, out);
}

static uint8_t pair_kind(uint32_t flags_i, uint32_t flags_j, bool sphere_kernel)
{
    bool sphere_i = flags_i & FD_MOTION_SPHERE, sphere_j = flags_j & FD_MOTION_SPHERE;
    bool plane_i = flags_i & FD_MOTION_PLANE, plane_j = flags_j & FD_MOTION_PLANE;
    uint8_t shapes = sphere_i && sphere_j  ? FD_PAIR_SPHERE_SPHERE
                     : sphere_i && plane_j ? FD_PAIR_SPHERE_PLANE
                     : plane_i && sphere_j ? FD_PAIR_PLANE_SPHERE
                                           : FD_PAIR_GENERIC;
    if (shapes == FD_PAIR_GENERIC || sphere_kernel) {
        return shapes;
    }
    return (uint8_t)(FD_PAIR_GENERIC_SPHERES + shapes);
}

/* The ledger's groups of rows in the first `rows`. */
static int row_groups(int rows) { return (rows + FD_BOOK_GROUP_ROWS - 1) / FD_BOOK_GROUP_ROWS; }

/* The weight of rows [0, row): row is a multiple of FD_BOOK_GROUP_ROWS or
 * past the weighted rows. */
static double weight_before(const fd_neighbor_list* list, int row)
{
    return row >= list->weighted_rows ? list->group_weight[row_groups(list->weighted_rows)]
                                      : list->group_weight[row / FD_BOOK_GROUP_ROWS];
}

/* Whether every thread's cost is measured (NULL threads: none is). */
static bool costs_measured(const fd_penalty_thread* threads, int count)
{
    for (int t = 0; t < count && threads != NULL; ++t) {
        if (!(threads[t].cost > 0.0)) {
            return false;
        }
    }
    return threads != NULL;
}

/* Where each bound t (0 < t < thread_count) should fall, into target[t]:
 * the weight of the rows of the threads before t in proportion to their
 * speeds (the inverses of their costs; equal while some cost is unmeasured). */
static void bound_targets(const fd_neighbor_list* list, const fd_penalty_thread* threads, double* target)
{
    int count = list->thread_count;
    bool measured = costs_measured(threads, count);
    double all = 0.0;
    for (int t = 0; t < count; ++t) {
        all += measured ? 1.0 / threads[t].cost : 1.0;
    }
    double total = weight_before(list, list->weighted_rows), ahead = 0.0;
    for (int t = 1; t < count; ++t) {
        ahead += measured ? 1.0 / threads[t - 1].cost : 1.0;
        target[t] = total * (ahead / all);
    }
}

/* Row bounds for the threads at group bounds, each the one nearest its
 * target (bound_targets; target[0] unused). */
static void split_rows(fd_neighbor_list* list, const double* target)
{
    int groups = row_groups(list->weighted_rows);
    int low = 0; /* the first group bound a later thread may start at */
    for (int t = 1; t < list->thread_count; ++t) {
        /* The first group bound at or past the target, or the one before
         * it when that is nearer. */
        int lo = low, hi = groups;
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (list->group_weight[mid] < target[t]) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if (lo > low && target[t] - list->group_weight[lo - 1] < list->group_weight[lo] - target[t]) {
            --lo;
        }
        low = lo;
        int64_t row = (int64_t)lo * FD_BOOK_GROUP_ROWS;
        list->thread_row[t] = (int32_t)(row < list->weighted_rows ? row : list->weighted_rows);
    }
}

/* Each row's weight, summed by groups of rows (list->group_weight): a row
 * costs its body's loop even when empty, each entry its distance test, and
 * each entry of a plane's row (a contact taken through the scalar kernel,
 * most of them touching) about as much as four sphere-sphere entries. Then
 * the rows split by the threads' measured speeds (equal before any pass). */
static bool balance_threads(const fd_world* world, const fd_penalty* penalty, fd_neighbor_list* list, int threads)
{
    int n = list->body_count, groups = row_groups(n);
    if (!fd_resize((void**)&list->thread_row, (size_t)threads + 1, sizeof *list->thread_row) ||
        !fd_resize((void**)&list->group_weight, (size_t)groups + 1, sizeof *list->group_weight)) {
        return false;
    }
    list->thread_count = threads;
    list->weighted_rows = n;
    list->thread_row[0] = 0;
    list->thread_row[threads] = n;
    enum { PLANE_ENTRY_WEIGHT = 4 };
    double done = 0.0;
    list->group_weight[0] = 0.0;
    for (int g = 0; g < groups; ++g) {
        int end = (g + 1) * FD_BOOK_GROUP_ROWS < n ? (g + 1) * FD_BOOK_GROUP_ROWS : n;
        for (int i = g * FD_BOOK_GROUP_ROWS; i < end; ++i) {
            double entries = (double)(list->row_start[i + 1] - list->row_start[i]);
            done += 1.0 + entries * ((world->motion[i].flags & FD_MOTION_WALL) ? PLANE_ENTRY_WEIGHT : 1);
        }
        list->group_weight[g + 1] = done;
    }
    if (!fd_resize((void**)&list->bound_target, (size_t)threads + 1, sizeof *list->bound_target)) {
        return false;
    }
    bound_targets(list, penalty->thread_count >= threads ? penalty->threads : NULL, list->bound_target);
    split_rows(list, list->bound_target);
    return true;
}

void fd_neighbor_list_follow_speeds(fd_neighbor_list* list, fd_penalty_thread* threads)
{
    int count = list->thread_count;
    if (count < 2 || list->group_weight == NULL) {
        return;
    }
    for (int t = 0; t < count; ++t) {
        double weight = weight_before(list, list->thread_row[t + 1]) - weight_before(list, list->thread_row[t]);
        if (!(weight > 0.0) || !(threads[t].busy > 0.0)) {
            return; /* a share with no work, or no time: nothing learnt */
        }
    }
    for (int t = 0; t < count; ++t) {
        /* Half the last cost and half this pass's: a pass's times jitter,
         * and the cost per weight differs from one band of rows to the next. */
        double weight = weight_before(list, list->thread_row[t + 1]) - weight_before(list, list->thread_row[t]);
        double cost = threads[t].busy / weight;
        threads[t].cost = threads[t].cost > 0.0 ? 0.5 * (threads[t].cost + cost) : cost;
    }
    /* Moved only when some bound is off its target by more than 1 % of the
     * work: a split moving back and forth by a few groups every pass would
     * gain nothing and hand rows' data from core to core. */
    bound_targets(list, threads, list->bound_target);
    double total = weight_before(list, list->weighted_rows), largest = 0.0;
    for (int t = 1; t < count; ++t) {
        largest = fmax(largest, fabs(list->bound_target[t] - weight_before(list, list->thread_row[t])));
    }
    if (largest > 0.01 * total) {
        split_rows(list, list->bound_target);
    }
}

/* The rows from the general broad phase (periodic or sparse worlds). */
static fd_status rows_from_broadphase(fd_world* world, double margin, fd_neighbor_list* out)
{
    fd_broadphase* bp = &world->broadphase;
    bp->body_count = world->body_count;
    bp->positions = world->position;
    fd_world_bind_broadphase(world);
    bp->margin = margin;
    if (!fd_broadphase_update(bp)) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory in the broad phase");
    }
    if (bp->pair_count >= INT32_MAX) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "the neighbour list would hold %d pairs, more than 2^31",
                       bp->pair_count);
    }
    int n = world->body_count;
    if (!fd_neighbor_list_reserve(out, bp->pair_count, n)) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for a neighbour list of %d pairs", bp->pair_count);
    }
    /* Less the pairs that are another rank's to compute, as the pair search. */
    const fd_body_motion* motion = world->motion;
    int64_t e = 0, kept = 0;
    for (int i = 0; i < n; ++i) {
        out->row_start[i] = kept;
        for (; e < bp->pair_count && (int)(bp->pairs[e] >> 32) == i; ++e) {
            int32_t j = (int32_t)(bp->pairs[e] & 0xffffffffu);
            if (!fd_pair_left_to_other_ranks(motion[i].flags, motion[j].flags)) {
                out->partner[kept++] = j;
            }
        }
    }
    out->row_start[n] = kept;
    out->body_count = n;
    out->count = kept;
    fd_broadphase_release(bp); /* no memory held until the next build */
    return FD_OK;
}

/* Room for the reference positions of n bodies (the rebuild test's). */
static bool reserve_references(fd_penalty* penalty, int n)
{
    if (n <= penalty->reference_capacity) {
        return true;
    }
    int capacity = n + n / 8 + 64;
    if (!fd_resize((void**)&penalty->reference_position, (size_t)capacity, sizeof(fd_vec3))) {
        return false;
    }
    penalty->reference_capacity = capacity;
    return true;
}

/* Builds *out from the world's current state, carrying the contacts of *old
 * (NULL: none); resets the rebuild test. */
static fd_status build_list(fd_world* world, fd_neighbor_list* out, const fd_neighbor_list* old)
{
    fd_penalty* penalty = world->penalty;
    double margin = world->def.contact_margin + penalty->skin;
    int searched = fd_pair_search(world, margin, out);
    if (searched < 0) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for the neighbour list");
    }
    if (searched == 0) {
        fd_status status = rows_from_broadphase(world, margin, out);
        if (status != FD_OK) {
            return status;
        }
    }
    /* Each entry's law and kind, and the contact it had in the old list. */
    int n = world->body_count;
    int materials = world->material_count;
    const fd_body_motion* motion = world->motion;
    const bool* sphere_kernel = penalty->law_sphere_kernel;
    int threads = world->def.thread_count;
    int64_t carried_count = 0;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1) reduction(+ : carried_count)
    for (int i = 0; i < n; ++i) {
        int64_t old_e = old != NULL && i < old->body_count ? old->row_start[i] : 0;
        int64_t old_end = old != NULL && i < old->body_count ? old->row_start[i + 1] : 0;
        const int* law_row = world->law_table + (size_t)motion[i].material * (size_t)materials;
        uint32_t flags_i = motion[i].flags;
        for (int64_t e = out->row_start[i]; e < out->row_start[i + 1]; ++e) {
            int j = out->partner[e];
            int law_index = law_row[motion[j].material];
            out->law[e] = law_index >= 0 ? (uint16_t)law_index : FD_NO_LAW;
            out->kind[e] = law_index >= 0 && fd_law_never_touches(&world->laws[law_index])
                               ? FD_PAIR_NEVER
                               : pair_kind(flags_i, motion[j].flags, law_index >= 0 && sphere_kernel[law_index]);
            while (old_e < old_end && old->partner[old_e] < j) {
                ++old_e;
            }
            bool carried = old_e < old_end && old->partner[old_e] == j && old->law[old_e] == out->law[e];
            out->contact[e] = carried ? old->contact[old_e] : FD_NO_CONTACT;
            carried_count += carried;
        }
    }
    /* The pool packed again when it pays (fd_packing_pays), and whenever a
     * contact was left behind (a body removed, a law changed, a pair out of
     * reach): packing frees its slot. Otherwise the carried contacts keep
     * their slots, still in key order but for those begun since the last
     * packing: a settled pile rebuilds its list every few tens of steps and
     * packs it every few rebuilds. */
    const fd_contact_pool* pool = &penalty->pool;
    bool left_behind = carried_count != pool->used - pool->free_count;
    if (!balance_threads(world, penalty, out, world->def.thread_count) ||
        ((left_behind || fd_packing_pays(penalty)) && !compact_pool(world, out))) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for the neighbour list");
    }
    /* The rebuild test measures displacements from here. */
    if (!reserve_references(penalty, n)) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "out of memory for the neighbour list");
    }
    if (n > 0) { /* without bodies both arrays may be null, which memcpy must never see */
        memcpy(penalty->reference_position, world->position, (size_t)n * sizeof(fd_vec3));
    }
    penalty->max_displacement_squared = 0.0;
    penalty->rebuilds++;
    return FD_OK;
}

fd_status fd_penalty_rebuild_list(fd_world* world, bool carry_contacts)
{
    fd_penalty* p = world->penalty;
    int next = 1 - p->current;
    const fd_neighbor_list* current = &p->lists[p->current];
    const fd_neighbor_list* old = carry_contacts && current->row_start != NULL && current->body_count >= 0 ? current
                                                                                                          : NULL;
    fd_status status = build_list(world, &p->lists[next], old);
    if (status != FD_OK) {
        return status;
    }
    p->current = next;
    p->dirty = false;
    world->list_stale = false;
    return FD_OK;
}

/* A list that stands and may take bodies appended after it was built
 * (periodic images are not searched for an appended body's gap). */
static bool list_stands(const fd_world* world)
{
    const fd_penalty* p = world->penalty;
    const fd_neighbor_list* list = &p->lists[p->current];
    return world->def.stepper == FD_STEPPER_PENALTY && !world->periodic.any && !p->dirty && !world->list_stale &&
           list->row_start != NULL && list->body_count >= 0 && list->thread_count == world->def.thread_count;
}

double fd_penalty_isolation_clearance(const fd_world* world)
{
    const fd_penalty* p = world->penalty;
    if (!list_stands(world) || p->lists[p->current].body_count != world->body_count) {
        return -1.0;
    }
    return p->skin + sqrt(p->max_displacement_squared);
}

/* Why an appended body needs no entries. Body b, placed with a gap larger
 * than contact_margin + skin + D to every other body (D: the largest
 * displacement from the references at that moment, fd_penalty_isolation_
 * clearance), until the list is rebuilt (a body more than skin / 2 from its
 * reference) moves at most skin / 2 from where it was placed, and any other
 * body at most skin / 2 + D from where it was then (one appended with b: at
 * most skin / 2). The pair closes by at most skin + D: it cannot come within
 * contact_margin, so the list still holds every pair that can touch before
 * its rebuild, which is all it must hold. */
bool fd_penalty_append_isolated(fd_world* world)
{
    fd_penalty* p = world->penalty;
    fd_neighbor_list* list = &p->lists[p->current];
    const int old = list->body_count, n = world->body_count;
    if (!list_stands(world) || n <= old || !reserve_references(p, n) ||
        !fd_resize((void**)&list->row_start, (size_t)n + 1, sizeof *list->row_start)) {
        return false;
    }
    for (int i = old + 1; i <= n; ++i) {
        list->row_start[i] = list->row_start[old];
    }
    memcpy(p->reference_position + old, world->position + old, (size_t)(n - old) * sizeof(fd_vec3));
    list->thread_row[list->thread_count] = n; /* the last thread takes the empty rows */
    list->body_count = n;
    p->appended += n - old;
    return true;
}

size_t fd_neighbor_list_memory(const fd_neighbor_list* list)
{
    size_t per_entry = sizeof(int32_t) + sizeof(uint8_t) + sizeof(uint16_t) + sizeof(int32_t);
    return (size_t)list->capacity * per_entry + (size_t)(list->body_count + 1) * sizeof(int64_t);
}

size_t fd_contact_pool_memory(const fd_contact_pool* pool, int history_stride, int constant_stride)
{
    size_t per_slot = (size_t)(history_stride + constant_stride) * sizeof(double) + sizeof(uint64_t) +
                      sizeof(int64_t) + sizeof(uint8_t) +
                      (pool->books[0] != NULL ? 2 * (size_t)pool->book_count * sizeof(fd_energy_books) : 0) +
                      (pool->stored[0] != NULL ? 2 * (size_t)pool->book_count * sizeof(double) : 0);
    return (size_t)pool->capacity * per_slot + (size_t)pool->free_capacity * sizeof(int32_t);
}
