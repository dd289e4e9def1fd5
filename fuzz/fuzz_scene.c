/* libFuzzer harness for the scene loader (issue 11): any input must load
 * or fail with an error message, never crash or read memory it should not.
 * What it does with an input is fuzz/scene_exercise.h, shared with the test
 * that replays every input that once crashed (tests/test_fuzz_inputs.c).
 *
 * Built by `make fuzz` (scripts/fuzz.sh) with Debian's clang:
 * -fsanitize=fuzzer,address,undefined. The loader reads a path, so each input
 * goes to an in-memory file (memfd) read back through /proc/self/fd. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "scene_exercise.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    int file = memfd_create("fricdem_fuzz_scene", 0);
    if (file < 0) {
        return 0;
    }
    if (write(file, data, size) != (ssize_t)size) {
        close(file);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", file);
    size_t message_length;
    (void)fd_fuzz_exercise_scene(path, &message_length);
    close(file);
    return 0;
}
