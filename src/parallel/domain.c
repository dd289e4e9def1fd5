/* The ranks' boxes: recursive coordinate bisection of the bodies, each
 * box's owner and halo (domain.h).
 *
 * Must not touch: files, MPI itself (app/mpi_run.c carries the messages). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "parallel/domain.h"
#include "penalty/penalty.h"
#include "world/world_store.h"

static double component(fd_vec3 v, int axis) { return axis == 0 ? v.x : (axis == 1 ? v.y : v.z); }

/* Coordinate c along `axis` wrapped into its period (unchanged along an
 * axis that is not periodic). */
static double wrapped(const fd_domain* domain, int axis, double c)
{
    if (!domain->periodic[axis]) {
        return c;
    }
    double low = domain->period_low[axis], length = domain->period[axis];
    double w = c - length * floor((c - low) / length);
    return w < low + length ? w : low; /* floor's rounding may leave w at the top end */
}

/* A body's position and its weight in the cut (its rank's time per body
 * with --balance-by time, else 1). */
typedef struct weighted_point {
    fd_vec3 x;
    double weight;
} weighted_point;

static int sort_axis; /* the axis compare_points sorts by (qsort has no context) */

/* Along sort_axis, then the other coordinates and the weight: a full
 * order, so that the sums of the weights below a cut do not depend on the
 * order the points came in. */
static int compare_points(const void* a, const void* b)
{
    const weighted_point *p = a, *q = b;
    double keys_p[5] = {component(p->x, sort_axis), p->x.x, p->x.y, p->x.z, p->weight};
    double keys_q[5] = {component(q->x, sort_axis), q->x.x, q->x.y, q->x.z, q->weight};
    for (int k = 0; k < 5; ++k) {
        if (keys_p[k] != keys_q[k]) {
            return keys_p[k] < keys_q[k] ? -1 : 1;
        }
    }
    return 0;
}

/* The point of place k (from 0) in the order of compare_points among
 * points[0..count), moved to points[k], those before it not after it in the
 * order and those after it not before it: a selection, O(count) on average
 * where the sort is O(count log count) (a cut of 10^5 bodies took ~15 ms
 * sorted). The order is total, so the point found does not depend on the
 * order the points came in. */
static void select_point(weighted_point* points, int64_t count, int64_t k)
{
    int64_t low = 0, high = count - 1;
    for (int rounds = 0; low < high; ++rounds) {
        if (rounds > 64) { /* (a run of bad pivots: what is left, sorted) */
            qsort(points + low, (size_t)(high - low + 1), sizeof *points, compare_points);
            return;
        }
        weighted_point pivot = points[low + (high - low) / 2];
        int64_t i = low, j = high;
        while (i <= j) {
            while (compare_points(&points[i], &pivot) < 0) {
                ++i;
            }
            while (compare_points(&points[j], &pivot) > 0) {
                --j;
            }
            if (i <= j) {
                weighted_point held = points[i];
                points[i++] = points[j];
                points[j--] = held;
            }
        }
        /* [low, j] not after the pivot, [i, high] not before it, between them equal to it */
        if (k <= j) {
            high = j;
        } else if (k >= i) {
            low = i;
        } else {
            return;
        }
    }
}

/* Ranks [first, first + count) share the box [low, high) and the points:
 * cut the box across its widest axis that is not periodic, at the
 * coordinate that leaves to each half as much of the points' weight as it
 * has ranks (recursive coordinate bisection; with unit weights, as many
 * points). Which points go where depends on their coordinates and weights
 * only, never on their order, so every rank that has the same points cuts
 * the same boxes. */
static void bisect(fd_domain* domain, weighted_point* points, int64_t count, bool unit_weights, int first,
                   int ranks, const double low[3], const double high[3])
{
    if (ranks == 1) {
        for (int a = 0; a < 3; ++a) {
            domain->low[first][a] = low[a];
            domain->high[first][a] = high[a];
        }
        return;
    }
    double lowest[3] = {INFINITY, INFINITY, INFINITY}, highest[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int64_t k = 0; k < count; ++k) {
        for (int a = 0; a < 3; ++a) {
            lowest[a] = fmin(lowest[a], component(points[k].x, a));
            highest[a] = fmax(highest[a], component(points[k].x, a));
        }
    }
    /* The axis whose cut adds the least face for the ghosts: the widest,
     * but a periodic axis the box spans whole gets two faces from one cut
     * (the cut and the periodic one), so it counts half as wide; and a
     * quarter less again, since a cut across the order the bodies were
     * made in (a lattice's rows) splits each rank's share of the arrays,
     * which every rank still keeps whole (docs/mpi.md): the chute, 40 m
     * periodic along x against 18 m deep, cut across x held the same 1600
     * ghosts as cut across z but stepped 20 % slower. */
    int axis = -1;
    double best = -1.0;
    for (int a = 0; a < 3; ++a) {
        double extent = count > 0 ? highest[a] - lowest[a] : 0.0;
        bool whole_period = domain->periodic[a] && high[a] - low[a] >= domain->period[a];
        double score = whole_period ? extent / 2.5 : extent;
        if (score > best) {
            axis = a;
            best = score;
        }
    }
    int left_ranks = ranks / 2;
    double cut = 0.0;
    if (count > 0 && unit_weights) {
        /* As the sort below finds it with weights of 1 (exact sums): the
         * points of places k - 1 and k, k = min(count - 1, floor(share)). */
        sort_axis = axis;
        double share = (double)count * left_ranks / ranks;
        int64_t k = floor(share) < (double)(count - 1) ? (int64_t)floor(share) : count - 1;
        select_point(points, count, k);
        double before = -INFINITY;
        for (int64_t m = 0; m < k; ++m) {
            before = fmax(before, component(points[m].x, axis));
        }
        cut = k == 0 ? component(points[0].x, axis) : 0.5 * (before + component(points[k].x, axis));
    } else if (count > 0) {
        sort_axis = axis;
        qsort(points, (size_t)count, sizeof *points, compare_points);
        /* The most points from below whose weight stays within the left
         * ranks' share (unit weights: count * left_ranks / ranks, exactly). */
        double total = 0.0;
        for (int64_t k = 0; k < count; ++k) {
            total += points[k].weight;
        }
        double share = total * left_ranks / ranks, below_weight = 0.0;
        int64_t k = 0;
        while (k < count - 1 && below_weight + points[k].weight <= share) {
            below_weight += points[k++].weight;
        }
        cut = k == 0 ? component(points[0].x, axis)
                     : 0.5 * (component(points[k - 1].x, axis) + component(points[k].x, axis));
    } else {
        /* no points: halve the box where it is finite, else cut at 0 */
        cut = isfinite(low[axis]) && isfinite(high[axis]) ? 0.5 * (low[axis] + high[axis]) : 0.0;
    }
    /* The points below the cut first (their coordinates decide, not k). */
    int64_t below = 0;
    for (int64_t k = 0; k < count; ++k) {
        if (component(points[k].x, axis) < cut) {
            weighted_point held = points[below];
            points[below++] = points[k];
            points[k] = held;
        }
    }
    double left_high[3] = {high[0], high[1], high[2]}, right_low[3] = {low[0], low[1], low[2]};
    left_high[axis] = cut;
    right_low[axis] = cut;
    bisect(domain, points, below, unit_weights, first, left_ranks, low, left_high);
    bisect(domain, points + below, count - below, unit_weights, first + left_ranks, ranks - left_ranks, right_low,
           high);
}

fd_status fd_domain_cut_weighted(fd_domain* domain, const fd_vec3* points, const double* weights, int64_t count)
{
    double low[3] = {-INFINITY, -INFINITY, -INFINITY}, high[3] = {INFINITY, INFINITY, INFINITY};
    for (int a = 0; a < 3; ++a) {
        if (domain->periodic[a]) {
            low[a] = domain->period_low[a];
            high[a] = domain->period_low[a] + domain->period[a];
        }
    }
    weighted_point* weighted = malloc((size_t)(count > 0 ? count : 1) * sizeof *weighted);
    if (weighted == NULL) {
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory");
    }
    for (int64_t k = 0; k < count; ++k) { /* the cuts fall within the periods */
        weighted[k].x = fd_v3(wrapped(domain, 0, points[k].x), wrapped(domain, 1, points[k].y),
                              wrapped(domain, 2, points[k].z));
        weighted[k].weight = weights != NULL ? weights[k] : 1.0;
    }
    bisect(domain, weighted, count, weights == NULL, 0, domain->ranks, low, high);
    free(weighted);
    return FD_OK;
}

fd_status fd_domain_cut(fd_domain* domain, const fd_vec3* points, int64_t count)
{
    return fd_domain_cut_weighted(domain, points, NULL, count);
}

fd_status fd_domain_plan(const fd_world* world, int ranks, fd_domain* out)
{
    memset(out, 0, sizeof *out);
    if (ranks < 1) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "domain decomposition: %d ranks (at least 1)", ranks);
    }
    /* The bodies that are not walls, and the largest reach. */
    int n = world->body_count;
    fd_vec3* points = malloc((size_t)(n > 0 ? n : 1) * sizeof *points);
    out->low = malloc((size_t)ranks * sizeof *out->low);
    out->high = malloc((size_t)ranks * sizeof *out->high);
    if (points == NULL || out->low == NULL || out->high == NULL) {
        free(points);
        fd_domain_free(out);
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "domain decomposition: out of memory");
    }
    int64_t count = 0;
    double largest = 0.0;
    for (int b = 0; b < n; ++b) {
        if (!world->is_wall[b] && !world->is_removed[b]) {
            points[count++] = world->position[b];
            largest = fmax(largest, world->bounding_radii[b]);
        }
    }
    out->ranks = ranks;
    for (int a = 0; a < 3; ++a) {
        out->periodic[a] = world->periodic.axis[a];
        out->period_low[a] = world->periodic.axis[a] ? world->periodic.low[a] : 0.0;
        out->period[a] = world->periodic.axis[a] ? world->periodic.length[a] : 0.0;
    }
    fd_status status = fd_domain_cut(out, points, count);
    free(points);
    if (status != FD_OK) {
        fd_domain_free(out);
        return status;
    }
    /* Bodies migrate once one has moved `drift` since the last migration;
     * a body an owned body touches before then is within the contact reach
     * plus twice that of the owner's box at the migration (both moved).
     * The drift is a whole skin: twice as many ghosts' worth of halo as
     * half a skin would need, for half the migrations (at 10^5 bodies on 2
     * ranks a migration costs about two steps' exchanges, and one every
     * 15 steps was 8 % of a step). */
    double drift = world->penalty->skin;
    out->halo = 2.0 * largest + world->def.contact_margin + 2.0 * drift;
    out->migrate_after = drift * drift;
    out->rebalance_above = 1.1;
    return FD_OK;
}

void fd_domain_free(fd_domain* domain)
{
    free(domain->low);
    free(domain->high);
    memset(domain, 0, sizeof *domain);
}

/* The boxes tile the space of wrapped positions (half-open, infinite at
 * the outside of an axis that is not periodic): the one that holds x. A
 * point in none (a NaN coordinate) goes to the last rank. */
int fd_domain_owner(const fd_domain* domain, fd_vec3 x)
{
    for (int r = 0; r < domain->ranks; ++r) {
        bool inside = true;
        for (int a = 0; a < 3; ++a) {
            double c = wrapped(domain, a, component(x, a));
            inside = inside && c >= domain->low[r][a] && c < domain->high[r][a];
        }
        if (inside) {
            return r;
        }
    }
    return domain->ranks - 1;
}

bool fd_domain_near(const fd_domain* domain, int rank, fd_vec3 x)
{
    for (int a = 0; a < 3; ++a) {
        double c = wrapped(domain, a, component(x, a));
        double low = domain->low[rank][a] - domain->halo, high = domain->high[rank][a] + domain->halo;
        bool near = c >= low && c < high;
        if (domain->periodic[a]) {
            /* the images one period away: across the periodic face */
            double length = domain->period[a];
            near = near || (c - length >= low && c - length < high) || (c + length >= low && c + length < high);
        }
        if (!near) {
            return false;
        }
    }
    return true;
}

bool fd_domain_migrates(const fd_domain* domain, double largest_squared, bool rebuild_next)
{
    return largest_squared > domain->migrate_after || (rebuild_next && largest_squared > 0.25 * domain->migrate_after);
}

bool fd_domain_unbalanced(const fd_domain* domain, int64_t most_owned, int64_t total_owned)
{
    return domain->ranks > 1 && (double)most_owned > domain->rebalance_above * (double)total_owned / domain->ranks;
}

