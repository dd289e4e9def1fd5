/* Body generators of a scene: the lattice generator.
 *
 * Spheres of mean radius r and relative spread s sit on a cubic lattice of
 * spacing 2 r_max, r_max = r (1 + s), so that no two can overlap whatever
 * their radii. The lattice block (the most sites that fit in the region along
 * each axis) is centred in the region and filled x fastest, then y, then z:
 * with gravity along -z the grains form layers from the bottom up. Sphere k
 * draws four uniform numbers from Philox-4x64-10 (Salmon et al., "Parallel
 * random numbers: as easy as 1, 2, 3", SC 2011) with key (seed, 0) and
 * counter (k, 0, 0, 0): its radius r (1 + s (2 u0 - 1)) and a displacement
 * jitter (r_max - radius) (2 u - 1) along each axis, within the gap its cell
 * leaves around it. A counter-based generator makes sphere k depend on
 * (seed, k) alone, so the same seed gives bitwise the same bodies on any
 * machine and in any order of generation.
 *
 * Options: `spacing` widens the lattice (a dilute gas: the gap around each
 * sphere is spacing / 2 - r); `velocity_spread` adds to `velocity` a
 * Gaussian of that standard deviation per component, from counter
 * (k, 1, 0, 0) by Box-Muller (its log, cos and sin come from the C library,
 * so these bits are those of the machine's libm).
 * With `static: true` the spheres are static bodies: one layer of them makes
 * a rough floor. */
#include <math.h>
#include <string.h>

#include <Random123/philox.h>

#include "core/error.h"
#include "core/math.h"
#include "io/scene_internal.h"

/* Uniform in [0, 1) with 53 random bits. */
static double unit_uniform(uint64_t bits) { return (double)(bits >> 11) * 0x1.0p-53; }

/* Three independent standard normal numbers for sphere k: Box-Muller on the
 * four uniforms of Philox-4x64-10 with key (seed, 0) and counter
 * (k, 1, 0, 0) (the counter (k, 0, 0, 0) gives the radius and position).
 * The log arguments are 1 - u, in (0, 1]. */
static fd_vec3 gaussian_triple(int64_t seed, int64_t k)
{
    const philox4x64_key_t key = {{(uint64_t)seed, 0}};
    const philox4x64_ctr_t counter = {{(uint64_t)k, 1, 0, 0}};
    const philox4x64_ctr_t random = philox4x64(counter, key);
    double u[4];
    for (int j = 0; j < 4; ++j) {
        u[j] = unit_uniform(random.v[j]);
    }
    const double two_pi = 6.283185307179586;
    double r0 = sqrt(-2.0 * log(1.0 - u[0])), r1 = sqrt(-2.0 * log(1.0 - u[2]));
    return fd_v3(r0 * cos(two_pi * u[1]), r0 * sin(two_pi * u[1]), r1 * cos(two_pi * u[3]));
}

fd_status fd_scene_generate(fd_scene_ctx* ctx, fd_world* world, const fd_scene_file* file,
                            const fd_scene_generator* gen, int index, fd_scene_names* names)
{
    char path[FD_SCENE_PATH_MAX];
    fd_material_id material;
    snprintf(path, sizeof path, "generators[%d].material", index);
    fd_status status = fd_scene_find_material(
        ctx, world, file, gen->material, fd_scene_given(&fd_scene_generator_table, gen, "material"), path, &material);
    if (status != FD_OK) {
        return status;
    }
    const char* prefix = gen->name_prefix ? gen->name_prefix : "grain";
    if (strlen(prefix) > 200) {
        snprintf(path, sizeof path, "generators[%d].name_prefix", index);
        return fd_scene_fail(ctx, fd_scene_given(&fd_scene_generator_table, gen, "name_prefix"), path,
                             "too long (at most 200 characters)");
    }

    const double lo[3] = {gen->region.min.x, gen->region.min.y, gen->region.min.z};
    const double hi[3] = {gen->region.max.x, gen->region.max.y, gen->region.max.z};
    for (int a = 0; a < 3; ++a) {
        if (!(hi[a] > lo[a])) {
            snprintf(path, sizeof path, "generators[%d].region.max", index);
            return fd_scene_fail(ctx, fd_scene_given(&fd_scene_region_table, &gen->region, "max"), path,
                                 "must be > min in every component (%c: max %g <= min %g)", "xyz"[a], hi[a], lo[a]);
        }
    }

    if (gen->is_static && (gen->velocity.x != 0.0 || gen->velocity.y != 0.0 || gen->velocity.z != 0.0)) {
        snprintf(path, sizeof path, "generators[%d].velocity", index);
        return fd_scene_fail(ctx, fd_scene_given(&fd_scene_generator_table, gen, "velocity"), path,
                             "static spheres cannot move: give no velocity (or static: false)");
    }

    const double r_max = gen->radius * (1.0 + gen->radius_spread);
    double spacing = 2.0 * r_max;
    const yaml_node_t* spacing_node = fd_scene_given(&fd_scene_generator_table, gen, "spacing");
    if (spacing_node) {
        if (!(gen->spacing >= spacing)) {
            snprintf(path, sizeof path, "generators[%d].spacing", index);
            return fd_scene_fail(ctx, spacing_node, path,
                                 "must be at least 2 x radius x (1 + radius_spread) = %g m, or spheres could overlap "
                                 "(got %g m)",
                                 spacing, gen->spacing);
        }
        spacing = gen->spacing;
    }
    double sites[3];
    double origin[3];
    for (int a = 0; a < 3; ++a) {
        double length = hi[a] - lo[a];
        /* The small relative allowance keeps a region of exactly n spacings
         * from losing a site to round-off. */
        sites[a] = floor(length / spacing * (1.0 + 1e-12));
        origin[a] = lo[a] + 0.5 * (length - sites[a] * spacing);
    }
    double capacity = sites[0] * sites[1] * sites[2];
    if ((double)gen->count > capacity) {
        snprintf(path, sizeof path, "generators[%d].count", index);
        return fd_scene_fail(ctx, fd_scene_given(&fd_scene_generator_table, gen, "count"), path,
                             "%lld spheres do not fit: the region holds %.0f x %.0f x %.0f = %.0f lattice sites of "
                             "spacing %g m (%s)",
                             (long long)gen->count, sites[0], sites[1], sites[2], capacity, spacing,
                             spacing_node ? "spacing" : "2 x radius x (1 + radius_spread)");
    }

    /* Rows of more sites than spheres are never wrapped: count bounds the
     * indices (and keeps them in range when a tiny radius gives huge site counts). */
    const int64_t nx = sites[0] < (double)gen->count ? (int64_t)sites[0] : gen->count;
    const int64_t ny = sites[1] < (double)gen->count ? (int64_t)sites[1] : gen->count;
    const philox4x64_key_t key = {{(uint64_t)gen->seed, 0}};
    char name[256];
    for (int64_t k = 0; k < gen->count; ++k) {
        const philox4x64_ctr_t counter = {{(uint64_t)k, 0, 0, 0}};
        const philox4x64_ctr_t random = philox4x64(counter, key);
        double u[4];
        for (int j = 0; j < 4; ++j) {
            u[j] = unit_uniform(random.v[j]);
        }
        const int64_t cell[3] = {k % nx, (k / nx) % ny, k / (nx * ny)};
        const double radius = gen->radius * (1.0 + gen->radius_spread * (2.0 * u[0] - 1.0));
        const double gap = 0.5 * spacing - radius; /* r_max - radius without a spacing */
        double position[3];
        for (int a = 0; a < 3; ++a) {
            double centre = origin[a] + ((double)cell[a] + 0.5) * spacing;
            position[a] = centre + gen->jitter * gap * (2.0 * u[a + 1] - 1.0);
        }

        snprintf(name, sizeof name, "%s%lld", prefix, (long long)k);
        const yaml_node_t* first = NULL;
        const yaml_node_t* node = gen->seen.map;
        if (!fd_scene_names_add(names, name, node, &first)) {
            snprintf(path, sizeof path, "generators[%d]", index);
            if (!first) {
                return fd_scene_fail(ctx, node, path, "out of memory");
            }
            char where[FD_PATH_MAX];
            fd_scene_where(ctx, first, where, sizeof where);
            return fd_scene_fail(ctx, node, path,
                                 "generated body name '%s' is already used (at %s); choose another name_prefix", name,
                                 where);
        }

        fd_body_def def = fd_default_body_def();
        def.name = name;
        def.type = gen->is_static ? FD_BODY_STATIC : FD_BODY_DYNAMIC;
        def.shape.type = FD_SHAPE_SPHERE;
        def.shape.radius = radius;
        def.material = material;
        def.position = fd_v3(position[0], position[1], position[2]);
        def.velocity = gen->velocity;
        if (gen->velocity_spread > 0.0) {
            def.velocity = fd_v3_add(def.velocity, fd_v3_scale(gen->velocity_spread, gaussian_triple(gen->seed, k)));
        }
        if (fd_body_id_is_null(fd_world_create_body(world, &def))) {
            snprintf(path, sizeof path, "generators[%d]", index);
            return fd_scene_fail(ctx, node, path, "body '%s': %s", name, fd_last_error());
        }
    }
    return FD_OK;
}
