/* The ranks' boxes (issue 14): recursive coordinate bisection of the
 * bodies, each box's owner and halo (src/parallel/partition.h uses them).
 *
 * Must not touch: files, MPI itself (app/mpi_run.c carries the messages). */
#ifndef FD_DOMAIN_H
#define FD_DOMAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "core/math.h"
#include "fricdem/fricdem.h"

/* The boxes: rank r owns the bodies in [low[r], high[r]) (the outer faces
 * are infinite along an axis that is not periodic, the period's along one
 * that is: the boxes tile the space of the wrapped positions), and holds
 * those within `halo` of its box, across a periodic face too (the nearest
 * image decides). */
typedef struct fd_domain {
    int ranks;
    double (*low)[3], (*high)[3]; /* m, per rank */
    bool periodic[3];
    double period_low[3], period[3]; /* m: a periodic axis's box [period_low, period_low + period) */
    double halo;                  /* m */
    double migrate_after;         /* m^2: the largest displacement squared that triggers a migration */
    double rebalance_above;       /* cut the boxes again at a migration when a rank owns more than this times the
                                   * mean (1.1) */
    int64_t rebalances;
} fd_domain;

/* Boxes by recursive coordinate bisection of a prepared world's bodies
 * (each cut across the widest axis, with as many bodies on each side as
 * ranks), and the halo and drift for its skin. */
fd_status fd_domain_plan(const fd_world* world, int ranks, fd_domain* out);
/* The boxes cut again for these points, the rest kept: each cut leaves as
 * many points to each side as it has ranks. Every rank with the same
 * points, in any order, cuts the same boxes. */
fd_status fd_domain_cut(fd_domain* domain, const fd_vec3* points, int64_t count);
/* The same with a weight per point (> 0): each cut leaves to each side the
 * share of the weight its ranks get (--balance-by time: a body weighs its
 * owner's step time per owned body, so that the boxes even out the ranks'
 * times on cores of different speeds). */
fd_status fd_domain_cut_weighted(fd_domain* domain, const fd_vec3* points, const double* weights, int64_t count);
void fd_domain_free(fd_domain* domain);
int fd_domain_owner(const fd_domain* domain, fd_vec3 x);
bool fd_domain_near(const fd_domain* domain, int rank, fd_vec3 x);
/* Whether the ranks migrate now, from the largest displacement squared
 * since the last migration (m^2, over all ranks) and whether every rank's
 * list is rebuilt at the next step: past the whole drift at once, and at a
 * rebuild from half of it (the next rebuild is half a skin away), so that
 * a migration seldom costs a rebuild of its own. */
bool fd_domain_migrates(const fd_domain* domain, double largest_squared, bool rebuild_next);
/* Whether the rank that owns the most (of `total_owned`) owns too many. */
bool fd_domain_unbalanced(const fd_domain* domain, int64_t most_owned, int64_t total_owned);

#endif
