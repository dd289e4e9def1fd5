/* Every input that once crashed the scene fuzzer, or a scene made from a
 * defect the fuzzer-and-sanitizer campaign of issue 11 found, replayed
 * through the harness's own path (fuzz/scene_exercise.h). Under the sanitize
 * preset (make test runs the suite under ASan + UBSan) a regression aborts
 * the test; here it must also end the way its first line says:
 *   # expect: load-error | prepare-error | step-error | steps
 * and every error must come with a message. A new crash found by `make fuzz`
 * (fuzz/crashes/) goes into tests/fuzz_inputs/ with that line once fixed. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/scene_exercise.h"

#define INPUTS FRICDEM_SOURCE_DIR "/tests/fuzz_inputs"

static const char* const outcome_names[] = {"load-error", "prepare-error", "step-error", "steps", "too-large"};

static bool expected_outcome(const char* path, char* expected, size_t size)
{
    FILE* file = fopen(path, "r");
    if (file == NULL) {
        return false;
    }
    char line[256] = "";
    bool found = fgets(line, sizeof line, file) != NULL && sscanf(line, "# expect: %63s", expected) == 1;
    (void)size;
    fclose(file);
    return found;
}

static int compare_names(const void* a, const void* b)
{
    return strcmp(*(const char* const*)a, *(const char* const*)b);
}

Test(fuzz_inputs, every_committed_input_ends_as_its_header_says_with_a_message_for_each_error)
{
    DIR* directory = opendir(INPUTS);
    cr_assert_not_null(directory, "cannot open %s", INPUTS);
    char* names[256];
    int count = 0;
    for (struct dirent* entry; (entry = readdir(directory)) != NULL;) {
        if (entry->d_name[0] != '.' && count < 256) {
            names[count++] = strdup(entry->d_name);
        }
    }
    closedir(directory);
    qsort(names, (size_t)count, sizeof names[0], compare_names);
    /* The directory holds at least the defects of issue 11 listed in its files. */
    cr_assert_geq(count, 10, "only %d inputs in %s", count, INPUTS);
    for (int k = 0; k < count; ++k) {
        char path[1024], expected[64] = "";
        snprintf(path, sizeof path, "%s/%s", INPUTS, names[k]);
        cr_assert(expected_outcome(path, expected, sizeof expected), "%s: first line must be '# expect: OUTCOME'",
                  names[k]);
        size_t message_length = 0;
        fd_fuzz_outcome outcome = fd_fuzz_exercise_scene(path, &message_length);
        cr_expect_str_eq(outcome_names[outcome], expected, "%s: ended as %s (%s)", names[k], outcome_names[outcome],
                         fd_last_error());
        if (outcome != FD_FUZZ_STEPPED && outcome != FD_FUZZ_TOO_LARGE) {
            cr_expect_gt(message_length, 0, "%s: an error without a message", names[k]);
        }
        if (outcome == FD_FUZZ_LOAD_ERROR) {
            /* Load errors name the file (FILE:LINE: KEY). */
            cr_expect_not_null(strstr(fd_last_error(), names[k]), "%s: message does not name the file: %s", names[k],
                               fd_last_error());
        }
        free(names[k]);
    }
}
