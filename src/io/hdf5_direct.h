/* An HDF5 file driver that writes large aligned blocks past the page cache
 * (O_DIRECT), for the trajectory (output_trajectory.c).
 *
 * Why: block_file.h. The trajectory's frame of 10^6 bodies and contacts is
 * about 300 MB of chunks; HDF5's default driver (sec2) writes them with
 * pwrite through the page cache, and Debian's HDF5 is built without its own
 * direct driver. This one is sec2's behaviour (POSIX pread and pwrite on one
 * descriptor; the file format does not record the driver, so every reader
 * opens the files it writes) plus: a write whose file address, length and
 * buffer are all multiples of FD_BLOCK_FILE_ALIGN goes through a second,
 * O_DIRECT descriptor of the same file, when the file system takes one. The
 * trajectory aligns its large chunks (H5Pset_alignment) and their buffers.
 * Reads and every other write (metadata, small and compressed chunks) take
 * the first descriptor; the kernel keeps the two coherent (a direct write
 * flushes and drops cached pages of its range).
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#ifndef FD_IO_HDF5_DIRECT_H
#define FD_IO_HDF5_DIRECT_H

#include <hdf5.h>
#include <stdbool.h>
#include <stdint.h>

#include "io/block_file.h"

/* Makes `access` (a file access property list) use the driver, and aligns
 * file objects of `threshold` bytes and more at FD_BLOCK_FILE_ALIGN. An
 * aligned write goes direct as `mode` says: FD_DIRECT_IO_AUTO measures the
 * two ways into *rates (which must outlive the files opened with `access`),
 * as block_file.h's writers do. False when HDF5 refuses or this HDF5's
 * driver interface is not the one the driver is written for (then files
 * open with the default driver). */
bool fd_hdf5_direct_use(hid_t access, hsize_t threshold, fd_direct_io mode, fd_write_rates* rates);
/* Bytes the driver wrote directly and through the page cache since the
 * process started (all files), for tests and benchmarks. */
void fd_hdf5_direct_counts(int64_t* direct_bytes, int64_t* cached_bytes);

#endif
