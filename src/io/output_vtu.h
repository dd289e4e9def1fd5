/* VTK XML snapshots of the bodies, the contacts and the walls
 * (output_vtu.c), for output.c. Formats: docs/output-format.md.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#ifndef FD_IO_OUTPUT_VTU_H
#define FD_IO_OUTPUT_VTU_H

#include <stdbool.h>

#include "fricdem/fricdem.h"
#include "io/block_file.h"

/* How a snapshot is encoded and reaches the disk. */
typedef struct fd_vtu_format {
    bool ascii;              /* the values as text in the XML instead of raw appended binary */
    fd_direct_io direct_io;  /* block_file.h */
    fd_write_rates* rates;   /* shared with the output's other files (may be NULL) */
} fd_vtu_format;

/* Every body that is not a plane (ids[], count of them), as points. */
fd_status fd_vtu_write_bodies(const fd_world* world, const char* path, const fd_body_id* ids, int count,
                              const fd_vtu_format* format);
/* Every recorded contact as a line between the two centres. */
fd_status fd_vtu_write_contacts(const fd_world* world, const char* path, const fd_vtu_format* format);
/* Where planes are drawn: a plane is infinite, so it is drawn as the square
 * of side 2 half_side centred on the projection of `centre` onto it. Fixed
 * when the output opens, so a plane keeps its square from frame to frame. */
typedef struct fd_vtu_plane_square {
    fd_vec3 centre;          /* m, world */
    double half_side;        /* m */
} fd_vtu_plane_square;

/* Around the bodies, the planes' positions and the inlets' regions: side 1.5
 * times the largest extent of their box, centred on the box. */
fd_vtu_plane_square fd_vtu_plane_square_around(const fd_world* world);
/* How many bodies fd_vtu_write_walls draws (planes, cylinders, disks, mesh patches). */
int fd_vtu_wall_count(const fd_world* world);
/* Every wall body (plane, cylinder, disk or mesh patch) at its pose of the
 * world's time, as triangles and quads; an empty piece when there is none. */
fd_status fd_vtu_write_walls(const fd_world* world, const char* path, const fd_vtu_plane_square* square,
                             const fd_vtu_format* format);

#endif
