/* The block kernel: sphere-sphere contacts of one law evaluated FD_BLOCK at a
 * time from arrays per field, so that the compiler turns the arithmetic into
 * vector instructions (AVX2 or AVX-512 where the processor has them, chosen
 * at run time; the same code runs scalar elsewhere). Every lane does exactly
 * the arithmetic of one contact, with the same operations in the same order
 * on every path (no contraction into fused multiply-adds), so a contact's
 * result does not depend on its lane, its block, the thread count or the
 * instruction set.
 *
 * Laws: normal hooke (any of its dashpots, through the pair's dashpot
 * constant), slide none, dsds or csds; no roll or spin model (those take the
 * scalar sphere kernel). The geometry is that of sphere_entry (force_pass.c):
 * normal along the line of centres, the contact point halfway between the
 * two surfaces. */
#ifndef FD_PENALTY_SPHERE_BLOCK_H
#define FD_PENALTY_SPHERE_BLOCK_H

#include "contact/model.h"

#define FD_BLOCK 32

/* The law of a block, the same for all its lanes. */
typedef struct fd_block_law {
    int law;                      /* index in the world's laws */
    fd_submodel_kind slide;       /* FD_KIND_NONE, FD_KIND_SLIDE_DSDS or FD_KIND_SLIDE_CSDS */
    bool clamp;                   /* N >= 0 (hooke limit_damping) */
    double k_n;                   /* N/m */
    double k_t, inverse_k_t;      /* N/m, m/N */
    double gamma_t, inverse_gamma_t; /* N s/m, m/(N s) */
    double mu;                    /* - */
    double time_step;             /* s */
} fd_block_law;

typedef struct fd_sphere_block {
    int count;
    /* inputs */
    double separation[3][FD_BLOCK];   /* x_i - x_j (body j's nearest image), m */
    double velocity_i[3][FD_BLOCK], velocity_j[3][FD_BLOCK];
    double spin_i[3][FD_BLOCK], spin_j[3][FD_BLOCK];
    double radius_i[FD_BLOCK], radius_j[FD_BLOCK];
    double damping[FD_BLOCK];         /* the pair's normal dashpot, N s/m */
    double spring[3][FD_BLOCK];       /* slide spring before the step, m */
    /* outputs */
    double force[3][FD_BLOCK];        /* on body i, N */
    double torque_i[3][FD_BLOCK], torque_j[3][FD_BLOCK];
    double spring_after[3][FD_BLOCK];
    double slipping[FD_BLOCK];        /* 1 while the slide slips, else 0 */
    /* outputs of the full kernel only (records, ledger) */
    double normal[3][FD_BLOCK];
    double normal_force[FD_BLOCK], elastic_force[FD_BLOCK], damping_force[FD_BLOCK];
    /* of the books and full kernels: normal (stored, dashpot) and slide
     * (stored, dashpot, slip, created); the other books of the step are 0 */
    double books[2][4][FD_BLOCK];
} fd_sphere_block;

/* Whether a law can be evaluated by the block kernel, and its block form. */
bool fd_block_law_of(const fd_contact_law* law, int index, double time_step, fd_block_law* out);

/* The block's lanes: forces, torques, springs and slip states; the books
 * kernel also the books (the ledger); the full kernel also the normals and
 * the normal force's parts (a record). */
void fd_sphere_block_run(fd_sphere_block* block, const fd_block_law* law);
void fd_sphere_block_run_books(fd_sphere_block* block, const fd_block_law* law);
void fd_sphere_block_run_full(fd_sphere_block* block, const fd_block_law* law);

#endif
