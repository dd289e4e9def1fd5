/* Growing heap arrays (grow.h).
 *
 * Must not touch: the other folders of src/ (it sees only the public types). */
#include "core/grow.h"

#include <stdlib.h>

bool fd_grow(void** array, int64_t* capacity, int64_t needed, size_t element_size)
{
    if (needed <= *capacity) {
        return true;
    }
    /* A quarter to spare: these buffers follow the contact count, which drifts. */
    int64_t grown_capacity = needed + needed / 4 + 256;
    void* grown = realloc(*array, (size_t)grown_capacity * element_size);
    if (grown == NULL) {
        return false;
    }
    *array = grown;
    *capacity = grown_capacity;
    return true;
}

bool fd_resize(void** array, size_t count, size_t element_size)
{
    void* grown = realloc(*array, (count > 0 ? count : 1) * element_size);
    if (grown == NULL) {
        return false;
    }
    *array = grown;
    return true;
}
