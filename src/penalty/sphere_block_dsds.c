/* The block kernel's loops for the D-SDS slider (sphere_block_lanes.h):
 * the slide alone or with the family's rolling spring (either transport),
 * each with no spin, the family's twisting spring or marshall's; the loads,
 * books and full runs of each, in a file of their own so that a build
 * compiles the two families at once.
 *
 * Must not touch: the engine, the complementarity stepper, files, ranks. */
#include "penalty/sphere_block_lanes.h"

FD_FAMILY_KERNELS(dsds, FD_KIND_SLIDE_DSDS, FD_KIND_ROLL_DSDS, FD_KIND_SPIN_DSDS)

const block_kernel fd_block_dsds_runs[3][3][3] = FD_FAMILY_RUNS(dsds);
