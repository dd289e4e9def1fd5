/* The cone complementarity problem's matrix-free products (N x through the
 * bodies, never built), its residual, and the three iterative solvers:
 * Jacobi and Gauss-Seidel (Tasora & Anitescu Eq. 46) and APGD (Nesterov's
 * accelerated projected gradient with restart). Reads the problem stepper.c
 * built; writes only the reactions and the statistics.
 *
 * Must not touch: the engine, the penalty stepper, files, ranks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "complementarity/complementarity_internal.h"

/* ---------------------------------------------------------------- products */

/* v = v* + M^-1 D x, for all bodies; deterministic (contacts in order). */
void fd_ccp_velocities_from(const fd_world* world, fd_complementarity* s, const double* x)
{
    int n = world->body_count;
    memset(s->impulse, 0, (size_t)n * sizeof *s->impulse);
    memset(s->angular_impulse, 0, (size_t)n * sizeof *s->angular_impulse);
    for (int c = 0; c < s->contact_count; ++c) {
        const nsc_contact* row = &s->contacts[c];
        fd_vec3 impulse, angular_i, angular_j;
        contact_impulses(row, x + (size_t)ROWS * (size_t)c, &impulse, &angular_i, &angular_j);
        if (row->body_i >= 0) {
            s->impulse[row->body_i] = fd_v3_add(s->impulse[row->body_i], impulse);
            s->angular_impulse[row->body_i] = fd_v3_add(s->angular_impulse[row->body_i], angular_i);
        }
        if (row->body_j >= 0) {
            s->impulse[row->body_j] = fd_v3_sub(s->impulse[row->body_j], impulse);
            s->angular_impulse[row->body_j] = fd_v3_add(s->angular_impulse[row->body_j], angular_j);
        }
    }
    const double* box_x = x + (size_t)ROWS * (size_t)s->contact_count;
    for (int k = 0; k < s->box_count; ++k) {
        const nsc_box* box = &s->boxes[k];
        s->impulse[box->body] = fd_v3_mul_add(s->impulse[box->body], box_x[k], box->axis);
    }
#pragma omp parallel for schedule(static) num_threads(world->def.thread_count) if (world->def.thread_count > 1)
    for (int b = 0; b < n; ++b) {
        fd_vec3 dv, dw;
        apply_inverse_mass(&s->bodies[b], s->impulse[b], s->angular_impulse[b], &dv, &dw);
        s->velocity[b] = fd_v3_add(s->free_velocity[b], dv);
        s->angular[b] = fd_v3_add(s->free_angular[b], dw);
    }
}

/* gradient = N x + r + C x = D^T v(x) + b + C x, from the velocities of x. */
static void gradient_at(const fd_world* world, fd_complementarity* s, const double* x, double* gradient)
{
    fd_ccp_velocities_from(world, s, x);
#pragma omp parallel for schedule(static) num_threads(world->def.thread_count) if (world->def.thread_count > 1)
    for (int c = 0; c < s->contact_count; ++c) {
        const nsc_contact* row = &s->contacts[c];
        double* gc = gradient + (size_t)ROWS * (size_t)c;
        const double* xc = x + (size_t)ROWS * (size_t)c;
        contact_velocity(row, s->velocity, s->angular, gc);
        gc[0] += row->b_n;
        for (int k = 0; k < ROWS; ++k) {
            gc[k] += row->compliance[k] * xc[k];
        }
    }
    double* box_gradient = gradient + (size_t)ROWS * (size_t)s->contact_count;
    for (int k = 0; k < s->box_count; ++k) {
        box_gradient[k] = fd_v3_dot(s->boxes[k].axis, s->velocity[s->boxes[k].body]);
    }
}

/* The residual of x given its gradient (see the head of the file), m/s. */
static double residual_of(const fd_complementarity* s, const double* x, const double* gradient)
{
    double worst = 0.0;
    for (int c = 0; c < s->contact_count; ++c) {
        const nsc_contact* row = &s->contacts[c];
        const double* xc = x + (size_t)ROWS * (size_t)c;
        const double* gc = gradient + (size_t)ROWS * (size_t)c;
        if (!(row->step > 0.0)) {
            continue;
        }
        double trial[ROWS];
        for (int k = 0; k < ROWS; ++k) {
            trial[k] = xc[k] - row->step * gc[k];
        }
        project_contact(row, trial);
        double sum = 0.0;
        for (int k = 0; k < ROWS; ++k) {
            double d = xc[k] - trial[k];
            sum += d * d;
        }
        worst = fmax(worst, sqrt(sum) / row->step);
    }
    const double* box_x = x + (size_t)ROWS * (size_t)s->contact_count;
    const double* box_g = gradient + (size_t)ROWS * (size_t)s->contact_count;
    for (int k = 0; k < s->box_count; ++k) {
        const nsc_box* box = &s->boxes[k];
        if (!(box->step > 0.0)) {
            continue;
        }
        double trial = box_x[k] - box->step * box_g[k];
        project_box(box, &trial);
        worst = fmax(worst, fabs(box_x[k] - trial) / box->step);
    }
    return worst;
}

static double dot(const double* a, const double* b, int n)
{
    double sum = 0.0;
    for (int k = 0; k < n; ++k) {
        sum += a[k] * b[k];
    }
    return sum;
}

/* ---------------------------------------------------------------- solvers */

static void record(fd_complementarity* s, int iteration, double residual)
{
    if (iteration < s->residual_capacity) {
        s->residual_history[iteration] = residual;
    }
}

/* Projected x - omega g_c gradient per block, relaxed by lambda (Eq. 46, K = 0). */
static void jacobi_update(fd_complementarity* s, const fd_complementarity_def* settings, int threads)
{
    double omega = settings->omega, lambda = settings->lambda;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (int c = 0; c < s->contact_count; ++c) {
        const nsc_contact* row = &s->contacts[c];
        double* xc = s->x + (size_t)ROWS * (size_t)c;
        const double* gc = s->gradient + (size_t)ROWS * (size_t)c;
        double trial[ROWS];
        for (int k = 0; k < ROWS; ++k) {
            trial[k] = xc[k] - omega * row->step * gc[k];
        }
        project_contact(row, trial);
        for (int k = 0; k < ROWS; ++k) {
            xc[k] = lambda * trial[k] + (1.0 - lambda) * xc[k];
        }
    }
    double* box_x = s->x + (size_t)ROWS * (size_t)s->contact_count;
    const double* box_g = s->gradient + (size_t)ROWS * (size_t)s->contact_count;
    for (int k = 0; k < s->box_count; ++k) {
        double trial = box_x[k] - omega * s->boxes[k].step * box_g[k];
        project_box(&s->boxes[k], &trial);
        box_x[k] = lambda * trial + (1.0 - lambda) * box_x[k];
    }
}

/* The residual of the current x, its gradient (and the bodies' velocities,
 * s->velocity) computed from x anew. */
static double residual_now(const fd_world* world, fd_complementarity* s)
{
    gradient_at(world, s, s->x, s->gradient);
    return residual_of(s, s->x, s->gradient);
}

void fd_ccp_solve_jacobi(const fd_world* world, fd_complementarity* s, const fd_complementarity_def* settings)
{
    int threads = world->def.thread_count;
    double residual = residual_now(world, s);
    int iteration = 0;
    while (iteration < settings->max_iterations && residual > settings->tolerance) {
        jacobi_update(s, settings, threads);
        residual = residual_now(world, s);
        record(s, iteration, residual);
        ++iteration;
    }
    s->stats.iterations = iteration;
    s->stats.residual = residual;
}

/* Gauss-Seidel: contacts in order, each from the newest body velocities, its
 * change applied to the bodies at once (Eq. 46 with K the lower triangle). */
void fd_ccp_solve_gauss_seidel(const fd_world* world, fd_complementarity* s, const fd_complementarity_def* settings)
{
    double omega = settings->omega, lambda = settings->lambda;
    double residual = residual_now(world, s); /* sets s->velocity from x */
    int iteration = 0;
    while (iteration < settings->max_iterations && residual > settings->tolerance) {
        for (int c = 0; c < s->contact_count; ++c) {
            const nsc_contact* row = &s->contacts[c];
            double* xc = s->x + (size_t)ROWS * (size_t)c;
            double velocity[ROWS], trial[ROWS], change[ROWS];
            contact_velocity(row, s->velocity, s->angular, velocity);
            velocity[0] += row->b_n;
            for (int k = 0; k < ROWS; ++k) {
                trial[k] = xc[k] - omega * row->step * (velocity[k] + row->compliance[k] * xc[k]);
            }
            project_contact(row, trial);
            for (int k = 0; k < ROWS; ++k) {
                double next = lambda * trial[k] + (1.0 - lambda) * xc[k];
                change[k] = next - xc[k];
                xc[k] = next;
            }
            fd_vec3 impulse, angular_i, angular_j, dv, dw;
            contact_impulses(row, change, &impulse, &angular_i, &angular_j);
            if (row->body_i >= 0) {
                apply_inverse_mass(&s->bodies[row->body_i], impulse, angular_i, &dv, &dw);
                s->velocity[row->body_i] = fd_v3_add(s->velocity[row->body_i], dv);
                s->angular[row->body_i] = fd_v3_add(s->angular[row->body_i], dw);
            }
            if (row->body_j >= 0) {
                apply_inverse_mass(&s->bodies[row->body_j], fd_v3_neg(impulse), angular_j, &dv, &dw);
                s->velocity[row->body_j] = fd_v3_add(s->velocity[row->body_j], dv);
                s->angular[row->body_j] = fd_v3_add(s->angular[row->body_j], dw);
            }
        }
        double* box_x = s->x + (size_t)ROWS * (size_t)s->contact_count;
        for (int k = 0; k < s->box_count; ++k) {
            const nsc_box* box = &s->boxes[k];
            double velocity = fd_v3_dot(box->axis, s->velocity[box->body]);
            double trial = box_x[k] - omega * box->step * velocity;
            project_box(box, &trial);
            double next = lambda * trial + (1.0 - lambda) * box_x[k];
            fd_vec3 dv, dw;
            apply_inverse_mass(&s->bodies[box->body], fd_v3_scale(next - box_x[k], box->axis), fd_v3(0, 0, 0), &dv,
                               &dw);
            s->velocity[box->body] = fd_v3_add(s->velocity[box->body], dv);
            box_x[k] = next;
        }
        /* The residual from exact velocities (the sweep's are exact too, but
         * recomputing keeps round-off from accumulating over iterations). */
        residual = residual_now(world, s);
        record(s, iteration, residual);
        ++iteration;
    }
    s->stats.iterations = iteration;
    s->stats.residual = residual;
}

/* The product (N + C) p without r: the gradient at p minus the gradient at 0. */
static void apply_operator(const fd_world* world, fd_complementarity* s, const double* p, double* out,
                           const double* gradient_at_zero)
{
    gradient_at(world, s, p, out);
    for (int k = 0; k < s->unknowns; ++k) {
        out[k] -= gradient_at_zero[k];
    }
}

/* Accelerated projected gradient descent (Nesterov) with adaptive step and
 * restart, after Mazhar, Heyn, Negrut & Tasora, ACM TOG 34 (2015) Alg. 2. It
 * minimizes Eq. (42), f(x) = x^T (N + C) x / 2 + r^T x over Y. */
void fd_ccp_solve_apgd(const fd_world* world, fd_complementarity* s, const fd_complementarity_def* settings)
{
    int count = s->unknowns;
    double* x = s->x;
    double* y = s->y;
    double* previous = s->previous;
    double* best = s->best;
    double* g = s->gradient;
    double* r = s->scratch; /* the gradient at 0: r of Eq. (39); f(x) = x^T (g(x) + r) / 2 */
    /* r = gradient at x = 0 */
    memset(y, 0, (size_t)count * sizeof *y);
    gradient_at(world, s, y, r);
    /* The gradient at x and its residual: x may already solve it (warm start). */
    gradient_at(world, s, x, g);
    double residual = residual_of(s, x, g);
    double best_residual = residual;
    memcpy(best, x, (size_t)count * sizeof *best);
    int iteration = 0;
    if (residual <= settings->tolerance || count == 0) {
        s->stats.iterations = 0;
        s->stats.residual = residual;
        return;
    }
    /* Lipschitz estimate L = |A (x - z)| / |x - z| for a nearby z. */
    double* z = previous;
    for (int k = 0; k < count; ++k) {
        z[k] = x[k] + 1e-3 * (fabs(x[k]) + 1e-12);
    }
    double* az = y; /* scratch */
    for (int k = 0; k < count; ++k) {
        z[k] -= x[k];
    }
    apply_operator(world, s, z, az, r);
    double lipschitz = sqrt(dot(az, az, count) / fmax(dot(z, z, count), 1e-300));
    if (!(lipschitz > 0.0) || !isfinite(lipschitz)) {
        lipschitz = 1.0;
    }
    double t = 1.0 / lipschitz;
    double theta = 1.0;
    memcpy(y, x, (size_t)count * sizeof *y);
    memcpy(previous, x, (size_t)count * sizeof *previous);
    double* trial = s->x; /* x holds the newest iterate */
    double* gy = g;       /* gradient at y */
    /* gradient at y (= x now) already in g */
    double* gx = s->gradient_new;
    double* y_saved = s->saved;
    double* g_previous = s->gradient_previous;
    memcpy(g_previous, gy, (size_t)count * sizeof *g_previous);
    while (iteration < settings->max_iterations) {
        /* f(y) = 1/2 y^T (gy + r) */
        double f_y = 0.5 * dot(y, gy, count) + 0.5 * dot(y, r, count);
        memcpy(y_saved, y, (size_t)count * sizeof *y_saved);
        for (;;) {
            for (int k = 0; k < count; ++k) {
                trial[k] = y_saved[k] - t * gy[k];
            }
            for (int c = 0; c < s->contact_count; ++c) {
                project_contact(&s->contacts[c], trial + (size_t)ROWS * (size_t)c);
            }
            for (int k = 0; k < s->box_count; ++k) {
                project_box(&s->boxes[k], trial + (size_t)ROWS * (size_t)s->contact_count + k);
            }
            gradient_at(world, s, trial, gx);
            double f_x = 0.5 * dot(trial, gx, count) + 0.5 * dot(trial, r, count);
            double bound = f_y;
            double step_sq = 0.0;
            for (int k = 0; k < count; ++k) {
                double d = trial[k] - y_saved[k];
                bound += gy[k] * d;
                step_sq += d * d;
            }
            bound += 0.5 * lipschitz * step_sq;
            if (f_x <= bound + 1e-14 * fabs(bound) || lipschitz > 1e300) {
                break;
            }
            lipschitz *= 2.0;
            t = 1.0 / lipschitz;
        }
        double theta_next = 0.5 * (-theta * theta + theta * sqrt(theta * theta + 4.0));
        double beta = theta * (1.0 - theta) / (theta * theta + theta_next);
        double progress = 0.0;
        for (int k = 0; k < count; ++k) {
            progress += gy[k] * (trial[k] - previous[k]);
        }
        bool restart = progress > 0.0;
        for (int k = 0; k < count; ++k) {
            y[k] = trial[k] + beta * (trial[k] - previous[k]);
        }
        residual = residual_of(s, trial, gx);
        record(s, iteration, residual);
        ++iteration;
        if (residual < best_residual) {
            best_residual = residual;
            memcpy(best, trial, (size_t)count * sizeof *best);
        }
        if (residual <= settings->tolerance) {
            break;
        }
        /* The gradient at y without another product with N: the gradient
         * is affine, and y = (1 + beta) x_(k+1) - beta x_k. */
        if (restart) {
            /* Restart (O'Donoghue & Candes): the momentum points uphill. */
            memcpy(y, trial, (size_t)count * sizeof *y);
            memcpy(gy, gx, (size_t)count * sizeof *gy);
            theta_next = 1.0;
        } else {
            for (int k = 0; k < count; ++k) {
                gy[k] = (1.0 + beta) * gx[k] - beta * g_previous[k];
            }
        }
        memcpy(previous, trial, (size_t)count * sizeof *previous);
        memcpy(g_previous, gx, (size_t)count * sizeof *g_previous);
        theta = theta_next;
        lipschitz *= 0.9;
        t = 1.0 / lipschitz;
    }
    memcpy(s->x, best, (size_t)count * sizeof *best);
    s->stats.iterations = iteration;
    s->stats.residual = best_residual;
}

