/* Output files written in large blocks, directly or through the page cache
 * (block_file.h says why and what stays true either way).
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#define _GNU_SOURCE /* O_DIRECT */
#include "io/block_file.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Flushes smaller than this always go through the page cache: a direct
 * write waits for the device, which costs more than the copy for a few
 * pages, and a row or two per step (energy.csv) must not pay it. */
enum { DIRECT_MIN_BYTES = 256 * 1024 };
/* Under FD_DIRECT_IO_AUTO, one large flush in this many takes the way not
 * preferred, so that the choice follows a machine whose page cache becomes
 * slower or faster as it fills (a wrong probe costs at most this share). */
enum { PROBE_EVERY = 64 };
/* How much faster per byte the page cache must be measured to be chosen
 * under FD_DIRECT_IO_AUTO (fd_write_rates_choose_direct says why). */
static const double CACHED_ADVANTAGE_NEEDED = 2.0;

double fd_write_clock(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

static bool set_direct(fd_block_file* file, bool direct)
{
#ifdef O_DIRECT
    if (file->direct_now == direct) {
        return true;
    }
    int flags = fcntl(file->descriptor, F_GETFL);
    if (flags < 0 || fcntl(file->descriptor, F_SETFL, direct ? flags | O_DIRECT : flags & ~O_DIRECT) < 0) {
        return false;
    }
    file->direct_now = direct;
    return true;
#else
    (void)file;
    return !direct;
#endif
}

bool fd_block_file_open(fd_block_file* file, const char* path, fd_direct_io mode, fd_write_rates* rates)
{
    *file = (fd_block_file){.descriptor = -1, .mode = mode};
    file->rates = rates ? rates : &file->own_rates;
    file->descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (file->descriptor < 0) {
        return false;
    }
    /* A file system that refuses O_DIRECT (tmpfs before Linux 6.6, some
     * network file systems) refuses it here; such a file is written through
     * the page cache only. */
    file->direct_possible = mode != FD_DIRECT_IO_NEVER && set_direct(file, true) && set_direct(file, false);
    return true;
}

int64_t fd_block_file_size(const fd_block_file* file)
{
    return file->block_start + (int64_t)file->text.length;
}

bool fd_write_all(int descriptor, const void* data, size_t length, int64_t offset)
{
    const char* bytes = data;
    while (length > 0) {
        ssize_t wrote = pwrite(descriptor, bytes, length, (off_t)offset);
        if (wrote < 0 && errno == EINTR) {
            continue;
        }
        if (wrote <= 0) {
            if (wrote == 0) {
                errno = EIO; /* nothing taken and no reason given: do not loop */
            }
            return false;
        }
        bytes += wrote;
        length -= (size_t)wrote;
        offset += wrote;
    }
    return true;
}

bool fd_write_rates_choose_direct(fd_write_rates* rates, fd_direct_io mode, size_t bytes, size_t smallest)
{
    if (mode == FD_DIRECT_IO_NEVER || bytes < smallest) {
        return false;
    }
    if (mode == FD_DIRECT_IO_ALWAYS) {
        return true;
    }
    if (rates->seconds_per_byte[1] == 0.0) {
        return true; /* measure each way once first */
    }
    if (rates->seconds_per_byte[0] == 0.0) {
        return false;
    }
    /* The page cache is preferred only when measured clearly faster: its
     * write's time leaves out the writeback the kernel does afterwards (its
     * cost shows later, on the disk and a kernel thread), and copying into
     * fresh pages takes a core that a write behind shares with the run. */
    bool prefer_direct = rates->seconds_per_byte[1] <= CACHED_ADVANTAGE_NEEDED * rates->seconds_per_byte[0];
    rates->choices += 1;
    return rates->choices % PROBE_EVERY == 0 ? !prefer_direct : prefer_direct;
}

void fd_write_rates_record(fd_write_rates* rates, bool direct, size_t bytes, double seconds, size_t smallest)
{
    if (bytes < smallest) {
        return; /* small writes measure latency, not throughput */
    }
    rates->bytes[direct] += (int64_t)bytes;
    double* mean = &rates->seconds_per_byte[direct];
    double sample = seconds / (double)bytes;
    *mean = *mean == 0.0 ? sample : 0.75 * *mean + 0.25 * sample;
    if (*mean == 0.0) {
        *mean = 1e-15; /* a clock too coarse to see the write: still "measured" */
    }
}

/* One write of a buffer: bytes[from, length) at file offset block_start +
 * from, or (direct) the whole blocks bytes[0, padded) from block_start, the
 * last one padded with newlines, then the padding cut off. Prepared by the
 * caller's thread (start_job), run by it or by the writer thread (run_job),
 * its counters and rates taken by the caller's thread (end_job). */
typedef struct block_job {
    fd_text buffer;
    size_t from, length, padded;
    int64_t block_start;
    bool direct;
    /* what happened */
    bool ok, went_direct;
    int error;
    double seconds;
} block_job;

/* The thread that writes behind: one job at a time, handed over and waited
 * for under the lock. */
struct fd_block_writer {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    bool busy, stop;
    bool unfinished; /* a job was handed over and its outcome not yet taken (caller's thread only) */
    fd_block_file* file;
    block_job job;
};

/* The job's write, on whichever thread. Touches the descriptor's flags and
 * file->direct_possible / direct_now, which the caller's thread reads only
 * when no job runs. */
static void run_job(fd_block_file* file, block_job* job)
{
    double start = fd_write_clock();
    const char* bytes = job->buffer.bytes;
    job->ok = true;
    job->went_direct = false;
    if (job->direct) {
        if (!set_direct(file, true)) {
            file->direct_possible = false;
        } else if (fd_write_all(file->descriptor, bytes, job->padded, job->block_start)) {
            job->went_direct = true;
            if (job->padded != job->length &&
                ftruncate(file->descriptor, (off_t)(job->block_start + (int64_t)job->length)) != 0) {
                job->ok = false;
            }
        } else if (errno == EINVAL) {
            /* The file system took the flag but not the write: never again. */
            file->direct_possible = false;
            set_direct(file, false);
        } else {
            job->ok = false;
        }
    }
    if (job->ok && !job->went_direct) {
        job->ok = set_direct(file, false) &&
                  fd_write_all(file->descriptor, bytes + job->from, job->length - job->from,
                               job->block_start + (int64_t)job->from);
    }
    job->error = job->ok ? 0 : errno;
    job->seconds = fd_write_clock() - start;
}

/* Hands what was appended since the last flush to a job: the text becomes
 * the job's buffer, and the file goes on in the spare buffer from the last
 * partial block (a direct write starts at an aligned offset, so the next
 * one writes its bytes again). False after an out-of-memory append. */
static bool start_job(fd_block_file* file, block_job* job)
{
    fd_text* text = &file->text;
    size_t fresh = fd_block_file_pending(file);
    size_t length = text->length;
    size_t padded = (length + FD_BLOCK_FILE_ALIGN - 1) / FD_BLOCK_FILE_ALIGN * FD_BLOCK_FILE_ALIGN;
    bool direct =
        file->direct_possible && fd_write_rates_choose_direct(file->rates, file->mode, fresh, DIRECT_MIN_BYTES);
    if (direct) {
        if (!fd_text_reserve(text, padded - length)) {
            return false;
        }
        memset(text->bytes + length, '\n', padded - length);
    }
    size_t whole = length / FD_BLOCK_FILE_ALIGN * FD_BLOCK_FILE_ALIGN;
    fd_text* spare = &file->spare;
    spare->length = 0;
    spare->failed = false;
    if (!fd_text_reserve(spare, length - whole)) {
        return false;
    }
    if (length > whole) {
        memcpy(spare->bytes, text->bytes + whole, length - whole); /* spare->bytes may be NULL otherwise */
    }
    spare->length = length - whole;
    *job = (block_job){.buffer = *text, .from = file->written, .length = length, .padded = padded,
                       .block_start = file->block_start, .direct = direct};
    *text = *spare;
    *spare = (fd_text){0};
    file->block_start += (int64_t)whole;
    file->written = text->length;
    return true;
}

/* The job's outcome into the file's counters and rates; its buffer back
 * as the spare. False with errno set when its write failed. */
static bool end_job(fd_block_file* file, block_job* job)
{
    size_t fresh = job->length - job->from;
    if (job->ok) {
        if (job->went_direct) {
            file->direct_bytes += (int64_t)job->padded;
        } else {
            file->cached_bytes += (int64_t)fresh;
        }
        fd_write_rates_record(file->rates, job->went_direct, fresh, job->seconds, DIRECT_MIN_BYTES);
    }
    fd_text_free(&file->spare);
    file->spare = job->buffer;
    job->buffer = (fd_text){0};
    if (!job->ok && file->write_error == 0) {
        file->write_error = job->error ? job->error : EIO;
    }
    errno = job->error;
    return job->ok;
}

static void* writer_main(void* argument)
{
    struct fd_block_writer* writer = argument;
    pthread_mutex_lock(&writer->lock);
    for (;;) {
        while (!writer->busy && !writer->stop) {
            pthread_cond_wait(&writer->changed, &writer->lock);
        }
        if (!writer->busy) {
            break;
        }
        pthread_mutex_unlock(&writer->lock);
        run_job(writer->file, &writer->job);
        pthread_mutex_lock(&writer->lock);
        writer->busy = false;
        pthread_cond_broadcast(&writer->changed);
    }
    pthread_mutex_unlock(&writer->lock);
    return NULL;
}

/* Waits for the write behind, if one runs; false with errno set when it
 * failed. */
static bool wait_behind(fd_block_file* file)
{
    struct fd_block_writer* writer = file->behind;
    if (!writer || !writer->unfinished) {
        return true;
    }
    pthread_mutex_lock(&writer->lock);
    while (writer->busy) {
        pthread_cond_wait(&writer->changed, &writer->lock);
    }
    pthread_mutex_unlock(&writer->lock);
    writer->unfinished = false;
    return end_job(file, &writer->job);
}

static void stop_writer(fd_block_file* file)
{
    struct fd_block_writer* writer = file->behind;
    if (!writer) {
        return;
    }
    pthread_mutex_lock(&writer->lock);
    writer->stop = true;
    pthread_cond_broadcast(&writer->changed);
    pthread_mutex_unlock(&writer->lock);
    pthread_join(writer->thread, NULL);
    pthread_cond_destroy(&writer->changed);
    pthread_mutex_destroy(&writer->lock);
    fd_text_free(&writer->job.buffer);
    free(writer);
    file->behind = NULL;
}

/* The writer thread, started once; false when it cannot be (the caller
 * then writes in place). */
static bool start_writer(fd_block_file* file)
{
    if (file->behind) {
        return true;
    }
    struct fd_block_writer* writer = calloc(1, sizeof *writer);
    if (!writer) {
        return false;
    }
    writer->file = file;
    if (pthread_mutex_init(&writer->lock, NULL) != 0) {
        free(writer);
        return false;
    }
    if (pthread_cond_init(&writer->changed, NULL) != 0) {
        pthread_mutex_destroy(&writer->lock);
        free(writer);
        return false;
    }
    if (pthread_create(&writer->thread, NULL, writer_main, writer) != 0) {
        pthread_cond_destroy(&writer->changed);
        pthread_mutex_destroy(&writer->lock);
        free(writer);
        return false;
    }
    file->behind = writer;
    return true;
}

/* False with errno set when an earlier write failed: the file lacks
 * bytes it was given, for good. */
static bool earlier_write_failed(const fd_block_file* file)
{
    if (file->write_error != 0) {
        errno = file->write_error;
        return true;
    }
    return false;
}

bool fd_block_file_flush(fd_block_file* file)
{
    if (!wait_behind(file) || earlier_write_failed(file)) {
        return false;
    }
    if (file->text.failed) {
        return false;
    }
    if (fd_block_file_pending(file) == 0) {
        return true;
    }
    block_job job;
    if (!start_job(file, &job)) {
        file->text.failed = true;
        return false;
    }
    run_job(file, &job);
    return end_job(file, &job);
}

bool fd_block_file_write_behind(fd_block_file* file)
{
    if (file->text.failed || fd_block_file_pending(file) < DIRECT_MIN_BYTES || !start_writer(file)) {
        return fd_block_file_flush(file);
    }
    struct fd_block_writer* writer = file->behind;
    if (!wait_behind(file) || earlier_write_failed(file)) {
        return false;
    }
    if (!start_job(file, &writer->job)) {
        file->text.failed = true;
        return false;
    }
    /* The file's own pointer: the struct may have moved since the thread
     * started (a caller's copy), and the job writes through it. */
    writer->file = file;
    writer->unfinished = true;
    pthread_mutex_lock(&writer->lock);
    writer->busy = true;
    pthread_cond_broadcast(&writer->changed);
    pthread_mutex_unlock(&writer->lock);
    return true;
}

bool fd_block_file_close(fd_block_file* file)
{
    if (file->descriptor < 0) {
        stop_writer(file);
        fd_text_free(&file->text);
        fd_text_free(&file->spare);
        return true;
    }
    bool ok = fd_block_file_flush(file);
    int saved = errno;
    stop_writer(file);
    if (close(file->descriptor) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    fd_text_free(&file->text);
    fd_text_free(&file->spare);
    file->descriptor = -1;
    errno = saved;
    return ok;
}
