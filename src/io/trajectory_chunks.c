/* A trajectory frame's per-row datasets written chunk by chunk
 * (H5Dwrite_chunk), each chunk either byte-shuffled and deflated or stored
 * as it is, whichever its content calls for.
 *
 * Why. The datasets declare HDF5's standard pipeline, byte shuffle then
 * deflate, so any HDF5 reader (h5py, ParaView's XDMF reader) decompresses
 * them with nothing installed. Run through H5Dwrite, that pipeline deflates
 * every chunk at zlib level 1, and it was most of a frame's cost (60 steps'
 * time per frame at 10^5 spheres) for little gain on the values that vary
 * (positions, velocities, forces: a byte-shuffled double's low mantissa
 * bytes are noise, 1.1-1.3x), while zeros, integers and slowly varying
 * fields (ids, the books of unused mechanisms, springs of contacts that
 * stick, quaternions at rest) shrink 20-200x. So each chunk is tested
 * first: the fraction of its bytes equal to the same byte of the element
 * before (what shuffle lines up for deflate to find). At least
 * COMPRESS_REPEAT_FRACTION, it is shuffled and deflated with zlib's Z_RLE
 * strategy (matches at distance one only, runs: the same ratio as level 1's
 * full match search on this data, measured at 2.91 against 2.90, in half
 * the time); below it, or when deflate does not make it smaller, the chunk
 * is stored as it is and its filter mask (H5Dwrite_chunk's `filters`: bit
 * k set skips filter k on reading) tells readers to skip both filters. On
 * the 10^5-sphere settled pile a frame of bodies and contacts became 2.5x
 * smaller than the raw data (2.9x before) and as cheap to write as no
 * compression (the kernel's copy of fewer bytes pays for the test and the
 * runs). The bytes of the file depend on the data only, never on the
 * thread count.
 *
 * Must not: write anything but whole chunks of one frame, or depend on
 * anything but the data (the file is part of a run's reproducible output). */
#include "io/trajectory_chunks.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* Below this fraction of repeated bytes a chunk is mostly noise (the raw
 * doubles of positions and forces measure 0.05-0.25 and deflate to 1.1-1.3x;
 * zeros and integers 0.45-1.0 and deflate to 2-200x). */
#define COMPRESS_REPEAT_FRACTION 0.3

enum {
    FILTER_SHUFFLE_SKIPPED = 1u << 0, /* the pipeline's filter 0 */
    FILTER_DEFLATE_SKIPPED = 1u << 1, /* the pipeline's filter 1 */
};

/* A buffer of at least `bytes`, 4096-aligned (a raw chunk goes from it to
 * the file by a direct write, hdf5_direct.h); its contents need not stay. */
static bool reserve(unsigned char** buffer, size_t* capacity, size_t bytes)
{
    if (bytes <= *capacity) {
        return true;
    }
    size_t rounded = (bytes + 4095) / 4096 * 4096;
    unsigned char* grown = aligned_alloc(4096, rounded);
    if (!grown) {
        return false;
    }
    free(*buffer);
    *buffer = grown;
    *capacity = rounded;
    return true;
}

/* Bytes equal to the byte element_size before them. */
static size_t repeated_bytes(const unsigned char* bytes, size_t count, size_t element_size)
{
    size_t repeats = 0;
    for (size_t k = element_size; k < count; ++k) {
        repeats += bytes[k] == bytes[k - element_size];
    }
    return repeats;
}

/* HDF5's shuffle filter (H5Zshuffle.c): byte b of element e goes to
 * b * elements + e. */
static void shuffle(const unsigned char* in, unsigned char* out, size_t elements, size_t element_size)
{
    for (size_t b = 0; b < element_size; ++b) {
        unsigned char* plane = out + b * elements;
        for (size_t e = 0; e < elements; ++e) {
            plane[e] = in[e * element_size + b];
        }
    }
}

/* zlib's deflate of `in` into `out` (a zlib stream, what HDF5's deflate
 * filter inflates); 0 when it does not fit in `capacity`. */
static size_t deflate_runs(const unsigned char* in, size_t bytes, unsigned char* out, size_t capacity)
{
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (deflateInit2(&stream, 1, Z_DEFLATED, 15, 8, Z_RLE) != Z_OK) {
        return 0;
    }
    stream.next_in = (Bytef*)in;
    stream.avail_in = (uInt)bytes;
    stream.next_out = out;
    stream.avail_out = (uInt)capacity;
    int result = deflate(&stream, Z_FINISH);
    size_t written = result == Z_STREAM_END ? (size_t)stream.total_out : 0;
    deflateEnd(&stream);
    return written;
}

/* The deflated stream of a two-run chunk (work->prefix elements like
 * raw's first, then the fill, the last element): from the cache, or
 * deflated now (in `work`'s buffers) and cached over the oldest entry when
 * full. NULL when out of memory. */
static const fd_constant_chunk* constant_stream(fd_chunk_buffers* buffers, fd_chunk_work* work,
                                                const unsigned char* raw, size_t element_size, size_t chunk_bytes)
{
    const unsigned char* fill = raw + chunk_bytes - element_size;
    for (int k = 0; k < FD_CONSTANT_CHUNKS; ++k) {
        const fd_constant_chunk* c = &buffers->constants[k];
        if (c->stream && c->element_size == element_size && c->chunk_bytes == chunk_bytes &&
            c->prefix == work->prefix && memcmp(c->element, raw, element_size) == 0 &&
            memcmp(c->fill, fill, element_size) == 0) {
            return c;
        }
    }
    buffers->deflated_constants += 1;
    shuffle(raw, work->shuffled, chunk_bytes / element_size, element_size);
    size_t deflated = deflate_runs(work->shuffled, chunk_bytes, work->deflated, chunk_bytes);
    if (deflated == 0) {
        return NULL; /* a constant chunk always deflates: only memory can fail */
    }
    fd_constant_chunk* c = &buffers->constants[buffers->next_constant];
    buffers->next_constant = (buffers->next_constant + 1) % FD_CONSTANT_CHUNKS;
    unsigned char* stream = realloc(c->stream, deflated);
    if (!stream) {
        return NULL;
    }
    memcpy(stream, work->deflated, deflated);
    *c = (fd_constant_chunk){.element_size = element_size, .chunk_bytes = chunk_bytes, .prefix = work->prefix,
                             .stream = stream, .stream_bytes = deflated};
    memcpy(c->element, raw, element_size);
    memcpy(c->fill, fill, element_size);
    return c;
}

/* One chunk made ready to write in `work`: rows [first, first + count) of
 * the frame copied and padded with `fill`, then classified: two runs (its
 * stream comes from the cache, serially), deflated, or stored as it is. */
static void prepare_chunk(fd_chunk_work* work, const unsigned char* source, int64_t first, int64_t count,
                          size_t row_bytes, size_t chunk_bytes, size_t element_size, const void* fill)
{
    unsigned char* raw = work->raw;
    memcpy(raw, source + (size_t)first * row_bytes, (size_t)count * row_bytes);
    for (size_t k = (size_t)count * row_bytes; k < chunk_bytes; k += element_size) {
        memcpy(raw + k, fill, element_size); /* what the library fills past the extent */
    }
    /* Judged on the rows that hold data: the fill of a partial chunk (at 10^4
     * bodies, 40 % of a 16384-row chunk) repeats, and would have sent the
     * noise in front of it through deflate. */
    const size_t data_bytes = (size_t)count * row_bytes;
    work->constant = data_bytes >= element_size && memcmp(raw, raw + element_size, data_bytes - element_size) == 0;
    work->prefix = data_bytes / element_size;
    work->skipped = FILTER_SHUFFLE_SKIPPED | FILTER_DEFLATE_SKIPPED;
    work->stored = raw;
    work->stored_bytes = chunk_bytes;
    if (work->constant ||
        repeated_bytes(raw, data_bytes, element_size) < COMPRESS_REPEAT_FRACTION * (double)data_bytes) {
        return;
    }
    shuffle(raw, work->shuffled, chunk_bytes / element_size, element_size);
    size_t deflated = deflate_runs(work->shuffled, chunk_bytes, work->deflated, chunk_bytes);
    if (deflated > 0 && deflated < chunk_bytes) {
        work->skipped = 0;
        work->stored = work->deflated;
        work->stored_bytes = deflated;
    }
}

static bool reserve_work(fd_chunk_buffers* buffers, int count, size_t chunk_bytes)
{
    if (count > buffers->work_count) {
        fd_chunk_work* work = realloc(buffers->work, (size_t)count * sizeof *work);
        if (!work) {
            return false;
        }
        memset(work + buffers->work_count, 0, (size_t)(count - buffers->work_count) * sizeof *work);
        buffers->work = work;
        buffers->work_count = count;
    }
    for (int k = 0; k < count; ++k) {
        fd_chunk_work* w = &buffers->work[k];
        if (!reserve(&w->raw, &w->raw_bytes, chunk_bytes) || !reserve(&w->shuffled, &w->shuffled_bytes, chunk_bytes) ||
            !reserve(&w->deflated, &w->deflated_bytes, chunk_bytes)) {
            return false;
        }
    }
    return true;
}

bool fd_write_frame_chunks(hid_t dataset, int64_t frame, int64_t rows, int64_t chunk_rows, int components,
                           size_t element_size, const void* fill, const void* data, int threads,
                           fd_chunk_buffers* buffers)
{
    const size_t row_bytes = element_size * (size_t)(components > 0 ? components : 1);
    const size_t chunk_bytes = row_bytes * (size_t)chunk_rows;
    /* A deflated chunk is kept only if smaller than the chunk, so its buffer
     * needs no more room; zlib counts in 32 bits (a chunk here: at most
     * 16384 rows x 4 doubles, 512 KiB). */
    const int64_t chunks = (rows + chunk_rows - 1) / chunk_rows;
    const int batch = (int)(threads < 1 ? 1 : chunks < threads ? chunks : threads);
    if (chunk_bytes > (size_t)1 << 30 || !reserve_work(buffers, batch, chunk_bytes)) {
        return false;
    }
    const unsigned char* source = data;
    /* `batch` chunks at a time, one per thread, then written in order: the
     * file's bytes do not depend on the thread count. */
    for (int64_t first_chunk = 0; first_chunk < chunks; first_chunk += batch) {
        int in_batch = (int)(chunks - first_chunk < batch ? chunks - first_chunk : batch);
#pragma omp parallel for schedule(static, 1) num_threads(in_batch) if (in_batch > 1)
        for (int k = 0; k < in_batch; ++k) {
            int64_t first = (first_chunk + k) * chunk_rows;
            int64_t count = rows - first < chunk_rows ? rows - first : chunk_rows;
            prepare_chunk(&buffers->work[k], source, first, count, row_bytes, chunk_bytes, element_size, fill);
        }
        for (int k = 0; k < in_batch; ++k) {
            fd_chunk_work* work = &buffers->work[k];
            if (work->constant) {
                const fd_constant_chunk* constant = constant_stream(buffers, work, work->raw, element_size,
                                                                    chunk_bytes);
                if (!constant) {
                    return false;
                }
                work->skipped = 0;
                work->stored = constant->stream;
                work->stored_bytes = constant->stream_bytes;
            }
            hsize_t offset[3] = {(hsize_t)frame, (hsize_t)((first_chunk + k) * chunk_rows), 0};
            if (H5Dwrite_chunk(dataset, H5P_DEFAULT, work->skipped, offset, work->stored_bytes, work->stored) < 0) {
                return false;
            }
        }
    }
    return true;
}

void fd_chunk_buffers_free(fd_chunk_buffers* buffers)
{
    for (int k = 0; k < buffers->work_count; ++k) {
        free(buffers->work[k].raw);
        free(buffers->work[k].shuffled);
        free(buffers->work[k].deflated);
    }
    free(buffers->work);
    for (int k = 0; k < FD_CONSTANT_CHUNKS; ++k) {
        free(buffers->constants[k].stream);
    }
    *buffers = (fd_chunk_buffers){0};
}
