/* Fast text for numbers, for outputs of millions of rows.
 *
 * fd_format_g17 writes exactly what printf("%.17g") writes (the same
 * characters, so files stay byte-identical and every double round-trips
 * through strtod), about ten times faster: the seventeen digits come from
 * one or two extended-precision products whose error is far below the
 * rounding of the seventeenth digit, and the rare value whose digits that
 * error could change (its scaled fraction within 0.02 of a half), or that
 * lies outside the exponents the product covers, goes to snprintf itself.
 *
 * fd_parse_double reads a decimal back as strtod does, four times faster
 * for the digits %.17g writes.
 *
 * fd_text is an append-only byte buffer written to a FILE or a file
 * descriptor in large blocks: a row is formatted into it with plain stores
 * instead of one stdio call per number. Its bytes are 4096-aligned, as
 * block_file.h's direct writes need.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#ifndef FD_IO_NUMBER_FORMAT_H
#define FD_IO_NUMBER_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define FD_EIGHT_DIGITS 1
/* The 8 decimal digits of v (< 10^8) as ASCII in one word, most significant
 * first in memory (little-endian), without a division loop: v splits into
 * two 4-digit halves in the word's two 32-bit lanes, each into two 2-digit
 * parts in 16-bit lanes (x 10486 >> 20 is / 100 below 10^4), each of those
 * into two digits in bytes (x 103 >> 10 is / 10 below 100). The lanes are
 * independent: tests/test_number_format.c checks every 4-digit value in
 * both halves against printf("%08u"). */
static inline uint64_t fd_eight_digits(uint32_t v)
{
    uint64_t merged = (uint64_t)(v / 10000u) | ((uint64_t)(v % 10000u) << 32);
    uint64_t hundreds_high = ((merged * 10486u) >> 20) & ((0x7Full << 32) | 0x7Full);
    uint64_t hundreds = ((merged - 100u * hundreds_high) << 16) + hundreds_high;
    uint64_t tens = ((hundreds * 103u) >> 10) & ((0xFull << 48) | (0xFull << 32) | (0xFull << 16) | 0xFull);
    tens += (hundreds - 10u * tens) << 8;
    return tens + 0x3030303030303030ull;
}
#endif

/* Longest text either function writes, with its terminating NUL. */
#define FD_NUMBER_TEXT_MAX 40 /* the longest %.17g (24 bytes and the NUL) and fd_format_g17's fixed-length copies */

/* printf("%.17g", value) into text (FD_NUMBER_TEXT_MAX bytes: it may write
 * scratch past the text's end within them); returns the length. */
size_t fd_format_g17(double value, char* text);
/* printf("%.17g", value) at out, which has FD_NUMBER_TEXT_MAX bytes of
 * room, without a terminating NUL; returns the end. Zero (most of an
 * output row's numbers: mechanisms and books a law lacks) inline. */
static inline char* fd_put_g17(char* out, double value)
{
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    if (bits == 0) {
        *out = '0';
        return out + 1;
    }
    return out + fd_format_g17(value, out);
}
/* printf("%lld", value) into text; returns the length. */
size_t fd_format_integer(int64_t value, char* text);
/* The double a decimal number field [text, end) spells, bitwise what strtod
 * gives; false when it is not a number or not wholly one. text[end - text]
 * must be a byte that cannot continue a number (a delimiter or NUL). */
bool fd_parse_double(const char* text, const char* end, double* value);

typedef struct fd_text {
    char* bytes;
    size_t length, capacity;
    bool failed; /* out of memory: appends are dropped, fd_text_flush reports it */
} fd_text;

/* The buffer grown to hold `more` bytes past its length; false (and failed
 * set) when out of memory. */
bool fd_text_grow(fd_text* text, size_t more);
/* Room for `more` bytes; false (and failed set) when out of memory. Inline:
 * a CSV row asks for room once per number. */
static inline bool fd_text_reserve(fd_text* text, size_t more)
{
    return (text->length + more <= text->capacity && !text->failed) || fd_text_grow(text, more);
}
void fd_text_append(fd_text* text, const char* bytes, size_t length);
static inline void fd_text_char(fd_text* text, char c)
{
    if (fd_text_reserve(text, 1)) {
        text->bytes[text->length++] = c;
    }
}
static inline void fd_text_g17(fd_text* text, double value)
{
    if (fd_text_reserve(text, FD_NUMBER_TEXT_MAX)) {
        text->length += fd_format_g17(value, text->bytes + text->length);
    }
}
static inline void fd_text_integer(fd_text* text, int64_t value)
{
    if (fd_text_reserve(text, FD_NUMBER_TEXT_MAX)) {
        text->length += fd_format_integer(value, text->bytes + text->length);
    }
}
/* Writes what is buffered to file and empties the buffer; false on a write
 * error or an earlier out-of-memory. */
bool fd_text_flush(fd_text* text, FILE* file);
/* The same to a file descriptor, through write(2) and no other buffer: one
 * call for the whole text unless the kernel takes less (then the rest, in
 * order). A caller that appends only whole rows so puts only whole rows in
 * each call. */
bool fd_text_write(fd_text* text, int descriptor);
void fd_text_free(fd_text* text);

#endif
