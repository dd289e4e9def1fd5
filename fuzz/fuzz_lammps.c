/* libFuzzer harness for fricdem import-lammps (src/lammps/): any deck must
 * import or fail with an error message, never crash, leak or read memory it
 * should not. Each input is a deck in an in-memory file (memfd) read back
 * through /proc/self/fd; the scene goes to a scratch directory made once
 * (and replaced each time: overwrite). Built by `make fuzz` (scripts/fuzz.sh,
 * FUZZ_TARGET=lammps) with Debian's clang: -fsanitize=fuzzer,address,undefined. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fricdem/fricdem.h"
#include "lammps/lammps_import.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static char scene[128];
    if (scene[0] == '\0') {
        char directory[] = "/tmp/fricdem_fuzz_lammps_XXXXXX";
        if (mkdtemp(directory) == NULL) {
            abort();
        }
        snprintf(scene, sizeof scene, "%s/scene.yaml", directory);
    }
    int file = memfd_create("fricdem_fuzz_lammps", 0);
    if (file < 0) {
        return 0;
    }
    if (write(file, data, size) != (ssize_t)size) {
        close(file);
        return 0;
    }
    char deck[64];
    snprintf(deck, sizeof deck, "/proc/self/fd/%d", file);
    fd_lammps_import_options options = {.deck = deck, .scene = scene, .overwrite = true};
    if (fd_lammps_import(&options) != FD_OK && fd_last_error()[0] == '\0') {
        abort(); /* a failure must say why */
    }
    close(file);
    return 0;
}
