/* The penalty stepper's integration of straight bodies (stepper.c), four
 * neighbouring bodies at a time: their states moved between the world's
 * arrays of structs (x y z per body) and the block's arrays per component by
 * the processor's permutes, where the stepper otherwise moves them one double
 * at a time (~130 instructions a body, more than the kick and drift cost).
 *
 * A quad moves bits only: loads, permutes, stores, and the very products and
 * sums, in the same order, that stepper.c forms for one body. Whether a body
 * goes through a quad or alone never changes a bit (test_integrators checks
 * it with fd_permutes_switch(false)); no fused multiply-add (make test
 * disassembles).
 *
 * Called only where fd_permutes_on() (core/permute.h: AVX2); elsewhere
 * the stepper does every body alone.
 *
 * Must not: change a result, touch anything but the arrays handed to it. */
#ifndef FD_PENALTY_BODY_QUADS_H
#define FD_PENALTY_BODY_QUADS_H

#include <stdbool.h>
#include <stdint.h>

#include "broadphase/broadphase.h"
#include "core/math.h"
#include "world/world_store.h"

/* Up to FD_BODY_BLOCK bodies in arrays per component, so that the straight
 * kick and drift vectorise (stepper.c's straight_block). */
enum { FD_BODY_BLOCK = 32 };
typedef struct fd_body_block {
    int count;
    double x[3][FD_BODY_BLOCK], v[3][FD_BODY_BLOCK], w[3][FD_BODY_BLOCK], q[4][FD_BODY_BLOCK];
    double f[3][FD_BODY_BLOCK], t[3][FD_BODY_BLOCK];
    double kick_mass[FD_BODY_BLOCK], kick_inertia[FD_BODY_BLOCK];
    int32_t body[FD_BODY_BLOCK]; /* the world's index of each lane's body */
} fd_body_block;

/* The arrays a step's integration reads (the state before the step, with its
 * forces) and writes (the new state; the new forces set to gravity). */
typedef struct fd_step_arrays {
    const fd_vec3* x0;
    const fd_quat* q0;
    const fd_vec3 *v0, *w0, *f0, *t0;
    fd_vec3* x1;
    fd_quat* q1;
    fd_vec3 *v1, *w1, *f1, *t1;
    const fd_body_motion* motion;
    const fd_vec3* reference;     /* the positions of the list's last build */
    int referenced;               /* bodies [0, referenced) have one */
    const fd_periodic* periodic;
    fd_vec3 gravity;
    double kick;                  /* s: the first kick's step */
} fd_step_arrays;

/* Fills block lanes from k->count with bodies from b, four neighbours at a
 * time, while the next four are all straight (FD_MOTION_SIMPLE, neither
 * loaded nor dormant) and the block has room: their lanes, their kick
 * factors, their new forces (m g) and torques (0). Returns the next body. */
int fd_body_quads_gather(fd_body_block* k, const fd_step_arrays* a, int b, int end);

/* Writes the new states of lanes from c, four at a time, while the next four
 * lanes are four neighbouring bodies that need no periodic wrap and all or
 * none of which have a reference position; *largest takes the largest
 * squared displacement from it. Returns the next lane. */
int fd_body_quads_scatter(const fd_body_block* k, const fd_step_arrays* a, int c, double* largest);

/* Velocity Verlet's second half kick of bodies from b, four at a time while
 * the next four are all FD_MOTION_SIMPLE; *probes gathers 0 for finite
 * values (NaN otherwise). Returns the next body. */
int fd_body_quads_finish(fd_vec3* v1, fd_vec3* w1, const fd_vec3* forces, const fd_vec3* torques,
                         const fd_body_motion* motion, double kick, int b, int end, double* probes);

#endif
