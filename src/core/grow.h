/* Growing heap arrays, the two ways fricdem's buffers grow, and a stream
 * read whole into one. No state.
 *
 * Must not touch: the other folders of src/ (it sees only the public types). */
#ifndef FD_CORE_GROW_H
#define FD_CORE_GROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Room for `needed` elements in *array (capacity *capacity, updated), with a
 * quarter and 256 to spare: for buffers that follow a count that drifts
 * (contacts, a step's records). Contents kept; false when out of memory
 * (*array untouched). */
bool fd_grow(void** array, int64_t* capacity, int64_t needed, size_t element_size);
/* *array reallocated to exactly `count` elements (at least one), contents
 * kept; false when out of memory (*array untouched). */
bool fd_resize(void** array, size_t count, size_t element_size);
/* The rest of an open stream in one heap buffer of *size bytes and a zero
 * byte after them (so that a text reads as a string), for the caller to
 * free; NULL when out of memory (*error = ENOMEM) or when the stream fails
 * (*error = its errno). */
char* fd_read_stream(FILE* stream, size_t* size, int* error);

#endif
