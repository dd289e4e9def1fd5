/* Small helpers shared by the test programs (each test file is its own
 * executable, so these are static inline). Include after criterion.h. */
#ifndef FD_TESTS_SUPPORT_H
#define FD_TESTS_SUPPORT_H

#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>

#include "fricdem/fricdem.h"
#include "fricdem/io.h"

/* Index of a contact output column; fails the test if the world has none. */
static inline int test_column(const fd_world* world, const char* name)
{
    int column = fd_world_find_contact_column(world, name);
    cr_assert(column >= 0, "no contact column '%s'", name);
    return column;
}

/* Value of a contact output column in a contact view. */
static inline double test_column_value(const fd_world* world, const fd_contact_view* view, const char* name)
{
    return view->columns[test_column(world, name)];
}

/* One parameter of a contact-law submodel (fd_submodel_def). */
static inline void test_add_param(fd_submodel_def* sub, const char* name, double value)
{
    sub->params[sub->param_count++] = (fd_param){name, value};
}

/* A law's model for one mechanism, its parameters to be added. */
static inline fd_submodel_def* test_set_model(fd_contact_law_def* def, fd_mechanism mechanism, const char* model)
{
    fd_submodel_def* sub = &def->submodel[mechanism];
    sub->model = model;
    sub->param_count = 0;
    return sub;
}

/* A static plane z = 0 with outward normal +z, of the given material. */
static inline fd_body_id test_add_ground(fd_world* world, fd_material_id material)
{
    fd_body_def ground = fd_default_body_def();
    ground.name = "ground";
    ground.type = FD_BODY_STATIC;
    ground.shape.type = FD_SHAPE_PLANE;
    ground.material = material;
    fd_body_id id = fd_world_create_body(world, &ground);
    cr_assert(!fd_body_id_is_null(id), "%s", fd_last_error());
    return id;
}

/* What an inlet of the tests pours, beyond fd_default_inlet_def: its name,
 * spheres of radius `radius` (1 +- radius_spread), `count` of them at
 * `rate` per second, each with `velocity`. test_inlet.c's inlets and the
 * pile's (support/pile.h) are built from one; callers name the fields, so
 * the numbers read as what they are. */
typedef struct test_pour {
    const char* name;
    double radius;        /* m */
    double radius_spread; /* relative */
    double rate;          /* spheres per second */
    int64_t count;
    fd_vec3 velocity;     /* m/s */
} test_pour;

/* An inlet of the material pouring `pour`; the region (its shape and
 * extent) is the caller's to set. */
static inline fd_inlet_def test_inlet_def(fd_material_id material, test_pour pour)
{
    fd_inlet_def def = fd_default_inlet_def();
    def.material = material;
    def.name = pour.name;
    def.radius = pour.radius;
    def.radius_spread = pour.radius_spread;
    def.rate = pour.rate;
    def.count = pour.count;
    def.velocity = pour.velocity;
    return def;
}

static inline int test_compare_doubles(const void* a, const void* b)
{
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

/* The angle of a small heap from its moments (tests/test_repose.c explains
 * it): atan(2 mean(z) / mean(rho)) over the dynamic bodies' centres, rho from
 * their horizontal centroid, strays beyond 3 median distances left out;
 * degrees. For a solid cone mean(z) = H/4 and mean(rho) = R/2. */
static inline double test_moment_angle(const fd_world* world)
{
    int n = fd_world_body_count(world);
    double* x = calloc((size_t)n, sizeof *x);
    double* y = calloc((size_t)n, sizeof *y);
    double* z = calloc((size_t)n, sizeof *z);
    double* rho = calloc((size_t)n, sizeof *rho);
    double* sorted = calloc((size_t)n, sizeof *sorted);
    cr_assert(x && y && z && rho && sorted);
    int count = 0;
    double cx = 0.0, cy = 0.0;
    for (int b = 0; b < n; ++b) {
        fd_body_id id = fd_world_body_at(world, b);
        if (fd_body_get_info(world, id).type != FD_BODY_DYNAMIC) {
            continue;
        }
        fd_body_state s = fd_body_get_state(world, id);
        x[count] = s.position.x;
        y[count] = s.position.y;
        z[count] = s.position.z;
        cx += s.position.x;
        cy += s.position.y;
        ++count;
    }
    cr_assert_gt(count, 0);
    cx /= count;
    cy /= count;
    for (int k = 0; k < count; ++k) {
        rho[k] = hypot(x[k] - cx, y[k] - cy);
        sorted[k] = rho[k];
    }
    qsort(sorted, (size_t)count, sizeof *sorted, test_compare_doubles);
    double median = count % 2 ? sorted[count / 2] : 0.5 * (sorted[count / 2 - 1] + sorted[count / 2]);
    double sum_z = 0.0, sum_rho = 0.0;
    int kept = 0;
    for (int k = 0; k < count; ++k) {
        if (rho[k] < 3.0 * median) {
            sum_z += z[k];
            sum_rho += rho[k];
            ++kept;
        }
    }
    free(x);
    free(y);
    free(z);
    free(rho);
    free(sorted);
    return atan(2.0 * sum_z / sum_rho) * 180.0 / 3.14159265358979323846;
}


/* fd_scene_load with two lists of --set overrides: the test's own, then
 * `extra` (for instance TEST_FN_PAPER_FORM). */
static inline fd_status test_scene_load_with(const char* path, const char* const* overrides, int count,
                                             const char* const* extra, int extra_count, fd_scene* scene)
{
    const char* all[64];
    cr_assert(count + extra_count <= 64, "too many overrides");
    for (int i = 0; i < count; ++i) {
        all[i] = overrides[i];
    }
    for (int i = 0; i < extra_count; ++i) {
        all[count + i] = extra[i];
    }
    return fd_scene_load(path, all, count + extra_count, scene);
}

/* A scene loaded as test_scene_load_with does, prepared, and its body named
 * `name` (the one a Fang & Negrut experiment watches): the brick, disk and
 * incline tests open their scenes this way, so each failure (load, prepare,
 * a missing body) fails the test at the same check. */
static inline fd_body_id test_scene_open(const char* path, const char* const* overrides, int count,
                                         const char* const* extra, int extra_count, const char* name,
                                         fd_scene* scene)
{
    cr_assert_eq(test_scene_load_with(path, overrides, count, extra, extra_count, scene), FD_OK, "%s",
                 fd_last_error());
    cr_assert_eq(fd_world_prepare(scene->world), FD_OK, "%s", fd_last_error());
    fd_body_id body = fd_world_find_body(scene->world, name);
    cr_assert(!fd_body_id_is_null(body), "no body '%s'", name);
    return body;
}

/* The paper's form of the Fang & Negrut models (paper 003): stick dampers
 * added uncapped on top of the capped springs, and the roll damping derived
 * from the inertia about the centre (Sec. 3.2). The tests that reproduce the
 * paper's numbers run it; fricdem's defaults cap spring plus damper at the
 * static limit and derive D_R from the rocking inertia (issue 10). */
#define TEST_FN_PAPER_SLIDE "contacts.0.slide.cap_total=0"
#define TEST_FN_PAPER_ROLL "contacts.0.roll.rocking=0"

#endif
