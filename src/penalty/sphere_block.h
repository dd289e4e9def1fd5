/* The block kernel: sphere-sphere contacts of one law evaluated FD_BLOCK at a
 * time from arrays per field, so that the compiler turns the arithmetic into
 * vector instructions (AVX2 or AVX-512 where the processor has them, chosen
 * at run time; the same code runs scalar elsewhere). Every lane does exactly
 * the arithmetic of one contact, with the same operations in the same order
 * as the scalar sphere kernel (sphere_kernel.h) and on every path (no
 * contraction into fused multiply-adds), so a contact's result does not
 * depend on its lane, its block, the thread count or the instruction set.
 *
 * Laws: normal hooke (any of its dashpots, through the pair's dashpot
 * constant) with no friction, or with slide dsds (csds), roll none or dsds
 * (csds), spin none, dsds (csds) or marshall; other combinations take the
 * scalar kernel (so do the mindlin slide models, whose laws are mostly
 * hertz's, which the block does not take). A lane whose rolling spring would turn by 0.1 rad
 * or more in the step (a fast-spinning pair: the turn's sine and cosine then
 * need the library) is marked, and its caller evaluates it with the scalar
 * kernel instead. The geometry is the scalar path's (law_pass.c,
 * sphere_pair): normal along the line of centres, the contact point halfway
 * between the two surfaces.
 *
 * A block of planes takes sphere-plane contacts of the same laws: their
 * geometry (normal, overlap, relative velocity, the arms from both bodies'
 * reference points) is gathered by the scalar path's own function
 * (law_pass.c, plane_pair_geometry), the law runs in the lanes as above, and the
 * torques are the arms' moments of the force plus the rolling and twisting
 * torques, as the scalar path takes them.
 *
 * Must not touch: the engine, the complementarity stepper, files, ranks. */
#ifndef FD_PENALTY_SPHERE_BLOCK_H
#define FD_PENALTY_SPHERE_BLOCK_H

#include "contact/model.h"

#define FD_BLOCK 32

/* The law of a block, the same for all its lanes. */
typedef struct fd_block_law {
    int law;                      /* index in the world's laws */
    fd_submodel_kind slide;       /* FD_KIND_NONE, _SLIDE_DSDS or _SLIDE_CSDS */
    fd_submodel_kind roll;        /* FD_KIND_NONE, _ROLL_DSDS or _ROLL_CSDS */
    fd_submodel_kind spin;        /* FD_KIND_NONE, _SPIN_DSDS, _SPIN_CSDS or _SPIN_MARSHALL */
    bool clamp;                   /* N >= 0 (hooke limit_damping) */
    bool lammps_transport;        /* roll transport 1 (a loop of its own) */
    int roll_offset, spin_offset; /* into the contact's history block */
    double k_n;                   /* N/m */
    /* Each slider's static and kinetic coefficients (model.h
     * fd_static_kinetic; equal for one `mu`): the lanes take the one the
     * contact's last slip state says. */
    double k_t, inverse_k_t, gamma_t, inverse_gamma_t, mu_s, mu_k;                 /* slide */
    double k_roll, inverse_k_roll, gamma_roll, inverse_gamma_roll, mu_roll_s, mu_roll_k; /* roll */
    double k_twist, gamma_twist, mu_twist_s, mu_twist_k;                           /* spin dsds, csds */
    bool lammps_arms;             /* fd_world_def.lammps_arms: sliding velocity from the full radii */
    bool legacy_torque;           /* fd_world_def.lammps_legacy_torque: a pair's torques at the full radii too */
    double time_step;             /* s */
    double spring_time_step;      /* s the springs advance over: time_step, 0 in a set-up pass */
} fd_block_law;

typedef struct fd_sphere_block {
    int count;
    bool planes;                      /* sphere-plane lanes: the plane inputs below, not the centres' */
    /* inputs */
    double separation[3][FD_BLOCK];   /* x_i - x_j (body j's nearest image), m */
    double velocity_i[3][FD_BLOCK], velocity_j[3][FD_BLOCK];
    double spin_i[3][FD_BLOCK], spin_j[3][FD_BLOCK];
    double radius_i[FD_BLOCK], radius_j[FD_BLOCK];
    double damping[FD_BLOCK];         /* the pair's normal dashpot, N s/m */
    double effective_radius[FD_BLOCK];/* m (roll, spin) */
    double spring[3][FD_BLOCK];       /* slide spring before the step, m */
    double roll_spring[3][FD_BLOCK];  /* rolling spring before the step, m */
    double roll_normal[3][FD_BLOCK];  /* its frame's normal (0 for a new contact) */
    double twist_spring[FD_BLOCK];    /* rad */
    double was_slipping[FD_BLOCK];    /* the last step's FD_ENTRY_SLIP_* bits */
    /* inputs of a block of planes (instead of separation and the velocities) */
    double plane_normal[3][FD_BLOCK]; /* n into body i */
    double plane_overlap[FD_BLOCK];   /* m */
    double plane_relative[3][FD_BLOCK]; /* body i's surface minus body j's at the contact point, m/s */
    double arm_i[3][FD_BLOCK], arm_j[3][FD_BLOCK]; /* the contact point from each body's reference point, m */
    /* outputs */
    double force[3][FD_BLOCK];        /* on body i, N */
    double torque_i[3][FD_BLOCK], torque_j[3][FD_BLOCK];
    double spring_after[3][FD_BLOCK];
    double roll_spring_after[3][FD_BLOCK];
    double twist_spring_after[FD_BLOCK];
    double normal[3][FD_BLOCK];       /* unit, into body i (the rolling spring's new frame) */
    double slip[FD_BLOCK];            /* FD_ENTRY_SLIP_* bits, as a number */
    double wide_turn[FD_BLOCK];       /* 1: the rolling spring turns too far, evaluate the lane scalar */
    /* outputs of the full kernel only (records) */
    double normal_force[FD_BLOCK], elastic_force[FD_BLOCK], damping_force[FD_BLOCK];
    double slide_force[3][FD_BLOCK];
    double roll_torque[3][FD_BLOCK];  /* on body i */
    double twist_torque[FD_BLOCK];    /* on body i, along the normal */
    /* of the books and full kernels, per mechanism: stored, dashpot, slip,
     * created (no mechanism of these laws does work) */
    double books[FD_MECHANISM_COUNT][4][FD_BLOCK];
} fd_sphere_block;

/* Whether the block has a loop for these models (fd_block_law_of checks it). */
bool fd_block_combination(fd_submodel_kind slide, fd_submodel_kind roll, fd_submodel_kind spin);

/* Whether a law can be evaluated by the block kernel, and its block form. */
bool fd_block_law_of(const fd_contact_law* law, int index, double time_step, fd_block_law* out);

/* The block's lanes: forces, torques, springs and slip states; the books
 * kernel also the books (the ledger); the full kernel also the normal
 * force's parts and the loads of each mechanism (a record). The full kernel
 * takes no block of planes: a pass that records evaluates its sphere-plane
 * contacts with the scalar kernel, whose record has their geometry. */
void fd_sphere_block_run(fd_sphere_block* block, const fd_block_law* law);
void fd_sphere_block_run_books(fd_sphere_block* block, const fd_block_law* law);
void fd_sphere_block_run_full(fd_sphere_block* block, const fd_block_law* law);

#endif
