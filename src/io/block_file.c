/* Output files written in large blocks, directly or through the page cache
 * (block_file.h says why and what stays true either way). */
#define _GNU_SOURCE /* O_DIRECT */
#include "io/block_file.h"

#include <errno.h>
#include <fcntl.h>
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
    bool prefer_direct = rates->seconds_per_byte[1] <= rates->seconds_per_byte[0];
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

/* The whole blocks from block_start to past the end, the last padded with
 * newlines, in one direct write; then the padding cut off. False when the
 * file system refused after all (the caller writes through the page cache). */
static bool write_direct(fd_block_file* file, bool* failed)
{
    fd_text* text = &file->text;
    size_t length = text->length;
    size_t padded = (length + FD_BLOCK_FILE_ALIGN - 1) / FD_BLOCK_FILE_ALIGN * FD_BLOCK_FILE_ALIGN;
    if (!fd_text_reserve(text, padded - length)) {
        *failed = true;
        return true;
    }
    memset(text->bytes + length, '\n', padded - length);
    if (!set_direct(file, true)) {
        file->direct_possible = false;
        return false;
    }
    if (!fd_write_all(file->descriptor, text->bytes, padded, file->block_start)) {
        if (errno == EINVAL) {
            /* The file system took the flag but not the write: never again. */
            file->direct_possible = false;
            set_direct(file, false);
            return false;
        }
        *failed = true;
        return true;
    }
    file->direct_bytes += (int64_t)padded;
    if (padded != length && ftruncate(file->descriptor, (off_t)(file->block_start + (int64_t)length)) != 0) {
        *failed = true;
    }
    return true;
}

bool fd_block_file_flush(fd_block_file* file)
{
    fd_text* text = &file->text;
    if (text->failed) {
        return false;
    }
    size_t fresh = fd_block_file_pending(file);
    if (fresh == 0) {
        return true;
    }
    bool failed = false;
    bool direct = file->direct_possible && fd_write_rates_choose_direct(file->rates, file->mode, fresh, DIRECT_MIN_BYTES);
    double start = fd_write_clock();
    if (!direct || !write_direct(file, &failed)) {
        direct = false;
        if (!set_direct(file, false) ||
            !fd_write_all(file->descriptor, text->bytes + file->written, fresh,
                       file->block_start + (int64_t)file->written)) {
            return false;
        }
        file->cached_bytes += (int64_t)fresh;
    }
    if (failed) {
        return false;
    }
    fd_write_rates_record(file->rates, direct, fresh, fd_write_clock() - start, DIRECT_MIN_BYTES);
    /* Keep the last partial block: the next direct write starts at its
     * aligned offset and must write its bytes again. */
    size_t whole = text->length / FD_BLOCK_FILE_ALIGN * FD_BLOCK_FILE_ALIGN;
    memmove(text->bytes, text->bytes + whole, text->length - whole);
    text->length -= whole;
    file->block_start += (int64_t)whole;
    file->written = text->length;
    return true;
}

bool fd_block_file_close(fd_block_file* file)
{
    if (file->descriptor < 0) {
        fd_text_free(&file->text);
        return true;
    }
    bool ok = fd_block_file_flush(file);
    int saved = errno;
    if (close(file->descriptor) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    fd_text_free(&file->text);
    file->descriptor = -1;
    errno = saved;
    return ok;
}
