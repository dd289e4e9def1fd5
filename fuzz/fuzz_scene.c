/* libFuzzer harness for the scene loader (issue 11): any input must load
 * or fail with an error message, never crash or read memory it should not.
 * A scene that loads with at most a few hundred bodies is also prepared and
 * stepped a few times, so the checks of fd_world_prepare and the first steps
 * see the same odd values (huge or tiny numbers, empty worlds).
 *
 * Built by `make fuzz` (scripts/fuzz.sh) with Debian's clang:
 * -fsanitize=fuzzer,address,undefined. The loader reads a path, so each input
 * goes to an in-memory file (memfd) read back through /proc/self/fd. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fricdem/fricdem.h"
#include "fricdem/io.h"

enum { MOST_BODIES_TO_STEP = 500, STEPS = 3 };

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
    fd_scene scene;
    if (fd_scene_load(path, NULL, 0, &scene) == FD_OK) {
        /* A message must exist for every failure below; reading it checks it is a string. */
        if (fd_world_body_count(scene.world) <= MOST_BODIES_TO_STEP && fd_world_prepare(scene.world) == FD_OK) {
            for (int s = 0; s < STEPS && fd_world_step(scene.world) == FD_OK; ++s) {
            }
        }
        (void)strlen(fd_last_error());
        fd_scene_free(&scene);
    } else {
        (void)strlen(fd_last_error());
    }
    close(file);
    return 0;
}
