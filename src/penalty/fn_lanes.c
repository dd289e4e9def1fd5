/* Fang & Negrut's sphere lanes in the force pass (penalty_internal.h): the
 * pairs' constants and one contact through a lane of its own; the inputs'
 * gathering and the loads' return, once per contact, are inline in
 * fn_lanes.h. The lanes themselves are the model's
 * (contact/fang_negrut_lane.h); law_pass.c decides when.
 *
 * Must not: change what a contact computes (the lanes give the registry
 * path's bits), or read a body's cold record. */
#include <math.h>

#include "collide/collide.h"
#include "contact/fang_negrut_lane.h"
#include "penalty/fn_lanes.h"
#include "penalty/penalty_internal.h"
#include "world/world_store.h"

static bool isotropic(fd_vec3 inertia) { return inertia.x == inertia.y && inertia.y == inertia.z; }

void fd_fn_pair_constants(const fd_world* world, const fd_contact_law* law, int shapes, int i, int j, double* out)
{
    /* The dashpot as normal.c forms it, with the effective radius
     * round_pair.c gives the pair (a plane curves nowhere; the factor is 1
     * for the lanes' laws). A plane's radius is not read. */
    double radius_i = shapes == FD_FN_PLANE_I ? 0.0 : world->bounding_radii[i];
    double radius_j = shapes == FD_FN_PLANE_J ? 0.0 : world->bounding_radii[j];
    const fd_vec3 zero = {0.0, 0.0, 0.0};
    const fd_vec3 directions[2] = {zero, zero};
    double kappa_i = shapes == FD_FN_PLANE_I ? 0.0 : 1.0 / radius_i;
    double kappa_j = shapes == FD_FN_PLANE_J ? 0.0 : 1.0 / radius_j;
    const double curvature_i[2] = {kappa_i, kappa_i}, curvature_j[2] = {kappa_j, kappa_j};
    double effective_radius = fd_effective_radius(curvature_i, directions, curvature_j, directions);
    double mass_i = world->motion[i].mass, mass_j = world->motion[j].mass;
    out[FD_FN_PAIR_DASHPOT] = fd_normal_dashpot_prefactor(law, fd_pair_effective_mass(mass_i, mass_j), effective_radius);
    out[FD_FN_PAIR_EFFECTIVE_RADIUS] = effective_radius;
    out[FD_FN_PAIR_HERTZ] = law->submodel[FD_MECHANISM_NORMAL]->kind == FD_KIND_NORMAL_HERTZ
                                ? fd_hertz_constant(law->derived[FD_MECHANISM_NORMAL], effective_radius)
                                : 0.0;
    out[FD_FN_PAIR_RADIUS] = radius_i;
    out[FD_FN_PAIR_RADIUS + 1] = radius_j;
    out[FD_FN_PAIR_MASS] = mass_i;
    out[FD_FN_PAIR_MASS + 1] = mass_j;
    /* fang_negrut.c turns the axis into a body's frame unless its moments
     * are equal: such a pair takes the registry path (fd_fn_gather). */
    fd_vec3 inertia_i = world->masses[i].inertia, inertia_j = world->masses[j].inertia;
    out[FD_FN_PAIR_INERTIA] = isotropic(inertia_i) ? inertia_i.x : NAN;
    out[FD_FN_PAIR_INERTIA + 1] = isotropic(inertia_j) ? inertia_j.x : NAN;
}

bool fd_fn_single(fd_world* world, const fd_fn_lane_law* law, fd_fn_block* block, int shapes, int i, int j,
                  int32_t slot, fd_pair_loads* out)
{
    if (!fd_fn_gather(world, block, 0, shapes, i, j, slot, law)) {
        return false;
    }
    block->count = 1;
    fd_fn_block_run(block, law, (fd_fn_shapes)shapes);
    if (block->fallback[0] != 0.0) {
        return false;
    }
    *out = fd_fn_scatter(world, block, 0, law, slot);
    return true;
}
