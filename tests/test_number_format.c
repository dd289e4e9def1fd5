/* The fast number text of the outputs (src/io/number_format.c) is printf's
 * text, character for character: CSV files keep the bytes (and the exact
 * round trip) they had when printf wrote them. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "io/number_format.h"

/* xorshift64: a fixed sequence, so a failure reproduces. */
static uint64_t next_random(uint64_t* state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

static void assert_as_printf(double value)
{
    char fast[FD_NUMBER_TEXT_MAX], expected[64];
    size_t length = fd_format_g17(value, fast);
    int expected_length = snprintf(expected, sizeof expected, "%.17g", value);
    cr_assert_str_eq(fast, expected, "value %a", value);
    cr_assert_eq(length, (size_t)expected_length, "length of %s", expected);
}

Test(number_format, g17_is_printf_on_every_kind_of_double)
{
    uint64_t state = 88172645463325252ull;
    /* Any bit pattern: every exponent, subnormals, NaNs and infinities. */
    for (int i = 0; i < 1000000; ++i) {
        uint64_t bits = next_random(&state);
        double value;
        memcpy(&value, &bits, sizeof value);
        assert_as_printf(value);
    }
    /* Values a simulation writes: 53 random bits times a power of ten. */
    for (int i = 0; i < 1000000; ++i) {
        double mantissa = ldexp((double)(next_random(&state) >> 11), -53);
        int decade = (int)(next_random(&state) % 61) - 30;
        double value = mantissa * pow(10.0, decade);
        assert_as_printf((next_random(&state) & 1) ? value : -value);
    }
    /* Short decimals and ratios (1/3, 0.1, 2.5e-5): the 17th digit near a half. */
    for (int i = 0; i < 1000000; ++i) {
        double value = (double)(int64_t)(next_random(&state) % 2000001 - 1000000) /
                       (double)(1 + next_random(&state) % 100000);
        assert_as_printf(value);
        assert_as_printf(value * 1e-5);
    }
}

Test(number_format, g17_is_printf_at_the_edges)
{
    const double edges[] = {0.0,     -0.0,     1.0,     -1.0,    0.5,      0.1,      1.0 / 3.0, 2.0 / 3.0,
                            DBL_MAX, -DBL_MAX, DBL_MIN, 4.9e-324, DBL_EPSILON, INFINITY, -INFINITY, NAN,
                            1e16,    1e17,     1e-4,    1e-5,    9.9999999999999995e-5, 123456789012345678.0};
    for (size_t k = 0; k < sizeof edges / sizeof edges[0]; ++k) {
        assert_as_printf(edges[k]);
    }
    /* Powers of ten and their neighbours: where the exponent of the text
     * changes, and where %g switches between fixed and exponent notation. */
    for (int decade = -320; decade <= 308; ++decade) {
        double power = pow(10.0, decade);
        double neighbours[5] = {power, nextafter(power, 0.0), nextafter(power, INFINITY),
                                nextafter(nextafter(power, 0.0), 0.0), nextafter(nextafter(power, INFINITY), INFINITY)};
        for (int k = 0; k < 5; ++k) {
            assert_as_printf(neighbours[k]);
            assert_as_printf(-neighbours[k]);
        }
    }
}

Test(number_format, g17_is_printf_on_exact_ties_and_binary_fractions)
{
    /* 1 + i 2^-17 has exactly 18 significant digits, the last a 5 when i
     * is odd: an exact tie for 17 digits, which printf rounds to even (the
     * scaled product cannot decide those). Powers of two of every exponent
     * (subnormals included) end in 5 too, with many digits. */
    for (int i = 0; i < 20000; ++i) {
        assert_as_printf(1.0 + ldexp((double)i, -17));
        assert_as_printf(-ldexp(1.0 + ldexp((double)i, -17), i % 200 - 100));
    }
    for (int e = -1074; e <= 1023; ++e) {
        assert_as_printf(ldexp(1.0, e));
        assert_as_printf(ldexp(3.0, e - 1));
    }
}

/* The sixteen digits after the first are made in groups of four (SSE2
 * lanes, or halves of fd_eight_digits' words), each group by its own
 * arithmetic: values whose digits are random until every 4-digit value has
 * been seen in each of the four places (about 10^5 values, with a
 * probability of missing one below 10^-30 at the bound below) all give
 * printf's text. */
Test(number_format, g17_is_printf_for_every_four_digit_group_in_every_place)
{
    static bool seen[4][10000];
    int missing = 4 * 10000;
    uint64_t state = 0x2545F4914F6CDD1Dull;
    for (int i = 0; i < 2000000 && missing > 0; ++i) {
        double mantissa = 1.0 + ldexp((double)(next_random(&state) >> 11), -53) * 9.0;
        int decade = (int)(next_random(&state) % 31) - 15;
        double value = mantissa * pow(10.0, decade);
        assert_as_printf(value);
        char text[64], digits[17];
        snprintf(text, sizeof text, "%.16e", value); /* the 17 digits, d.dddddddddddddddde... */
        digits[0] = text[0];
        memcpy(digits + 1, text + 2, 16);
        for (int place = 0; place < 4; ++place) {
            int group = 0;
            for (int k = 0; k < 4; ++k) {
                group = 10 * group + (digits[1 + 4 * place + k] - '0');
            }
            if (!seen[place][group]) {
                seen[place][group] = true;
                --missing;
            }
        }
    }
    cr_assert_eq(missing, 0, "%d (place, group) pairs never seen", missing);
}

#ifdef FD_EIGHT_DIGITS
Test(number_format, eight_digits_are_printf_in_every_lane)
{
    /* The word's two 4-digit halves are computed apart, so v = k (10^4 + 1)
     * and v = k 10^4 + 9999 - k give every value to both halves. */
    for (uint32_t k = 0; k < 10000; ++k) {
        const uint32_t values[2] = {k * 10001u, k * 10000u + 9999u - k};
        for (int m = 0; m < 2; ++m) {
            uint64_t word = fd_eight_digits(values[m]);
            char text[9], expected[16];
            memcpy(text, &word, 8);
            text[8] = '\0';
            snprintf(expected, sizeof expected, "%08u", values[m]);
            cr_assert_str_eq(text, expected);
        }
    }
}
#endif

Test(number_format, integers_are_printf)
{
    /* Below 10^8 positive values take the word of eight digits. */
    const int64_t edges[] = {0,        1,         -1,        9,         10,        -10,       99,
                             100,      10000000,  99999999,  100000000, 12345678,  INT32_MAX, INT32_MIN,
                             INT64_MAX, INT64_MIN};
    const int edge_count = (int)(sizeof edges / sizeof edges[0]);
    uint64_t state = 1234567;
    for (int i = 0; i < 200000; ++i) {
        int64_t value = i < edge_count ? edges[i] : (int64_t)next_random(&state) >> (next_random(&state) % 64);
        char fast[FD_NUMBER_TEXT_MAX], expected[32];
        size_t length = fd_format_integer(value, fast);
        snprintf(expected, sizeof expected, "%lld", (long long)value);
        cr_assert_str_eq(fast, expected);
        cr_assert_eq(length, strlen(expected));
    }
}

Test(number_format, text_buffer_writes_what_was_appended)
{
    fd_text text = {0};
    char expected[4096] = "";
    size_t expected_length = 0;
    FILE* file = tmpfile();
    cr_assert_not_null(file);
    /* Enough rows to grow the buffer several times, flushed twice. */
    for (int row = 0; row < 100000; ++row) {
        fd_text_integer(&text, row);
        fd_text_char(&text, ',');
        fd_text_g17(&text, row / 7.0);
        fd_text_append(&text, "\n", 1);
        if (row == 50000) {
            cr_assert(fd_text_flush(&text, file));
            cr_assert_eq(text.length, 0);
        }
    }
    cr_assert(fd_text_flush(&text, file));
    cr_assert_not(text.failed);
    rewind(file);
    char line[128];
    for (int row = 0; row < 100000; ++row) {
        cr_assert_not_null(fgets(line, sizeof line, file));
        expected_length = (size_t)snprintf(expected, sizeof expected, "%d,%.17g\n", row, row / 7.0);
        cr_assert_str_eq(line, expected, "row %d", row);
    }
    cr_assert_null(fgets(line, sizeof line, file), "nothing after the last row (%zu)", expected_length);
    fclose(file);
    fd_text_free(&text);
    cr_assert_null(text.bytes);
}
