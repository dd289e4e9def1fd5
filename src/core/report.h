/* Numbers for a run's reports and its checks before it starts: shares that
 * add up to 100 %, and the memory and disk the machine has free.
 *
 * Must not touch: the other folders of src/ (it sees only the public types). */
#ifndef FD_CORE_REPORT_H
#define FD_CORE_REPORT_H

#include <stddef.h>
#include <stdint.h>

/* Whole percentages of `count` parts (>= 0; NaN counts as 0) that add up
 * to exactly 100 when any part is > 0 (else all 0): each part's share of
 * the sum, rounded down, then the points still missing go to the largest
 * remainders (ties to the earlier part). Rounding each share on its own
 * sums to 98..102 with six parts. */
void fd_round_percentages(const double* parts, int count, int* percent);

/* Bytes of memory a new allocation can still get without swapping:
 * MemAvailable of /proc/meminfo, lowered to what the control group's
 * memory.max leaves (a container's limit); sysconf's free pages where
 * /proc is missing. -1 when unknown. `source` (may be NULL) receives the
 * figure's origin for messages. */
int64_t fd_available_memory(char* source, size_t source_size);

/* Bytes free for an unprivileged user on the file system of `path` (an
 * existing file or directory); -1 when unknown. */
int64_t fd_free_disk(const char* path);

/* "13.7 GiB", "512 MiB", "900 B": bytes in the largest binary unit below them. */
void fd_format_bytes(double bytes, char* text, size_t size);

#endif
