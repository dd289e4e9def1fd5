/* libFuzzer harness for fricdem import-lammps (src/lammps/): any deck must
 * import or fail with an error message, never crash, leak or read memory it
 * should not. Each input is written as deck.in into a scratch directory made
 * once, where the scene goes too (replaced each time: overwrite); a regular
 * file, so that `include NAME` and `read_data NAME` look for NAME in that
 * directory (a deck under /proc/self/fd/ would include the fuzzer's own
 * descriptors and wait on its pipes). Built by `make fuzz` (scripts/fuzz.sh,
 * FUZZ_TARGET=lammps) with Debian's clang: -fsanitize=fuzzer,address,undefined. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fricdem/fricdem.h"
#include "fricdem/io.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static char deck[128], scene[128];
    if (scene[0] == '\0') {
        char directory[] = "/tmp/fricdem_fuzz_lammps_XXXXXX";
        if (mkdtemp(directory) == NULL) {
            abort();
        }
        snprintf(deck, sizeof deck, "%s/deck.in", directory);
        snprintf(scene, sizeof scene, "%s/scene.yaml", directory);
    }
    FILE* file = fopen(deck, "wb");
    if (file == NULL) {
        abort();
    }
    size_t written = fwrite(data, 1, size, file);
    fclose(file);
    if (written != size) {
        return 0;
    }
    fd_lammps_import_def options = {.deck = deck, .scene = scene, .overwrite = true};
    if (fd_lammps_import(&options) != FD_OK && fd_last_error()[0] == '\0') {
        abort(); /* a failure must say why */
    }
    return 0;
}
