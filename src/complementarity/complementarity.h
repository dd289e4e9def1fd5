/* The non-smooth stepper of Tasora & Anitescu (papers/004): rigid contacts
 * with sliding, rolling and spinning friction cones, one step as the cone
 * complementarity problem Eq. (40) (stepper.c says how). The door of
 * src/complementarity/: the world creates its workspace and hands it the
 * step (src/engine/world.c); a checkpoint restores its statistics.
 *
 * Must not touch: the engine, the penalty stepper, files, ranks. */
#ifndef FD_COMPLEMENTARITY_H
#define FD_COMPLEMENTARITY_H

#include "fricdem/fricdem.h"

typedef struct fd_complementarity fd_complementarity;

fd_complementarity* fd_complementarity_create(void);
void fd_complementarity_free(fd_complementarity* workspace);
/* One step of Tasora & Anitescu Eq. (18) via the CCP Eq. (40); a step
 * that fails leaves the world at the last good step. */
fd_status fd_complementarity_step(fd_world* world);
/* The statistics of the last solve, as a checkpoint restores them (src/io/checkpoint.c). */
void fd_complementarity_set_stats(fd_world* world, fd_solver_stats stats);

#endif
