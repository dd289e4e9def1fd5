/* Thread-local last-error message behind fd_last_error().
 *
 * Must not touch: the other folders of src/ (it sees only the public types). */
#ifndef FD_CORE_ERROR_H
#define FD_CORE_ERROR_H

#include <stdbool.h>

#include "fricdem/types.h"

/* Formats the message of the failing call and returns status, so that
 * `return fd_fail(FD_ERR_INVALID_ARGUMENT, "mass %g must be > 0", m);` reads well. */
fd_status fd_fail(fd_status status, const char* format, ...) __attribute__((format(printf, 2, 3)));
void fd_clear_error(void);

/* Formats a message into the caller's buffer when it gave one (message may
 * be NULL, message_size 0) and returns false, so that a check reads
 * `return fd_message_false(message, size, "vertex %d is not finite", v);`:
 * for functions that say why they refuse without setting the last error. */
bool fd_message_false(char* message, int message_size, const char* format, ...) __attribute__((format(printf, 3, 4)));

#endif
