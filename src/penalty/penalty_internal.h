/* Shared between the files of src/penalty/ only. */
#ifndef FD_PENALTY_INTERNAL_H
#define FD_PENALTY_INTERNAL_H

#include "broadphase/broadphase.h"
#include "contact/model.h"
#include "penalty/penalty.h"

struct fd_generic_slot {
    fd_contact_geometry geometry;
    fd_vec3 offset;               /* periodic image of body j */
};

void fd_neighbor_list_free(fd_neighbor_list* list);
/* Builds *out from the world's current state, carrying the contacts of *old
 * (NULL at the first build); resets the rebuild test. */
fd_status fd_neighbor_list_build(fd_world* world, fd_neighbor_list* out, const fd_neighbor_list* old);
size_t fd_neighbor_list_memory(const fd_neighbor_list* list, int history_stride, int constant_stride);

/* The sphere kernels' constants of entry e (bodies i < j), computed when its
 * contact begins and carried with it. */
void fd_pair_constants(const fd_world* world, fd_neighbor_list* list, int64_t e, int i, int j);

/* Whether a law has a sphere kernel (sphere_kernel.h), and how many pair
 * constants it reads. */
bool fd_law_has_sphere_kernel(const fd_contact_law* law);
int fd_law_constant_count(const fd_contact_law* law);

/* The offset to add to b so that b + s is the image of b nearest to a, as
 * fd_periodic_offset, for a - b within one period on every periodic axis
 * (positions are wrapped into the box): a compare instead of round(). */
static inline fd_vec3 fd_periodic_near_offset(const fd_periodic* periodic, fd_vec3 separation)
{
    fd_vec3 offset = {0.0, 0.0, 0.0};
    double d[3] = {separation.x, separation.y, separation.z};
    double s[3] = {0.0, 0.0, 0.0};
    for (int a = 0; a < 3; ++a) {
        if (periodic->axis[a]) {
            double half = 0.5 * periodic->length[a];
            s[a] = d[a] > half ? periodic->length[a] : (d[a] < -half ? -periodic->length[a] : 0.0);
        }
    }
    offset.x = s[0];
    offset.y = s[1];
    offset.z = s[2];
    return offset;
}

#endif
