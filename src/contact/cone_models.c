/* The contact models of the complementarity stepper (Tasora & Anitescu,
 * papers/004): a rigid normal contact and the sliding, rolling and spinning
 * friction cones of Eq. (31),
 *
 *   |(gamma_u, gamma_w)| <= mu gamma_n,  |(tau_u, tau_w)| <= rho gamma_n,
 *   |tau_n| <= sigma gamma_n,
 *
 * each with an optional compliance (the Tikhonov regularisation N + C of
 * Sec. 6.2). They hold no kernel: the stepper of src/complementarity/
 * reads their parameters and solves for the reactions. A law of these models
 * works only with that stepper, and that stepper only with them.
 *
 * Must not touch: the world, the steppers, files (the steppers call the laws). */
#include <math.h>

#include "contact/model.h"
#include "core/error.h"

static const fd_param_info rigid_params[] = {
    {"compliance", "m/N", "normal compliance c_n (Tikhonov term c_n / h^2 on the diagonal of N, Sec. 6.2); 0 = rigid",
     0.0, 0.0, INFINITY, "Tasora & Anitescu Sec. 6.2: Tikhonov term, N + C of Eq. (38)"},
};
static const fd_param_info sliding_params[] = {
    {"mu", "-", "sliding friction coefficient of the cone |gamma_t| <= mu gamma_n (static = kinetic)", NAN, 0.0,
     INFINITY, "Tasora & Anitescu Eq. (9), (14), (31)"},
    {"compliance", "m/N", "tangential compliance (Tikhonov term on the two sliding rows)", 0.0, 0.0, INFINITY,
     "Tasora & Anitescu Sec. 6.2: Tikhonov term, N + C of Eq. (38)"},
};
static const fd_param_info rolling_params[] = {
    {"rho", "m", "rolling friction length of the cone |tau_r| <= rho gamma_n (Eq. 31)", NAN, 0.0, INFINITY,
     "Tasora & Anitescu Eq. (7), (12), (31)"},
    {"compliance", "rad/(N m)", "rolling compliance (Tikhonov term on the two rolling rows)", 0.0, 0.0, INFINITY,
     "Tasora & Anitescu Sec. 6.2: Tikhonov term, N + C of Eq. (38)"},
};
static const fd_param_info spinning_params[] = {
    {"sigma", "m", "spinning friction length of the cone |tau_n| <= sigma gamma_n (Eq. 31)", NAN, 0.0, INFINITY,
     "Tasora & Anitescu Eq. (8), (13), (31)"},
    {"compliance", "rad/(N m)", "spinning compliance (Tikhonov term on the spinning row)", 0.0, 0.0, INFINITY,
     "Tasora & Anitescu Sec. 6.2: Tikhonov term, N + C of Eq. (38)"},
};

/* The reaction of the last step, for the warm start and the outputs: force
 * on body i (world, N) and torque on body i about the contact point (N m). */
static const char* const rigid_columns[] = {"reaction_n", "reaction_u", "reaction_w"};
static const char* const rigid_units[] = {"N", "N", "N"};
static const char* const rolling_columns[] = {"reaction_tau_u", "reaction_tau_w"};
static const char* const rolling_units[] = {"N m", "N m"};
static const char* const spinning_columns[] = {"reaction_tau_n"};
static const char* const spinning_units[] = {"N m"};

const fd_submodel fd_cone_submodels[] = {
    FD_SUBMODEL("rigid", FD_MECHANISM_NORMAL, rigid_params,
                "Rigid unilateral contact of the complementarity stepper (Tasora & Anitescu Eq. 18): gamma_n >= 0 "
                "complementary to the gap rate Phi/h + D_n^T v (stepper: complementarity).",
                .kind = FD_KIND_NORMAL_RIGID, .history_size = FD_CONE_HISTORY,
                FD_SUBMODEL_COLUMNS(rigid_columns, rigid_units)),
    FD_SUBMODEL("sliding_cone", FD_MECHANISM_SLIDE, sliding_params,
                "Coulomb sliding cone of the complementarity stepper, Eq. (14) and (31): |gamma_t| <= mu gamma_n, "
                "maximum dissipation; needs normal model 'rigid'.",
                .kind = FD_KIND_SLIDE_CONE),
    FD_SUBMODEL("rolling_cone", FD_MECHANISM_ROLL, rolling_params,
                "Set-valued rolling friction of the complementarity stepper, Eq. (12) and (31): "
                "|tau_r| <= rho gamma_n; needs normal model 'rigid'.",
                .kind = FD_KIND_ROLL_CONE, FD_SUBMODEL_COLUMNS(rolling_columns, rolling_units)),
    FD_SUBMODEL("spinning_cone", FD_MECHANISM_SPIN, spinning_params,
                "Set-valued spinning friction of the complementarity stepper, Eq. (13) and (31): "
                "|tau_n| <= sigma gamma_n; needs normal model 'rigid'.",
                .kind = FD_KIND_SPIN_CONE, FD_SUBMODEL_COLUMNS(spinning_columns, spinning_units)),
};
const int fd_cone_submodel_count = FD_COUNT_OF(fd_cone_submodels);

fd_status fd_cone_check_law(const fd_contact_law* law)
{
    bool rigid = law->submodel[FD_MECHANISM_NORMAL]->kind == FD_KIND_NORMAL_RIGID;
    static const fd_submodel_kind cone_kind[FD_MECHANISM_COUNT] = {FD_KIND_NORMAL_RIGID, FD_KIND_SLIDE_CONE,
                                                                   FD_KIND_ROLL_CONE, FD_KIND_SPIN_CONE};
    for (int m = FD_MECHANISM_SLIDE; m < FD_MECHANISM_COUNT; ++m) {
        const fd_submodel* model = law->submodel[m];
        if (model == NULL) {
            continue;
        }
        if (rigid && model->kind != cone_kind[m]) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT,
                           "%s model '%s' cannot go with normal model 'rigid' (the complementarity stepper's "
                           "contacts take the cone models: sliding_cone, rolling_cone, spinning_cone)",
                           fd_mechanism_name((fd_mechanism)m), model->info.name);
        }
        if (!rigid && model->kind == cone_kind[m]) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT,
                           "%s model '%s' needs normal model 'rigid' (it is a friction cone of the complementarity "
                           "stepper)",
                           fd_mechanism_name((fd_mechanism)m), model->info.name);
        }
    }
    return FD_OK;
}
