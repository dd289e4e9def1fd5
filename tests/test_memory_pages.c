/* Where the library asks the memory system for help (src/core/cache.c,
 * src/core/grow.c): the size of the largest cache, which decides whether the
 * force pass prefetches the partners' states, and the advice that large
 * arrays be backed by large pages. Neither may change a value: the arrays
 * keep their contents; what the kernel was told is read back from
 * /proc/self/smaps, the kernel's own account of the process's mappings. */
#define _DEFAULT_SOURCE /* MADV_HUGEPAGE, as src/core/grow.c sees it */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/cache.h"
#include "core/grow.h"
#include "core/staggered.h"

/* The VmFlags line of the mapping holding `address`, or "" where smaps
 * cannot be read (then the test is skipped). */
static void flags_of_mapping(const void* address, char* flags, size_t size)
{
    flags[0] = '\0';
    FILE* smaps = fopen("/proc/self/smaps", "r");
    if (smaps == NULL) {
        return;
    }
    char line[512];
    bool inside = false;
    uintptr_t at = (uintptr_t)address;
    while (fgets(line, sizeof line, smaps) != NULL) {
        unsigned long long low, high;
        if (sscanf(line, "%llx-%llx ", &low, &high) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            inside = at >= low && at < high;
        } else if (inside && strncmp(line, "VmFlags:", 8) == 0) {
            snprintf(flags, size, "%s", line + 8);
            break;
        }
    }
    fclose(smaps);
}

/* Whether VmFlags lists the two-letter flag `flag` ("hg": huge pages advised). */
static bool has_flag(const char* flags, const char* flag)
{
    for (const char* at = flags; (at = strstr(at, flag)) != NULL; at += 2) {
        if ((at == flags || at[-1] == ' ') && (at[2] == ' ' || at[2] == '\n' || at[2] == '\0')) {
            return true;
        }
    }
    return false;
}

Test(memory_pages, the_largest_cache_is_a_plausible_size)
{
    /* Any processor of the last decades has a largest cache between 256 KiB
     * (a small core's L2) and 4 GiB; a size read without its K or M (32768
     * for "32768K"), or a level's line count instead, falls outside. */
    size_t bytes = fd_last_level_cache_bytes();
    cr_assert_geq(bytes, (size_t)256 << 10, "%zu bytes", bytes);
    cr_assert_leq(bytes, (size_t)4 << 30, "%zu bytes", bytes);
}

Test(memory_pages, a_large_array_is_advised_large_pages_and_keeps_its_contents)
{
#ifndef MADV_HUGEPAGE
    cr_skip_test("no MADV_HUGEPAGE on this system: nothing is advised");
#endif
    /* Grown by fd_resize (realloc: its contents must survive the move), and
     * a staggered per-body array: both past FD_LARGE_PAGES_FROM. */
    size_t count = 2 * (size_t)FD_LARGE_PAGES_FROM / sizeof(double);
    double* values = NULL;
    cr_assert(fd_resize((void**)&values, count / 4, sizeof *values));
    for (size_t k = 0; k < count / 4; ++k) {
        values[k] = (double)k * 0.5;
    }
    cr_assert(fd_resize((void**)&values, count, sizeof *values));
    for (size_t k = 0; k < count / 4; ++k) {
        cr_assert_eq(values[k], (double)k * 0.5, "element %zu changed by the growth", k);
    }
    double* staggered = fd_staggered_alloc(count * sizeof(double), 3);
    cr_assert_not_null(staggered);
    char flags[512];
    flags_of_mapping(values + count / 2, flags, sizeof flags);
    if (flags[0] == '\0') {
        free(values);
        fd_staggered_free(staggered);
        cr_skip_test("/proc/self/smaps cannot be read here");
    }
    cr_assert(has_flag(flags, "hg"), "the grown array's mapping is not advised large pages: VmFlags%s", flags);
    flags_of_mapping(staggered + count / 2, flags, sizeof flags);
    cr_assert(has_flag(flags, "hg"), "the staggered array's mapping is not advised large pages: VmFlags%s", flags);
    free(values);
    fd_staggered_free(staggered);
}
