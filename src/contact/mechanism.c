/* What every contact model shares and nothing else: the mechanisms' names
 * (for messages and tables) and the one way a friction model resolves its
 * static and kinetic coefficients from its parameters. A leaf of
 * src/contact/: the models call it, it calls no model, so that the models
 * never reach back into the registry or the friction stage that call them.
 *
 * Must not touch: the world, the steppers, files (the steppers call the laws). */
#include <stdbool.h>

#include "contact/model.h"
#include "core/error.h"

const char* fd_mechanism_name(fd_mechanism mechanism)
{
    static const char* const names[FD_MECHANISM_COUNT] = {"normal", "slide", "roll", "spin"};
    return (unsigned)mechanism < FD_MECHANISM_COUNT ? names[mechanism] : "unknown";
}

/* model.h: one for the sliders (sds.c, sds_torque.c) and PFC (pfc.c). */
fd_status fd_resolve_static_kinetic(const char* model, const char* mu_name, const double* params, int mu_slot,
                                    int mu_s_slot, int mu_k_slot, double* derived)
{
    double mu = params[mu_slot], mu_s = params[mu_s_slot], mu_k = params[mu_k_slot];
    bool single = mu != -1.0, split = mu_s != -1.0;
    if (single && (split || mu_k != -1.0)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "%s: give %s (static = kinetic) or %s_s with an optional %s_k, not both (got %s = %g, %s_s = "
                       "%g, %s_k = %g; -1 = not given)",
                       model, mu_name, mu_name, mu_name, mu_name, mu, mu_name, mu_s, mu_name, mu_k);
    }
    if (!single && !split) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "%s needs %s (one friction coefficient, static = kinetic), or %s_s and optionally %s_k (the "
                       "static and kinetic coefficients)",
                       model, mu_name, mu_name, mu_name);
    }
    double static_coefficient = single ? mu : mu_s;
    double kinetic = mu_k == -1.0 ? static_coefficient : mu_k;
    if (!(static_coefficient >= 0.0) || !(kinetic >= 0.0) || kinetic > static_coefficient) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT,
                       "%s: the friction coefficients must satisfy 0 <= %s_k <= %s_s (got static %g, kinetic %g)",
                       model, mu_name, mu_name, static_coefficient, kinetic);
    }
    derived[FD_DERIVED_MU_S] = static_coefficient;
    derived[FD_DERIVED_MU_K] = kinetic;
    return FD_OK;
}
