/* Fang & Negrut for two spheres, or a sphere and a plane, a vector lane at
 * a time: the penalty stepper's fast path for the model's most common pairs
 * (every pile of spheres on its floor).
 *
 * fd_fn_block_run evaluates FD_FN_BLOCK contacts of one law and one pairing
 * (fd_fn_shapes) from arrays per field: the geometry from the centres and
 * the plane (as round_pair.c), the hooke or hertz normal force with its
 * dashpot (normal.c), the tracked points, slide, roll and spin loads of
 * fang_negrut.c and the torques on both bodies (as
 * penalty/contact_details.c assembles them), with the same operations in
 * the same order, so a lane's results are those bits whatever its block,
 * thread count or instruction set (no contraction into fused multiply-adds;
 * the choices are bitwise blends). The penalty stepper takes every
 * contact of such a pair through it, one lane at a time on the passes that
 * record or keep books (tests/test_fn_lane.c checks it against the model's
 * registry kernels, bit for bit).
 *
 * A lane that meets what the blends do not cover is marked `fallback` and
 * its caller evaluates it through the registry's kernels instead: a frame
 * that degenerates (App. B's continuation of length < 1e-12), an angle
 * outside fd_small_atan2's series, a contact point that did not move over a
 * body (the roll direction then comes from the stored deflection), a body
 * whose inertia is not isotropic.
 *
 * Must not: hold state between calls, or read anything but its block. */
#ifndef FD_CONTACT_FANG_NEGRUT_LANE_H
#define FD_CONTACT_FANG_NEGRUT_LANE_H

#include <stdbool.h>

#include "contact/model.h"

enum { FD_FN_SLIDE_MU_S, FD_FN_SLIDE_MU_K, FD_FN_SLIDE_K_E, FD_FN_SLIDE_K_D, FD_FN_SLIDE_CAP_TOTAL };
enum { FD_FN_ROLL_ETA_R, FD_FN_ROLL_K_R, FD_FN_ROLL_D_R, FD_FN_ROLL_ROCKING };
enum { FD_FN_LEGACY_MU_R };
enum { FD_FN_SPIN_ETA_PSI, FD_FN_SPIN_CURVATURE, FD_FN_SPIN_K_PSI, FD_FN_SPIN_D_PSI };
enum { FD_FN_SPIN_HERTZ_D_PSI };

#define FD_FN_DERIVED (-1.0) /* parameter sentinel: use the paper's heuristic */

/* History layout (doubles) of each mechanism's block. The painted points and
 * the frame are kept in the world frame, as they stood at the end of the
 * last step, and carried over the step by each body's own rotation
 * (fd_contact_input.turn_i, turn_j): the same points and frame as keeping
 * them in the bodies' frames, with one matrix product per vector instead of
 * a rotation in and a rotation out. */
enum {
    FD_FN_H_ARM_I = 0,         /* painted cross C_i^0 less body i's centre, world (3) */
    FD_FN_H_ARM_J = 3,         /* painted dot C_j^0 less body j's centre, world (3) */
    FD_FN_H_U = 6,             /* frame u, w common to both bodies, world (3 + 3) */
    FD_FN_H_W = 9,
    FD_FN_H_S = 12,            /* S_ij in (u, w) components (2) */
    FD_FN_H_SLIDE_MODE = 14,   /* 0 stick (static), 1 slip (kinetic) */
    FD_FN_SLIDE_HISTORY = 15,
};
enum {
    FD_FN_H_THETA_I = 0,
    FD_FN_H_THETA_J = 2,
    FD_FN_H_ROLL_MODE_I = 4,
    FD_FN_H_ROLL_MODE_J = 5,
    FD_FN_ROLL_HISTORY = 6
};
enum { FD_FN_H_PSI = 0, FD_FN_H_SPIN_MODE = 1, FD_FN_SPIN_HISTORY = 2 };
enum { FD_FN_SPRINGS = FD_FN_SLIDE_HISTORY + FD_FN_ROLL_HISTORY + FD_FN_SPIN_HISTORY };

#define FD_FN_BLOCK 32

/* The pairings, as the penalty stepper's pair kinds number them. */
typedef enum fd_fn_shapes {
    FD_FN_SPHERES = 0,            /* two spheres */
    FD_FN_PLANE_J = 1,            /* body i a sphere, body j a plane */
    FD_FN_PLANE_I = 2,            /* body i a plane, body j a sphere */
    FD_FN_PAIRINGS = 3,
} fd_fn_shapes;

/* A law the lanes take (fd_fn_lane_law_of): slide fang_negrut, roll
 * fang_negrut or none, spin fang_negrut or none, normal hooke or hertz with
 * any of their dashpots. */
typedef struct fd_fn_lane_law {
    int law;                      /* index in the world's laws */
    int history_size;             /* the law's doubles of it (fd_contact_law.history_size) */
    int8_t spring_row[FD_FN_SPRINGS]; /* history double h < history_size is the block's springs[spring_row[h]] */
    bool springs_in_order;        /* spring_row[h] = h for every h (slide, then roll, then spin) */
    bool has_roll, has_spin;
    bool clamp;                   /* limit_damping: N >= 0 */
    bool hertz;                   /* normal hertz (else hooke) */
    int dashpot_factor;           /* normal.c fd_normal_dashpot_factor: 0 one, 1 sqrt(R_eff delta), 2 delta^(1/4) */
    double k_n;                   /* hooke's N/m */
    const double* slide;          /* the slide, roll and spin parameters (FD_FN_SLIDE_*, ...) */
    const double* roll;
    const double* spin;
    double time_step;             /* s (only elapsed passes come here) */
} fd_fn_lane_law;

bool fd_fn_lane_law_of(const fd_contact_law* law, int index, double time_step, fd_fn_lane_law* out);

typedef struct fd_fn_block {
    int count;
    /* inputs */
    /* m; two spheres: j's image across a periodic face */
    double position_i[3][FD_FN_BLOCK], position_j[3][FD_FN_BLOCK];
    double plane_normal[3][FD_FN_BLOCK];                           /* a plane's outward unit normal (plane pairings) */
    double velocity_i[3][FD_FN_BLOCK], velocity_j[3][FD_FN_BLOCK];
    double spin_i[3][FD_FN_BLOCK], spin_j[3][FD_FN_BLOCK];
    double turn_i[4][FD_FN_BLOCK], turn_j[4][FD_FN_BLOCK];         /* each body's turn over the step: w, x, y, z */
    double radius_i[FD_FN_BLOCK], radius_j[FD_FN_BLOCK];            /* m, a sphere's (a plane's is not read) */
    double mass_i[FD_FN_BLOCK], mass_j[FD_FN_BLOCK];               /* kg, 0 for a static body */
    double inertia_i[FD_FN_BLOCK], inertia_j[FD_FN_BLOCK];         /* kg m^2 about any axis */
    /* the pair's dashpot prefactor (fd_normal_dashpot_prefactor) */
    double dashpot[FD_FN_BLOCK];
    double effective_radius[FD_FN_BLOCK];                          /* m (the viscoelastic dashpot's factor) */
    double hertz_constant[FD_FN_BLOCK];                            /* hertz's K = 4/3 E* sqrt(R_eff), N/m^(3/2) */
    /* the history, read and written in place; springs[] views the three
     * mechanisms' rows as one (fd_fn_lane_law.spring_row) */
    union {
        struct {
            double slide[FD_FN_SLIDE_HISTORY][FD_FN_BLOCK];
            double roll[FD_FN_ROLL_HISTORY][FD_FN_BLOCK];
            double spin[FD_FN_SPIN_HISTORY][FD_FN_BLOCK];
        };
        double springs[FD_FN_SPRINGS][FD_FN_BLOCK];
    };
    int32_t slot[FD_FN_BLOCK];                                     /* each lane's contact in the pool (the caller's) */
    /* outputs */
    double force[3][FD_FN_BLOCK];                                  /* on body i, N */
    double torque_i[3][FD_FN_BLOCK], torque_j[3][FD_FN_BLOCK];
    /* 1 << mechanism per slipping one (as slip_flags), as a number */
    double slip[FD_FN_BLOCK];
    double fallback[FD_FN_BLOCK];                                  /* 1: evaluate this one through the registry */
} fd_fn_block;

void fd_fn_block_run(fd_fn_block* block, const fd_fn_lane_law* law, fd_fn_shapes shapes);

#endif
