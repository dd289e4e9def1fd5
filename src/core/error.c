/* The error of the last failed call, per thread (error.h): fd_fail writes
 * it, fd_last_error reads it. Knows nothing of what failed.
 *
 * Must not touch: the other folders of src/ (it sees only the public types). */
#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fricdem/fricdem.h"

static _Thread_local char last_error[2048];

fd_status fd_fail(fd_status status, const char* format, ...)
{
    /* Through a copy: a caller may pass fd_last_error() itself as an
     * argument ("inlet 'p' at step 10: %s"), and vsnprintf must not read
     * the buffer it writes (the message came out garbled). */
    char message[sizeof last_error];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    memcpy(last_error, message, sizeof last_error);
    return status;
}

void fd_clear_error(void) { last_error[0] = '\0'; }

bool fd_message_false(char* message, int message_size, const char* format, ...)
{
    if (message != NULL && message_size > 0) {
        va_list args;
        va_start(args, format);
        vsnprintf(message, (size_t)message_size, format, args);
        va_end(args);
    }
    return false;
}

const char* fd_last_error(void) { return last_error; }

const char* fd_status_string(fd_status status)
{
    switch (status) {
    case FD_OK: return "ok";
    case FD_ERR_INVALID_ARGUMENT: return "invalid argument";
    case FD_ERR_NOT_FOUND: return "not found";
    case FD_ERR_UNSUPPORTED: return "unsupported";
    case FD_ERR_NON_FINITE: return "non-finite value";
    case FD_ERR_OUT_OF_MEMORY: return "out of memory";
    case FD_ERR_IO: return "i/o error";
    case FD_ERR_PARSE: return "parse error";
    case FD_ERR_UNSTABLE: return "unstable step";
    }
    return "unknown status";
}
