/* The friction stage of a contact: after the normal force, each mechanism's
 * sub-model adds its loads. Dispatch is a switch on the sub-model kind, once
 * per contact (no function pointer per sub-model in the hot loop); models that
 * share kinematics across mechanisms (Fang & Negrut tracks the contact point
 * once for slide, roll and spin) take the whole law in one call.
 *
 * The Coulomb limits scale with |N| (LAMMPS Fncrit = |F_ne + F_damp|): N is
 * >= 0 except where a normal model lets its dashpot pull (hooke with
 * limit_damping = 0, LAMMPS's default; pfc_linear's full-dashpot modes), and a
 * negative limit would turn a friction force around.
 *
 * Must not touch: the world, the steppers, files (the steppers call the laws). */
#include <math.h>
#include <string.h>

#include "contact/model.h"
#include "core/error.h"

void fd_friction_evaluate(const fd_contact_law* law, const fd_contact_input* caller_input, double normal_force,
                          double* history, double* columns, fd_contact_loads* loads)
{
    /* Kernels book energy and slip states unconditionally: a caller without
     * books (a test driving a kernel directly) gets scratch ones. The world
     * always passes both, so the hot loop takes the caller's input as is. */
    const fd_contact_input* input = caller_input;
    fd_energy_books scratch_energy[FD_MECHANISM_COUNT];
    unsigned scratch_flags;
    fd_contact_input local;
    if (caller_input->energy == NULL || caller_input->slip_flags == NULL) {
        memset(scratch_energy, 0, sizeof scratch_energy);
        scratch_flags = 0;
        local = *caller_input;
        local.energy = local.energy != NULL ? local.energy : scratch_energy;
        local.slip_flags = local.slip_flags != NULL ? local.slip_flags : &scratch_flags;
        input = &local;
    }
    const fd_submodel* slide = law->submodel[FD_MECHANISM_SLIDE];
    const fd_submodel* roll = law->submodel[FD_MECHANISM_ROLL];
    const fd_submodel* spin = law->submodel[FD_MECHANISM_SPIN];
    normal_force = fabs(normal_force);
    if (law->submodel[FD_MECHANISM_NORMAL]->kind == FD_KIND_NORMAL_PFC_LINEAR) {
        /* PFC: its slide and roll models (if present) and the energy partitions. */
        fd_pfc_evaluate(law, input, history, columns, loads);
    }
    if (slide != NULL) {
        switch (slide->kind) {
        case FD_KIND_SLIDE_FANG_NEGRUT: /* also its roll and spin models */
            fd_fang_negrut_evaluate(law, input, normal_force, history, columns, loads);
            break;
        case FD_KIND_SLIDE_DSDS: {
            fd_vec3 tangential = fd_v3_reject(input->relative_velocity, input->geometry->normal);
            loads->slide_force = fd_dsds_slide(law, input, tangential, normal_force, history, columns);
            break;
        }
        case FD_KIND_SLIDE_CSDS: {
            fd_vec3 tangential = fd_v3_reject(input->relative_velocity, input->geometry->normal);
            loads->slide_force = fd_csds_slide(law, input, tangential, normal_force, history, columns);
            break;
        }
        case FD_KIND_SLIDE_LINEAR_NOHISTORY: {
            fd_vec3 tangential = fd_v3_reject(input->relative_velocity, input->geometry->normal);
            loads->slide_force = fd_nohistory_slide(law, input, tangential, normal_force, columns);
            break;
        }
        case FD_KIND_SLIDE_MINDLIN:
        case FD_KIND_SLIDE_MINDLIN_RESCALE:
        case FD_KIND_SLIDE_MINDLIN_FORCE:
        case FD_KIND_SLIDE_MINDLIN_RESCALE_FORCE:
            loads->slide_force = fd_mindlin_slide(law, input, normal_force, history, columns);
            break;
        case FD_KIND_SLIDE_PFC_LINEAR: /* done by fd_pfc_evaluate above */
        default:
            break;
        }
    }
    /* The torques, rolling first: each kind names its mechanism. */
    const fd_submodel* torques[] = {roll, spin};
    for (int t = 0; t < 2; ++t) {
        switch (torques[t] != NULL ? torques[t]->kind : FD_KIND_NONE) {
        case FD_KIND_ROLL_LEGACY:
            fd_legacy_roll_evaluate(law, input, normal_force, columns, loads);
            break;
        case FD_KIND_ROLL_DSDS:
        case FD_KIND_ROLL_CSDS:
            fd_sds_roll_evaluate(law, input, normal_force, history, columns, loads);
            break;
        case FD_KIND_SPIN_DSDS:
        case FD_KIND_SPIN_CSDS:
        case FD_KIND_SPIN_MARSHALL:
            fd_sds_spin_evaluate(law, input, normal_force, history, columns, loads);
            break;
        default: /* none, or Fang & Negrut's and PFC's: done with their slide models above */
            break;
        }
    }
}

fd_status fd_friction_check_law(const fd_contact_law* law)
{
    fd_status status = fd_fang_negrut_check_law(law);
    if (status == FD_OK) {
        status = fd_pfc_check_law(law);
    }
    if (status == FD_OK) {
        status = fd_sds_torque_check_law(law);
    }
    if (status == FD_OK) {
        status = fd_mindlin_check_law(law);
    }
    return status != FD_OK ? status : fd_cone_check_law(law);
}
