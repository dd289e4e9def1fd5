/* The HDF5 trajectory (src/io/output_trajectory.c, docs/output-format.md):
 * a scene whose body count changes (an inlet pours spheres, an outlet
 * removes them, their slots are reused) is run through fd_output with a
 * copy of the world's state kept at every step; the file is then read back
 * with the HDF5 C API. Every frame must hold the state of its step bit for
 * bit (the writer copies doubles, it computes nothing), the counts of its
 * step, tombstones where bodies were removed, a unit on every dataset, and
 * the XDMF indexes must be well-formed XML listing every frame with the
 * right time and count and naming only datasets that exist. A run killed
 * between frames leaves a readable file; `fricdem resume` starts a new file
 * whose first frame is the checkpoint's state; the scene keys parse. */
#include <criterion/criterion.h>
#include <hdf5.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fricdem/fricdem.h"
#include "fricdem/io.h"
#include "io/block_file.h"
#include "io/hdf5_direct.h"

#include "support/cli.h"
#include "support/file.h"

TestSuite(trajectory, .init = make_dir, .fini = remove_dir);

/* Eight spheres drop 2-10 cm onto a plane; an inlet pours 40 small spheres
 * sideways at 1 m/s into an outlet 6-10 cm downstream, which removes them:
 * slots are added, emptied and reused while the frames are written. dt =
 * 1e-4 s and trajectory_interval = 0.01 s: a frame every 100 steps. */
#define POUR_SCENE                                                                                                     \
    "name: pour\n"                                                                                                     \
    "time: {step: 1.0e-4, duration: 0.3}\n"                                                                            \
    "materials: [{name: glass, density: 2500}]\n"                                                                      \
    "contacts:\n"                                                                                                      \
    "  - {materials: [glass, glass], normal: {model: hooke, k_n: 1.0e4, restitution: 0.3}}\n"                          \
    "bodies:\n"                                                                                                        \
    "  - {name: floor, static: true, material: glass, shape: {type: plane, normal: [0, 0, 1]}}\n"                      \
    "generators:\n"                                                                                                    \
    "  - {type: lattice, count: 8, name_prefix: s, material: glass, radius: 0.01,\n"                                   \
    "     region: {min: [-0.03, -0.03, 0.02], max: [0.03, 0.03, 0.1]}}\n"                                              \
    "inlets:\n"                                                                                                        \
    "  - {name: pour, material: glass, radius: 0.005, rate: 200, count: 40, velocity: [1.0, 0, 0],\n"                  \
    "     region: {box: {min: [0.1, -0.02, 0.05], max: [0.14, 0.02, 0.09]}}}\n"                                        \
    "outlets:\n"                                                                                                       \
    "  - {name: drain, region: {box: {min: [0.2, -1, -1], max: [2, 1, 1]}}}\n"

#define POUR_OUTPUT                                                                                                    \
    "output: {csv_interval: 0.01, bodies_csv: false, contacts_csv: false, energy_csv: false, trajectory: true,\n"      \
    "         trajectory_interval: 0.01}\n"

enum { STEPS = 3000, STEPS_PER_FRAME = 100, FRAMES = STEPS / STEPS_PER_FRAME + 1, MAX_SLOTS = 64, MAX_CONTACTS = 64 };

/* What the world held after each step, from the public API. */
typedef struct step_copy {
    double time;
    int slots, live, contacts;
    fd_body_state states[MAX_SLOTS];  /* NaN for a removed body's slot */
    double radius[MAX_SLOTS];
    int material[MAX_SLOTS];
    uint64_t contact_id[MAX_CONTACTS];
    double normal_force[MAX_CONTACTS];
    double elastic[MAX_CONTACTS];     /* the hooke law's normal_elastic_force column */
    int body_i[MAX_CONTACTS], body_j[MAX_CONTACTS];
} step_copy;

static void copy_world(const fd_world* world, step_copy* copy)
{
    copy->time = fd_world_time(world);
    copy->slots = fd_world_body_count(world);
    copy->live = fd_world_live_body_count(world);
    copy->contacts = fd_world_contact_count(world);
    cr_assert_leq(copy->slots, MAX_SLOTS);
    cr_assert_leq(copy->contacts, MAX_CONTACTS);
    int elastic = fd_world_find_contact_column(world, "normal_elastic_force");
    cr_assert_geq(elastic, 0);
    for (int i = 0; i < copy->slots; ++i) {
        fd_body_id id = fd_world_body_at(world, i);
        if (!fd_body_is_valid(world, id)) {
            const double nan = NAN;
            copy->states[i] = (fd_body_state){{nan, nan, nan}, {nan, nan, nan, nan}, {nan, nan, nan}, {nan, nan, nan}};
            copy->radius[i] = NAN;
            copy->material[i] = -1;
            continue;
        }
        copy->states[i] = fd_body_get_state(world, id);
        fd_body_info info = fd_body_get_info(world, id);
        copy->radius[i] = info.shape.type == FD_SHAPE_PLANE ? NAN : info.shape.radius;
        copy->material[i] = info.material.index1 - 1;
    }
    for (int k = 0; k < copy->contacts; ++k) {
        fd_contact_view view;
        cr_assert_eq(fd_world_get_contact(world, k, &view), FD_OK, "%s", fd_last_error());
        copy->contact_id[k] = view.id;
        copy->normal_force[k] = view.loads.normal_force;
        copy->elastic[k] = view.columns[elastic];
        copy->body_i[k] = view.body_i.index1 - 1;
        copy->body_j[k] = view.body_j.index1 - 1;
    }
}

/* Loads the scene, writes its outputs into `directory` for `steps` steps
 * (all of them when copies is given, each step's state copied). */
/* run_scene, with what the outputs cost (read before the close). */
static fd_output_cost run_scene_costed(const char* scene_path, const char* directory, step_copy* copies, int steps);

static void run_scene(const char* scene_path, const char* directory, step_copy* copies, int steps)
{
    run_scene_costed(scene_path, directory, copies, steps);
}

static fd_output_cost run_scene_costed(const char* scene_path, const char* directory, step_copy* copies, int steps)
{
    fd_scene scene;
    cr_assert_eq(fd_scene_load(scene_path, NULL, 0, &scene), FD_OK, "%s", fd_last_error());
    snprintf(scene.output.directory, sizeof scene.output.directory, "%s", directory);
    fd_world* world = scene.world;
    cr_assert_eq(fd_world_prepare(world), FD_OK, "%s", fd_last_error());
    fd_output* output = fd_output_open(world, &scene.output);
    cr_assert_not_null(output, "%s", fd_last_error());
    cr_assert_eq(fd_output_write(output, world), FD_OK, "%s", fd_last_error());
    if (copies) {
        copy_world(world, &copies[0]);
    }
    for (int n = 1; n <= steps; ++n) {
        cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
        cr_assert_eq(fd_output_write(output, world), FD_OK, "%s", fd_last_error());
        if (copies) {
            copy_world(world, &copies[n]);
        }
    }
    fd_output_cost cost = fd_output_get_cost(output);
    cr_assert_eq(fd_output_close(output, world), FD_OK, "%s", fd_last_error());
    fd_scene_free(&scene);
    return cost;
}

/* ---------------------------------------------------------------- reading */

/* A whole dataset in memory, as `type`; dims[] its shape. */
static void* read_dataset(hid_t file, const char* path, hid_t type, int* rank, hsize_t dims[3])
{
    hid_t dataset = H5Dopen2(file, path, H5P_DEFAULT);
    cr_assert_geq(dataset, 0, "no dataset %s", path);
    hid_t space = H5Dget_space(dataset);
    *rank = H5Sget_simple_extent_ndims(space);
    cr_assert(*rank >= 1 && *rank <= 3);
    H5Sget_simple_extent_dims(space, dims, NULL);
    size_t count = 1;
    for (int k = 0; k < *rank; ++k) {
        count *= dims[k];
    }
    void* data = malloc((count > 0 ? count : 1) * H5Tget_size(type));
    cr_assert_not_null(data);
    cr_assert_geq(H5Dread(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), 0, "reading %s", path);
    H5Sclose(space);
    H5Dclose(dataset);
    return data;
}

static double* read_doubles(hid_t file, const char* path, int rank, hsize_t dims[3])
{
    int found;
    double* data = read_dataset(file, path, H5T_NATIVE_DOUBLE, &found, dims);
    cr_assert_eq(found, rank, "%s has rank %d, not %d", path, found, rank);
    return data;
}

static int64_t* read_integers(hid_t file, const char* path, int rank, hsize_t dims[3])
{
    int found;
    int64_t* data = read_dataset(file, path, H5T_NATIVE_INT64, &found, dims);
    cr_assert_eq(found, rank, "%s has rank %d, not %d", path, found, rank);
    return data;
}

/* The value of a dataset's `unit` attribute ("" without one). */
static const char* unit_of(hid_t object)
{
    static char unit[64];
    unit[0] = '\0';
    if (H5Aexists(object, "unit") <= 0) {
        return unit;
    }
    hid_t attribute = H5Aopen(object, "unit", H5P_DEFAULT);
    hid_t type = H5Aget_type(attribute);
    if (H5Tis_variable_str(type) > 0) {
        char* text = NULL;
        hid_t memory = H5Tcopy(H5T_C_S1);
        H5Tset_size(memory, H5T_VARIABLE);
        cr_assert_geq(H5Aread(attribute, memory, &text), 0);
        snprintf(unit, sizeof unit, "%s", text ? text : "");
        H5free_memory(text);
        H5Tclose(memory);
    }
    H5Tclose(type);
    H5Aclose(attribute);
    return unit;
}

static const char* unit_at(hid_t file, const char* path)
{
    hid_t dataset = H5Dopen2(file, path, H5P_DEFAULT);
    cr_assert_geq(dataset, 0, "no dataset %s", path);
    const char* unit = unit_of(dataset);
    H5Dclose(dataset);
    return unit;
}

typedef struct unit_survey {
    int datasets, with_unit;
    char without[256];
} unit_survey;

static herr_t survey_units(hid_t object, const char* name, const H5O_info_t* info, void* data)
{
    unit_survey* survey = data;
    if (info->type != H5O_TYPE_DATASET) {
        return 0;
    }
    hid_t dataset = H5Oopen(object, name, H5P_DEFAULT);
    survey->datasets += 1;
    if (unit_of(dataset)[0] != '\0') {
        survey->with_unit += 1;
    } else if (survey->without[0] == '\0') {
        snprintf(survey->without, sizeof survey->without, "%s", name);
    }
    H5Oclose(dataset);
    return 0;
}

/* Whether every group and the dataset of an absolute path exist. */
static bool path_exists(hid_t file, const char* path)
{
    char partial[512];
    for (const char* slash = strchr(path + 1, '/');; slash = strchr(slash + 1, '/')) {
        size_t length = slash ? (size_t)(slash - path) : strlen(path);
        snprintf(partial, sizeof partial, "%.*s", (int)length, path);
        if (H5Lexists(file, partial, H5P_DEFAULT) <= 0) {
            return false;
        }
        if (!slash) {
            return true;
        }
    }
}

/* ---------------------------------------------------------------- XML */

/* A small well-formedness check: every element closed in order, one root,
 * attribute values quoted; declarations and comments skipped. Returns the
 * number of elements. */
static int check_xml(const char* text, const char* root)
{
    const char* stack[16];
    size_t lengths[16];
    int depth = 0, elements = 0, roots = 0;
    for (const char* c = text; *c; ++c) {
        if (*c != '<') {
            continue;
        }
        if (strncmp(c, "<?", 2) == 0) {
            c = strstr(c, "?>");
            cr_assert_not_null(c, "unterminated declaration");
            continue;
        }
        if (strncmp(c, "<!--", 4) == 0) {
            c = strstr(c, "-->");
            cr_assert_not_null(c, "unterminated comment");
            continue;
        }
        bool closing = c[1] == '/';
        const char* name = c + (closing ? 2 : 1);
        size_t length = strcspn(name, " \t\n/>");
        cr_assert_gt(length, 0, "an empty tag name");
        const char* end = name + length;
        bool quoted = false;
        for (; *end && (quoted || *end != '>'); ++end) {
            quoted = *end == '"' ? !quoted : quoted;
        }
        cr_assert_eq(*end, '>', "an unterminated tag");
        if (closing) {
            cr_assert_gt(depth, 0, "</%.*s> closes nothing", (int)length, name);
            --depth;
            cr_assert(lengths[depth] == length && strncmp(stack[depth], name, length) == 0, "</%.*s> closes <%.*s>",
                      (int)length, name, (int)lengths[depth], stack[depth]);
        } else {
            elements += 1;
            if (depth == 0) {
                roots += 1;
                cr_assert(strncmp(name, root, length) == 0 && strlen(root) == length, "the root is <%.*s>",
                          (int)length, name);
            }
            if (end[-1] != '/') {
                cr_assert_lt(depth, 16);
                stack[depth] = name, lengths[depth] = length, ++depth;
            }
        }
        c = end;
    }
    cr_assert_eq(depth, 0, "%d elements left open", depth);
    cr_assert_eq(roots, 1);
    return elements;
}

/* Checks an index against the file: frame f's grid has the time and the
 * count of frame f, its hyperslabs start at frame f, and every dataset it
 * names is in the file. */
static void check_index(hid_t file, const char* index_path, const char* what, const double* times,
                        const int64_t* counts, int frames)
{
    char* text = read_all(index_path, NULL);
    check_xml(text, "Xdmf");
    cr_assert_not_null(strstr(text, "CollectionType=\"Temporal\""));
    char prefix[64];
    snprintf(prefix, sizeof prefix, "<Grid Name=\"%s_", what);
    int grids = 0, references = 0;
    for (const char* grid = strstr(text, prefix); grid; grid = strstr(grid + 1, prefix), ++grids) {
        cr_assert_lt(grids, frames, "%s lists more grids than the file has frames", index_path);
        const char* next = strstr(grid + 1, prefix);
        const char* end = next ? next : grid + strlen(grid);
        const char* time = strstr(grid, "<Time Value=\"");
        cr_assert(time && time < end);
        cr_assert_eq(strtod(time + 13, NULL), times[grids], "%s grid %d: time", what, grids);
        const char* elements = strstr(grid, "NumberOfElements=\"");
        cr_assert(elements && elements < end);
        cr_assert_eq(strtoll(elements + 18, NULL, 10), counts[grids], "%s grid %d: count", what, grids);
        for (const char* slab = strstr(grid, "Format=\"XML\">"); slab && slab < end;
             slab = strstr(slab + 1, "Format=\"XML\">")) {
            cr_assert_eq(strtoll(slab + 13, NULL, 10), grids, "%s grid %d: a hyperslab of another frame", what,
                         grids);
        }
        for (const char* reference = strstr(grid, "trajectory.h5:"); reference && reference < end;
             reference = strstr(reference + 1, "trajectory.h5:")) {
            char path[256];
            size_t length = strcspn(reference + 14, "<");
            snprintf(path, sizeof path, "%.*s", (int)length, reference + 14);
            cr_assert(path_exists(file, path), "%s names %s, which is not in the file", index_path, path);
            references += 1;
        }
    }
    cr_assert_eq(grids, frames, "%s lists %d frames of %d", index_path, grids, frames);
    cr_assert_geq(references, frames * 8, "too few datasets referenced");
    free(text);
}

/* ---------------------------------------------------------------- tests */

Test(trajectory, frames_hold_the_state_of_their_step_bit_for_bit_while_bodies_come_and_go)
{
    const char* scene_path = temp_path("pour.yaml");
    write_file(scene_path, POUR_SCENE POUR_OUTPUT);
    step_copy* copies = calloc(STEPS + 1, sizeof *copies);
    cr_assert_not_null(copies);
    run_scene(scene_path, temp_path("out"), copies, STEPS);

    hid_t file = H5Fopen(temp_path("out/trajectory.h5"), H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert_geq(file, 0);
    hsize_t dims[3];
    int64_t* steps = read_integers(file, "/particles/all/position/step", 1, dims);
    cr_assert_eq(dims[0], FRAMES, "%llu frames, not one per 0.01 s", (unsigned long long)dims[0]);
    double* times = read_doubles(file, "/particles/all/position/time", 1, dims);
    int64_t* counts = read_integers(file, "/observables/all/count/value", 1, dims);
    int64_t* live = read_integers(file, "/observables/all/bodies/value", 1, dims);
    int64_t* contact_counts = read_integers(file, "/observables/contacts/count/value", 1, dims);
    hsize_t body_dims[3], contact_dims[3], scalar_dims[3];
    double* position = read_doubles(file, "/particles/all/position/value", 3, body_dims);
    double* orientation = read_doubles(file, "/particles/all/orientation/value", 3, dims);
    double* velocity = read_doubles(file, "/particles/all/velocity/value", 3, dims);
    double* angular = read_doubles(file, "/particles/all/angular_velocity/value", 3, dims);
    double* radius = read_doubles(file, "/particles/all/radius/value", 2, scalar_dims);
    int64_t* species = read_integers(file, "/particles/all/species/value", 2, dims);
    int64_t* ids = read_integers(file, "/particles/all/id/value", 2, dims);
    double* normal_force = read_doubles(file, "/particles/contacts/normal_force/value", 2, contact_dims);
    double* elastic = read_doubles(file, "/particles/contacts/model/normal_elastic_force/value", 2, dims);
    int64_t* contact_ids = read_integers(file, "/particles/contacts/id/value", 2, dims);
    int64_t* pairs = read_integers(file, "/connectivity/contacts/value", 3, dims);
    const hsize_t rows = body_dims[1], contact_rows = contact_dims[1];
    cr_assert_eq(scalar_dims[1], rows);

    int max_slots = 0, tombstones = 0, reused = 0;
    for (int f = 0; f < FRAMES; ++f) {
        /* Frames at t = 0 and every 100 steps after (0.01 s / 1e-4 s; the
         * schedule's half step of slack makes 100 * 1e-4 reach 0.01). */
        cr_assert_eq(steps[f], (int64_t)f * STEPS_PER_FRAME, "frame %d at step %lld", f, (long long)steps[f]);
        const step_copy* c = &copies[steps[f]];
        cr_assert_eq(times[f], c->time, "frame %d: time", f);
        cr_assert_eq(counts[f], c->slots, "frame %d: %lld rows, the world had %d slots", f, (long long)counts[f],
                     c->slots);
        cr_assert_eq(live[f], c->live, "frame %d: live bodies", f);
        cr_assert_eq(contact_counts[f], c->contacts, "frame %d: contacts", f);
        max_slots = c->slots > max_slots ? c->slots : max_slots;
        for (int i = 0; i < c->slots; ++i) {
            const double* p = position + (f * rows + i) * 3;
            const double* q = orientation + (f * rows + i) * 4;
            const double* v = velocity + (f * rows + i) * 3;
            const double* w = angular + (f * rows + i) * 3;
            const fd_body_state* s = &c->states[i];
            if (species[f * rows + i] < 0) { /* a tombstone: a body the outlet removed */
                cr_assert(isnan(s->position.x), "frame %d slot %d: a live body written as removed", f, i);
                cr_assert(isnan(p[0]) && isnan(p[1]) && isnan(p[2]) && isnan(radius[f * rows + i]));
                cr_assert_eq(ids[f * rows + i], -1);
                tombstones += 1;
                continue;
            }
            /* Bit for bit: the writer copies the doubles the API gives. */
            const double expected[13] = {s->position.x,   s->position.y,   s->position.z,   s->orientation.w,
                                         s->orientation.x, s->orientation.y, s->orientation.z, s->velocity.x,
                                         s->velocity.y,   s->velocity.z,   s->angular_velocity.x,
                                         s->angular_velocity.y, s->angular_velocity.z};
            const double found[13] = {p[0], p[1], p[2], q[0], q[1], q[2], q[3], v[0], v[1], v[2], w[0], w[1], w[2]};
            cr_assert(memcmp(expected, found, sizeof expected) == 0,
                      "frame %d slot %d: state differs (z %.17g vs %.17g)", f, i, found[2], expected[2]);
            cr_assert_eq(ids[f * rows + i], i);
            cr_assert_eq(species[f * rows + i], c->material[i]);
            if (isnan(c->radius[i])) {
                cr_assert(isnan(radius[f * rows + i]), "the plane's radius is NaN");
            } else {
                cr_assert_eq(radius[f * rows + i], c->radius[i], "frame %d slot %d: radius", f, i);
            }
            if (f > 0 && ids[(f - 1) * rows + i] == -1) {
                reused += 1; /* removed at the frame before, a new body now */
            }
        }
        for (hsize_t i = (hsize_t)c->slots; i < rows; ++i) { /* rows the world did not have yet */
            cr_assert(isnan(position[(f * rows + i) * 3]) && ids[f * rows + i] == -1);
        }
        for (int k = 0; k < c->contacts; ++k) {
            cr_assert_eq(contact_ids[f * contact_rows + k], (int64_t)c->contact_id[k], "frame %d contact %d", f, k);
            cr_assert_eq(normal_force[f * contact_rows + k], c->normal_force[k]);
            cr_assert_eq(elastic[f * contact_rows + k], c->elastic[k]);
            cr_assert_eq(pairs[(f * contact_rows + k) * 2], c->body_i[k]);
            cr_assert_eq(pairs[(f * contact_rows + k) * 2 + 1], c->body_j[k]);
        }
    }
    /* The run did what the test is about: slots were added, emptied and reused. */
    cr_assert_gt(max_slots, copies[0].slots, "the inlet added no slot");
    cr_assert_eq(rows, (hsize_t)max_slots, "the rows dimension grew to the most slots");
    cr_assert_gt(tombstones, 0, "no frame held a removed body's slot");
    cr_assert_gt(reused, 0, "no slot was reused");
    cr_assert_gt(copies[STEPS / 2].contacts, 0, "no contacts to check");

    /* Units: on every dataset, H5MD units module syntax. */
    unit_survey survey = {0};
    cr_assert_geq(H5Ovisit(file, H5_INDEX_NAME, H5_ITER_NATIVE, survey_units, &survey), 0);
    /* Each dataset once (the hard-linked step and time are one each): 9 body
     * values + step + time, 15 contact values + 2 model columns (hooke's),
     * the pairs, 17 observables, 2 name lists. */
    cr_assert_eq(survey.datasets, 11 + 17 + 1 + 17 + 2);
    cr_assert_eq(survey.with_unit, survey.datasets, "%s has no unit", survey.without);
    cr_assert_str_eq(unit_at(file, "/particles/all/position/value"), "m");
    cr_assert_str_eq(unit_at(file, "/particles/all/velocity/value"), "m s-1");
    cr_assert_str_eq(unit_at(file, "/particles/all/angular_velocity/value"), "rad s-1");
    cr_assert_str_eq(unit_at(file, "/particles/all/mass/value"), "kg");
    cr_assert_str_eq(unit_at(file, "/particles/all/position/time"), "s");
    cr_assert_str_eq(unit_at(file, "/particles/contacts/normal_force/value"), "N");
    cr_assert_str_eq(unit_at(file, "/particles/contacts/model/normal_elastic_force/value"), "N");
    cr_assert_str_eq(unit_at(file, "/observables/energy/kinetic_translational/value"), "J");
    /* H5MD: the metadata group, step and time shared by hard links. */
    cr_assert(path_exists(file, "/h5md/author") && path_exists(file, "/h5md/creator"));
    cr_assert_gt(H5Aexists_by_name(file, "/h5md", "version", H5P_DEFAULT), 0);
    H5O_info_t shared, linked;
    cr_assert_geq(H5Oget_info_by_name(file, "/particles/all/position/time", &shared, H5P_DEFAULT), 0);
    cr_assert_geq(H5Oget_info_by_name(file, "/particles/contacts/normal/time", &linked, H5P_DEFAULT), 0);
    cr_assert_eq(shared.addr, linked.addr, "time is not one dataset hard-linked");

    /* The indexes list every frame with its time and count. */
    check_index(file, temp_path("out/trajectory.xdmf"), "bodies", times, counts, FRAMES);
    check_index(file, temp_path("out/trajectory_contacts.xdmf"), "contacts", times, contact_counts, FRAMES);
    cr_assert(!exists(temp_path("out/trajectory.xdmf.tmp")));

    H5Fclose(file);
    void* arrays[] = {steps,  times,   counts,       live,    contact_counts, position, orientation, velocity,
                      angular, radius, species,      ids,     normal_force,   elastic,  contact_ids, pairs};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k) {
        free(arrays[k]);
    }
    free(copies);
}

Test(trajectory, a_run_killed_between_frames_leaves_a_readable_file_and_index)
{
    const char* scene_path = temp_path("pour.yaml");
    write_file(scene_path, POUR_SCENE POUR_OUTPUT);
    const char* directory = temp_path("killed");
    pid_t child = fork();
    cr_assert_geq(child, 0);
    if (child == 0) {
        /* Five frames (steps 0 to 400), then SIGKILL: no close, no atexit. */
        fd_scene scene;
        if (fd_scene_load(scene_path, NULL, 0, &scene) != FD_OK) {
            _exit(3);
        }
        snprintf(scene.output.directory, sizeof scene.output.directory, "%s", directory);
        fd_world_prepare(scene.world);
        fd_output* output = fd_output_open(scene.world, &scene.output);
        if (!output || fd_output_write(output, scene.world) != FD_OK) {
            _exit(4);
        }
        for (int n = 1; n <= 4 * STEPS_PER_FRAME; ++n) {
            if (fd_world_step(scene.world) != FD_OK || fd_output_write(output, scene.world) != FD_OK) {
                _exit(5);
            }
        }
        raise(SIGKILL);
        _exit(6);
    }
    int status = 0;
    cr_assert_eq(waitpid(child, &status, 0), child);
    cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the child ended otherwise (status %d)", status);

    char path[600];
    snprintf(path, sizeof path, "%s/trajectory.h5", directory);
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert_geq(file, 0, "the file a killed run left does not open");
    hsize_t dims[3];
    double* times = read_doubles(file, "/particles/all/position/time", 1, dims);
    cr_assert_eq(dims[0], 5);
    hsize_t rows[3];
    double* position = read_doubles(file, "/particles/all/position/value", 3, rows);
    cr_assert_eq(rows[0], 5);
    int64_t* counts = read_integers(file, "/observables/all/count/value", 1, dims);
    int64_t* contacts = read_integers(file, "/observables/contacts/count/value", 1, dims);
    /* Frame 4 (step 400) was written whole: its last slot (the inlet's
     * newest sphere, 0.04 s old, not yet at the outlet) has a position. */
    cr_assert_gt(counts[4], 9);
    cr_assert(isfinite(position[(4 * rows[1] + (hsize_t)counts[4] - 1) * 3 + 2]));
    snprintf(path, sizeof path, "%s/trajectory.xdmf", directory);
    check_index(file, path, "bodies", times, counts, 5);
    snprintf(path, sizeof path, "%s/trajectory_contacts.xdmf", directory);
    check_index(file, path, "contacts", times, contacts, 5);
    H5Fclose(file);
    free(times), free(position), free(counts), free(contacts);
}

Test(trajectory, the_cli_records_contacts_for_it_and_a_resumed_run_starts_a_new_file_at_the_checkpoint)
{
    /* contacts.csv and VTU off: only the trajectory asks the CLI (which
     * records contact details on request) for contacts. */
    const char* scene_path = temp_path("pour.yaml");
    write_file(scene_path, POUR_SCENE "output: {csv_interval: 0.01, bodies_csv: false, contacts_csv: false, "
                                      "trajectory: true, checkpoint_interval: 0.1}\n");
    cr_assert_eq(run_cli("run '%s' --out '%s' --quiet --set time.duration=0.15", scene_path, temp_path("first")), 0,
                 "%s", err_text());
    cr_assert_eq(run_cli("resume '%s' --out '%s' --quiet --set time.duration=0.2", temp_path("first/checkpoint.h5"),
                         temp_path("second")),
                 0, "%s", err_text());

    hid_t first = H5Fopen(temp_path("first/trajectory.h5"), H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t second = H5Fopen(temp_path("second/trajectory.h5"), H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert(first >= 0 && second >= 0);
    hsize_t dims1[3], dims2[3], rows1[3], rows2[3];
    int64_t* steps1 = read_integers(first, "/particles/all/position/step", 1, dims1);
    int64_t* steps2 = read_integers(second, "/particles/all/position/step", 1, dims2);
    /* trajectory_interval defaults to csv_interval, 0.01 s = 100 steps: the
     * first run's frames are steps 0..1500, the checkpoint is its end state
     * (step 1500), and the resumed file starts there and goes on to 2000. */
    cr_assert_eq(dims1[0], 16);
    cr_assert_eq(steps1[15], 1500);
    cr_assert_eq(dims2[0], 6);
    cr_assert_eq(steps2[0], 1500);
    cr_assert_eq(steps2[5], 2000);
    double* position1 = read_doubles(first, "/particles/all/position/value", 3, rows1);
    double* position2 = read_doubles(second, "/particles/all/position/value", 3, rows2);
    int64_t* count1 = read_integers(first, "/observables/all/count/value", 1, dims1);
    int64_t* count2 = read_integers(second, "/observables/all/count/value", 1, dims2);
    cr_assert_eq(count1[15], count2[0]);
    /* The checkpoint restores the state bit for bit (docs/restart.md), so
     * the resumed file's first frame is the first file's last, NaN included. */
    cr_assert_eq(memcmp(position1 + 15 * rows1[1] * 3, position2, (size_t)count2[0] * 3 * sizeof(double)), 0);
    int64_t* contacts1 = read_integers(first, "/observables/contacts/count/value", 1, dims1);
    int64_t* contacts2 = read_integers(second, "/observables/contacts/count/value", 1, dims2);
    cr_assert_gt(contacts1[15], 0);
    cr_assert_eq(contacts1[15], contacts2[0]);
    H5Fclose(first);
    H5Fclose(second);
    free(steps1), free(steps2), free(position1), free(position2), free(count1), free(count2);
    free(contacts1), free(contacts2);
}

Test(trajectory, scene_keys_default_to_the_vtu_or_csv_interval)
{
    const char* cases[][2] = {
        {"output: {csv_interval: 0.02}\n", "0.02"},
        {"output: {csv_interval: 0.02, vtu_interval: 0.05, trajectory: true}\n", "0.05"},
        {"output: {csv_interval: 0.02, vtu_interval: 0.05, trajectory: true, trajectory_interval: 0.001}\n", "0.001"},
        {"output: {trajectory: true, trajectory_interval: 0, trajectory_contacts: false}\n", "0"},
    };
    for (int k = 0; k < 4; ++k) {
        char text[4096];
        snprintf(text, sizeof text, "%s%s", POUR_SCENE, cases[k][0]);
        write_file(temp_path("keys.yaml"), text);
        fd_scene scene;
        cr_assert_eq(fd_scene_load(temp_path("keys.yaml"), NULL, 0, &scene), FD_OK, "%s", fd_last_error());
        cr_assert_eq(scene.output.trajectory, k > 0, "case %d", k);
        cr_assert_eq(scene.output.trajectory_interval, strtod(cases[k][1], NULL), "case %d", k);
        cr_assert_eq(scene.output.trajectory_contacts, k != 3, "case %d", k);
        fd_scene_free(&scene);
    }
    write_file(temp_path("bad.yaml"), POUR_SCENE "output: {trajectory: true, trajectory_interval: -1}\n");
    fd_scene scene;
    cr_assert_eq(fd_scene_load(temp_path("bad.yaml"), NULL, 0, &scene), FD_ERR_PARSE);
    cr_assert(strstr(fd_last_error(), ":16: output.trajectory_interval: must be >= 0"), "%s", fd_last_error());
}

Test(trajectory, without_contacts_there_is_no_contacts_group_and_a_negative_interval_is_refused)
{
    const char* scene_path = temp_path("pour.yaml");
    write_file(scene_path, POUR_SCENE "output: {csv_interval: 0.01, bodies_csv: false, contacts_csv: false, "
                                      "energy_csv: false, trajectory: true, trajectory_contacts: false}\n");
    run_scene(scene_path, temp_path("bodies_only"), NULL, 200);
    hid_t file = H5Fopen(temp_path("bodies_only/trajectory.h5"), H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert_geq(file, 0);
    cr_assert(!path_exists(file, "/particles/contacts") && !path_exists(file, "/connectivity"));
    hsize_t dims[3];
    double* times = read_doubles(file, "/particles/all/position/time", 1, dims);
    cr_assert_eq(dims[0], 3, "frames at steps 0, 100, 200");
    int64_t* counts = read_integers(file, "/observables/all/count/value", 1, dims);
    check_index(file, temp_path("bodies_only/trajectory.xdmf"), "bodies", times, counts, 3);
    cr_assert(!exists(temp_path("bodies_only/trajectory_contacts.xdmf")));
    H5Fclose(file);
    free(times), free(counts);

    fd_scene scene;
    cr_assert_eq(fd_scene_load(scene_path, NULL, 0, &scene), FD_OK, "%s", fd_last_error());
    fd_output_settings settings = scene.output;
    snprintf(settings.directory, sizeof settings.directory, "%s", temp_path("refused"));
    settings.trajectory_interval = -1.0;
    cr_assert_null(fd_output_open(scene.world, &settings));
    cr_assert(strstr(fd_last_error(), "trajectory_interval -1 must be >= 0"), "%s", fd_last_error());
    fd_scene_free(&scene);
}

/* The filters of a dataset (0 without compression). */
/* Dataset `path` of files a and b: the same shape, at least `fewest`
 * values, and the same bits. */
static void assert_same_doubles(hid_t a_file, hid_t b_file, const char* path, size_t fewest)
{
    hsize_t dims0[3] = {0}, dims1[3] = {0};
    int rank0 = 0, rank1 = 0;
    double* a = read_dataset(a_file, path, H5T_NATIVE_DOUBLE, &rank0, dims0);
    double* b = read_dataset(b_file, path, H5T_NATIVE_DOUBLE, &rank1, dims1);
    cr_assert_eq(rank0, rank1, "%s", path);
    size_t count = 1;
    for (int r = 0; r < rank0; ++r) {
        cr_assert_eq(dims0[r], dims1[r], "%s", path);
        count *= dims0[r];
    }
    cr_assert_geq(count, fewest, "%s has %zu values", path, count);
    cr_assert_eq(memcmp(a, b, count * sizeof(double)), 0, "%s", path);
    free(a), free(b);
}

static int filter_count(hid_t file, const char* path)
{
    hid_t dataset = H5Dopen2(file, path, H5P_DEFAULT);
    cr_assert_geq(dataset, 0, "%s", path);
    hid_t properties = H5Dget_create_plist(dataset);
    int count = H5Pget_nfilters(properties);
    H5Pclose(properties);
    H5Dclose(dataset);
    return count;
}

Test(trajectory, compression_none_writes_the_same_values_without_filters_and_a_typo_is_refused)
{
    const char* settings[2] = {"", ", trajectory_compression: none"};
    const char* directories[2] = {"deflated", "uncompressed"};
    hid_t files[2];
    for (int k = 0; k < 2; ++k) {
        char text[4096];
        snprintf(text, sizeof text,
                 "%soutput: {csv_interval: 0.01, bodies_csv: false, contacts_csv: false, energy_csv: false, "
                 "trajectory: true%s}\n",
                 POUR_SCENE, settings[k]);
        write_file(temp_path("compression.yaml"), text);
        run_scene(temp_path("compression.yaml"), temp_path(directories[k]), NULL, 200);
        char path[4096];
        snprintf(path, sizeof path, "%s/trajectory.h5", temp_path(directories[k]));
        files[k] = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        cr_assert_geq(files[k], 0);
    }
    const char* datasets[] = {"/particles/all/position/value", "/particles/all/velocity/value",
                              "/particles/contacts/normal_force/value"};
    for (int d = 0; d < 3; ++d) {
        cr_assert_eq(filter_count(files[0], datasets[d]), 2, "shuffle + deflate: %s", datasets[d]);
        cr_assert_eq(filter_count(files[1], datasets[d]), 0, "no filters: %s", datasets[d]);
        /* The filters are lossless: the same bytes, NaN fills included. */
        assert_same_doubles(files[0], files[1], datasets[d], 1);
    }
    H5Fclose(files[0]);
    H5Fclose(files[1]);

    write_file(temp_path("typo.yaml"), POUR_SCENE "output: {trajectory: true, trajectory_compression: zip}\n");
    fd_scene scene;
    cr_assert_eq(fd_scene_load(temp_path("typo.yaml"), NULL, 0, &scene), FD_ERR_PARSE);
    cr_assert(strstr(fd_last_error(), "output.trajectory_compression"), "%s", fd_last_error());
    cr_assert(strstr(fd_last_error(), "deflate"), "the message lists the choices: %s", fd_last_error());
}

/* ---------------------------------------------------------------- direct I/O */

/* 12 000 spheres on a lattice whose bottom layer rests on the floor: the
 * layers above fall onto it and touch within a few steps. */
#define LATTICE_SCENE                                                                                                  \
    "name: lattice\n"                                                                                                  \
    "time: {step: 5.0e-5, duration: 0.01}\n"                                                                           \
    "materials: [{name: glass, density: 2500}]\n"                                                                      \
    "contacts:\n"                                                                                                      \
    "  - {materials: [glass, glass], normal: {model: hooke, k_n: 1.0e3, restitution: 0.3},\n"                          \
    "     slide: {model: dsds, k_t: 1.0e3, gamma_t: 1.0e-3, mu: 0.5}}\n"                                               \
    "bodies:\n"                                                                                                        \
    "  - {name: floor, static: true, material: glass, shape: {type: plane, normal: [0, 0, 1]}}\n"                      \
    "generators:\n"                                                                                                    \
    "  - {type: lattice, count: 12000, name_prefix: s, material: glass, radius: 0.002,\n"                              \
    "     region: {min: [0, 0, 0], max: [0.12, 0.12, 0.056]}}\n"

static void* file_bytes_of(const char* path, size_t* length)
{
    FILE* file = fopen(path, "rb");
    cr_assert_not_null(file, "no %s", path);
    fseek(file, 0, SEEK_END);
    *length = (size_t)ftell(file);
    fseek(file, 0, SEEK_SET);
    void* bytes = malloc(*length + 1);
    cr_assert_eq(fread(bytes, 1, *length, file), *length);
    fclose(file);
    return bytes;
}

Test(trajectory, direct_io_changes_no_value_of_any_output)
{
    /* 12 000 spheres: trajectory chunks of 16 384 rows (128 KiB and more,
     * aligned, so they may go direct) and CSV and VTU frames of megabytes
     * (blocks of 1 MiB). always (and 3 threads) against never (1 thread):
     * the CSV and VTU files byte for byte, the trajectory's datasets value
     * for value (the files differ only in where HDF5 put the chunks). */
    const char* modes[2] = {"never", "always"};
    int64_t direct_before = 0, cached_before = 0, direct_after = 0, cached_after = 0;
    fd_output_cost costs[2];
    for (int k = 0; k < 2; ++k) {
        char text[4096];
        /* The direct run on 3 threads: its CSV rows are formatted in
         * parallel batches (output_csv.c), its trajectory chunks prepared on
         * 3 threads; neither may change a byte. */
        snprintf(text, sizeof text,
                 "%s%soutput: {csv_interval: 0.005, bodies_csv: true, contacts_csv: true, vtu_interval: 0.005,\n"
                 "         trajectory: true, direct_io: %s}\n",
                 LATTICE_SCENE, k == 1 ? "world: {threads: 3}\n" : "", modes[k]);
        write_file(temp_path("lattice.yaml"), text);
        if (k == 1) {
            fd_hdf5_direct_counts(&direct_before, &cached_before);
        }
        costs[k] = run_scene_costed(temp_path("lattice.yaml"), temp_path(modes[k]), NULL, 200);
        /* What the writer counted is what the directory holds (the close
         * writes nothing more here: the last step was a row time). */
        char command[4200], listing[64] = "";
        snprintf(command, sizeof command, "du -sb --apparent-size '%s'", temp_path(modes[k]));
        FILE* du = popen(command, "r");
        cr_assert_not_null(du);
        cr_assert_not_null(fgets(listing, sizeof listing, du));
        pclose(du);
        double on_disk = atof(listing) - 4096.0 * 2; /* the directory entries themselves: out/ and vtu/ */
        cr_assert(fabs(costs[k].bytes - on_disk) < 0.01 * on_disk, "%s: counted %.0f bytes, %.0f on disk", modes[k],
                  costs[k].bytes, on_disk);
        cr_assert_gt(costs[k].seconds, 0.0);
        if (k == 1) {
            fd_hdf5_direct_counts(&direct_after, &cached_after);
        }
    }
    const char* files[] = {"bodies.csv", "contacts.csv", "vtu/bodies_000002.vtu", "vtu/contacts_000002.vtu"};
    for (int f = 0; f < 4; ++f) {
        char a_path[4096], b_path[4096];
        snprintf(a_path, sizeof a_path, "%s/%s", temp_path("never"), files[f]);
        snprintf(b_path, sizeof b_path, "%s/%s", temp_path("always"), files[f]);
        size_t a_length = 0, b_length = 0;
        char* a = file_bytes_of(a_path, &a_length);
        char* b = file_bytes_of(b_path, &b_length);
        cr_assert_gt(a_length, 1000000, "%s: %zu bytes, too few to be written in large blocks", files[f], a_length);
        cr_assert_eq(a_length, b_length, "%s", files[f]);
        cr_assert_eq(memcmp(a, b, a_length), 0, "%s differs", files[f]);
        free(a), free(b);
    }
    hid_t h5[2];
    for (int k = 0; k < 2; ++k) {
        char path[4096];
        snprintf(path, sizeof path, "%s/trajectory.h5", temp_path(modes[k]));
        h5[k] = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        cr_assert_geq(h5[k], 0, "%s does not open with HDF5's default driver", path);
    }
    const char* datasets[] = {"/particles/all/position/value", "/particles/all/velocity/value",
                              "/particles/contacts/normal_force/value", "/particles/contacts/slide_force/value"};
    for (int d = 0; d < 4; ++d) {
        assert_same_doubles(h5[0], h5[1], datasets[d], 30000);
    }
    H5Fclose(h5[0]);
    H5Fclose(h5[1]);
    /* Where the file system takes O_DIRECT, `always` wrote the trajectory's
     * large chunks directly. */
    char probe_path[4096];
    snprintf(probe_path, sizeof probe_path, "%s/probe", temp_dir);
    fd_block_file probe;
    cr_assert(fd_block_file_open(&probe, probe_path, FD_DIRECT_IO_ALWAYS, NULL));
    bool direct_possible = probe.direct_possible;
    fd_block_file_close(&probe);
    if (direct_possible) {
        cr_assert_gt(direct_after - direct_before, 1000000, "%lld bytes went direct",
                     (long long)(direct_after - direct_before));
        cr_assert_gt(costs[1].direct_bytes, 1000000);
    }
    /* never: every large block through the page cache, and counted there. */
    cr_assert_eq(costs[0].direct_bytes, 0.0);
    cr_assert_gt(costs[0].cached_bytes, 1000000);
}
