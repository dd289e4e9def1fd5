/* Thread-local last-error message behind fd_last_error().
 *
 * Must not touch: the other folders of src/ (it sees only the public types). */
#ifndef FD_CORE_ERROR_H
#define FD_CORE_ERROR_H

#include "fricdem/types.h"

/* Formats the message of the failing call and returns status, so that
 * `return fd_fail(FD_ERR_INVALID_ARGUMENT, "mass %g must be > 0", m);` reads well. */
fd_status fd_fail(fd_status status, const char* format, ...) __attribute__((format(printf, 2, 3)));
void fd_clear_error(void);

#endif
