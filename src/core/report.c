/* The numbers of the run summaries and of the checks before a run (report.h):
 * percentages that add up to 100, the memory and disk space free, sizes in
 * words. No state.
 *
 * Must not touch: the other folders of src/ (it sees only the public types). */
#include "core/report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

void fd_round_percentages(const double* parts, int count, int* percent)
{
    double sum = 0.0;
    for (int k = 0; k < count; ++k) {
        sum += parts[k] > 0.0 ? parts[k] : 0.0;
    }
    int given = 0;
    for (int k = 0; k < count; ++k) {
        double share = sum > 0.0 && parts[k] > 0.0 ? 100.0 * parts[k] / sum : 0.0;
        percent[k] = (int)floor(share);
        given += percent[k];
    }
    if (!(sum > 0.0)) {
        return;
    }
    /* The missing points (fewer than count) to the largest remainders. */
    while (given < 100) {
        int best = -1;
        double best_remainder = -1.0;
        for (int k = 0; k < count; ++k) {
            double share = parts[k] > 0.0 ? 100.0 * parts[k] / sum : 0.0;
            double remainder = share - (double)percent[k];
            if (remainder > best_remainder) {
                best = k;
                best_remainder = remainder;
            }
        }
        percent[best] += 1;
        given += 1;
    }
}

/* The value of "Key:   123 kB" in /proc/meminfo, in bytes; -1 if absent. */
static int64_t meminfo_bytes(const char* key)
{
    FILE* file = fopen("/proc/meminfo", "r");
    if (file == NULL) {
        return -1;
    }
    char line[256];
    size_t length = strlen(key);
    int64_t bytes = -1;
    while (fgets(line, sizeof line, file)) {
        long long kb = 0;
        if (strncmp(line, key, length) == 0 && line[length] == ':' && sscanf(line + length + 1, "%lld", &kb) == 1) {
            bytes = (int64_t)kb * 1024;
            break;
        }
    }
    fclose(file);
    return bytes;
}

/* A number in a one-line file (cgroup v2's memory.max, memory.current);
 * -1 when absent or "max". */
static int64_t file_number(const char* path)
{
    FILE* file = fopen(path, "r");
    if (file == NULL) {
        return -1;
    }
    long long value = -1;
    if (fscanf(file, "%lld", &value) != 1) {
        value = -1;
    }
    fclose(file);
    return (int64_t)value;
}

int64_t fd_available_memory(char* source, size_t source_size)
{
    int64_t available = meminfo_bytes("MemAvailable");
    const char* origin = "MemAvailable in /proc/meminfo";
    if (available < 0) {
        long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        available = pages > 0 && page > 0 ? (int64_t)pages * page : -1;
        origin = "free pages (sysconf)";
    }
    int64_t limit = file_number("/sys/fs/cgroup/memory.max");
    int64_t used = file_number("/sys/fs/cgroup/memory.current");
    if (limit > 0 && used >= 0 && (available < 0 || limit - used < available)) {
        available = limit > used ? limit - used : 0;
        origin = "the control group's memory.max less memory.current";
    }
    if (source != NULL && source_size > 0) {
        snprintf(source, source_size, "%s", origin);
    }
    return available;
}

int64_t fd_free_disk(const char* path)
{
    struct statvfs info;
    if (statvfs(path, &info) != 0) {
        return -1;
    }
    return (int64_t)info.f_bavail * (int64_t)info.f_frsize;
}

void fd_format_bytes(double bytes, char* text, size_t size)
{
    static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int unit = 0;
    while (bytes >= 1024.0 && unit < 5) {
        bytes /= 1024.0;
        ++unit;
    }
    snprintf(text, size, unit == 0 ? "%.0f %s" : "%.3g %s", bytes, units[unit]);
}
