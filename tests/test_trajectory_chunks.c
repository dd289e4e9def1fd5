/* The trajectory's chunk writer (src/io/trajectory_chunks.c): a frame
 * written chunk by chunk, each deflated or stored as it is by its content,
 * must read back through HDF5's own pipeline (shuffle, deflate, the chunk's
 * filter mask) as exactly the values written; noise must be stored as it
 * is, runs deflated, and a constant chunk met again must get the same
 * stream it got the first time; the bytes stored must not depend on the
 * number of threads that prepared them. */
#include <criterion/criterion.h>
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/trajectory_chunks.h"
#include "support/temp_dir.h"

TestSuite(trajectory_chunks, .init = make_dir, .fini = remove_dir);

enum { CHUNK_ROWS = 64, ROWS = 150, COMPONENTS = 3, FRAMES = 2 };

/* An empty [frames][rows][3] dataset of doubles with the trajectory's
 * pipeline (byte shuffle, deflate) and chunks of 1 x 64 x 3. */
static hid_t create_dataset(hid_t file, const char* name)
{
    hsize_t dims[3] = {0, 0, COMPONENTS}, max[3] = {H5S_UNLIMITED, H5S_UNLIMITED, COMPONENTS};
    hsize_t chunk[3] = {1, CHUNK_ROWS, COMPONENTS};
    const double nan = NAN;
    hid_t space = H5Screate_simple(3, dims, max);
    hid_t properties = H5Pcreate(H5P_DATASET_CREATE);
    cr_assert(H5Pset_chunk(properties, 3, chunk) >= 0 && H5Pset_shuffle(properties) >= 0 &&
              H5Pset_deflate(properties, 1) >= 0 && H5Pset_fill_value(properties, H5T_NATIVE_DOUBLE, &nan) >= 0);
    hid_t dataset = H5Dcreate2(file, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, properties, H5P_DEFAULT);
    cr_assert(dataset >= 0);
    H5Pclose(properties);
    H5Sclose(space);
    return dataset;
}

/* Rows 0-63 noise (random doubles), 64-127 zeros, 128-149 a ramp of small
 * integers (the last chunk, padded with the fill value past row 149). */
static void fill_frame(double* values, int frame)
{
    srand(11 + frame);
    for (int r = 0; r < ROWS; ++r) {
        for (int c = 0; c < COMPONENTS; ++c) {
            double* v = &values[r * COMPONENTS + c];
            if (r < CHUNK_ROWS) {
                *v = (rand() / (double)RAND_MAX - 0.5) * 1e-3 * (1 + rand() % 1000);
            } else if (r < 2 * CHUNK_ROWS) {
                *v = 0.0;
            } else {
                *v = (double)(r % 7 + c + frame);
            }
        }
    }
}

/* Chunk k of frame f: its filter mask and its bytes as stored. */
static unsigned chunk_mask(hid_t dataset, int frame, int k, unsigned char* bytes, hsize_t* size)
{
    hsize_t offset[3] = {(hsize_t)frame, (hsize_t)(k * CHUNK_ROWS), 0};
    cr_assert(H5Dget_chunk_storage_size(dataset, offset, size) >= 0);
    uint32_t mask = 0;
    cr_assert(H5Dread_chunk(dataset, H5P_DEFAULT, offset, &mask, bytes) >= 0);
    return mask;
}

Test(trajectory_chunks, frames_read_back_exactly_noise_is_stored_raw_runs_deflated_constants_reused)
{
    hid_t file = H5Fcreate(temp_path("chunks.h5"), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert(file >= 0);
    hid_t dataset = create_dataset(file, "value");
    const double nan = NAN;
    fd_chunk_buffers buffers = {0};
    static double written[FRAMES][ROWS * COMPONENTS];
    for (int f = 0; f < FRAMES; ++f) {
        fill_frame(written[f], f);
        hsize_t dims[3] = {(hsize_t)f + 1, ROWS, COMPONENTS};
        cr_assert(H5Dset_extent(dataset, dims) >= 0);
        cr_assert(fd_write_frame_chunks(dataset, f, ROWS, CHUNK_ROWS, COMPONENTS, sizeof(double), &nan, written[f],
                                        1, &buffers));
    }
    /* Through HDF5's pipeline, every value as written (bit for bit). */
    static double read[FRAMES][ROWS * COMPONENTS];
    cr_assert(H5Dread(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, read) >= 0);
    cr_assert(memcmp(read, written, sizeof read) == 0, "the frames read back differ from those written");

    const hsize_t raw_bytes = CHUNK_ROWS * COMPONENTS * sizeof(double);
    static unsigned char bytes[FRAMES][3][CHUNK_ROWS * COMPONENTS * sizeof(double)];
    hsize_t size[FRAMES][3];
    for (int f = 0; f < FRAMES; ++f) {
        /* Noise: stored as it is, both filters skipped (mask bits 0 and 1). */
        cr_assert_eq(chunk_mask(dataset, f, 0, bytes[f][0], &size[f][0]), 3u);
        cr_assert_eq(size[f][0], raw_bytes);
        cr_assert(memcmp(bytes[f][0], written[f], raw_bytes) == 0);
        /* Zeros and the padded ramp: through both filters, and smaller. */
        cr_assert_eq(chunk_mask(dataset, f, 1, bytes[f][1], &size[f][1]), 0u);
        cr_assert_lt(size[f][1], raw_bytes / 50, "zeros deflated to %llu bytes", (unsigned long long)size[f][1]);
        cr_assert_eq(chunk_mask(dataset, f, 2, bytes[f][2], &size[f][2]), 0u);
        cr_assert_lt(size[f][2], raw_bytes);
    }
    /* The zeros of frame 1 came from the cache: the stream of frame 0. */
    cr_assert_eq(size[1][1], size[0][1]);
    cr_assert(memcmp(bytes[1][1], bytes[0][1], size[0][1]) == 0);
    fd_chunk_buffers_free(&buffers);
    H5Dclose(dataset);
    H5Fclose(file);
}

/* Seven and a half chunks of every kind (noise, zeros, runs, the fill of the
 * last), prepared by one thread and by three: the same chunks, byte for byte. */
Test(trajectory_chunks, the_stored_bytes_do_not_depend_on_the_thread_count)
{
    enum { MANY = 7 * CHUNK_ROWS + 40, CHUNKS = 8 };
    static double values[MANY * COMPONENTS];
    srand(5);
    for (int r = 0; r < MANY; ++r) {
        for (int c = 0; c < COMPONENTS; ++c) {
            int kind = (r / CHUNK_ROWS) % 3;
            values[r * COMPONENTS + c] = kind == 0 ? rand() / (double)RAND_MAX : kind == 1 ? 0.0 : (double)(r % 5);
        }
    }
    hid_t file = H5Fcreate(temp_path("threads.h5"), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert(file >= 0);
    const double nan = NAN;
    const int threads[2] = {1, 3};
    hid_t datasets[2];
    for (int t = 0; t < 2; ++t) {
        datasets[t] = create_dataset(file, t == 0 ? "one" : "three");
        fd_chunk_buffers buffers = {0};
        hsize_t dims[3] = {1, MANY, COMPONENTS};
        cr_assert(H5Dset_extent(datasets[t], dims) >= 0);
        cr_assert(fd_write_frame_chunks(datasets[t], 0, MANY, CHUNK_ROWS, COMPONENTS, sizeof(double), &nan, values,
                                        threads[t], &buffers));
        fd_chunk_buffers_free(&buffers);
    }
    static unsigned char bytes[2][CHUNK_ROWS * COMPONENTS * sizeof(double)];
    for (int k = 0; k < CHUNKS; ++k) {
        hsize_t size[2];
        unsigned mask[2];
        for (int t = 0; t < 2; ++t) {
            mask[t] = chunk_mask(datasets[t], 0, k, bytes[t], &size[t]);
        }
        cr_assert_eq(mask[0], mask[1], "chunk %d", k);
        cr_assert_eq(size[0], size[1], "chunk %d", k);
        cr_assert(memcmp(bytes[0], bytes[1], size[0]) == 0, "chunk %d differs", k);
    }
    static double read[MANY * COMPONENTS];
    cr_assert(H5Dread(datasets[1], H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, read) >= 0);
    cr_assert(memcmp(read, values, sizeof read) == 0);
    H5Dclose(datasets[0]);
    H5Dclose(datasets[1]);
    H5Fclose(file);
}

Test(trajectory_chunks, a_partial_chunk_of_zeros_is_deflated_once_for_every_dataset_of_a_frame)
{
    /* Rows 0-63 noise, 64-149 zeros: the last chunk is 22 rows of zeros and
     * 42 of fill, two runs, like the books of the mechanisms a law lacks
     * when a frame has fewer contacts than a chunk holds. Two datasets of
     * the frame share both zero streams: two deflates in all, not four. */
    hid_t file = H5Fcreate(temp_path("runs.h5"), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert(file >= 0);
    hid_t datasets[2] = {create_dataset(file, "a"), create_dataset(file, "b")};
    const double nan = NAN;
    fd_chunk_buffers buffers = {0};
    static double values[2][ROWS * COMPONENTS];
    for (int d = 0; d < 2; ++d) {
        fill_frame(values[d], d);
        for (int k = CHUNK_ROWS * COMPONENTS; k < ROWS * COMPONENTS; ++k) {
            values[d][k] = 0.0;
        }
        hsize_t dims[3] = {1, ROWS, COMPONENTS};
        cr_assert(H5Dset_extent(datasets[d], dims) >= 0);
        cr_assert(fd_write_frame_chunks(datasets[d], 0, ROWS, CHUNK_ROWS, COMPONENTS, sizeof(double), &nan, values[d],
                                        1, &buffers));
    }
    cr_assert_eq(buffers.deflated_constants, 2, "%lld two-run chunks deflated",
                 (long long)buffers.deflated_constants);
    static unsigned char bytes[2][CHUNK_ROWS * COMPONENTS * sizeof(double)];
    hsize_t size[2];
    for (int d = 0; d < 2; ++d) {
        static double read[ROWS * COMPONENTS];
        cr_assert(H5Dread(datasets[d], H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, read) >= 0);
        cr_assert(memcmp(read, values[d], sizeof read) == 0, "dataset %d reads back otherwise", d);
        cr_assert_eq(chunk_mask(datasets[d], 0, 2, bytes[d], &size[d]), 0u); /* deflated */
        cr_assert_lt(size[d], CHUNK_ROWS * COMPONENTS * sizeof(double) / 20);
    }
    cr_assert_eq(size[0], size[1]);
    cr_assert(memcmp(bytes[0], bytes[1], size[0]) == 0, "the second dataset's last chunk is the first's stream");
    fd_chunk_buffers_free(&buffers);
    H5Dclose(datasets[0]);
    H5Dclose(datasets[1]);
    H5Fclose(file);
}
