/* Euclidean projection onto the friction cone of one complementarity contact:
 * the intersection of the sliding, rolling and spinning cones of Tasora &
 * Anitescu, Eq. (31), computed exactly by their App. C. Used by the
 * complementarity (DEM-C) stepper once per contact per solver iteration.
 * Derivation, edge cases and cost: the top of cone_projection.c and
 * docs/models/cone-projection.md.
 *
 * The set, for coefficients in [0, INFINITY]:
 *   g_n >= 0,  |(g_u, g_w)| <= mu g_n,  |(t_u, t_w)| <= rho g_n,  |t_n| <= sigma g_n,
 * where a coefficient 0 forces its part to 0 and INFINITY leaves it free (the
 * limits of the cones as the coefficient goes to 0 or to infinity); g_n >= 0
 * always holds (the contact never pulls). A NaN anywhere in x, an infinite
 * component of x, or a NaN or negative coefficient makes all six results NaN.
 *
 * Must not touch: the world, the steppers, files (the steppers call the laws). */
#ifndef FD_CONTACT_CONE_PROJECTION_H
#define FD_CONTACT_CONE_PROJECTION_H

/* Reaction of one contact in the order of Tasora & Anitescu App. C:
 * x = (gamma_n, gamma_u, gamma_w, tau_u, tau_w, tau_n). */
enum { FD_CONE_N = 0, FD_CONE_U = 1, FD_CONE_W = 2, FD_CONE_TU = 3, FD_CONE_TW = 4, FD_CONE_TN = 5 };

/* Euclidean projection of x onto the intersection of the three cones of Eq. (31)
 *   |(g_u, g_w)| <= mu g_n,  |(t_u, t_w)| <= rho g_n,  |t_n| <= sigma g_n
 * (exact: App. C, the convex piecewise-quadratic psi on its breakpoints). A
 * coefficient 0 collapses its cone onto the axis (that part becomes 0 for
 * every g_n), INFINITY removes it (unconstrained part). In place. */
void fd_cone_project(double x[6], double mu, double rho, double sigma);

/* Chrono's way, for comparison: project onto the sliding cone, then the rolling
 * cone with the new g_n, then the spinning cone with the newer g_n (sequential,
 * not the projection onto the intersection). In place. */
void fd_cone_project_sequential(double x[6], double mu, double rho, double sigma);

/* Projection onto one second-order cone |l| <= mu x0 with l of dimension
 * n (1 or 2): x = (x0, l). In place. Exposed for the solvers and tests. */
void fd_cone_project_single(double* x0, double* l, int n, double mu);

#endif
