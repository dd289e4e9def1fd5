/* Fast %.17g and integer text (number_format.h).
 *
 * The seventeen significant digits of a double a are N = round(a 10^p),
 * p = 16 - E, E = floor(log10 a), an integer in [10^16, 10^17]. a = m 2^e2
 * with m < 2^53; 10^p is a 128-bit mantissa times a power of two, truncated
 * (powers_of_ten.h, generated with exact integers for every p a double
 * needs), so the 181-bit integer product m M, shifted, gives a 10^p with a
 * relative error below 2^-127: on a scaled value below 10^17 < 2^57, an
 * absolute error below 2^-60 of the seventeenth digit. round() of the
 * computed product is N unless the exact product lies that close to a
 * half-integer; the code sends every value whose computed fraction lies
 * within 2^-52 of a half (exact ties, which printf rounds to even, and in
 * practice nothing else), subnormals whose shift the code does not cover,
 * infinities and NaNs to snprintf, so the text is always printf's.
 * tests/test_number_format.c compares the two on millions of values of
 * every exponent. One product per number (when the first guess of E is one
 * too high, the next power's product is ten times this one), the sixteen
 * digits after the first in the lanes of one SSE2 register (eight to a word
 * by fd_eight_digits elsewhere), stored without a pass through a buffer,
 * and no branch on what the data decides at random (which side of 64 bits
 * the product's shift falls, rounding up or down): about 14 ns a number on
 * this machine against printf's 150.
 *
 * fd_parse_double is the other way, decimal text to the double strtod
 * gives, for bodies files of 10^6 rows (scene_bodies_file.c); its comment
 * says why its fast paths are exact.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#include "io/number_format.h"
#include "io/powers_of_ten.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* 10^k, exact in long double for k <= 27 (5^27 < 2^64). */
static const long double power_of_ten[28] = {
    1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,  1e10L, 1e11L, 1e12L, 1e13L,
    1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L,
};

/* True when long double arithmetic is the x87's 64-bit significand (or
 * wider), really (valgrind emulates it with doubles): the second fast path
 * needs it. Checked once. */
static bool long_double_is_wide(void)
{
#if LDBL_MANT_DIG >= 64
    static int wide = -1;
    if (wide < 0) {
        volatile long double one = 1.0L, epsilon = LDBL_EPSILON;
        wide = (one + epsilon != one) && epsilon <= 0x1p-63L;
    }
    return wide == 1;
#else
    return false;
#endif
}

static const char digit_pairs[201] = "00010203040506070809"
                                     "10111213141516171819"
                                     "20212223242526272829"
                                     "30313233343536373839"
                                     "40414243444546474849"
                                     "50515253545556575859"
                                     "60616263646566676869"
                                     "70717273747576777879"
                                     "80818283848586878889"
                                     "90919293949596979899";

static size_t format_by_printf(double value, char* text)
{
    int n = snprintf(text, FD_NUMBER_TEXT_MAX, "%.17g", value);
    return n > 0 ? (size_t)n : 0;
}

#if defined(__SSE2__)
/* The 17 digits of n (< 10^17): the first, and the other sixteen as two
 * words of eight ASCII digits, most significant first in memory; and the
 * index (0 to 16) of the last digit that is not zero. The sixteen are made
 * at once in the lanes of one SSE2 register: two 8-digit halves, each into
 * 4-digit parts (x 0xd1b71759 >> 45 is / 10^4 below 2^32), each into
 * 2-digit parts in 16-bit lanes (x 5243 >> 19 is / 100 below 43 699), each
 * into two digits in bytes (x 6554 >> 16 is / 10 below 100);
 * tests/test_number_format.c checks every 4-digit value in every place
 * against printf. */
static inline int seventeen_digits(uint64_t n, char* first, uint64_t* high, uint64_t* low)
{
    uint64_t leading = n / 10000000000000000ull;
    uint64_t rest = n - leading * 10000000000000000ull;
    uint32_t upper = (uint32_t)(rest / 100000000u);
    uint32_t lower = (uint32_t)(rest - (uint64_t)upper * 100000000u);
    *first = (char)('0' + leading);
    __m128i halves = _mm_set_epi64x(lower, upper);
    __m128i thousands = _mm_srli_epi64(_mm_mul_epu32(halves, _mm_set1_epi32((int)0xd1b71759u)), 45);
    __m128i below = _mm_sub_epi64(halves, _mm_mul_epu32(thousands, _mm_set1_epi32(10000)));
    __m128i fours = _mm_or_si128(thousands, _mm_slli_epi64(below, 32)); /* 32-bit lanes, in digit order */
    __m128i hundreds = _mm_srli_epi16(_mm_mulhi_epu16(fours, _mm_set1_epi32(5243)), 3);
    __m128i rest_of_hundred = _mm_sub_epi16(fours, _mm_mullo_epi16(hundreds, _mm_set1_epi32(100)));
    __m128i twos = _mm_or_si128(hundreds, _mm_slli_epi32(rest_of_hundred, 16)); /* 16-bit lanes */
    __m128i tens = _mm_mulhi_epu16(twos, _mm_set1_epi16(6554));
    __m128i ones = _mm_sub_epi16(twos, _mm_mullo_epi16(tens, _mm_set1_epi16(10)));
    __m128i digits = _mm_add_epi8(_mm_or_si128(tens, _mm_slli_epi16(ones, 8)), _mm_set1_epi8('0'));
    *high = (uint64_t)_mm_cvtsi128_si64(digits);
    *low = (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(digits, digits));
    unsigned nonzero = ~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(digits, _mm_set1_epi8('0'))) & 0xFFFFu;
    return nonzero ? 32 - __builtin_clz(nonzero) : 0;
}
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The 17 digits of n (< 10^17): the first, and the other sixteen as two
 * words of eight ASCII digits, most significant first in memory; and the
 * index (0 to 16) of the last digit that is not zero. */
static inline int seventeen_digits(uint64_t n, char* first, uint64_t* high, uint64_t* low)
{
    uint64_t leading = n / 10000000000000000ull;
    uint64_t rest = n - leading * 10000000000000000ull;
    uint32_t upper = (uint32_t)(rest / 100000000u);
    uint32_t lower = (uint32_t)(rest - (uint64_t)upper * 100000000u);
    *first = (char)('0' + leading);
    *high = fd_eight_digits(upper);
    *low = fd_eight_digits(lower);
    /* The highest byte of a word above '0' (each byte 0..9 after the
     * subtraction: no borrow). */
    const uint64_t zeros = 0x3030303030303030ull;
    uint64_t low_values = *low - zeros, high_values = *high - zeros;
    if (low_values) {
        return 9 + (63 - __builtin_clzll(low_values)) / 8;
    }
    return high_values ? 1 + (63 - __builtin_clzll(high_values)) / 8 : 0;
}
#else
/* The same in 32-bit arithmetic, byte by byte, for a big-endian machine. */
static inline int seventeen_digits(uint64_t n, char* first, uint64_t* high, uint64_t* low)
{
    char digits[17];
    uint32_t upper = (uint32_t)(n / 100000000u);
    uint32_t lower = (uint32_t)(n - (uint64_t)upper * 100000000u);
    for (int k = 16; k > 8; --k) {
        digits[k] = (char)('0' + lower % 10);
        lower /= 10;
    }
    for (int k = 8; k > 0; --k) {
        digits[k] = (char)('0' + upper % 10);
        upper /= 10;
    }
    *first = (char)('0' + upper);
    memcpy(high, digits + 1, 8);
    memcpy(low, digits + 9, 8);
    int last = 16;
    while (last > 0 && digits[last] == '0') {
        --last;
    }
    return last;
}
#endif

/* floor(a 10^p) and the 64 bits of its fraction below the point, for
 * a = m 2^e2 (m < 2^53): m times the 128-bit mantissa of 10^p
 * (powers_of_ten.h), a 181-bit product, shifted. False when p or the shift
 * lies outside what the table and the shift cover (then printf decides). */
static bool scale_exactly(uint64_t m, int e2, int p, uint64_t* integer, uint64_t* fraction)
{
    if (p < FD_POWERS_OF_TEN_MIN || p > FD_POWERS_OF_TEN_MAX) {
        return false;
    }
    const struct fd_power_of_ten* power = &fd_powers_of_ten[p - FD_POWERS_OF_TEN_MIN];
    unsigned __int128 low_product = (unsigned __int128)m * power->low;
    unsigned __int128 high_product = (unsigned __int128)m * power->high;
    /* P = high128 2^64 + p0 */
    uint64_t p0 = (uint64_t)low_product;
    unsigned __int128 high128 = high_product + (low_product >> 64);
    /* a 10^p = P 2^-(shift); R = P 2^-(shift - 64) = P >> k: the integer
     * part above bit 64, the fraction's leading 64 bits below. k is near 64
     * for every normal double, on either side of it as the value goes:
     * shifting P >> 56 (exact: P < 2^181, and k >= 56) by k - 56 is one
     * 128-bit shift the compiler makes without a branch, where a branch on
     * k < 64 is a coin the processor mispredicts. A small k (subnormals
     * with few bits) goes to printf. */
    int shift = -(e2 + power->binary_exponent);
    int k = shift - 64;
    if (k < 56 || k >= 56 + 125) {
        return false;
    }
    unsigned __int128 top = (high128 << 8) | (p0 >> 56);
    unsigned __int128 r = top >> (k - 56);
    *integer = (uint64_t)(r >> 64);
    *fraction = (uint64_t)r;
    return true;
}

/* The rounded seventeen significant digits of a finite, nonzero value as
 * an integer n in [10^16, 10^17) and the decimal exponent X of its first;
 * false when printf must decide (the product's error could change the
 * rounding, or the value lies outside what the table and shift cover). */
static inline bool seventeen_digit_integer(double value, uint64_t* digits, int* exponent)
{
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    int biased = (int)((bits >> 52) & 0x7ff);
    uint64_t m = bits & ((1ull << 52) - 1);
    int e2;
    if (biased == 0) {
        e2 = -1074; /* subnormal: no implicit bit */
    } else {
        m |= 1ull << 52;
        e2 = biased - 1075;
    }
    /* |value| in [2^b, 2^(b+1)): floor(log10 |value|) is E0 = floor(b log10 2)
     * or E0 + 1 (1292913986 / 2^32 is log10 2 to 2e-11: E0 is exact for
     * every |b| <= 1074; were it not, n would leave [10^16, 10^17) below
     * and printf would decide). */
    int b = 63 - __builtin_clzll(m) + e2;
    int E0 = (int)(((int64_t)b * 1292913986) >> 32);
    int E = E0 + 1;
    uint64_t n = 0, fraction = 0;
    if (!scale_exactly(m, e2, 16 - E, &n, &fraction)) {
        return false;
    }
    /* One digit short: the value is below 10^(E0 + 1), so E = E0 and a 10^p
     * one power higher: ten times the product just made, as a 64.64
     * fixed-point number (exact; its error grows tenfold, to below 2^8
     * units of `fraction`, inside the margin below). Most values are, but
     * which ones follows the data: a factor of 1 or 10, not a branch the
     * processor would mispredict. */
    const uint64_t short_by_one = n < 10000000000000000ull;
    unsigned __int128 scaled = (((unsigned __int128)n << 64) | fraction) * (1u + 9u * short_by_one);
    n = (uint64_t)(scaled >> 64);
    fraction = (uint64_t)scaled;
    E -= (int)short_by_one;
    /* The product's error (the table's truncation and the bits shifted out)
     * is below 2^-60 of the seventeenth digit, 16 units of `fraction`: a
     * fraction within 2^12 units of a half (exact ties among them: printf
     * rounds those to even) goes to printf. */
    const uint64_t half = 1ull << 63, margin = 1ull << 12;
    if (n < 10000000000000000ull || n >= 100000000000000000ull ||
        (fraction > half - margin && fraction < half + margin)) {
        return false;
    }
    n += fraction >> 63; /* rounds up when above the half (the half itself went to printf): no branch, for a
                          * coin toss */
    if (n >= 100000000000000000ull) { /* rounded up to the next power of ten */
        n = 10000000000000000ull;
        ++E;
    }
    *digits = n;
    *exponent = E;
    return true;
}

/* The text of a value with digits `first`, `high`, `low` (seventeen_digits),
 * the last significant one at `last`, decimal exponent X, at out; returns
 * the end (no NUL). The digits stay in registers and are stored straight
 * into the text: a copy out of a buffer just written would load across two
 * stores, which the processor cannot forward (a stall of a dozen cycles a
 * number). Copies are of a fixed length, the position then advanced by
 * what counts; out has room for the overshoot (FD_NUMBER_TEXT_MAX). */
static inline char* lay_out(char* out, bool negative, char first, uint64_t high, uint64_t low, int last, int X)
{
    out[0] = '-';
    out += negative;
    if (X < -4 || X >= 17) {
        out[0] = first;
        out[1] = '.';
        memcpy(out + 2, &high, 8);
        memcpy(out + 10, &low, 8);
        out += last > 0 ? last + 2 : 1;
        *out++ = 'e';
        *out++ = X < 0 ? '-' : '+';
        int magnitude = X < 0 ? -X : X;
        if (magnitude >= 100) {
            *out++ = (char)('0' + magnitude / 100);
            magnitude %= 100;
        }
        *out++ = digit_pairs[2 * magnitude];
        *out++ = digit_pairs[2 * magnitude + 1];
    } else if (X >= 0) {
        out[0] = first;
        memcpy(out + 1, &high, 8);
        memcpy(out + 9, &low, 8);
        out += X + 1;
        if (last > X) {
            /* The digits after the point, X + 1 to 16, are bytes X to 15 of
             * the two words taken as one little-endian 16-byte number: shifted
             * down and stored one place on, over what was there. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            unsigned __int128 both = ((unsigned __int128)low << 64) | high;
            unsigned __int128 fraction_digits = both >> (8 * X);
#else
            char fraction_digits[32] = {0};
            memcpy(fraction_digits, &high, 8);
            memcpy(fraction_digits + 8, &low, 8);
            memmove(fraction_digits, fraction_digits + X, 16);
#endif
            *out = '.';
            memcpy(out + 1, &fraction_digits, 16);
            out += last - X + 1;
        }
    } else {
        memcpy(out, "0.0000", 6); /* "0." and the -X - 1 zeros after the point */
        out += 1 - X;
        out[0] = first;
        memcpy(out + 1, &high, 8);
        memcpy(out + 9, &low, 8);
        out += last + 1;
    }
    return out;
}

size_t fd_format_g17(double value, char* text)
{
    if (value == 0.0) { /* common (a body at rest), so not sent to printf */
        size_t length = 0;
        if (signbit(value)) {
            text[length++] = '-';
        }
        text[length++] = '0';
        text[length] = '\0';
        return length;
    }
    uint64_t n;
    int X;
    if (!isfinite(value) || !seventeen_digit_integer(value, &n, &X)) {
        return format_by_printf(value, text); /* "inf", "nan" as printf spells them, and the undecided */
    }
    char first;
    uint64_t high, low;
    int last = seventeen_digits(n, &first, &high, &low); /* %g drops trailing zeros after it */
    char* out = lay_out(text, value < 0.0, first, high, low, last, X);
    *out = '\0';
    return (size_t)(out - text);
}

size_t fd_format_integer(int64_t value, char* text)
{
#ifdef FD_EIGHT_DIGITS
    if (value > 0 && value < 100000000) {
        /* Ids and steps: the eight digits in one word, leading zeros (its
         * low bytes) shifted out. */
        uint64_t word = fd_eight_digits((uint32_t)value);
        int leading_zeros = __builtin_ctzll(word - 0x3030303030303030ull) / 8;
        word >>= 8 * leading_zeros;
        memcpy(text, &word, 8);
        text[8 - leading_zeros] = '\0';
        return (size_t)(8 - leading_zeros);
    }
#endif
    char reversed[24];
    int k = 0;
    uint64_t magnitude = value < 0 ? (uint64_t)0 - (uint64_t)value : (uint64_t)value;
    do {
        reversed[k++] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude > 0);
    size_t length = 0;
    if (value < 0) {
        text[length++] = '-';
    }
    while (k > 0) {
        text[length++] = reversed[--k];
    }
    text[length] = '\0';
    return length;
}

/* ---------------------------------------------------------------- text to double */

#if LDBL_MANT_DIG >= 64
/* Whether q (within the range of normal doubles), rounded to v, lies
 * exactly halfway between two doubles. */
static bool is_midpoint(long double q, double v)
{
#if LDBL_MANT_DIG == 64 && defined(__x86_64__)
    (void)v;
    uint64_t significand; /* x87: the 64-bit significand, explicit leading bit, in the first 8 bytes */
    memcpy(&significand, &q, sizeof significand);
    return (significand & 0x7FF) == 0x400; /* the 11 bits below a double's 53: exactly one half */
#else
    long double rest = q - (long double)v; /* exact */
    if (rest == 0.0L) {
        return false;
    }
    double next = nextafter(v, rest > 0.0L ? INFINITY : -INFINITY);
    return (long double)v + ((long double)next - (long double)v) / 2.0L == q;
#endif
}
#else
static bool is_midpoint(long double q, double v) { return true; } /* never called: long_double_is_wide() is false */
#endif

static bool parse_with_strtod(const char* text, const char* end, double* value)
{
    char* stop = NULL;
    *value = strtod(text, &stop);
    return stop == end && end > text;
}

/* A decimal [+-]digits[.digits][(e|E)[+-]digits] is m 10^e with m the
 * significant digits as an integer. Three ways to the double nearest to it,
 * the one strtod returns:
 *   1. m <= 2^53 and |e| <= 22 (Clinger 1990): m and 10^|e| are exact doubles,
 *      so one IEEE multiplication or division rounds once, correctly;
 *   2. m < 2^64 and |e| <= 27, with long double of 64 bits (x86-64): m and
 *      10^|e| (5^27 < 2^63) are exact long doubles, so q = m * or / 10^|e| is
 *      the long double nearest to the value v. Rounding q to double gives the
 *      double nearest to v unless a midpoint between two doubles lies between
 *      them; midpoints have 54 bits, so they are long doubles too, and one
 *      strictly between v and q would be nearer to v than q is. Only q equal
 *      to a midpoint is undecided (v may lie on either side): strtod decides;
 *   3. anything else (more than 19 digits, large exponents, inf, nan, hex,
 *      text that is not a number): strtod. */
bool fd_parse_double(const char* text, const char* end, double* value)
{
    static const double powers[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char* p = text;
    bool negative = false;
    if (p < end && (*p == '-' || *p == '+')) {
        negative = *p == '-';
        ++p;
    }
    const char* digits = p;
    uint64_t m = 0; /* wraps beyond 19 digits, which then go to strtod */
    int significant = 0, exponent = 0;
    while (p < end && *p == '0') {
        ++p;
    }
    for (; p < end && (unsigned)(*p - '0') < 10; ++p, ++significant) {
        m = 10 * m + (uint64_t)(*p - '0');
    }
    if (p < end && *p == '.') {
        const char* point = ++p;
        if (significant == 0) {
            while (p < end && *p == '0') {
                ++p;
            }
        }
        for (; p < end && (unsigned)(*p - '0') < 10; ++p, ++significant) {
            m = 10 * m + (uint64_t)(*p - '0');
        }
        exponent = -(int)(p - point);
        if (p == point && point - 1 == digits) {
            return parse_with_strtod(text, end, value); /* "." alone */
        }
    } else if (p == digits) {
        return parse_with_strtod(text, end, value); /* inf, nan, or not a number */
    }
    if (significant > 19) {
        return parse_with_strtod(text, end, value);
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        ++p;
        bool minus = false;
        if (p < end && (*p == '-' || *p == '+')) {
            minus = *p == '-';
            ++p;
        }
        if (p == end || *p < '0' || *p > '9') {
            return parse_with_strtod(text, end, value);
        }
        int e = 0;
        for (; p < end && *p >= '0' && *p <= '9'; ++p) {
            if (e > 100000) {
                return parse_with_strtod(text, end, value);
            }
            e = 10 * e + (*p - '0');
        }
        exponent += minus ? -e : e;
    }
    if (p != end) {
        return parse_with_strtod(text, end, value);
    }
    double v = 0.0;
    if (m == 0) {
        v = 0.0;
    } else if (m <= (UINT64_C(1) << 53) && exponent >= -22 && exponent <= 22) {
        v = exponent < 0 ? (double)m / powers[-exponent] : (double)m * powers[exponent];
    } else if (exponent >= -27 && exponent <= 27 && long_double_is_wide()) {
        long double q =
            exponent < 0 ? (long double)m / power_of_ten[-exponent] : (long double)m * power_of_ten[exponent];
        v = (double)q;
        if (is_midpoint(q, v)) {
            return parse_with_strtod(text, end, value); /* undecided */
        }
    } else {
        return parse_with_strtod(text, end, value);
    }
    *value = negative ? -v : v;
    return true;
}

/* ---------------------------------------------------------------- text buffer */

bool fd_text_grow(fd_text* text, size_t more)
{
    if (text->failed) {
        return false;
    }
    if (text->length + more <= text->capacity) {
        return true;
    }
    size_t capacity = text->capacity ? text->capacity : 1 << 16;
    while (capacity < text->length + more) {
        capacity *= 2;
    }
    /* Aligned for block_file.c's direct writes (capacities are powers of two
     * from 64 KiB, so multiples of the alignment as aligned_alloc asks). */
    char* grown = aligned_alloc(4096, capacity);
    if (!grown) {
        text->failed = true;
        return false;
    }
    if (text->length) {
        memcpy(grown, text->bytes, text->length);
    }
    free(text->bytes);
    text->bytes = grown;
    text->capacity = capacity;
    return true;
}

void fd_text_append(fd_text* text, const char* bytes, size_t length)
{
    if (length == 0) {
        return; /* bytes may be NULL then (an empty buffer never allocated): memcpy must not see it */
    }
    if (fd_text_reserve(text, length)) {
        memcpy(text->bytes + text->length, bytes, length);
        text->length += length;
    }
}

bool fd_text_flush(fd_text* text, FILE* file)
{
    bool ok = !text->failed && (text->length == 0 || fwrite(text->bytes, 1, text->length, file) == text->length);
    text->length = 0;
    return ok;
}

bool fd_text_write(fd_text* text, int descriptor)
{
    bool ok = !text->failed;
    size_t done = 0;
    while (ok && done < text->length) {
        ssize_t wrote = write(descriptor, text->bytes + done, text->length - done);
        if (wrote < 0 && errno == EINTR) {
            continue; /* a caught signal before anything was written */
        }
        if (wrote == 0) {
            errno = EIO; /* nothing taken and no reason given: do not loop */
        }
        ok = wrote > 0;
        done += ok ? (size_t)wrote : 0;
    }
    text->length = 0;
    return ok;
}

void fd_text_free(fd_text* text)
{
    free(text->bytes);
    *text = (fd_text){0};
}
