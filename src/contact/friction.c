/* The friction stage of a contact: after the normal force, each mechanism's
 * sub-model adds its loads. Dispatch is a switch on the sub-model kind, once
 * per contact (no function pointer per sub-model in the hot loop); models that
 * share kinematics across mechanisms (Fang & Negrut tracks the contact point
 * once for slide, roll and spin) take the whole law in one call. */
#include "contact/model.h"

void fd_friction_evaluate(const fd_contact_law* law, const fd_contact_input* input, double normal_force,
                          double* history, double* columns, fd_contact_loads* loads)
{
    const fd_submodel* slide = law->submodel[FD_MECHANISM_SLIDE];
    const fd_submodel* roll = law->submodel[FD_MECHANISM_ROLL];
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
            loads->slide_force = fd_dsds_slide(law->params[FD_MECHANISM_SLIDE], input, tangential, normal_force,
                                               history + law->history_offset[FD_MECHANISM_SLIDE], columns,
                                               law->column_index[FD_MECHANISM_SLIDE]);
            break;
        }
        case FD_KIND_SLIDE_CSDS: {
            fd_vec3 tangential = fd_v3_reject(input->relative_velocity, input->geometry->normal);
            loads->slide_force = fd_csds_slide(law->params[FD_MECHANISM_SLIDE], input, tangential, normal_force,
                                               history + law->history_offset[FD_MECHANISM_SLIDE], columns,
                                               law->column_index[FD_MECHANISM_SLIDE]);
            break;
        }
        case FD_KIND_SLIDE_PFC_LINEAR: /* done by fd_pfc_evaluate above */
        default:
            break;
        }
    }
    if (roll != NULL && roll->kind == FD_KIND_ROLL_LEGACY) {
        fd_legacy_roll_evaluate(law, input, normal_force, columns, loads);
    }
}

fd_status fd_friction_check_law(const fd_contact_law* law)
{
    fd_status status = fd_fang_negrut_check_law(law);
    return status != FD_OK ? status : fd_pfc_check_law(law);
}
