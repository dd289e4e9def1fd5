/* VTK XML snapshots of the bodies, the contacts and the planes
 * (output_vtu.c), for output.c. Formats: docs/output-format.md. */
#ifndef FD_IO_OUTPUT_VTU_H
#define FD_IO_OUTPUT_VTU_H

#include <stdbool.h>

#include "fricdem/fricdem.h"

/* Every body that is not a plane (ids[], count of them), as points. */
fd_status fd_vtu_write_bodies(const fd_world* world, const char* path, const fd_body_id* ids, int count, bool ascii);
/* Every recorded contact as a line between the two centres. */
fd_status fd_vtu_write_contacts(const fd_world* world, const char* path, bool ascii);
/* Every plane as a square around the other bodies; nothing (and FD_OK)
 * when the world has no plane. */
fd_status fd_vtu_write_planes(const fd_world* world, const char* path, bool ascii);

#endif
