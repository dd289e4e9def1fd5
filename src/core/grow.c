/* Growing heap arrays (grow.h).
 *
 * Must not touch: the other folders of src/ (it sees only the public types). */
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE (Linux) */
#include "core/grow.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

void fd_advise_large_pages(void* start, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    if (start == NULL || bytes < FD_LARGE_PAGES_FROM) {
        return;
    }
    /* madvise takes whole pages: those inside the block. */
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t first = ((uintptr_t)start + page - 1) / page * page;
    uintptr_t end = ((uintptr_t)start + bytes) / page * page;
    if (end > first) {
        (void)madvise((void*)first, end - first, MADV_HUGEPAGE);
    }
#else
    (void)start;
    (void)bytes;
#endif
}

void* fd_scratch_block(void** block, size_t* capacity, size_t bytes)
{
    if (bytes <= *capacity && *block != NULL) {
        return *block;
    }
    free(*block); /* (first: the old block's pages are not resident beside the new one's) */
    *block = NULL;
    *capacity = 0;
    size_t wanted = bytes + bytes / 4 + 4096;
    void* fresh = aligned_alloc(64, fd_cache_lines(wanted));
    if (fresh == NULL) {
        return NULL;
    }
    *block = fresh;
    *capacity = fd_cache_lines(wanted);
    fd_advise_large_pages(fresh, *capacity);
    return fresh;
}

bool fd_grow(void** array, int64_t* capacity, int64_t needed, size_t element_size)
{
    if (needed <= *capacity) {
        return true;
    }
    /* A quarter to spare: these buffers follow the contact count, which drifts. */
    int64_t grown_capacity = needed + needed / 4 + 256;
    void* grown = realloc(*array, (size_t)grown_capacity * element_size);
    if (grown == NULL) {
        return false;
    }
    *array = grown;
    *capacity = grown_capacity;
    fd_advise_large_pages(grown, (size_t)grown_capacity * element_size);
    return true;
}

bool fd_resize(void** array, size_t count, size_t element_size)
{
    void* grown = realloc(*array, (count > 0 ? count : 1) * element_size);
    if (grown == NULL) {
        return false;
    }
    *array = grown;
    fd_advise_large_pages(grown, count * element_size);
    return true;
}

char* fd_read_stream(FILE* stream, size_t* size, int* error)
{
    size_t capacity = 4096, length = 0;
    char* buffer = malloc(capacity);
    while (buffer != NULL) {
        if (length + 1 == capacity) { /* room for the zero byte, always */
            char* grown = realloc(buffer, 2 * capacity);
            if (grown == NULL) {
                free(buffer);
                buffer = NULL;
                break;
            }
            buffer = grown;
            capacity *= 2;
        }
        size_t got = fread(buffer + length, 1, capacity - 1 - length, stream);
        length += got;
        if (got == 0) {
            break;
        }
    }
    *error = buffer == NULL ? ENOMEM : !ferror(stream) ? 0 : errno != 0 ? errno : EIO;
    if (*error != 0) {
        free(buffer);
        return NULL;
    }
    buffer[length] = '\0';
    *size = length;
    return buffer;
}
