/* Whether the permutes of core/permute.h run here (asked of the processor).
 *
 * Must not: depend on anything but the processor and the tests' switch. */
#include "core/permute.h"

static bool switched_off; /* set by tests before stepping, never while a step runs */

void fd_permutes_switch(bool on) { switched_off = !on; }

#if defined(FD_HAVE_PERMUTES)
bool fd_permutes_on(void) { return !switched_off && __builtin_cpu_supports("avx2"); }
#else
bool fd_permutes_on(void) { return false; }
#endif
