/* What this machine lets a second thread add, apart from fricdem: the
 * ceiling that the goals of thread and rank scaling (issue 9 goal 5, issue
 * 14 item 6) meet on it.
 *
 *   fricdem_bench_host [THREADS]      (default: the OpenMP default, i.e. the cores)
 *
 * Three loops, each timed with one thread and with THREADS, alternating, the
 * fastest of seven repetitions of each kept (a shared machine's other
 * tenants only ever make a repetition slower):
 *   compute  independent chains of dependent multiply-adds, per thread: no
 *            memory traffic at all, so its ratio is the cores' own;
 *   cache    a triad a = b + s c over three arrays of 1 MiB in all per
 *            thread, which stay in the caches (the shared L3 at least);
 *   memory   the same triad over three arrays of 96 MiB in all, far past
 *            every cache: what main memory delivers.
 * A DEM step at 10^5 spheres and more streams its bodies, lists and contacts
 * (several hundred bytes a sphere a step, past the caches), so its
 * two-thread speed-up lies between the memory and the compute ratios: where
 * this machine's memory ratio is near 1, no layout reaches 1.8x; where it is
 * near 2, the rest is fricdem's. Prints one CSV row per loop:
 *   loop,threads,one_thread_seconds,threads_seconds,speedup,one_thread_gb_per_s,threads_gb_per_s
 * (the bandwidths are empty for compute). Nothing is asserted. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { REPETITIONS = 7, CHAINS = 8 };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The fastest repetition of `loop` on one thread (*one) and on `threads`
 * (*many), the two alternating so that a drift of the machine's speed
 * (another tenant's load comes and goes over seconds) reaches both. */
static void fastest(double (*loop)(int, void*), int threads, void* data, double* one, double* many)
{
    *one = *many = 1e300;
    for (int r = 0; r < REPETITIONS; ++r) {
        double seconds = loop(1, data);
        *one = seconds < *one ? seconds : *one;
        seconds = loop(threads, data);
        *many = seconds < *many ? seconds : *many;
    }
}

/* CHAINS independent chains of x = x a + b per thread, `steps` each: the
 * chains hide the multiply-add's latency, and the result is kept so that
 * the compiler cannot drop them. */
typedef struct compute_work {
    long steps;
    double sink;
} compute_work;

static double compute_loop(int threads, void* data)
{
    compute_work* work = data;
    double start = now(), sink = 0.0;
    long steps = work->steps / threads; /* the same work in all, split */
#pragma omp parallel num_threads(threads) reduction(+ : sink)
    {
        double x[CHAINS];
        for (int c = 0; c < CHAINS; ++c) {
            x[c] = 1.0 + 1e-3 * c + 1e-6 * omp_get_thread_num();
        }
        for (long k = 0; k < steps; ++k) {
            for (int c = 0; c < CHAINS; ++c) {
                x[c] = x[c] * 0.9999999 + 1e-7;
            }
        }
        for (int c = 0; c < CHAINS; ++c) {
            sink += x[c];
        }
    }
    work->sink += sink;
    return now() - start;
}

/* The triad over `count` doubles per array, `sweeps` times, each thread on
 * its own part (placed by the thread that first touched it). */
typedef struct triad_work {
    double *a, *b, *c;
    size_t count;
    int sweeps;
} triad_work;

static double triad_loop(int threads, void* data)
{
    triad_work* work = data;
    double* restrict a = work->a;
    const double* restrict b = work->b;
    const double* restrict c = work->c;
    size_t count = work->count;
    double start = now();
    for (int s = 0; s < work->sweeps; ++s) {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (size_t k = 0; k < count; ++k) {
            a[k] = b[k] + 0.5 * c[k];
        }
    }
    return now() - start;
}

static int triad_row(const char* name, size_t count, int sweeps, int threads)
{
    triad_work work = {malloc(count * sizeof(double)), malloc(count * sizeof(double)),
                       malloc(count * sizeof(double)), count, sweeps};
    if (work.a == NULL || work.b == NULL || work.c == NULL) {
        fprintf(stderr, "fricdem_bench_host: out of memory for %zu doubles\n", 3 * count);
        free(work.a), free(work.b), free(work.c);
        return 1;
    }
#pragma omp parallel for num_threads(threads) schedule(static)
    for (size_t k = 0; k < count; ++k) {
        work.a[k] = 0.0, work.b[k] = 1.0, work.c[k] = 2.0;
    }
    double one, many;
    fastest(triad_loop, threads, &work, &one, &many);
    double bytes = 3.0 * sizeof(double) * (double)count * sweeps; /* two reads, one write */
    printf("%s,%d,%.6f,%.6f,%.3f,%.2f,%.2f\n", name, threads, one, many, one / many, bytes / one * 1e-9,
           bytes / many * 1e-9);
    free(work.a), free(work.b), free(work.c);
    return 0;
}

int main(int argc, char** argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : omp_get_max_threads();
    if (threads < 1) {
        fprintf(stderr, "usage: fricdem_bench_host [THREADS >= 1]\n");
        return 2;
    }
    printf("loop,threads,one_thread_seconds,threads_seconds,speedup,one_thread_gb_per_s,threads_gb_per_s\n");
    compute_work compute = {.steps = 200000000L};
    double one, many;
    fastest(compute_loop, threads, &compute, &one, &many);
    printf("compute,%d,%.6f,%.6f,%.3f,,\n", threads, one, many, one / many);
    /* 1 MiB in all per thread (three arrays), 96 MiB in all: sweeps chosen
     * so that each repetition moves ~2.4 GB, long enough to time. */
    size_t cache_count = (size_t)threads * (1u << 20) / (3 * sizeof(double));
    size_t memory_count = (96u << 20) / (3 * sizeof(double));
    int status = triad_row("cache", cache_count, (int)(2400.0 / threads), threads);
    status |= triad_row("memory", memory_count, 25, threads);
    if (compute.sink == 0.0) {
        printf("(sink %g)\n", compute.sink); /* never: keeps the chains */
    }
    return status;
}
