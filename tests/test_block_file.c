/* Output files written in blocks, directly (O_DIRECT) or through the page
 * cache (src/io/block_file.c): whichever way, after every flush the file is
 * exactly the bytes appended so far, and the automatic choice follows the
 * measured rates. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/block_file.h"
#include "support/temp_dir.h"

TestSuite(block_file, .init = make_dir, .fini = remove_dir);

/* xorshift64: a fixed sequence, so a failure reproduces. */
static uint64_t next_random(uint64_t* state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

static void assert_file_is(const char* path, const char* expected, size_t length)
{
    FILE* file = fopen(path, "rb");
    cr_assert_not_null(file);
    struct stat info;
    cr_assert_eq(stat(path, &info), 0);
    cr_assert_eq((size_t)info.st_size, length, "the file has %lld bytes, %zu were appended", (long long)info.st_size,
                 length);
    char* read_back = malloc(length + 1);
    cr_assert_eq(fread(read_back, 1, length, file), length);
    fclose(file);
    for (size_t i = 0; i < length; ++i) {
        cr_assert_eq(read_back[i], expected[i], "byte %zu of %zu differs", i, length);
    }
    free(read_back);
}

/* Rows of random length appended and flushed at random points, from a few
 * bytes to 1.5 MiB at a time (so both small cached flushes and large ones
 * that may go direct), the file compared with what was appended after
 * every flush. With `behind`, large blocks are written behind instead and
 * the file compared after every fifth flush and at the end. Returns the
 * file's counters. */
static fd_block_file write_and_compare(fd_direct_io mode, uint64_t seed, bool behind)
{
    const char* path = temp_path("rows.csv");
    fd_block_file file;
    cr_assert(fd_block_file_open(&file, path, mode, NULL));
    size_t capacity = 24u << 20, length = 0;
    char* expected = malloc(capacity);
    uint64_t state = seed;
    for (int flush = 0; flush < 40; ++flush) {
        uint64_t pick = next_random(&state) % 4;
        size_t target = pick == 0 ? next_random(&state) % 300 /* a row or two */
                        : pick == 1 ? next_random(&state) % 5000
                                    : 256 * 1024 + next_random(&state) % (1280 * 1024);
        size_t added = 0;
        while (added <= target && length + 200 < capacity) {
            char row[200];
            int row_length = snprintf(row, sizeof row, "%d,%llu,%s\n", flush,
                                      (unsigned long long)next_random(&state),
                                      "x,y,z,0.57985595552408586" + next_random(&state) % 20);
            fd_text_append(&file.text, row, (size_t)row_length);
            memcpy(expected + length, row, (size_t)row_length);
            length += (size_t)row_length;
            added += (size_t)row_length;
        }
        if (behind && flush % 5 != 4) {
            cr_assert(fd_block_file_write_behind(&file));
            cr_assert_eq(fd_block_file_size(&file), (int64_t)length);
            continue;
        }
        cr_assert(fd_block_file_flush(&file));
        cr_assert_eq(fd_block_file_size(&file), (int64_t)length);
        assert_file_is(path, expected, length);
    }
    fd_block_file counters = file;
    cr_assert(fd_block_file_close(&file));
    assert_file_is(path, expected, length);
    free(expected);
    counters.text = (fd_text){0};
    return counters;
}

/* Whether this test's directory takes O_DIRECT at all (tmpfs before Linux
 * 6.6 does not: there every way is the page cache, and still exact). */
static bool direct_supported(void)
{
    fd_block_file probe;
    cr_assert(fd_block_file_open(&probe, temp_path("probe"), FD_DIRECT_IO_ALWAYS, NULL));
    bool possible = probe.direct_possible;
    fd_block_file_close(&probe);
    return possible;
}

Test(block_file, every_flush_leaves_exactly_the_bytes_appended_whichever_way)
{
    const fd_direct_io modes[] = {FD_DIRECT_IO_NEVER, FD_DIRECT_IO_ALWAYS, FD_DIRECT_IO_AUTO};
    const bool direct = direct_supported();
    for (int m = 0; m < 6; ++m) {
        fd_block_file counters = write_and_compare(modes[m % 3], 0x9E3779B97F4A7C15ull + (uint64_t)m, m >= 3);
        if (modes[m % 3] == FD_DIRECT_IO_NEVER || !direct) {
            cr_assert_eq(counters.direct_bytes, 0, "mode %d wrote directly", m);
        }
        if (modes[m % 3] == FD_DIRECT_IO_ALWAYS && direct) {
            /* Large flushes went direct (rewriting each partial block and
             * padding the last), the small ones through the cache. */
            cr_assert_gt(counters.direct_bytes, 0);
            cr_assert_gt(counters.cached_bytes, 0);
        }
        if (modes[m % 3] == FD_DIRECT_IO_AUTO && direct) {
            /* It measures each way before choosing. */
            cr_assert_gt(counters.own_rates.seconds_per_byte[0], 0.0);
            cr_assert_gt(counters.own_rates.seconds_per_byte[1], 0.0);
        }
    }
}

/* One flush of 512 KiB; returns whether it went direct. */
static bool flush_goes_direct(fd_block_file* file)
{
    int64_t direct_before = file->direct_bytes;
    char row[1024];
    memset(row, 'a', sizeof row - 1);
    row[sizeof row - 1] = '\n';
    for (int i = 0; i < 512; ++i) {
        fd_text_append(&file->text, row, sizeof row);
    }
    cr_assert(fd_block_file_flush(file));
    return file->direct_bytes > direct_before;
}

Test(block_file, auto_writes_the_way_measured_faster_and_tries_the_other_now_and_then)
{
    if (!direct_supported()) {
        cr_skip_test("the temporary directory's file system refuses O_DIRECT");
    }
    fd_write_rates rates = {0};
    fd_block_file file;
    cr_assert(fd_block_file_open(&file, temp_path("auto.csv"), FD_DIRECT_IO_AUTO, &rates));
    /* Nothing measured: direct first, then the page cache. */
    cr_assert(flush_goes_direct(&file));
    cr_assert_not(flush_goes_direct(&file));
    cr_assert_gt(rates.seconds_per_byte[0], 0.0);
    cr_assert_gt(rates.seconds_per_byte[1], 0.0);
    /* Rates set before each flush (a flush's own measurement moves them by
     * a quarter at most, never across a factor of 100): the faster way is
     * taken, except on every 64th choice. */
    int direct_flushes = 0;
    for (int k = 0; k < 64; ++k) {
        rates.seconds_per_byte[0] = 1e-7;
        rates.seconds_per_byte[1] = 1e-9;
        direct_flushes += flush_goes_direct(&file);
    }
    cr_assert_eq(direct_flushes, 63, "direct %d of 64 times", direct_flushes);
    int cached_flushes = 0;
    for (int k = 0; k < 64; ++k) {
        rates.seconds_per_byte[0] = 1e-9;
        rates.seconds_per_byte[1] = 1e-7;
        cached_flushes += !flush_goes_direct(&file);
    }
    cr_assert_eq(cached_flushes, 63, "through the cache %d of 64 times", cached_flushes);
    cr_assert(fd_block_file_close(&file));
    struct stat info;
    cr_assert_eq(stat(temp_path("auto.csv"), &info), 0);
    cr_assert_eq(info.st_size, 130 * 512 * 1024);
}

/* A write behind that fails (a device with no space left) is reported by
 * the next call that waits for it, with its errno. */
Test(block_file, a_failed_write_behind_is_reported_by_the_next_flush)
{
    fd_block_file file;
    if (!fd_block_file_open(&file, "/dev/full", FD_DIRECT_IO_NEVER, NULL)) {
        cr_skip_test("/dev/full cannot be opened here");
    }
    char row[1024];
    memset(row, 'a', sizeof row);
    for (int i = 0; i < 512; ++i) {
        fd_text_append(&file.text, row, sizeof row);
    }
    bool accepted = fd_block_file_write_behind(&file);
    if (accepted) {
        cr_assert_not(fd_block_file_flush(&file), "the failed write behind went unnoticed");
    }
    cr_assert_eq(errno, ENOSPC, "errno %d", errno);
    cr_assert_not(fd_block_file_close(&file));
}

Test(block_file, a_file_that_cannot_be_created_is_an_error_with_errno)
{
    fd_block_file file;
    cr_assert_not(fd_block_file_open(&file, temp_path("missing/folder/rows.csv"), FD_DIRECT_IO_AUTO, NULL));
    cr_assert_neq(errno, 0);
    cr_assert(fd_block_file_close(&file)); /* closing what never opened is a no-op */
}
