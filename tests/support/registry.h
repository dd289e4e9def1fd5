/* One contact through the models' registry (src/contact/model.h), as the
 * tests that compare another path with it call it (test_fn_lane.c,
 * test_mindlin.c). Each test file is its own executable, so this is static
 * inline. */
#ifndef FD_TESTS_REGISTRY_H
#define FD_TESTS_REGISTRY_H

#include <string.h>

#include "contact/model.h"

/* The normal model's result into *normal, then the friction models' loads
 * on its force (normal_force set too; no output columns). */
static inline fd_contact_loads test_registry_loads(const fd_contact_law* law, const fd_contact_input* input,
                                                   double* history, fd_normal_result* normal)
{
    *normal = fd_normal_evaluate(law, input);
    fd_contact_loads loads;
    memset(&loads, 0, sizeof loads);
    loads.normal_force = normal->force;
    fd_friction_evaluate(law, input, normal->force, history, NULL, &loads);
    return loads;
}

#endif
