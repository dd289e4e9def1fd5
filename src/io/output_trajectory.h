/* The HDF5 trajectory of a run (output_trajectory.c), for output.c:
 * DIR/trajectory.h5 in the H5MD layout, with the XDMF indexes
 * DIR/trajectory.xdmf (bodies) and DIR/trajectory_contacts.xdmf that
 * ParaView's "XDMF Reader" opens. Layout: docs/output-format.md.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#ifndef FD_IO_OUTPUT_TRAJECTORY_H
#define FD_IO_OUTPUT_TRAJECTORY_H

#include <stdbool.h>
#include <stdint.h>

#include "fricdem/fricdem.h"
#include "fricdem/io.h"
#include "io/block_file.h"

typedef struct fd_trajectory fd_trajectory;

/* Creates DIR/trajectory.h5 (replacing one that is there) with every
 * group, dataset and attribute a frame needs; `contacts`: the contacts'
 * groups too (their model columns are those of the world now). NULL after
 * reporting the failure through fd_fail. */
fd_trajectory* fd_trajectory_open(const fd_world* world, const char* directory, bool contacts, bool compressed,
                                  fd_direct_io direct_io, fd_write_rates* rates);
/* Appends the world's state as the next frame, flushes the file and
 * rewrites the XDMF indexes (see the rule in output_trajectory.c). With
 * contacts, the world must have recorded them (fd_world_contacts_recorded). */
fd_status fd_trajectory_write(fd_trajectory* trajectory, const fd_world* world);
bool fd_trajectory_writes_contacts(const fd_trajectory* trajectory);
int64_t fd_trajectory_frame_count(const fd_trajectory* trajectory);
/* Bytes of the HDF5 file and the indexes so far. */
int64_t fd_trajectory_bytes(const fd_trajectory* trajectory);
/* Writes the indexes a last time and closes the file; NULL is fine. */
fd_status fd_trajectory_close(fd_trajectory* trajectory);

#endif
