/* The exact projection onto the intersection of the sliding, rolling and
 * spinning cones (Tasora & Anitescu Eq. 31, App. C), its single-cone and
 * sequential (Chrono) companions.
 *
 * Notation: x = (g_n, g_u, g_w, t_u, t_w, t_n), parts l_1 = x[1..2],
 * l_2 = x[3..4], l_3 = x[5]; c = (mu, rho, sigma); C the set; p = P(x).
 *
 * What characterises P(x) for a closed convex cone C (Moreau's decomposition):
 * p = P(x) iff p in C, z = x - p in the polar cone C°, and <z, p> = 0. (From
 * the variational inequality <z, y - p> <= 0 for all y in C: y = 2p and y = 0
 * give <z, p> = 0, and then <z, y> <= 0 for all y in C is z in C°.) The polar
 * of an intersection of closed convex cones is the closure of the sum of their
 * polars; here the sum is closed and
 *     C° = { z : z_0 + sum_i c_i |z_i| <= 0 },
 * with c_i = 0 leaving z_i free and c_i = inf forcing z_i = 0: the polar of
 * { |q| <= m p0 } is { z0 <= -m |z_q|, the other parts 0 }. The tests check
 * these three conditions, the variational inequality itself with random
 * feasible y, agreement with an independent slow method (Dykstra's alternating
 * projections), and answers known by construction (p on a face, x = p + a
 * vector of the normal cone at p). */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/cone_projection.h"

#define EPS DBL_EPSILON

static const int part_start[3] = {1, 3, 5};
static const int part_length[3] = {2, 2, 1};

/* ------------------------------------------------------------------ helpers */

typedef struct {
    uint64_t state;
} rng;

static uint64_t rng_next(rng* r) /* splitmix64 */
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double uniform(rng* r, double lo, double hi)
{
    return lo + (hi - lo) * (double)(rng_next(r) >> 11) * 0x1p-53;
}

static double norm6(const double x[6])
{
    double s = 0.0;
    for (int k = 0; k < 6; ++k) {
        s += x[k] * x[k];
    }
    return sqrt(s);
}

static double distance6(const double a[6], const double b[6])
{
    double d[6];
    for (int k = 0; k < 6; ++k) {
        d[k] = a[k] - b[k];
    }
    return norm6(d);
}

static double dot6(const double a[6], const double b[6])
{
    double s = 0.0;
    for (int k = 0; k < 6; ++k) {
        s += a[k] * b[k];
    }
    return s;
}

static double part_norm(const double x[6], int i)
{
    double s = 0.0;
    for (int k = 0; k < part_length[i]; ++k) {
        s += x[part_start[i] + k] * x[part_start[i] + k];
    }
    return sqrt(s);
}

static bool is_finite_positive(double c) { return c > 0.0 && c < INFINITY; }

/* Distance-like violation of the set: the largest distance, in the (p0, |q_i|)
 * plane, from the point to the 2-D wedge of cone i, and -p0. */
static double feasibility_violation(const double p[6], const double c[3])
{
    double worst = p[0] < 0.0 ? -p[0] : 0.0;
    for (int i = 0; i < 3; ++i) {
        double a = part_norm(p, i), v;
        if (c[i] == INFINITY) {
            v = 0.0;
        } else {
            v = (a - c[i] * p[0]) / sqrt(1.0 + c[i] * c[i]);
        }
        worst = v > worst ? v : worst;
    }
    return worst;
}

/* z_0 + sum_i c_i |z_i| (<= 0 in C°); parts of infinite coefficient are
 * reported through *free_part_nonzero (they must be exactly 0). */
static double polar_residual(const double z[6], const double c[3], bool* free_part_nonzero)
{
    double r = z[0];
    *free_part_nonzero = false;
    for (int i = 0; i < 3; ++i) {
        double a = part_norm(z, i);
        if (c[i] == INFINITY) {
            *free_part_nonzero = *free_part_nonzero || a != 0.0;
        } else {
            r += c[i] * a;
        }
    }
    return r;
}

static double finite_sum(const double c[3])
{
    double s = 0.0;
    for (int i = 0; i < 3; ++i) {
        s += c[i] < INFINITY ? c[i] : 0.0;
    }
    return s;
}

static void random_unit(rng* r, double* u, int n)
{
    if (n == 1) {
        u[0] = rng_next(r) & 1 ? 1.0 : -1.0;
        return;
    }
    double angle = uniform(r, 0.0, 2.0 * 3.14159265358979323846);
    u[0] = cos(angle);
    u[1] = sin(angle);
}

/* --------------------------------------------- the slow, independent method */

/* Projection onto one cone K_i = { p0 >= 0, |q_i| <= m p0 } (other parts
 * free), by the 2-D picture: in the plane (p0, |q_i|) the cone is the wedge
 * under the ray of direction d = (1, m) / |(1, m)|; a point above the ray goes
 * to its orthogonal projection on the ray, or to the apex if that falls
 * behind it. */
static void reference_project_cone(double x[6], int i, double m)
{
    int s = part_start[i], n = part_length[i];
    double t = x[0], a = part_norm(x, i);
    if (m == INFINITY) {
        x[0] = t < 0.0 ? 0.0 : t;
        return;
    }
    if (a <= m * t) {
        return;
    }
    double h = sqrt(1.0 + m * m);
    double along = (t + m * a) / h; /* <(t, a), d> */
    if (along <= 0.0) {
        x[0] = 0.0;
        for (int k = 0; k < n; ++k) {
            x[s + k] = 0.0;
        }
        return;
    }
    x[0] = along / h;
    double factor = a > 0.0 ? (along * m / h) / a : 0.0;
    for (int k = 0; k < n; ++k) {
        x[s + k] *= factor;
    }
}

/* Dykstra's algorithm for the projection onto K_1 ∩ K_2 ∩ K_3: cyclic
 * projections of the iterate plus each set's own increment, which (unlike
 * plain alternating projections) converge to the nearest point of the
 * intersection (Boyle & Dykstra 1986). Stops when a whole cycle moves neither
 * the iterate nor the increments by more than 1e-16 |x| (squared sums), or
 * after 200 000 cycles; returns the cycles used. */
static int reference_dykstra(double x[6], const double c[3])
{
    double increment[3][6];
    memset(increment, 0, sizeof increment);
    double scale = norm6(x);
    if (scale == 0.0) {
        return 0;
    }
    double limit = 1e-15 * scale;
    for (int cycle = 1; cycle <= 200000; ++cycle) {
        double change = 0.0;
        for (int i = 0; i < 3; ++i) {
            double y[6], w[6];
            for (int k = 0; k < 6; ++k) {
                y[k] = x[k] + increment[i][k];
                w[k] = y[k];
            }
            reference_project_cone(w, i, c[i]);
            for (int k = 0; k < 6; ++k) {
                double new_increment = y[k] - w[k];
                double d1 = new_increment - increment[i][k], d2 = w[k] - x[k];
                change += d1 * d1 + d2 * d2;
                increment[i][k] = new_increment;
                x[k] = w[k];
            }
        }
        if (change <= limit * limit) {
            return cycle;
        }
    }
    return -1;
}

/* ------------------------------------------------------------ the samples */

typedef struct {
    double x[6];
    double c[3];
    bool known; /* p holds P(x), by construction */
    double p[6];
    int kind;
} sample;

enum {
    KIND_BOX,       /* x uniform in [-1, 1]^6 */
    KIND_INSIDE,    /* strictly inside C */
    KIND_POLAR,     /* in the polar cone: P(x) = 0 */
    KIND_KNOWN,     /* p on a face with 1, 2 or 3 cones active, x = p + normal */
    KIND_BOUNDARY,  /* inside but one cone within 1e-15..1e-1 of its boundary */
    KIND_SCALED,    /* KIND_KNOWN times 10^k, |k| <= 120 */
    KIND_NEGATIVE,  /* g_n < 0, parts random: polar or not */
    KIND_LARGE_L,   /* parts 10x g_n: two or three cones active */
    KIND_COUNT
};

/* A coefficient: 0, INFINITY, log-uniform in [1e-4, 10^wide_exponent], or
 * typical (mu in [0.05, 1.5]; rho, sigma, lengths, log-uniform in
 * [1e-4, 0.3]). */
static double random_coefficient(rng* r, int i, double wide_exponent)
{
    double u = uniform(r, 0.0, 1.0);
    if (u < 0.08) {
        return 0.0;
    }
    if (u < 0.16) {
        return INFINITY;
    }
    if (u < 0.3) {
        return pow(10.0, uniform(r, -4.0, wide_exponent)); /* wide */
    }
    return i == 0 ? uniform(r, 0.05, 1.5) : pow(10.0, uniform(r, -4.0, -0.5)); /* mu; rho, sigma (lengths) */
}

/* A point strictly inside C with normal component y0. */
static void inside_point(rng* r, const double c[3], double y0, double x[6])
{
    x[0] = y0;
    for (int i = 0; i < 3; ++i) {
        double u[2];
        random_unit(r, u, part_length[i]);
        double radius = c[i] == INFINITY ? uniform(r, 0.0, 2.0) * y0 : c[i] * y0 * uniform(r, 0.0, 0.99);
        for (int k = 0; k < part_length[i]; ++k) {
            x[part_start[i] + k] = radius * u[k];
        }
    }
}

static void make_sample(rng* r, int kind, double wide_exponent, sample* s)
{
    memset(s, 0, sizeof *s);
    s->kind = kind;
    for (int i = 0; i < 3; ++i) {
        s->c[i] = random_coefficient(r, i, wide_exponent);
    }
    double* x = s->x;
    switch (kind) {
    case KIND_BOX:
        for (int k = 0; k < 6; ++k) {
            x[k] = uniform(r, -1.0, 1.0);
        }
        break;
    case KIND_INSIDE:
        inside_point(r, s->c, uniform(r, 0.01, 1.0), x);
        s->known = true;
        memcpy(s->p, x, sizeof s->p);
        break;
    case KIND_POLAR: {
        double sum = 0.0;
        for (int i = 0; i < 3; ++i) {
            for (int k = 0; k < part_length[i]; ++k) {
                x[part_start[i] + k] = s->c[i] == INFINITY ? 0.0 : uniform(r, -1.0, 1.0);
            }
            if (s->c[i] < INFINITY) {
                sum += s->c[i] * part_norm(x, i);
            }
        }
        x[0] = -sum * (1.0 + uniform(r, 0.0, 1.0)) - uniform(r, 0.0, 0.1);
        s->known = true; /* p = 0 */
        break;
    }
    case KIND_KNOWN:
    case KIND_SCALED: {
        /* p: y0 > 0; each finite positive cone active (on its boundary) with
         * probability 1/2, at least one if there is any. Normal cone at p: for
         * an active cone lambda_i (-m_i, u_i) (u_i the unit direction of q_i),
         * lambda_i >= 0; any vector in a zero-coefficient part; nothing in a
         * free part or along an inactive cone. */
        double y0 = uniform(r, 0.01, 1.0);
        inside_point(r, s->c, y0, s->p);
        int candidates = 0;
        for (int i = 0; i < 3; ++i) {
            candidates += is_finite_positive(s->c[i]);
        }
        int forced = candidates > 0 ? (int)(rng_next(r) % (uint64_t)candidates) : -1;
        memcpy(x, s->p, sizeof s->p);
        for (int i = 0, seen = 0; i < 3; ++i) {
            int st = part_start[i], n = part_length[i];
            if (s->c[i] == 0.0) {
                for (int k = 0; k < n; ++k) {
                    x[st + k] = uniform(r, -1.0, 1.0);
                }
                continue;
            }
            if (!is_finite_positive(s->c[i])) {
                continue;
            }
            bool on = (seen++ == forced) || (rng_next(r) & 1);
            if (!on) {
                continue;
            }
            double u[2];
            random_unit(r, u, n);
            double lambda = uniform(r, 0.0, 1.0);
            for (int k = 0; k < n; ++k) {
                s->p[st + k] = s->c[i] * y0 * u[k];
                x[st + k] = s->p[st + k] + lambda * u[k];
            }
            x[0] -= lambda * s->c[i];
        }
        s->known = true;
        if (kind == KIND_SCALED) {
            double f = pow(10.0, uniform(r, -120.0, 120.0));
            for (int k = 0; k < 6; ++k) {
                x[k] *= f;
                s->p[k] *= f;
            }
        }
        break;
    }
    case KIND_BOUNDARY: {
        double y0 = uniform(r, 0.01, 1.0);
        inside_point(r, s->c, y0, x);
        int i = (int)(rng_next(r) % 3);
        if (is_finite_positive(s->c[i])) {
            double a = part_norm(x, i);
            double target = s->c[i] * y0 * (1.0 + (rng_next(r) & 1 ? 1.0 : -1.0) * pow(10.0, -uniform(r, 1.0, 15.0)));
            double factor = a > 0.0 ? target / a : 0.0;
            for (int k = 0; k < part_length[i]; ++k) {
                x[part_start[i] + k] *= factor;
            }
        }
        break;
    }
    case KIND_NEGATIVE:
        x[0] = uniform(r, -1.0, 0.0);
        for (int k = 1; k < 6; ++k) {
            x[k] = uniform(r, -1.0, 1.0);
        }
        break;
    case KIND_LARGE_L:
        x[0] = uniform(r, 0.0, 1.0);
        for (int k = 1; k < 6; ++k) {
            x[k] = uniform(r, -10.0, 10.0);
        }
        break;
    }
}

#define SAMPLES_PER_KIND 1000

static const char* kind_name[KIND_COUNT] = {"box", "inside", "polar", "known", "boundary", "scaled", "negative",
                                            "large_l"};

#define SAMPLE_FMT "kind %s, sample %d: x = (%.17g, %.17g, %.17g, %.17g, %.17g, %.17g), c = (%.17g, %.17g, %.17g)"
#define SAMPLE_ARGS(s, n) kind_name[(s).kind], n, (s).x[0], (s).x[1], (s).x[2], (s).x[3], (s).x[4], (s).x[5], \
    (s).c[0], (s).c[1], (s).c[2]

static void project(const sample* s, double p[6])
{
    memcpy(p, s->x, 6 * sizeof(double));
    fd_cone_project(p, s->c[0], s->c[1], s->c[2]);
}

/* The projection p of the sample's x and the residual z = x - p (Moreau's
 * decomposition, the header comment). */
static void project_with_residual(const sample* s, double p[6], double z[6])
{
    project(s, p);
    for (int k = 0; k < 6; ++k) {
        z[k] = s->x[k] - p[k];
    }
}


/* Round-off allowance. The projection computes y* = num / den with
 * |num| / den <= |x0| + sum m_i a_i / (1 + sum m_i^2) <= 1.5 |x| (Cauchy-
 * Schwarz), a handful of roundings each: |y* error| <= ~8 eps |x|; every
 * scaled part q_i = l_i (m y / a_i) is within ~3 eps of radius m y, and the
 * test's own norms add ~2 eps. 16 eps |x| covers these with a factor 2. */
#define TOL (16.0 * EPS)

#define SAMPLE_COUNT (KIND_COUNT * SAMPLES_PER_KIND)

/* SAMPLES_PER_KIND samples of every kind, coefficients up to
 * 10^wide_exponent; seeded, so every run sees the same points. */
static sample* make_samples(uint64_t seed, double wide_exponent)
{
    sample* samples = malloc(SAMPLE_COUNT * sizeof *samples);
    cr_assert_not_null(samples);
    for (int kind = 0; kind < KIND_COUNT; ++kind) {
        rng r = {seed * 1000u + (uint64_t)kind};
        for (int n = 0; n < SAMPLES_PER_KIND; ++n) {
            make_sample(&r, kind, wide_exponent, &samples[kind * SAMPLES_PER_KIND + n]);
        }
    }
    return samples;
}

#define FOR_EACH_SAMPLE(seed, wide_exponent, s, n)                                      \
    for (sample* all_ = make_samples(seed, wide_exponent); all_; free(all_), all_ = NULL) \
        for (int n = 0; n < SAMPLE_COUNT; ++n)                                           \
            for (const sample s = all_[n], *once_ = &s; once_; once_ = NULL)

Test(cone_projection, result_lies_in_the_set)
{
    /* 8000 points (every kind, coefficients from 1e-4 to 1e4, 0 and inf): the
     * three cone inequalities and g_n >= 0 hold to TOL |x|, measured as the
     * distance to each cone's 2-D wedge (a residual |q| - m p0 would be scaled
     * by sqrt(1 + m^2)). */
    FOR_EACH_SAMPLE(1, 4.0, s, n) {
        double p[6];
        project(&s, p);
        double v = feasibility_violation(p, s.c);
        cr_assert(v <= TOL * norm6(s.x), "violation %g; " SAMPLE_FMT, v, SAMPLE_ARGS(s, n));
    }
}

Test(cone_projection, projecting_twice_changes_nothing)
{
    /* P(x) is in C up to TOL |x|, so a second projection moves it by at most
     * its distance to C plus its own round-off: TOL |x| again. */
    FOR_EACH_SAMPLE(2, 4.0, s, n) {
        double p[6], pp[6];
        project(&s, p);
        memcpy(pp, p, sizeof p);
        fd_cone_project(pp, s.c[0], s.c[1], s.c[2]);
        double d = distance6(p, pp);
        cr_assert(d <= TOL * norm6(s.x), "moved %g; " SAMPLE_FMT, d, SAMPLE_ARGS(s, n));
    }
}

Test(cone_projection, residual_is_in_the_polar_cone_and_orthogonal_to_the_projection)
{
    /* Moreau: p = P(x) iff p in C (tested above), z = x - p in C° and
     * <z, p> = 0 (header comment). The polar residual z0 + sum c_i |z_i| is a
     * sum of parts each computed to ~eps |x| and weighted by c_i: allowance
     * TOL |x| (1 + sum c_i); <z, p> = y (1 + sum_S m_i^2) dy with
     * dy ~ eps (|x0| + sum m_i a_i) / (1 + sum_S m_i^2): TOL |x|^2 (1 + sum c_i).
     * Parts of infinite coefficient must come back untouched (z_i = 0 exactly). */
    FOR_EACH_SAMPLE(3, 4.0, s, n) {
        double p[6], z[6];
        project_with_residual(&s, p, z);
        double scale = norm6(s.x), weight = 1.0 + finite_sum(s.c);
        bool free_moved;
        double residual = polar_residual(z, s.c, &free_moved);
        cr_assert(!free_moved, "a free part moved; " SAMPLE_FMT, SAMPLE_ARGS(s, n));
        cr_assert(residual <= TOL * scale * weight, "polar residual %g; " SAMPLE_FMT, residual, SAMPLE_ARGS(s, n));
        double orthogonality = fabs(dot6(z, p));
        cr_assert(orthogonality <= TOL * scale * scale * weight, "<z, p> = %g; " SAMPLE_FMT, orthogonality,
                  SAMPLE_ARGS(s, n));
    }
}

Test(cone_projection, variational_inequality_holds_for_random_feasible_points)
{
    /* <x - p, y - p> <= 0 for every y in C, checked on 16 random y per sample
     * (strictly inside, on the boundary of each cone, the apex), |y| up to
     * about 2 |x|. Round-off as above, with |y| in the scale. */
    rng ry = {777};
    FOR_EACH_SAMPLE(4, 4.0, s, n) {
        double p[6], z[6];
        project_with_residual(&s, p, z);
        double scale = norm6(s.x), weight = 1.0 + finite_sum(s.c);
        for (int t = 0; t < 16; ++t) {
            double y[6] = {0};
            if (t > 0) {
                inside_point(&ry, s.c, uniform(&ry, 0.0, 2.0) * scale / sqrt(1.0 + finite_sum(s.c)), y);
                int i = t % 3;
                if ((t & 4) && is_finite_positive(s.c[i])) { /* push cone i onto its boundary */
                    double a = part_norm(y, i);
                    for (int k = 0; k < part_length[i]; ++k) {
                        y[part_start[i] + k] *= a > 0.0 ? s.c[i] * y[0] / a : 0.0;
                    }
                }
            }
            double d[6];
            for (int k = 0; k < 6; ++k) {
                d[k] = y[k] - p[k];
            }
            double vi = dot6(z, d);
            cr_assert(vi <= TOL * scale * (scale + norm6(y)) * weight, "<x - p, y - p> = %g; " SAMPLE_FMT, vi,
                      SAMPLE_ARGS(s, n));
        }
    }
}

Test(cone_projection, agrees_with_dykstras_alternating_projections)
{
    /* The slow, independent method: Dykstra over the three single cones, each
     * projected by the 2-D wedge picture (reference_project_cone), no psi.
     * Dykstra's rate falls with the angle between the cones (with a
     * coefficient of 1e3 it needs over 10^5 cycles), so the coefficients here
     * stay below 10 (the wide ones are covered by the tests above and by the
     * constructed answers). On these 8000 points it stops by its criterion
     * (a cycle moves iterate and increments by less than 1e-15 |x|) within
     * ~3000 cycles, i.e. a contraction of at most ~0.99 per cycle, so its
     * remaining error is at most ~1e-15 |x| / (1 - 0.99) = 1e-13 |x|; we allow
     * 1e-12 |x| (observed: 5e-15 |x|). */
    FOR_EACH_SAMPLE(5, 1.0, s, n) {
        double p[6], d[6];
        project(&s, p);
        memcpy(d, s.x, sizeof d);
        int cycles = reference_dykstra(d, s.c);
        cr_assert(cycles >= 0, "Dykstra did not converge; " SAMPLE_FMT, SAMPLE_ARGS(s, n));
        double e = distance6(p, d);
        cr_assert(e <= 1e-12 * norm6(s.x), "|P(x) - Dykstra| = %g; " SAMPLE_FMT, e, SAMPLE_ARGS(s, n));
    }
}

Test(cone_projection, recovers_projections_known_by_construction)
{
    /* Samples built as x = p + v with p in C and v in the normal cone of C at
     * p (p inside: v = 0; the polar samples: p = 0; faces with 1, 2 or 3 cones
     * active, at scales 10^-120..10^120), coefficients up to 1e4. The
     * projection is 1-Lipschitz, so the roundings of building x (a few eps |x|)
     * and of projecting (TOL |x|) add up to at most 2 TOL |x|. */
    int checked = 0;
    FOR_EACH_SAMPLE(6, 4.0, s, n) {
        if (!s.known) {
            continue;
        }
        double p[6];
        project(&s, p);
        double e = distance6(p, s.p);
        cr_assert(e <= 2.0 * TOL * norm6(s.x), "|P(x) - p| = %g; " SAMPLE_FMT, e, SAMPLE_ARGS(s, n));
        ++checked;
    }
    cr_assert_eq(checked, 4 * SAMPLES_PER_KIND);
}

/* ------------------------------------------------------------- edge cases */

static void expect_exact(const double got[6], const double want[6], double tolerance, const char* what)
{
    for (int k = 0; k < 6; ++k) {
        cr_assert(fabs(got[k] - want[k]) <= tolerance, "%s: component %d is %.17g, expected %.17g", what, k, got[k],
                  want[k]);
    }
}

Test(cone_projection, points_inside_are_returned_bit_for_bit)
{
    /* The walk stops on the top piece with y = x0 and every factor 1: no
     * arithmetic touches x, so the identity is exact (samples 1% inside). */
    rng r = {11};
    for (int n = 0; n < 2000; ++n) {
        sample s;
        make_sample(&r, KIND_INSIDE, 4.0, &s);
        double p[6];
        project(&s, p);
        cr_assert(memcmp(p, s.x, sizeof p) == 0, SAMPLE_FMT, SAMPLE_ARGS(s, n));
    }
}

Test(cone_projection, points_exactly_on_the_boundary_are_fixed)
{
    /* |(3, 4)| = 5 = 0.5 * 10 exactly: on all three boundaries at once, and on
     * each alone; the comparisons a_i > m_i y are false, so nothing moves. */
    double x[6] = {10, 3, 4, 4, -3, 5};
    double p[6];
    memcpy(p, x, sizeof p);
    fd_cone_project(p, 0.5, 0.5, 0.5);
    expect_exact(p, x, 0.0, "all three boundaries");
    memcpy(p, x, sizeof p);
    fd_cone_project(p, 0.5, 2.0, INFINITY);
    expect_exact(p, x, 0.0, "sliding boundary");
}

Test(cone_projection, apex_and_polar_cone_go_to_the_apex)
{
    /* x = 0 (and -0) is in C. x0 = -(0.5 * 5 * 3) puts x on the boundary of
     * the polar cone C° = { x0 + sum m_i a_i <= 0 } (f(0) = 0): P = 0, and the
     * numerator x0 + sum m_i a_i = -7.5 + 2.5 + 2.5 + 2.5 is exact. Deeper in
     * C°: 0 as well. */
    double zero[6] = {0};
    double p[6] = {0};
    fd_cone_project(p, 0.5, 0.1, 0.05);
    expect_exact(p, zero, 0.0, "apex");
    double minus_zero[6] = {-0.0, -0.0, 0.0, -0.0, 0.0, -0.0};
    fd_cone_project(minus_zero, 0.5, 0.1, 0.05);
    expect_exact(minus_zero, zero, 0.0, "-0 apex");
    double polar_boundary[6] = {-7.5, 3, 4, 4, -3, 5};
    fd_cone_project(polar_boundary, 0.5, 0.5, 0.5);
    expect_exact(polar_boundary, zero, 0.0, "boundary of the polar cone");
    double deep[6] = {-8, 3, 4, 4, -3, 5};
    fd_cone_project(deep, 0.5, 0.5, 0.5);
    expect_exact(deep, zero, 0.0, "inside the polar cone");
}

Test(cone_projection, negative_normal_with_tangential_part_is_polar_or_not)
{
    /* x = (-0.1, 1, 0, ...): with mu = 0.5, x0 + mu a = 0.4 > 0, not polar:
     * y = (-0.1 + 0.5) / 1.25 = 0.32, g_u = 0.5 * 0.32 = 0.16 (a few roundings:
     * 4 eps). With mu = 0.05, x0 + mu a = -0.05 <= 0: the apex. */
    double x[6] = {-0.1, 1, 0, 0, 0, 0};
    fd_cone_project(x, 0.5, 1.0, 1.0);
    double want[6] = {0.32, 0.16, 0, 0, 0, 0};
    expect_exact(x, want, 4.0 * EPS, "not polar");
    double y[6] = {-0.1, 1, 0, 0, 0, 0};
    fd_cone_project(y, 0.05, 1.0, 1.0);
    double zero[6] = {0};
    expect_exact(y, zero, 0.0, "polar");
}

Test(cone_projection, zero_coefficient_collapses_its_part)
{
    /* mu = 0: the set is { g_u = g_w = 0 } (the limit of the cones); the
     * part is zeroed and g_n does not feel it (slope 0 in psi). Likewise
     * sigma = 0, and all three 0: (max(g_n, 0), 0, ...). Exact. */
    double x[6] = {1, 0.3, -0.4, 0.01, 0.02, 0.001};
    fd_cone_project(x, 0.0, 1.0, 1.0);
    double want[6] = {1, 0, 0, 0.01, 0.02, 0.001};
    expect_exact(x, want, 0.0, "mu = 0");
    double y[6] = {1, 0.1, 0, 0.01, 0, 7};
    fd_cone_project(y, 1.0, 1.0, 0.0);
    double want_y[6] = {1, 0.1, 0, 0.01, 0, 0};
    expect_exact(y, want_y, 0.0, "sigma = 0");
    double z[6] = {2, 1, 1, 1, 1, 1};
    fd_cone_project(z, 0.0, 0.0, 0.0);
    double want_z[6] = {2, 0, 0, 0, 0, 0};
    expect_exact(z, want_z, 0.0, "all zero");
    double w[6] = {-1, 5, 0, 0, 0, 0};
    fd_cone_project(w, 0.0, 1.0, 1.0);
    double zero[6] = {0};
    expect_exact(w, zero, 0.0, "mu = 0, g_n < 0");
}

Test(cone_projection, infinite_coefficient_leaves_its_part_free)
{
    /* rho = INFINITY: the rolling torque is unconstrained; g_n >= 0 remains.
     * Exact. */
    double x[6] = {1, 0.1, 0, 100, -200, 0.01};
    fd_cone_project(x, 0.5, INFINITY, 0.1);
    double want[6] = {1, 0.1, 0, 100, -200, 0.01};
    expect_exact(x, want, 0.0, "rho = inf, inside the others");
    double y[6] = {-1, 0, 0, 100, -200, 0};
    fd_cone_project(y, 0.5, INFINITY, 0.1);
    double want_y[6] = {0, 0, 0, 100, -200, 0};
    expect_exact(y, want_y, 0.0, "rho = inf, g_n < 0");
    double z[6] = {-3, 1, 2, 3, 4, 5};
    fd_cone_project(z, INFINITY, INFINITY, INFINITY);
    double want_z[6] = {0, 1, 2, 3, 4, 5};
    expect_exact(z, want_z, 0.0, "all infinite");
}

Test(cone_projection, zero_parts_and_one_active_cone)
{
    /* l_i = 0: breakpoint 0, never active. (-1, 0...) is in the polar cone;
     * (2, 0...) is inside; (1, 0, 0, 3, 4, 0) with rho = 1 has only the rolling
     * cone active: y = (1 + 5) / 2 = 3, (t_u, t_w) = (3, 4) * 3 / 5. */
    double x[6] = {-1, 0, 0, 0, 0, 0}, zero[6] = {0};
    fd_cone_project(x, 0.5, 0.1, 0.1);
    expect_exact(x, zero, 0.0, "polar on the axis");
    double y[6] = {2, 0, 0, 0, 0, 0}, want_y[6] = {2, 0, 0, 0, 0, 0};
    fd_cone_project(y, 0.5, 0.1, 0.1);
    expect_exact(y, want_y, 0.0, "on the axis");
    double z[6] = {1, 0, 0, 3, 4, 0}, want_z[6] = {3, 0, 0, 1.8, 2.4, 0};
    fd_cone_project(z, 0.5, 1.0, 0.1);
    expect_exact(z, want_z, 4.0 * EPS, "rolling alone");
}

Test(cone_projection, tied_breakpoints)
{
    /* Three equal breakpoints (b = 2): y = (1 + 3 * 2) / 4 = 1.75 and every part
     * scaled by 0.875. Then two tied breakpoints at the root itself: cones 1
     * and 2 at b = 1, cone 3 at b = 3, x0 = -1: f(1) = 1 + 1 - (3 - 1) = 0, so
     * y = 1 with parts 1 and 2 exactly on their boundary, kept. Perturbing x0
     * by 1e-15 either way moves the result continuously (1-Lipschitz); and
     * Dykstra agrees. */
    double x[6] = {1, 2, 0, 0, 2, -2}, want[6] = {1.75, 1.75, 0, 0, 1.75, -1.75};
    fd_cone_project(x, 1.0, 1.0, 1.0);
    expect_exact(x, want, 4.0 * EPS, "three tied");
    double y[6] = {-1, 1, 0, 0, 1, 3}, want_y[6] = {1, 1, 0, 0, 1, 1};
    fd_cone_project(y, 1.0, 1.0, 1.0);
    expect_exact(y, want_y, 4.0 * EPS, "root on two tied breakpoints");
    for (int sign = -1; sign <= 1; sign += 2) {
        double v[6] = {-1 + sign * 1e-15, 1, 0, 0, 1, 3}, d[6];
        memcpy(d, v, sizeof d);
        fd_cone_project(v, 1.0, 1.0, 1.0);
        expect_exact(v, want_y, 2e-15, "perturbed");
        const double c[3] = {1.0, 1.0, 1.0};
        cr_assert(reference_dykstra(d, c) >= 0);
        expect_exact(v, d, 1e-13, "Dykstra");
    }
}

Test(cone_projection, very_large_and_very_small_magnitudes)
{
    /* The projection onto a cone is positively homogeneous, and scaling by
     * 2^k is exact: P(2^k x) = 2^k P(x) for k from -1000 (components near
     * 2^-1010, the squares far below DBL_MIN) to +1000 (the squares overflow),
     * where the rare path rescales. Every operation of the algorithm commutes
     * with 2^k, so the match is bit for bit (observed) except where a result
     * component of 2^k P(x) is subnormal (k = -1000: 3e-23 |x| observed); we
     * allow 2 eps |x|. */
    static const int ks[] = {-1000, -700, -460, -300, 300, 460, 700, 1000};
    rng r = {99};
    for (int n = 0; n < 2000; ++n) {
        sample s;
        make_sample(&r, n % 2 ? KIND_BOX : KIND_KNOWN, 2.0, &s);
        double p[6];
        project(&s, p);
        for (unsigned j = 0; j < sizeof ks / sizeof ks[0]; ++j) {
            double q[6];
            for (int k = 0; k < 6; ++k) {
                q[k] = ldexp(s.x[k], ks[j]);
            }
            fd_cone_project(q, s.c[0], s.c[1], s.c[2]);
            for (int k = 0; k < 6; ++k) {
                q[k] = ldexp(q[k], -ks[j]);
            }
            double e = distance6(q, p);
            cr_assert(e <= 2.0 * EPS * norm6(s.x), "2^%d: %g; " SAMPLE_FMT, ks[j], e, SAMPLE_ARGS(s, n));
        }
    }
    /* Subnormal components (3e-310, 4e-310): the rare path scales them up
     * exactly; the result's own subnormal rounding is 2^-1074 absolute. */
    double x[6] = {0, 3e-310, 4e-310, 0, 0, 0};
    fd_cone_project(x, 1.0, 1.0, 1.0);
    double want[6] = {2.5e-310, 1.5e-310, 2e-310, 0, 0, 0};
    expect_exact(x, want, 0x1p-1070, "subnormal");
    /* Huge and tiny finite coefficients: the same as INFINITY and 0 to far
     * below round-off (the cone of 1e300 is clamped at 2^400 inside, a subset,
     * so the result is feasible for 1e300 and within |x| 2^-199 of P). */
    double h[6] = {-1, 1, 2, 3, 4, 5}, h_inf[6];
    memcpy(h_inf, h, sizeof h);
    fd_cone_project(h, 1e300, 0.5, 1e300);
    fd_cone_project(h_inf, INFINITY, 0.5, INFINITY);
    expect_exact(h, h_inf, 4.0 * EPS * norm6(h), "huge coefficient");
    cr_assert(feasibility_violation(h, (const double[3]){1e300, 0.5, 1e300}) <= 0.0);
    double t[6] = {1, 1, 2, 3, 4, 5}, t_zero[6];
    memcpy(t_zero, t, sizeof t);
    fd_cone_project(t, 1e-300, 0.5, 1e-300);
    fd_cone_project(t_zero, 0.0, 0.5, 0.0);
    expect_exact(t, t_zero, 4.0 * EPS * norm6(t), "tiny coefficient");
}

Test(cone_projection, nan_or_infinite_input_gives_nan_everywhere)
{
    /* One NaN or infinite component anywhere, or a NaN or negative
     * coefficient: all six results NaN (the solver's finiteness check then
     * sees it in g_n whichever part it came from). No loop depends on the
     * data, so this cannot hang. */
    const double base[6] = {1, 0.5, -0.2, 0.01, 0.02, -0.003};
    const double bad[2] = {NAN, INFINITY};
    for (int b = 0; b < 2; ++b) {
        for (int k = 0; k < 6; ++k) {
            for (int way = 0; way < 2; ++way) {
                double x[6];
                memcpy(x, base, sizeof x);
                x[k] = b == 1 && way ? -bad[b] : bad[b];
                fd_cone_project(x, 0.5, 0.1, 0.05);
                for (int j = 0; j < 6; ++j) {
                    cr_assert(isnan(x[j]), "input %d = %g: output %d = %g", k, bad[b], j, x[j]);
                }
                memcpy(x, base, sizeof x);
                x[k] = bad[b];
                fd_cone_project_sequential(x, 0.5, 0.1, 0.05);
                for (int j = 0; j < 6; ++j) {
                    cr_assert(isnan(x[j]), "sequential: input %d = %g: output %d = %g", k, bad[b], j, x[j]);
                }
            }
        }
    }
    const double coefficients[4][3] = {{NAN, 0.1, 0.1}, {0.5, NAN, 0.1}, {0.5, 0.1, -1.0}, {-INFINITY, 0.1, 0.1}};
    for (int c = 0; c < 4; ++c) {
        double x[6];
        memcpy(x, base, sizeof x);
        fd_cone_project(x, coefficients[c][0], coefficients[c][1], coefficients[c][2]);
        for (int j = 0; j < 6; ++j) {
            cr_assert(isnan(x[j]), "coefficients %d: output %d = %g", c, j, x[j]);
        }
    }
}

/* ------------------------------------------------------------- single cone */

Test(cone_projection, single_cone_closed_form)
{
    /* Outside: y = (x0 + m a) / (1 + m^2), l scaled to m y. (1, (2, 0)), m = 1:
     * y = 1.5. (1, -3), n = 1, m = 0.5: y = 2.5 / 1.25 = 2, l = -1 (sign kept).
     * Inside: unchanged. Polar (x0 <= -m a): 0. m = 0: (max(x0, 0), 0);
     * m = inf: (max(x0, 0), l). NaN: NaN. */
    double x0 = 1, l[2] = {2, 0};
    fd_cone_project_single(&x0, l, 2, 1.0);
    cr_assert(fabs(x0 - 1.5) <= 2 * EPS && fabs(l[0] - 1.5) <= 4 * EPS && l[1] == 0.0);
    x0 = 1;
    double t = -3;
    fd_cone_project_single(&x0, &t, 1, 0.5);
    cr_assert(fabs(x0 - 2.0) <= 4 * EPS && fabs(t + 1.0) <= 4 * EPS, "%g %g", x0, t);
    x0 = 2, l[0] = 0.3, l[1] = -0.4;
    fd_cone_project_single(&x0, l, 2, 0.5);
    cr_assert(x0 == 2 && l[0] == 0.3 && l[1] == -0.4);
    x0 = -1, l[0] = 0.3, l[1] = -0.4;
    fd_cone_project_single(&x0, l, 2, 2.0);
    cr_assert(x0 == 0 && l[0] == 0 && l[1] == 0);
    x0 = 1, l[0] = 0.3, l[1] = -0.4;
    fd_cone_project_single(&x0, l, 2, 0.0);
    cr_assert(x0 == 1 && l[0] == 0 && l[1] == 0);
    x0 = -1, l[0] = 0.3, l[1] = -0.4;
    fd_cone_project_single(&x0, l, 2, INFINITY);
    cr_assert(x0 == 0 && l[0] == 0.3 && l[1] == -0.4);
    x0 = NAN, l[0] = 0.3, l[1] = -0.4;
    fd_cone_project_single(&x0, l, 2, 0.5);
    cr_assert(isnan(x0) && isnan(l[0]) && isnan(l[1]));
}

Test(cone_projection, single_cone_agrees_with_the_wedge_picture)
{
    /* fd_cone_project_single against reference_project_cone on random points
     * at scales 10^-150..10^150 (the reference squares its input): TOL |x|. */
    rng r = {5};
    for (int n = 0; n < 4000; ++n) {
        int i = n % 3;
        double m = random_coefficient(&r, i, 4.0);
        double x[6] = {0}, ref[6];
        double scale = pow(10.0, uniform(&r, -150.0, 150.0));
        x[0] = uniform(&r, -1.0, 1.0) * scale;
        for (int k = 0; k < part_length[i]; ++k) {
            x[part_start[i] + k] = uniform(&r, -1.0, 1.0) * scale;
        }
        memcpy(ref, x, sizeof x);
        reference_project_cone(ref, i, m);
        fd_cone_project_single(&x[0], &x[part_start[i]], part_length[i], m);
        cr_assert(distance6(x, ref) <= TOL * norm6(ref) + TOL * scale,
                  "cone %d, m = %g, scale %g: got (%.17g, %.17g, %.17g, %.17g, %.17g, %.17g) "
                  "ref (%.17g, %.17g, %.17g, %.17g, %.17g, %.17g)",
                  i, m, scale, x[0], x[1], x[2], x[3], x[4], x[5], ref[0], ref[1], ref[2], ref[3], ref[4], ref[5]);
    }
}

/* ------------------------------------------------ sequential (Chrono's way) */

Test(cone_projection, sequential_differs_where_two_cones_are_active)
{
    /* x = (1, 2, 0, 2, 0, 0), mu = rho = 1, sigma free. Exact: both cones
     * active, y = (1 + 2 + 2) / 3 = 5/3, P = (5/3, 5/3, 0, 5/3, 0, 0),
     * |x - P|^2 = (2/3)^2 + 2 (1/3)^2 = 2/3. Sequential: the sliding cone
     * first, g_n = (1 + 2) / 2 = 1.5, g_u = 1.5; then rolling with g_n = 1.5:
     * g_n = (1.5 + 2) / 2 = 1.75, t_u = 1.75: (1.75, 1.5, 0, 1.75, 0, 0),
     * |x - P_seq|^2 = 0.75^2 + 0.5^2 + 0.25^2 = 0.875 > 2/3: the sliding force
     * was shrunk for a g_n that then grew. Feasible all the same. */
    const double x[6] = {1, 2, 0, 2, 0, 0};
    double e[6], q[6];
    memcpy(e, x, sizeof e);
    memcpy(q, x, sizeof q);
    fd_cone_project(e, 1.0, 1.0, INFINITY);
    fd_cone_project_sequential(q, 1.0, 1.0, INFINITY);
    const double want_e[6] = {5.0 / 3.0, 5.0 / 3.0, 0, 5.0 / 3.0, 0, 0};
    const double want_q[6] = {1.75, 1.5, 0, 1.75, 0, 0};
    expect_exact(e, want_e, 4.0 * EPS, "exact");
    expect_exact(q, want_q, 4.0 * EPS, "sequential");
    double de = distance6(x, e), dq = distance6(x, q);
    cr_assert(fabs(de - sqrt(2.0 / 3.0)) <= 4.0 * EPS && fabs(dq - sqrt(0.875)) <= 4.0 * EPS, "%.17g %.17g", de, dq);
    cr_assert(de < dq - 0.1);
    cr_assert(feasibility_violation(q, (const double[3]){1.0, 1.0, INFINITY}) <= 0.0);
}

Test(cone_projection, exact_is_never_farther_than_sequential_which_is_feasible)
{
    /* The sequential result is in C (each single projection only raises g_n,
     * which loosens the cones already met), so the exact projection, the
     * nearest point of C, is at least as close: |x - P| <= |x - P_seq| + TOL |x|.
     * Where x violates one cone only, the two coincide (to TOL |x|). Counts the
     * points where the sequential one is farther by more than 1e-9 |x|. */
    int farther = 0, single = 0;
    FOR_EACH_SAMPLE(7, 4.0, s, n) {
        double p[6], q[6];
        project(&s, p);
        memcpy(q, s.x, sizeof q);
        fd_cone_project_sequential(q, s.c[0], s.c[1], s.c[2]);
        double scale = norm6(s.x);
        cr_assert(feasibility_violation(q, s.c) <= TOL * scale, "sequential infeasible; " SAMPLE_FMT,
                  SAMPLE_ARGS(s, n));
        double dp = distance6(s.x, p), dq = distance6(s.x, q);
        cr_assert(dp <= dq + TOL * scale, "exact %g > sequential %g; " SAMPLE_FMT, dp, dq, SAMPLE_ARGS(s, n));
        farther += dq > dp + 1e-9 * scale;
        int violated = 0;
        for (int i = 0; i < 3; ++i) {
            violated += s.c[i] < INFINITY && part_norm(s.x, i) > s.c[i] * (s.x[0] > 0 ? s.x[0] : 0.0);
        }
        if (violated == 1 && s.x[0] >= 0.0) {
            ++single;
            cr_assert(distance6(p, q) <= TOL * scale, "one cone violated but they differ; " SAMPLE_FMT,
                      SAMPLE_ARGS(s, n));
        }
    }
    cr_log_info("sequential farther than exact (> 1e-9 |x|) on %d of %d points; one cone violated on %d", farther,
                KIND_COUNT * SAMPLES_PER_KIND, single);
    cr_assert(farther > KIND_COUNT * SAMPLES_PER_KIND / 10);
}
