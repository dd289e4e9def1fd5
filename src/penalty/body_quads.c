/* Four neighbouring bodies' states moved between arrays of structs and the
 * integration block's arrays per component by the permutes of
 * core/permute.h (body_quads.h): four fd_vec3 are ten instructions, four
 * fd_quat (or fd_body_motion) a 4 x 4 transpose.
 *
 * Must not: change a result (only the operations stepper.c forms, in its
 * order), touch anything but the arrays handed to it. */
#include "penalty/body_quads.h"

#include "core/permute.h"

#if defined(FD_HAVE_PERMUTES)
static inline FD_AVX2 fd_lanes4 load_rows4(const void* p)
{
    const double* d = p;
    return fd_transpose4(
        (fd_lanes4){_mm256_loadu_pd(d), _mm256_loadu_pd(d + 4), _mm256_loadu_pd(d + 8), _mm256_loadu_pd(d + 12)});
}

static inline FD_AVX2 void store_rows4(void* p, fd_lanes4 columns)
{
    double* d = p;
    fd_lanes4 rows = fd_transpose4(columns);
    _mm256_storeu_pd(d, rows.r0);
    _mm256_storeu_pd(d + 4, rows.r1);
    _mm256_storeu_pd(d + 8, rows.r2);
    _mm256_storeu_pd(d + 12, rows.r3);
}

static inline FD_AVX2 void put_lanes3(double (*rows)[FD_BODY_BLOCK], int c, fd_lanes3 v)
{
    _mm256_storeu_pd(rows[0] + c, v.x);
    _mm256_storeu_pd(rows[1] + c, v.y);
    _mm256_storeu_pd(rows[2] + c, v.z);
}

static inline FD_AVX2 fd_lanes3 get_lanes3(const double (*rows)[FD_BODY_BLOCK], int c)
{
    return (fd_lanes3){_mm256_loadu_pd(rows[0] + c), _mm256_loadu_pd(rows[1] + c), _mm256_loadu_pd(rows[2] + c)};
}

/* The motion records of bodies b..b+3 as columns (inverse mass, inverse
 * inertia, mass, flags), and whether each has (flags & mask) == want. */
static inline FD_AVX2 bool motions_are(const fd_body_motion* motion, uint32_t mask, uint32_t want, fd_lanes4* columns)
{
    _Static_assert(sizeof(fd_body_motion) == 4 * sizeof(double), "a motion record is one row of four doubles");
    *columns = load_rows4(motion);
    /* flags are the low half of the fourth double (the material the high half) */
    __m256i flags = _mm256_and_si256(_mm256_castpd_si256(columns->r3), _mm256_set1_epi64x(mask));
    __m256i match = _mm256_cmpeq_epi64(flags, _mm256_set1_epi64x(want));
    return _mm256_movemask_pd(_mm256_castsi256_pd(match)) == 0xF;
}

FD_AVX2 int fd_body_quads_gather(fd_body_block* k, const fd_step_arrays* a, int b, int end)
{
    const uint32_t mask = FD_MOTION_SIMPLE | FD_MOTION_LOADED | FD_MOTION_DORMANT;
    const __m256d kick = _mm256_set1_pd(a->kick), zero = _mm256_setzero_pd();
    const __m256d gx = _mm256_set1_pd(a->gravity.x), gy = _mm256_set1_pd(a->gravity.y);
    const __m256d gz = _mm256_set1_pd(a->gravity.z);
    fd_lanes4 m;
    while (b + 4 <= end && k->count + 4 <= FD_BODY_BLOCK && motions_are(a->motion + b, mask, FD_MOTION_SIMPLE, &m)) {
        int c = k->count;
        put_lanes3(k->x, c, fd_load_vec3_quad(a->x0 + b));
        put_lanes3(k->v, c, fd_load_vec3_quad(a->v0 + b));
        put_lanes3(k->w, c, fd_load_vec3_quad(a->w0 + b));
        put_lanes3(k->f, c, fd_load_vec3_quad(a->f0 + b));
        put_lanes3(k->t, c, fd_load_vec3_quad(a->t0 + b));
        fd_lanes4 q = load_rows4(a->q0 + b);
        _mm256_storeu_pd(k->q[0] + c, q.r0);
        _mm256_storeu_pd(k->q[1] + c, q.r1);
        _mm256_storeu_pd(k->q[2] + c, q.r2);
        _mm256_storeu_pd(k->q[3] + c, q.r3);
        _mm256_storeu_pd(k->kick_mass + c, _mm256_mul_pd(kick, m.r0));     /* kick * inverse_mass */
        _mm256_storeu_pd(k->kick_inertia + c, _mm256_mul_pd(kick, m.r1));  /* kick * inverse_inertia */
        /* The new force buffers: m g (fd_v3_scale(m, g)), no torque. */
        fd_store_vec3_quad(a->f1 + b,
                           (fd_lanes3){_mm256_mul_pd(m.r2, gx), _mm256_mul_pd(m.r2, gy), _mm256_mul_pd(m.r2, gz)});
        double* torques = &a->t1[b].x;
        _mm256_storeu_pd(torques, zero);
        _mm256_storeu_pd(torques + 4, zero);
        _mm256_storeu_pd(torques + 8, zero);
        for (int n = 0; n < 4; ++n) {
            k->body[c + n] = b + n;
        }
        k->count += 4;
        b += 4;
    }
    return b;
}

/* fd_periodic_near_axis on four lanes: |s| > half ? copysign(length, s) : 0,
 * subtracted (0 subtracted leaves the bits). */
static inline FD_AVX2 __m256d minus_near_image(__m256d s, double half, double length)
{
    const __m256d sign = _mm256_set1_pd(-0.0);
    __m256d far = _mm256_cmp_pd(_mm256_andnot_pd(sign, s), _mm256_set1_pd(half), _CMP_GT_OQ);
    __m256d image = _mm256_or_pd(_mm256_and_pd(s, sign), _mm256_set1_pd(length));
    return _mm256_sub_pd(s, _mm256_and_pd(far, image));
}

FD_AVX2 int fd_body_quads_scatter(const fd_body_block* k, const fd_step_arrays* a, int c, double* largest)
{
    const fd_periodic* periodic = a->periodic;
    __m256d most = _mm256_set1_pd(*largest);
    for (; c + 4 <= k->count; c += 4) {
        int b = k->body[c];
        bool referenced = b + 3 < a->referenced;
        if (k->body[c + 3] != b + 3 || (!referenced && b < a->referenced)) {
            break; /* not four neighbours, or only some with a reference: alone */
        }
        fd_lanes3 x = get_lanes3(k->x, c);
        if (periodic->any) {
            /* fd_periodic_wrap leaves x alone inside [low, low + length):
             * four lanes all inside go on, any other leaves them to the
             * stepper's own wrap. */
            const __m256d* axes[3] = {&x.x, &x.y, &x.z};
            int inside = 0xF;
            for (int axis = 0; axis < 3; ++axis) {
                if (periodic->axis[axis]) {
                    __m256d u = _mm256_sub_pd(*axes[axis], _mm256_set1_pd(periodic->low[axis]));
                    __m256d in = _mm256_and_pd(_mm256_cmp_pd(u, _mm256_setzero_pd(), _CMP_GE_OQ),
                                               _mm256_cmp_pd(u, _mm256_set1_pd(periodic->length[axis]), _CMP_LT_OQ));
                    inside &= _mm256_movemask_pd(in);
                }
            }
            if (inside != 0xF) {
                break;
            }
        }
        if (referenced) {
            fd_lanes3 r = fd_load_vec3_quad(a->reference + b);
            __m256d mx = _mm256_sub_pd(x.x, r.x), my = _mm256_sub_pd(x.y, r.y), mz = _mm256_sub_pd(x.z, r.z);
            if (periodic->any) {
                mx = minus_near_image(mx, periodic->half_length[0], periodic->length[0]);
                my = minus_near_image(my, periodic->half_length[1], periodic->length[1]);
                mz = minus_near_image(mz, periodic->half_length[2], periodic->length[2]);
            }
            __m256d squared = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(mx, mx), _mm256_mul_pd(my, my)),
                                            _mm256_mul_pd(mz, mz));
            /* moved > largest ? moved : largest, lane by lane (a NaN is passed over) */
            most = _mm256_blendv_pd(most, squared, _mm256_cmp_pd(squared, most, _CMP_GT_OQ));
        }
        fd_store_vec3_quad(a->x1 + b, x);
        fd_store_vec3_quad(a->v1 + b, get_lanes3(k->v, c));
        fd_store_vec3_quad(a->w1 + b, get_lanes3(k->w, c));
        store_rows4(a->q1 + b, (fd_lanes4){_mm256_loadu_pd(k->q[0] + c), _mm256_loadu_pd(k->q[1] + c),
                                           _mm256_loadu_pd(k->q[2] + c), _mm256_loadu_pd(k->q[3] + c)});
    }
    double lanes[4];
    _mm256_storeu_pd(lanes, most);
    for (int n = 0; n < 4; ++n) {
        *largest = lanes[n] > *largest ? lanes[n] : *largest; /* a maximum: the same in any order */
    }
    return c;
}

FD_AVX2 int fd_body_quads_finish(fd_vec3* v1, fd_vec3* w1, const fd_vec3* forces, const fd_vec3* torques,
                                 const fd_body_motion* motion, double kick, int b, int end, double* probes)
{
    const __m256d kick4 = _mm256_set1_pd(kick);
    __m256d probe = _mm256_setzero_pd();
    fd_lanes4 m;
    while (b + 4 <= end && motions_are(motion + b, FD_MOTION_SIMPLE, FD_MOTION_SIMPLE, &m)) {
        /* v + (kick / m) F and w + (kick / I) T (fd_v3_mul_add), component by
         * component: the twelve doubles of four bodies in place, each body's
         * factor spread over its three components. */
        __m256d kicks[2] = {_mm256_mul_pd(kick4, m.r0), _mm256_mul_pd(kick4, m.r1)};
        fd_vec3* velocities[2] = {v1 + b, w1 + b};
        const fd_vec3* loads[2] = {forces + b, torques + b};
        for (int n = 0; n < 2; ++n) {
            __m256d spread[3] = {_mm256_permute4x64_pd(kicks[n], 0x40),  /* k0 k0 k0 k1 */
                                 _mm256_permute4x64_pd(kicks[n], 0xA5),  /* k1 k1 k2 k2 */
                                 _mm256_permute4x64_pd(kicks[n], 0xFE)}; /* k2 k3 k3 k3 */
            double* velocity = &velocities[n]->x;
            const double* load = &loads[n]->x;
            for (int part = 0; part < 3; ++part) {
                __m256d v = _mm256_add_pd(_mm256_loadu_pd(velocity + 4 * part),
                                          _mm256_mul_pd(spread[part], _mm256_loadu_pd(load + 4 * part)));
                _mm256_storeu_pd(velocity + 4 * part, v);
                probe = _mm256_add_pd(probe, _mm256_sub_pd(v, v)); /* 0 when finite */
            }
        }
        b += 4;
    }
    double lanes[4];
    _mm256_storeu_pd(lanes, probe);
    *probes += lanes[0] + lanes[1] + lanes[2] + lanes[3];
    return b;
}

#else

int fd_body_quads_gather(fd_body_block* k, const fd_step_arrays* a, int b, int end) { return b; }

int fd_body_quads_scatter(const fd_body_block* k, const fd_step_arrays* a, int c, double* largest) { return c; }

int fd_body_quads_finish(fd_vec3* v1, fd_vec3* w1, const fd_vec3* forces, const fd_vec3* torques,
                         const fd_body_motion* motion, double kick, int b, int end, double* probes)
{
    return b;
}

#endif
