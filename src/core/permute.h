/* The processor's permutes (AVX2 on x86-64), for the loops that move
 * records between arrays of structs and arrays per component: four records
 * of four doubles are a 4 x 4 transpose, four fd_vec3 (twelve doubles) ten
 * instructions, where one double at a time takes a load and a store each.
 *
 * Only moves: no arithmetic happens here, so a value moved by a permute has
 * the bits it would have had moved one at a time (the callers' tests compare
 * with fd_permutes_switch(false)).
 *
 * A function that uses the helpers below is marked FD_AVX2 and called only
 * when fd_permutes_on(); elsewhere (another processor) the callers take
 * their loops of one record at a time.
 *
 * Must not: do arithmetic, or be called where fd_permutes_on() is false. */
#ifndef FD_CORE_PERMUTE_H
#define FD_CORE_PERMUTE_H

#include <stdbool.h>

#include "core/math.h"

/* Whether the permutes run on this processor; fd_permutes_switch(false)
 * turns them off (for the tests that compare; never while a step runs). */
bool fd_permutes_on(void);
void fd_permutes_switch(bool on);

#if defined(__x86_64__) && defined(__GNUC__)
#define FD_HAVE_PERMUTES 1
#include <immintrin.h>

#define FD_AVX2 __attribute__((target("avx2")))

_Static_assert(sizeof(fd_vec3) == 3 * sizeof(double), "four fd_vec3 are twelve doubles in a row");
_Static_assert(sizeof(fd_quat) == 4 * sizeof(double), "four fd_quat are a 4 x 4 block of doubles");

typedef struct fd_lanes3 {
    __m256d x, y, z;
} fd_lanes3;

typedef struct fd_lanes4 {
    __m256d r0, r1, r2, r3;
} fd_lanes4;

/* Four fd_vec3 from p into X, Y, Z. The twelve doubles are three vectors
 * a = [x0 y0 z0 x1], b = [y1 z1 x2 y2], c = [z2 x3 y3 z3]; the halves of a
 * and c swapped and two blends give [x0 y0 | x2 y2], [y1 z1 | y3 z3] and
 * [z0 x1 | z2 x3], whose in-lane shuffles are X, Y and Z. */
static inline FD_AVX2 fd_lanes3 fd_load_vec3_quad(const fd_vec3* p)
{
    const double* d = &p->x;
    __m256d a = _mm256_loadu_pd(d), b = _mm256_loadu_pd(d + 4), c = _mm256_loadu_pd(d + 8);
    __m256d ends = _mm256_permute2f128_pd(a, c, 0x30);    /* x0 y0 | y3 z3 */
    __m256d middles = _mm256_permute2f128_pd(a, c, 0x21); /* z0 x1 | z2 x3 */
    __m256d even = _mm256_blend_pd(ends, b, 0xC);         /* x0 y0 | x2 y2 */
    __m256d odd = _mm256_blend_pd(b, ends, 0xC);          /* y1 z1 | y3 z3 */
    return (fd_lanes3){_mm256_shuffle_pd(even, middles, 0xA), _mm256_shuffle_pd(even, odd, 0x5),
                       _mm256_shuffle_pd(middles, odd, 0xA)};
}

/* The inverse of fd_load_vec3_quad. */
static inline FD_AVX2 void fd_store_vec3_quad(fd_vec3* p, fd_lanes3 v)
{
    double* d = &p->x;
    __m256d even = _mm256_unpacklo_pd(v.x, v.y);        /* x0 y0 | x2 y2 */
    __m256d odd = _mm256_unpackhi_pd(v.y, v.z);         /* y1 z1 | y3 z3 */
    __m256d middles = _mm256_shuffle_pd(v.z, v.x, 0xA); /* z0 x1 | z2 x3 */
    __m256d ends = _mm256_blend_pd(even, odd, 0xC);     /* x0 y0 | y3 z3 */
    _mm256_storeu_pd(d, _mm256_permute2f128_pd(ends, middles, 0x20));
    _mm256_storeu_pd(d + 4, _mm256_blend_pd(odd, even, 0xC));
    _mm256_storeu_pd(d + 8, _mm256_permute2f128_pd(middles, ends, 0x31));
}

/* A 4 x 4 transpose: rows of four doubles in, columns out (its own inverse). */
static inline FD_AVX2 fd_lanes4 fd_transpose4(fd_lanes4 m)
{
    __m256d t0 = _mm256_unpacklo_pd(m.r0, m.r1), t1 = _mm256_unpackhi_pd(m.r0, m.r1);
    __m256d t2 = _mm256_unpacklo_pd(m.r2, m.r3), t3 = _mm256_unpackhi_pd(m.r2, m.r3);
    return (fd_lanes4){_mm256_permute2f128_pd(t0, t2, 0x20), _mm256_permute2f128_pd(t1, t3, 0x20),
                       _mm256_permute2f128_pd(t0, t2, 0x31), _mm256_permute2f128_pd(t1, t3, 0x31)};
}
#endif

#endif
