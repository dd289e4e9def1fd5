/* The size of the processor's largest cache, for the loops that ask the
 * memory ahead for what they will read only where their arrays outgrow it
 * (a prefetch of a line already in the cache costs its instructions and
 * gains nothing).
 *
 * Must not: change a result (only whether a loop prefetches depends on it). */
#ifndef FD_CORE_CACHE_H
#define FD_CORE_CACHE_H

#include <stddef.h>

/* Bytes of the largest (last-level) data or unified cache of the first
 * processor, as the kernel's sysfs lists it (a virtual machine's cpuid may
 * report its host's); sysconf's where sysfs has none, and 32 MiB where
 * neither knows. Reads files: call it once, at set-up. */
size_t fd_last_level_cache_bytes(void);

#endif
