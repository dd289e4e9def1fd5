/* Exact Euclidean projection onto the intersection of the sliding, rolling and
 * spinning cones (Tasora & Anitescu, Eq. 31 and App. C), and the sequential
 * projection of Chrono for comparison. docs/models/cone-projection.md has the
 * same derivation with the reasons for each choice.
 *
 * The problem. x = (x0, l_1, l_2, l_3) with x0 = g_n, l_1 = (g_u, g_w),
 * l_2 = (t_u, t_w), l_3 = t_n; a_i = |l_i|; m_i = (mu, rho, sigma). Find
 *
 *     P(x) = argmin |x - p|  over  C = { p0 >= 0, |q_i| <= m_i p0 (i = 1, 2, 3) }.
 *
 * 1. Inner problem (App. C's collinearity). For a fixed p0 = y >= 0 the
 *    distance separates: q_i is the point of the disc |q| <= m_i y nearest to
 *    l_i, that is l_i itself if a_i <= m_i y, else l_i m_i y / a_i (collinear
 *    with l_i; App. C prints "t_i mu_i x0 / |l_i|" without the factor l_i).
 *    The squared residual of cone i is max(0, a_i - m_i y)^2.
 *
 * 2. Outer problem. P(x) has p0 = y*, the minimiser over y >= 0 of
 *
 *     psi(y) = (y - x0)^2 + sum_i max(0, a_i - m_i y)^2.
 *
 *    App. C leaves out y >= 0, but it is needed: without it x = (-1, 0, ...)
 *    would give y = -1 / (1 + sum m_i^2) < 0, outside every cone. (App. C
 *    writes the terms as (m_i y / a_i - 1)^2 a_i^2, undefined for a_i = 0; the
 *    form above is the same for a_i > 0 and right for a_i = 0.) Each term is
 *    convex and C^1, so psi is, and
 *
 *     f(y) = psi'(y) / 2 = y - x0 - sum_i m_i max(0, a_i - m_i y)
 *
 *    is continuous, piecewise linear and increasing with slope >= 1: y* = 0 if
 *    f(0) >= 0, else the unique root of f. (No search for the smallest of the
 *    piece minima is needed, as App. C does: the sign of f says on which side
 *    of a breakpoint the minimum lies.)
 *
 * 3. Pieces. f has kinks at the breakpoints b_i = a_i / m_i. Between them the
 *    active set S = { i : b_i > y } is fixed and f(y) = y (1 + sum_S m_i^2)
 *    - (x0 + sum_S m_i a_i), whose root is
 *
 *     y_S = (x0 + sum_S m_i a_i) / (1 + sum_S m_i^2).
 *
 * 4. The walk, downwards. Sort the breakpoints b_(1) >= b_(2) >= b_(3).
 *    Start on the top piece, S empty: y = x0. While y < b_(k) (then
 *    f(b_(k)) = L(b_(k)) > 0 for the affine L of the current piece, so the
 *    root lies below b_(k)), add cone (k) to S and take y = y_S. Stop when
 *    y >= b_(k): L and f agree on [b_(k), b_(k-1)] (b_(0) = +inf),
 *    L(b_(k-1)) > 0 by the previous step, so y is in the piece and is the
 *    root of f. After the last
 *    breakpoint, y < 0 means f(0) > 0: y* = 0. At most 4 pieces, 3 additions.
 *    Starting at the top keeps the common case exact: x inside C stops at once
 *    with y = x0 and no arithmetic (identity, bit for bit). That case (every
 *    contact that sticks) is tested first, on the squares, without a square
 *    root or a division. An equivalent without the sort: S = { i : f(b_i) > 0 }
 *    and one division; it measured the same cost (within 3%), so we keep
 *    App. C's walk.
 *
 * 5. The result: p0 = y*, and each l_i is kept or scaled by m_i y* / a_i
 *    according to the comparison a_i > m_i y* itself, not the walk's set: the
 *    result is then feasible to round-off even where round-off decided a near
 *    tie of y* with b_i the other way, and both choices give the same point to
 *    round-off there (f is continuous).
 *
 * Edge cases.
 *  - m_i = 0: cone i is { q_i = 0 } (the limit of the cones as m_i -> 0); its
 *    term in f is 0 (slope 0, breakpoint 0: adding it is a no-op) and l_i is
 *    scaled by m_i y / a_i = 0.
 *  - m_i = INFINITY: { p0 >= 0 }, l_i free (the limit as m_i -> inf); slope
 *    0 in f, l_i kept.
 *  - a_i = 0: breakpoint 0, never active for y >= 0; l_i = 0 kept.
 *  - Ties of breakpoints: an empty piece, crossed by the walk (its root lies
 *    above it, as f > 0 there); no special case.
 *  - x inside C: identity (x0 >= every b_i). x in the polar cone
 *    C° = { z0 + sum_i m_i |z_i| <= 0 } (the Minkowski sum of the polars
 *    { z0 <= -m_i |z_i| } of the single cones): f(0) = -(x0 + sum m_i a_i)
 *    >= 0, so P(x) = 0. x = 0: 0.
 *  - g_n < 0 with l != 0: the apex if x0 + sum m_i a_i <= 0 (polar), else a
 *    point with p0 > 0 (the walk ends with a positive root).
 *  - Magnitudes: the fast path needs |x|^2 in [2^-900, 2^900] (no square
 *    overflows, none of the norms underflows relative to |x|). Outside it, x is
 *    scaled by a power of 2 (exact; P(s x) = s P(x) for s > 0 as C is a cone),
 *    projected and scaled back. Finite coefficients above 2^400 are clamped
 *    there (m_i^2 and m_i a_i stay finite): the cone shrinks to a subset, so
 *    the result is still feasible, and moves by at most |x| 2^-199.
 *  - NaN in x, an infinite component, a NaN or negative coefficient: all six
 *    results NaN (one rare branch; no data-dependent loop, so nothing hangs).
 *
 * Cost: 2 square roots, at most 9 divisions, 3 compare-exchanges, no
 * allocation, no loop over more than 3 breakpoints; about 15 ns, 5 ns for a
 * point inside (bench/cone_projection_cost.c, bench/README.md).
 *
 * Must not touch: the world, the steppers, files (the steppers call the laws). */
#include "contact/cone_projection.h"

#include <math.h>

#define RANGE_LO 0x1p-900 /* |x|^2 in [RANGE_LO, RANGE_HI]: the fast path */
#define RANGE_HI 0x1p+900
#define SLOPE_MAX 0x1p+400 /* finite coefficients above this are clamped */

/* The slope of a cone in f: 0 for a zero or an infinite coefficient (neither
 * enters psi), the coefficient clamped at SLOPE_MAX otherwise. */
static inline double slope_of(double coefficient)
{
    if (coefficient == INFINITY) {
        return 0.0;
    }
    return coefficient < SLOPE_MAX ? coefficient : SLOPE_MAX;
}

/* The factor that takes l_i (norm a) into the disc of radius slope y (step 5);
 * 1 for an infinite coefficient. */
static inline double shrink_factor(double a, double coefficient, double slope, double y)
{
    if (coefficient == INFINITY) {
        return 1.0;
    }
    double radius = slope * y;
    return a > radius ? radius / a : 1.0;
}

static inline void fill_nan(double* v, int n)
{
    for (int k = 0; k < n; ++k) {
        v[k] = NAN;
    }
}

/* Steps 3-5 for three cones; x in the fast range, coefficients >= 0. */
static void project_three(double x[6], double s1, double s2, const double coefficient[3])
{
    const double x0 = x[FD_CONE_N];
    /* x inside C, the common case once contacts stick: the identity, found
     * without a square root or a division (the walk would also stop at once). */
    if (x0 >= 0.0 && s1 <= (coefficient[0] * x0) * (coefficient[0] * x0) &&
        s2 <= (coefficient[1] * x0) * (coefficient[1] * x0) &&
        x[FD_CONE_TN] * x[FD_CONE_TN] <= (coefficient[2] * x0) * (coefficient[2] * x0)) {
        return;
    }
    const double a[3] = {sqrt(s1), sqrt(s2), fabs(x[FD_CONE_TN])};
    double m[3], b[3];
    for (int i = 0; i < 3; ++i) {
        m[i] = slope_of(coefficient[i]);
        b[i] = m[i] > 0.0 ? a[i] / m[i] : 0.0;
    }
    /* Sort the breakpoints downwards (three compare-exchanges). */
    int o0 = 0, o1 = 1, o2 = 2, t;
    if (b[o0] < b[o1]) { t = o0; o0 = o1; o1 = t; }
    if (b[o1] < b[o2]) { t = o1; o1 = o2; o2 = t; }
    if (b[o0] < b[o1]) { t = o0; o0 = o1; o1 = t; }
    const int order[3] = {o0, o1, o2};
    /* Walk down the pieces (step 4): y is the root of the current piece's
     * affine f; while it lies below the piece's lower breakpoint, that cone
     * becomes active. */
    double y = x0, numerator = x0, denominator = 1.0;
    for (int k = 0; k < 3; ++k) {
        int i = order[k];
        if (y >= b[i]) {
            break;
        }
        numerator += m[i] * a[i];
        denominator += m[i] * m[i];
        y = numerator / denominator;
    }
    if (y < 0.0) {
        y = 0.0;
    }
    x[FD_CONE_N] = y;
    double f1 = shrink_factor(a[0], coefficient[0], m[0], y);
    double f2 = shrink_factor(a[1], coefficient[1], m[1], y);
    double f3 = shrink_factor(a[2], coefficient[2], m[2], y);
    x[FD_CONE_U] *= f1;
    x[FD_CONE_W] *= f1;
    x[FD_CONE_TU] *= f2;
    x[FD_CONE_TW] *= f2;
    x[FD_CONE_TN] *= f3;
}

/* The rare path: invalid input (NaN result), zero, or a rescaling. */
static void project_three_rare(double x[6], const double coefficient[3])
{
    double big = 0.0;
    for (int k = 0; k < 6; ++k) {
        double v = fabs(x[k]);
        if (!isfinite(v)) {
            fill_nan(x, 6);
            return;
        }
        big = v > big ? v : big;
    }
    if (!(coefficient[0] >= 0.0 && coefficient[1] >= 0.0 && coefficient[2] >= 0.0)) {
        fill_nan(x, 6);
        return;
    }
    if (big == 0.0) {
        return; /* the apex is in C */
    }
    int e = ilogb(big); /* x 2^-e has its largest component in [1, 2) */
    for (int k = 0; k < 6; ++k) {
        x[k] = ldexp(x[k], -e);
    }
    double s1 = x[1] * x[1] + x[2] * x[2], s2 = x[3] * x[3] + x[4] * x[4];
    project_three(x, s1, s2, coefficient);
    for (int k = 0; k < 6; ++k) {
        x[k] = ldexp(x[k], e);
    }
}

void fd_cone_project(double x[6], double mu, double rho, double sigma)
{
    const double coefficient[3] = {mu, rho, sigma};
    double s1 = x[FD_CONE_U] * x[FD_CONE_U] + x[FD_CONE_W] * x[FD_CONE_W];
    double s2 = x[FD_CONE_TU] * x[FD_CONE_TU] + x[FD_CONE_TW] * x[FD_CONE_TW];
    double norm2 = x[FD_CONE_N] * x[FD_CONE_N] + s1 + s2 + x[FD_CONE_TN] * x[FD_CONE_TN];
    /* False for NaN and infinities too: those go to the rare path. */
    if (norm2 >= RANGE_LO && norm2 <= RANGE_HI && mu >= 0.0 && rho >= 0.0 && sigma >= 0.0) {
        project_three(x, s1, s2, coefficient);
    } else {
        project_three_rare(x, coefficient);
    }
}

/* One cone, x in the fast range, coefficient >= 0: the walk of one breakpoint. */
static void project_one(double* x0, double* l, int n, double s, double coefficient)
{
    if (*x0 >= 0.0 && s <= (coefficient * *x0) * (coefficient * *x0)) {
        return; /* inside: the identity (as in project_three) */
    }
    double a = n == 2 ? sqrt(s) : fabs(l[0]);
    double m = slope_of(coefficient);
    double b = m > 0.0 ? a / m : 0.0;
    double y = *x0;
    if (y < b) {
        y = (*x0 + m * a) / (1.0 + m * m);
    }
    if (y < 0.0) {
        y = 0.0;
    }
    *x0 = y;
    double factor = shrink_factor(a, coefficient, m, y);
    for (int k = 0; k < n; ++k) {
        l[k] *= factor;
    }
}

void fd_cone_project_single(double* x0, double* l, int n, double mu)
{
    double s = 0.0;
    for (int k = 0; k < n; ++k) {
        s += l[k] * l[k];
    }
    double norm2 = *x0 * *x0 + s;
    if (norm2 >= RANGE_LO && norm2 <= RANGE_HI && mu >= 0.0) {
        project_one(x0, l, n, s, mu);
        return;
    }
    /* Rare path, as project_three_rare. */
    double big = fabs(*x0);
    int finite = isfinite(*x0);
    for (int k = 0; k < n; ++k) {
        finite = finite && isfinite(l[k]);
        big = fabs(l[k]) > big ? fabs(l[k]) : big;
    }
    if (!finite || !(mu >= 0.0)) {
        *x0 = NAN;
        fill_nan(l, n);
        return;
    }
    if (big == 0.0) {
        return;
    }
    int e = ilogb(big);
    *x0 = ldexp(*x0, -e);
    s = 0.0;
    for (int k = 0; k < n; ++k) {
        l[k] = ldexp(l[k], -e);
        s += l[k] * l[k];
    }
    project_one(x0, l, n, s, mu);
    *x0 = ldexp(*x0, e);
    for (int k = 0; k < n; ++k) {
        l[k] = ldexp(l[k], e);
    }
}

/* Each single projection can only raise g_n (from outside a cone,
 * y_S - x0 = m (a - m x0) / (1 + m^2) > 0, or up to 0 from the polar cone), and
 * a raised g_n loosens the cones already satisfied: the result is feasible,
 * but it is not the nearest point of C (docs/models/cone-projection.md). */
void fd_cone_project_sequential(double x[6], double mu, double rho, double sigma)
{
    fd_cone_project_single(&x[FD_CONE_N], &x[FD_CONE_U], 2, mu);
    fd_cone_project_single(&x[FD_CONE_N], &x[FD_CONE_TU], 2, rho);
    fd_cone_project_single(&x[FD_CONE_N], &x[FD_CONE_TN], 1, sigma);
    if (isnan(x[FD_CONE_N])) {
        fill_nan(x, 6); /* as fd_cone_project: all six, whichever part was NaN */
    }
}
