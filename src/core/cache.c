/* The largest cache's size (cache.h).
 *
 * Must not touch: the other folders of src/ (it sees only the public types). */
#include "core/cache.h"

#include <stdio.h>
#include <unistd.h>

enum { FD_CACHE_GUESS = 32 << 20 }; /* bytes, where nothing says (a server's L3 of the last years) */

/* One cache level's "size" file: "32768K", "1M" or plain bytes; 0 if unread. */
static size_t read_cache_size(const char* path)
{
    FILE* file = fopen(path, "r");
    if (file == NULL) {
        return 0;
    }
    unsigned long long value = 0;
    char unit = '\0';
    int got = fscanf(file, "%llu%c", &value, &unit);
    fclose(file);
    if (got < 1) {
        return 0;
    }
    unsigned long long scale = unit == 'K' ? 1ull << 10 : unit == 'M' ? 1ull << 20 : unit == 'G' ? 1ull << 30 : 1;
    return (size_t)(value * scale);
}

size_t fd_last_level_cache_bytes(void)
{
    size_t largest = 0;
    int largest_level = 0;
    for (int index = 0; index < 16; ++index) {
        char path[96];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", index);
        FILE* file = fopen(path, "r");
        if (file == NULL) {
            break;
        }
        int level = 0;
        int got = fscanf(file, "%d", &level);
        fclose(file);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
        size_t size = read_cache_size(path);
        if (got == 1 && size > 0 && (level > largest_level || (level == largest_level && size > largest))) {
            largest_level = level;
            largest = size;
        }
    }
    if (largest > 0) {
        return largest;
    }
#ifdef _SC_LEVEL3_CACHE_SIZE
    long level3 = sysconf(_SC_LEVEL3_CACHE_SIZE), level2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (level3 > 0) {
        return (size_t)level3;
    }
    if (level2 > 0) {
        return (size_t)level2;
    }
#endif
    return FD_CACHE_GUESS;
}
