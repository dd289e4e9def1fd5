/* An output file written front to back in large blocks, past the page cache
 * where that is faster (O_DIRECT).
 *
 * Why: a frame of 10^6 bodies and their contacts is 0.3 to 1 GB. Through the
 * page cache the kernel first copies it into fresh pages; on a virtual
 * machine whose free memory the host backs lazily that copy runs at about
 * 0.4 GB/s (bench/README.md, "Outputs at scale": 2.4 s per GB, while the
 * same disk takes direct writes at 2.9 GB/s). Written directly, the bytes
 * go from our buffer to the device. Which is faster depends on the machine
 * (a bare machine with free memory copies into its page cache at several
 * GB/s; a slow disk takes direct writes at its own speed), so by default the
 * writer measures both ways on the blocks it writes and keeps the faster.
 *
 * What the file holds never depends on the way: after every flush it is
 * exactly the bytes appended so far (tests/test_block_file.c). A direct
 * write must cover whole blocks of FD_BLOCK_FILE_ALIGN bytes from an aligned
 * offset, so the writer keeps the file's last partial block in its buffer,
 * writes it again with the next flush, and pads a flush's last block with
 * newlines that an ftruncate removes at once: a process stopped between the
 * two leaves blank lines after the last whole row, never a half row
 * (docs/guarantees.md).
 *
 * A large block can also be written behind (fd_block_file_write_behind): a
 * thread of the file's own sends it while the caller formats the next one,
 * so that a frame costs its formatting, not its formatting plus the
 * device's time. The file is exactly the bytes appended after the next
 * fd_block_file_flush or fd_block_file_close, which wait for it.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#ifndef FD_IO_BLOCK_FILE_H
#define FD_IO_BLOCK_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fricdem/io.h"
#include "io/number_format.h"

/* The alignment O_DIRECT asks of offsets, lengths and buffers (the largest
 * logical block size of common devices). */
#define FD_BLOCK_FILE_ALIGN 4096

/* What the files of one output learned about the two ways of writing
 * (FD_DIRECT_IO_AUTO): a running mean of seconds per byte of each. */
typedef struct fd_write_rates {
    double seconds_per_byte[2]; /* [0] through the page cache, [1] direct; 0 = not measured yet */
    int64_t choices;            /* large flushes decided so far (every 64th tries the other way) */
    int64_t bytes[2];           /* written each way, large blocks only (padding included) */
} fd_write_rates;

/* Whether a write of `bytes` should go direct under `mode` (`bytes` below
 * `smallest` never does), by the rates measured so far: every 64th choice
 * takes the way not preferred. */
bool fd_write_rates_choose_direct(fd_write_rates* rates, fd_direct_io mode, size_t bytes, size_t smallest);
/* A write's measured time, into the running mean of its way. */
void fd_write_rates_record(fd_write_rates* rates, bool direct, size_t bytes, double seconds, size_t smallest);
/* Seconds of a monotonic clock, for timing writes. */
double fd_write_clock(void);
/* pwrite of the whole range at `offset` (a write may take less than asked,
 * or be interrupted); false with errno set on an error. */
bool fd_write_all(int descriptor, const void* data, size_t length, int64_t offset);

struct fd_block_writer; /* block_file.c: the thread that writes behind, and its job */

typedef struct fd_block_file {
    int descriptor;
    fd_text text;           /* the file's bytes from block_start on; append to it, then flush */
    int64_t block_start;    /* file offset of text.bytes[0], a multiple of FD_BLOCK_FILE_ALIGN */
    size_t written;         /* leading bytes of text that are in the file already */
    fd_direct_io mode;
    bool direct_possible;   /* the file system took O_DIRECT for this file (and no direct write failed) */
    bool direct_now;        /* O_DIRECT is set on the descriptor */
    fd_write_rates* rates;  /* shared by an output's files, or own_rates */
    fd_write_rates own_rates;
    int64_t direct_bytes;   /* bytes sent by direct writes (padding included), for tests and the summary */
    int64_t cached_bytes;   /* bytes sent through the page cache */
    fd_text spare;          /* the other buffer: the text being written behind, or idle */
    int write_error;        /* errno of the first write that failed (0: none); every later call fails with it */
    struct fd_block_writer* behind; /* started by the first large write behind; NULL before */
} fd_block_file;

/* Creates (or truncates) path. rates may be NULL (the file keeps its own).
 * False with errno set when the file cannot be opened. */
bool fd_block_file_open(fd_block_file* file, const char* path, fd_direct_io mode, fd_write_rates* rates);
/* Writes what was appended since the last flush (after waiting for a write
 * behind); afterwards the file is exactly every byte appended so far. False
 * with errno set on a write error, this one's or an earlier one's (a file
 * that lost bytes stays failed), or with file->text.failed after an
 * out-of-memory append. */
bool fd_block_file_flush(fd_block_file* file);
/* Starts writing what was appended since the last flush and returns at
 * once when it is a large block (DIRECT_MIN_BYTES in block_file.c; a
 * smaller one is written here, as by fd_block_file_flush). The write behind
 * before it is waited for first: false with errno set when that one failed
 * (or after an out-of-memory append). Every byte is in the file after the
 * next fd_block_file_flush or fd_block_file_close. */
bool fd_block_file_write_behind(fd_block_file* file);
/* Bytes appended so far (the file's length after the next flush). */
int64_t fd_block_file_size(const fd_block_file* file);
/* Bytes appended since the last flush. */
static inline size_t fd_block_file_pending(const fd_block_file* file)
{
    return file->text.length - file->written;
}
/* Flushes, closes and frees; false with errno set when either fails. A file
 * never opened (or closed already) closes as a no-op. */
bool fd_block_file_close(fd_block_file* file);

#endif
