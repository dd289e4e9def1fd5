/* Restart (docs/restart.md): a run that stops at a checkpoint and is resumed
 * from it ends bit for bit as the run that never stopped.
 *
 * Each case runs a shipped scene three ways: N steps straight (A); N/2
 * steps, a checkpoint, then N/2 more in the same world (B: writing a
 * checkpoint changes nothing); and the checkpoint resumed into a fresh world
 * (fd_scene_resume), then N/2 steps (C). A, B and C must agree on every bit
 * of the bodies (fd_world_state_hash), of every contact's identity and
 * history (springs, lifetime books, slip states; the complementarity
 * stepper's warm start), of the energy ledger and of the inlets' progress.
 * Each case also checks that what it relies on happens: contacts with
 * loaded springs at the checkpoint, spheres from an inlet, contacts across a
 * periodic face. The other tests check that a checkpoint of another
 * scene or another format version is refused with a message that says so. */
#include <criterion/criterion.h>

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fricdem/fricdem.h"
#include "fricdem/io.h"
#include "penalty/penalty.h"
#include "world/world_store.h"

static void scene_path(const char* relative, char* path, size_t size)
{
    snprintf(path, size, "%s/scenes/%s", FRICDEM_SOURCE_DIR, relative);
}

static void checkpoint_path(const char* label, char* path, size_t size)
{
    snprintf(path, size, "%s/test_restart_%s.h5", FRICDEM_BINARY_DIR, label);
}

static fd_scene load(const char* relative, const char* const* overrides, int count)
{
    char path[1024];
    scene_path(relative, path, sizeof path);
    fd_scene scene;
    cr_assert_eq(fd_scene_load(path, overrides, count, &scene), FD_OK, "%s", fd_last_error());
    cr_assert_eq(fd_world_prepare(scene.world), FD_OK, "%s", fd_last_error());
    return scene;
}

static void run(fd_world* world, int64_t steps)
{
    for (int64_t k = 0; k < steps; ++k) {
        cr_assert_eq(fd_world_step(world), FD_OK, "step %lld: %s", (long long)fd_world_step_count(world),
                     fd_last_error());
    }
}

/* ---------------------------------------------------------------- what must agree */

static void assert_same_penalty_contacts(const fd_world* a, const fd_world* b, const char* label)
{
    fd_penalty_contacts x, y;
    cr_assert_eq(fd_penalty_gather(a, &x), FD_OK);
    cr_assert_eq(fd_penalty_gather(b, &y), FD_OK);
    cr_assert_eq(x.count, y.count, "%s: %lld vs %lld contacts", label, (long long)x.count, (long long)y.count);
    cr_assert_eq(x.history_stride, y.history_stride);
    cr_assert_eq(x.book_count, y.book_count);
    size_t n = (size_t)x.count;
    cr_assert(memcmp(x.pairs, y.pairs, 2 * n * sizeof *x.pairs) == 0, "%s: contact pairs differ", label);
    cr_assert(memcmp(x.id, y.id, n * sizeof *x.id) == 0, "%s: contact ids differ", label);
    cr_assert(memcmp(x.first_step, y.first_step, n * sizeof *x.first_step) == 0, "%s: first steps differ", label);
    cr_assert(memcmp(x.state, y.state, n * sizeof *x.state) == 0, "%s: touch and slip states differ", label);
    cr_assert(memcmp(x.springs, y.springs, n * (size_t)x.history_stride * sizeof(double)) == 0,
              "%s: contact springs (history) differ", label);
    if (x.book_count > 0) {
        cr_assert(memcmp(x.books, y.books, n * (size_t)x.book_count * sizeof *x.books) == 0,
                  "%s: contact energy books differ", label);
    }
    fd_penalty_contacts_free(&x);
    fd_penalty_contacts_free(&y);
}

static void assert_same_contact_set(const fd_world* a, const fd_world* b, const char* label)
{
    const fd_contact_set* x = &a->contacts;
    const fd_contact_set* y = &b->contacts;
    cr_assert_eq(x->count, y->count, "%s: %d vs %d contacts", label, x->count, y->count);
    for (int c = 0; c < x->count; ++c) {
        const fd_contact* p = &x->contacts[c];
        const fd_contact* q = &y->contacts[c];
        cr_assert(p->key == q->key && p->id == q->id && p->first_step == q->first_step && p->law == q->law &&
                      p->slip_flags == q->slip_flags && p->previous_slip_flags == q->previous_slip_flags,
                  "%s: contact %d differs in identity or slip state", label, c);
        cr_assert(memcmp(p->energy, q->energy, sizeof p->energy) == 0, "%s: contact %d's books differ", label, c);
        cr_assert(memcmp(&p->loads, &q->loads, sizeof p->loads) == 0, "%s: contact %d's loads differ", label, c);
    }
    size_t history = (size_t)x->count * (size_t)a->history_stride * sizeof(double);
    cr_assert(memcmp(x->history, y->history, history) == 0, "%s: contact histories (warm start) differ", label);
}

static void assert_same_run(const fd_world* a, const fd_world* b, const char* label)
{
    cr_assert_eq(fd_world_step_count(a), fd_world_step_count(b), "%s: steps", label);
    cr_assert_eq(fd_world_body_count(a), fd_world_body_count(b), "%s: %d vs %d bodies", label,
                 fd_world_body_count(a), fd_world_body_count(b));
    cr_assert_eq(fd_world_state_hash(a), fd_world_state_hash(b), "%s: state hash %016llx vs %016llx", label,
                 (unsigned long long)fd_world_state_hash(a), (unsigned long long)fd_world_state_hash(b));
    double ta = fd_world_time(a), tb = fd_world_time(b);
    cr_assert(memcmp(&ta, &tb, sizeof ta) == 0, "%s: time %.17g vs %.17g", label, ta, tb);
    cr_assert_eq(a->next_contact_id, b->next_contact_id, "%s: next contact id", label);
    if (a->def.stepper == FD_STEPPER_PENALTY) {
        assert_same_penalty_contacts(a, b, label);
    } else {
        assert_same_contact_set(a, b, label);
    }
    fd_world_energy ea = fd_world_get_energy(a), eb = fd_world_get_energy(b);
    cr_assert(memcmp(&ea, &eb, sizeof ea) == 0, "%s: energy ledger differs (closure %.17g vs %.17g)", label,
              ea.closure_error, eb.closure_error);
    cr_assert_eq(fd_world_inlet_count(a), fd_world_inlet_count(b));
    for (int i = 0; i < fd_world_inlet_count(a); ++i) {
        fd_inlet_info p = fd_world_get_inlet_info(a, i), q = fd_world_get_inlet_info(b, i);
        cr_assert(p.inserted == q.inserted && p.due == q.due && p.delayed == q.delayed && p.rejected == q.rejected &&
                      memcmp(&p.max_delay, &q.max_delay, sizeof p.max_delay) == 0,
                  "%s: inlet '%s' progress differs", label, p.name);
        cr_assert_eq(a->inlets[i].attempts, b->inlets[i].attempts, "%s: inlet '%s' counter differs", label, p.name);
    }
}

/* The largest |spring value| over the live contacts: > 0 means the
 * checkpoint holds contact history that the rest of the run reads. */
static double largest_spring(const fd_world* world)
{
    double largest = 0.0;
    if (world->def.stepper == FD_STEPPER_PENALTY) {
        fd_penalty_contacts c;
        cr_assert_eq(fd_penalty_gather(world, &c), FD_OK);
        for (int64_t k = 0; k < c.count * c.history_stride; ++k) {
            largest = fmax(largest, fabs(c.springs[k]));
        }
        fd_penalty_contacts_free(&c);
    } else {
        for (int64_t k = 0; k < (int64_t)world->contacts.count * world->history_stride; ++k) {
            largest = fmax(largest, fabs(world->contacts.history[k]));
        }
    }
    return largest;
}

/* Live contacts whose bodies touch through a periodic face (the image of
 * body j is not body j). */
static int64_t contacts_across_faces(const fd_world* world)
{
    fd_penalty_contacts c;
    cr_assert_eq(fd_penalty_gather(world, &c), FD_OK);
    int64_t across = 0;
    for (int64_t k = 0; k < c.count; ++k) {
        int i = c.pairs[2 * k], j = c.pairs[2 * k + 1];
        if (world->is_wall[i] || world->is_wall[j]) {
            continue;
        }
        fd_vec3 d = fd_v3_sub(world->position[i], world->position[j]);
        double components[3] = {d.x, d.y, d.z};
        bool crosses = false;
        for (int a = 0; a < 3; ++a) {
            crosses = crosses || (world->periodic.axis[a] && fabs(components[a]) > 0.5 * world->periodic.length[a]);
        }
        across += crosses;
    }
    fd_penalty_contacts_free(&c);
    return across;
}

/* ---------------------------------------------------------------- the three runs */

typedef struct restart_case {
    const char* label;
    const char* scene;
    const char* const* overrides;
    int override_count;
    int64_t before;               /* steps before the checkpoint */
    int64_t after;                /* steps after it */
    const char* const* resume_overrides; /* given to fd_scene_resume */
    int resume_override_count;
} restart_case;

/* Runs A, B and C of the head of the file; returns the resumed scene
 * (the caller checks more of it, then frees it). */
static fd_scene check_restart(const restart_case* c)
{
    char checkpoint[1024];
    checkpoint_path(c->label, checkpoint, sizeof checkpoint);
    remove(checkpoint);

    fd_scene straight = load(c->scene, c->overrides, c->override_count);
    run(straight.world, c->before + c->after);

    fd_scene stopped = load(c->scene, c->overrides, c->override_count);
    run(stopped.world, c->before);
    cr_assert_gt(fd_world_contact_count(stopped.world), 0, "%s: no contact at the checkpoint", c->label);
    cr_assert_gt(largest_spring(stopped.world), 0.0, "%s: no contact history at the checkpoint", c->label);
    uint64_t checkpoint_hash = fd_world_state_hash(stopped.world);
    cr_assert_eq(fd_scene_write_checkpoint(&stopped, checkpoint), FD_OK, "%s", fd_last_error());
    char temporary[1100];
    snprintf(temporary, sizeof temporary, "%s.tmp", checkpoint);
    cr_assert(access(temporary, F_OK) != 0, "%s: the temporary file was left behind", c->label);

    fd_scene resumed;
    cr_assert_eq(fd_scene_resume(checkpoint, c->resume_overrides, c->resume_override_count, &resumed), FD_OK, "%s",
                 fd_last_error());
    cr_assert_eq(fd_world_state_hash(resumed.world), checkpoint_hash);
    assert_same_run(stopped.world, resumed.world, c->label);

    run(stopped.world, c->after);
    run(resumed.world, c->after);
    cr_assert_neq(fd_world_state_hash(straight.world), checkpoint_hash, "%s: nothing moved after the checkpoint",
                  c->label);
    assert_same_run(straight.world, stopped.world, c->label);
    assert_same_run(straight.world, resumed.world, c->label);
    fd_scene_free(&straight);
    fd_scene_free(&stopped);
    remove(checkpoint);
    return resumed;
}

Test(restart, fang_negrut_slide_roll_spin_with_the_ledger)
{
    /* The demo heap with the Fang & Negrut spin torque added: slide, roll and
     * spin springs on the tracked contact point (the generic path). */
    const char* overrides[] = {"contacts.0.spin={model: fang_negrut, eta_psi: 0.2}", "generators.0.count=150",
                               "generators.0.velocity=[0, 0, -1.5]", "output.energy_csv=true",
                               "time.step=4e-5"}; /* the demo's former step: contacts by step 1400 */
    restart_case c = {"fang_negrut", "demo.yaml", overrides, 5, 1400, 600, NULL, 0};
    fd_scene resumed = check_restart(&c);
    cr_assert(resumed.world->def.energy_ledger);
    fd_scene_free(&resumed);
}

Test(restart, fang_negrut_sphere_lanes_without_the_ledger)
{
    /* The same heap without the ledger or contact output: a plain pass takes
     * the sphere pairs through the vectorised lanes (src/contact/
     * fang_negrut_lane.h), which read each contact's dashpot from the pool's
     * constants, set again when the checkpoint's contacts are restored. */
    const char* overrides[] = {"contacts.0.spin={model: fang_negrut, eta_psi: 0.2}", "generators.0.count=150",
                               "generators.0.velocity=[0, 0, -1.5]", "output.energy_csv=false",
                               "output.contacts_csv=false", "time.step=4e-5"};
    restart_case c = {"fang_negrut_lanes", "demo.yaml", overrides, 6, 1400, 600, NULL, 0};
    fd_scene resumed = check_restart(&c);
    cr_assert(!resumed.world->def.energy_ledger);
    fd_scene_free(&resumed);
}

Test(restart, dsds_with_rolling_and_twisting)
{
    /* LAMMPS's pour with rolling and twisting sds added (the scalar sphere
     * kernel), velocity Verlet, the ledger on. */
    const char* overrides[] = {"contacts.0.roll={model: dsds, k_roll: 1000, gamma_roll: 0.01, mu_roll: 0.1}",
                               "contacts.0.spin={model: dsds, k_twist: 1.0e-3, gamma_twist: 1.0e-6, mu_twist: 0.01}",
                               "generators.0.count=300", "generators.0.velocity=[0, 0, -1]"};
    restart_case c = {"dsds", "lammps/pour.yaml", overrides, 4, 1500, 700, NULL, 0};
    fd_scene resumed = check_restart(&c);
    fd_scene_free(&resumed);
}

Test(restart, resumed_with_two_threads_and_a_longer_duration)
{
    /* What a resume may change: the thread count (results do not depend on
     * it) and the duration. */
    const char* overrides[] = {"contacts.0.roll={model: dsds, k_roll: 1000, gamma_roll: 0.01, mu_roll: 0.1}",
                               "generators.0.count=300", "generators.0.velocity=[0, 0, -1]"};
    const char* resume_overrides[] = {"world.threads=2", "time.duration=5", "output.csv_interval=0.01"};
    restart_case c = {"threads", "lammps/pour.yaml", overrides, 3, 1200, 400, resume_overrides, 3};
    fd_scene resumed = check_restart(&c);
    cr_assert_eq(resumed.world->def.thread_count, 2);
    cr_assert_eq(resumed.duration, 5.0);
    cr_assert_eq(resumed.output.csv_interval, 0.01);
    fd_scene_free(&resumed);
}

Test(restart, pfc_rrlinear_with_an_inlet)
{
    /* The repose heap: PFC linear + rrlinear, spheres poured by an inlet (the
     * Philox counters, the spheres created again on resume), lowered and
     * sped up so that a heap starts within a few hundred steps. */
    const char* overrides[] = {"inlets.pour.region.disk.center=[0, 0, 0.02]", "inlets.pour.rate=8000"};
    restart_case c = {"pfc_inlet", "repose/heap.yaml", overrides, 2, 900, 500, NULL, 0};
    fd_scene resumed = check_restart(&c);
    fd_inlet_info inlet = fd_world_get_inlet_info(resumed.world, 0);
    cr_assert_gt(inlet.inserted, 50, "the inlet inserted %lld spheres", (long long)inlet.inserted);
    cr_assert_gt(inlet.rejected, 0, "the inlet never met a full region (its counters stay trivial)");
    fd_scene_free(&resumed);
}

Test(restart, complementarity_warm_start)
{
    /* The complementarity pile: the contacts' reactions are the next step's
     * warm start, and the solver stops at a tolerance, so a warm start that
     * is off by one bit shows in the result. */
    const char* overrides[] = {"generators.0.count=200"};
    restart_case c = {"complementarity", "complementarity/pile_box.yaml", overrides, 1, 30, 15, NULL, 0};
    fd_scene resumed = check_restart(&c);
    cr_assert_gt(fd_world_solver_stats(resumed.world).iterations, 0);
    fd_scene_free(&resumed);
}

Test(restart, periodic_granular_gas)
{
    /* The small granular gas: a cube periodic on all three axes, C-SDS
     * friction, the ledger on; contacts across the faces. */
    restart_case c = {"periodic", "gas/granular_gas_small.yaml", NULL, 0, 1200, 600, NULL, 0};
    fd_scene resumed = check_restart(&c);
    cr_assert_gt(contacts_across_faces(resumed.world), 0, "no contact across a periodic face");
    fd_scene_free(&resumed);
}

Test(restart, periodic_with_an_inlet_and_ellipsoids_in_the_generic_path)
{
    /* An inlet pours into a box periodic along x and y, onto an ellipsoid
     * resting on the floor (the generic narrow phase and Fang & Negrut). */
    const char* overrides[] = {
        "world.periodic=[x, y]",
        "world.box={min: [-0.05, -0.05, 0], max: [0.05, 0.05, 1]}",
        "bodies=[{name: floor, static: true, material: glass, shape: {type: plane, normal: [0, 0, 1]}}, "
        "{name: egg, material: glass, shape: {type: ellipsoid, semi_axes: [0.02, 0.012, 0.01]}, "
        "position: [0.0, 0.0, 0.0099]}]",
        "generators=[]",
        "inlets=[{name: rain, material: glass, radius: 0.006, region: {box: {min: [-0.05, -0.05, 0.012], "
        "max: [0.05, 0.05, 0.05]}}, rate: 4000, count: 300, velocity: [0.5, 0.2, -0.5], seed: 7}]",
    };
    restart_case c = {"periodic_inlet", "demo.yaml", overrides, 5, 1500, 700, NULL, 0};
    fd_scene resumed = check_restart(&c);
    cr_assert_gt(fd_world_get_inlet_info(resumed.world, 0).inserted, 50);
    cr_assert_gt(contacts_across_faces(resumed.world), 0, "no contact across a periodic face");
    fd_scene_free(&resumed);
}

/* ---------------------------------------------------------------- what is refused */

/* A checkpoint of the pour after a few hundred steps, at `path`. */
static void write_pour_checkpoint(const char* path, const char* const* overrides, int count, bool with_scene)
{
    fd_scene scene = load("lammps/pour.yaml", overrides, count);
    run(scene.world, 300);
    fd_status status =
        with_scene ? fd_scene_write_checkpoint(&scene, path) : fd_world_write_checkpoint(scene.world, path);
    cr_assert_eq(status, FD_OK, "%s", fd_last_error());
    fd_scene_free(&scene);
}

static const char* pour_small[] = {"generators.0.count=100", "generators.0.velocity=[0, 0, -1]"};

/* The pour_small checkpoint (write_pour_checkpoint) at the checkpoint_path
 * of the label, in path[size]. */
static void write_small_pour_checkpoint(const char* label, char* path, size_t size, bool with_scene)
{
    checkpoint_path(label, path, size);
    write_pour_checkpoint(path, pour_small, 2, with_scene);
}

Test(restart, a_world_checkpoint_reads_into_a_world_built_from_the_same_scene)
{
    char path[1024];
    write_small_pour_checkpoint("world_only", path, sizeof path, false);
    fd_scene fresh = load("lammps/pour.yaml", pour_small, 2);
    cr_assert_eq(fd_world_read_checkpoint(fresh.world, path), FD_OK, "%s", fd_last_error());
    cr_assert_eq(fd_world_step_count(fresh.world), 300);
    fd_scene stored;
    cr_assert_neq(fd_scene_resume(path, NULL, 0, &stored), FD_OK, "a checkpoint without a scene cannot be resumed");
    cr_assert(strstr(fd_last_error(), "holds no scene"), "%s", fd_last_error());
    /* Nor into a world that has run already. */
    cr_assert_neq(fd_world_read_checkpoint(fresh.world, path), FD_OK);
    cr_assert(strstr(fd_last_error(), "freshly built"), "%s", fd_last_error());
    fd_scene_free(&fresh);
    remove(path);
}

Test(restart, resume_refuses_an_override_of_the_physics)
{
    char path[1024];
    write_small_pour_checkpoint("refuse_override", path, sizeof path, true);
    const char* bad[] = {"time.step=2e-5"};
    fd_scene scene;
    cr_assert_neq(fd_scene_resume(path, bad, 1, &scene), FD_OK);
    cr_assert(strstr(fd_last_error(), "time.step=2e-5") && strstr(fd_last_error(), "only time.duration"), "%s",
              fd_last_error());
    const char* ledger[] = {"output.energy_csv=true"};
    remove(path);
    const char* no_ledger[] = {"generators.0.count=100", "output.energy_csv=false"};
    write_pour_checkpoint(path, no_ledger, 2, true);
    cr_assert_neq(fd_scene_resume(path, ledger, 1, &scene), FD_OK);
    cr_assert(strstr(fd_last_error(), "energy ledger off"), "%s", fd_last_error());
    remove(path);
    /* Nor start the contacts' own books (an output of contacts with the
     * ledger) that the checkpointed run did not keep. */
    const char* totals_only[] = {"generators.0.count=100", "output.energy_csv=true", "output.contacts_csv=false",
                                 "output.trajectory=false"};
    write_pour_checkpoint(path, totals_only, 4, true);
    const char* with_contacts[] = {"output.contacts_csv=true"};
    cr_assert_neq(fd_scene_resume(path, with_contacts, 1, &scene), FD_OK);
    cr_assert(strstr(fd_last_error(), "contacts' own energy books"), "%s", fd_last_error());
    remove(path);
}

Test(restart, a_checkpoint_of_another_scene_is_refused_naming_what_differs)
{
    char path[1024];
    write_small_pour_checkpoint("other_scene", path, sizeof path, false);
    struct {
        const char* change;
        const char* message;
    } cases[] = {
        {"contacts.0.normal.k_n=2.0e4", "contact laws"},
        {"materials.0.density=2600", "materials"},
        {"time.step=2.0e-5", "world settings"},
        {"generators.0.radius=0.0021", "body #5"},
        {"generators.0.count=99", "holds 105 bodies"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        const char* overrides[] = {pour_small[0], pour_small[1], cases[k].change};
        fd_scene other = load("lammps/pour.yaml", overrides, 3);
        fd_status status = fd_world_read_checkpoint(other.world, path);
        cr_assert_neq(status, FD_OK, "%s: accepted", cases[k].change);
        cr_assert(strstr(fd_last_error(), cases[k].message), "%s: %s", cases[k].change, fd_last_error());
        fd_scene_free(&other);
    }
    remove(path);
}

Test(restart, another_format_version_or_a_file_that_is_not_a_checkpoint_is_refused)
{
    char path[1024];
    write_small_pour_checkpoint("version", path, sizeof path, true);
    hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    cr_assert_geq(file, 0);
    hid_t attribute = H5Aopen(file, "format_version", H5P_DEFAULT);
    int64_t version = FD_CHECKPOINT_FORMAT + 1;
    cr_assert_geq(H5Awrite(attribute, H5T_NATIVE_INT64, &version), 0);
    H5Aclose(attribute);
    H5Fclose(file);
    fd_scene scene;
    cr_assert_neq(fd_scene_resume(path, NULL, 0, &scene), FD_OK);
    char written[64], read[64];
    snprintf(written, sizeof written, "format version %d", FD_CHECKPOINT_FORMAT + 1);
    snprintf(read, sizeof read, "reads version %d", FD_CHECKPOINT_FORMAT);
    cr_assert(strstr(fd_last_error(), written) && strstr(fd_last_error(), read), "%s", fd_last_error());

    char scene_file[1024];
    scene_path("lammps/pour.yaml", scene_file, sizeof scene_file);
    cr_assert_neq(fd_scene_resume(scene_file, NULL, 0, &scene), FD_OK);
    cr_assert(strstr(fd_last_error(), "not an HDF5 file"), "%s", fd_last_error());
    cr_assert_neq(fd_scene_resume("/nonexistent/checkpoint.h5", NULL, 0, &scene), FD_OK);
    cr_assert(strstr(fd_last_error(), "cannot open"), "%s", fd_last_error());
    remove(path);
}

Test(restart, a_failed_write_leaves_the_previous_checkpoint_whole)
{
    char path[1024], temporary[1100];
    checkpoint_path("atomic", path, sizeof path);
    snprintf(temporary, sizeof temporary, "%s.tmp", path);
    rmdir(temporary);
    write_pour_checkpoint(path, pour_small, 2, true);
    /* A directory where the temporary file would go: the write fails
     * before it touches the checkpoint. */
    cr_assert_eq(mkdir(temporary, 0755), 0);
    fd_scene scene = load("lammps/pour.yaml", pour_small, 2);
    run(scene.world, 500);
    cr_assert_neq(fd_scene_write_checkpoint(&scene, path), FD_OK);
    fd_scene_free(&scene);
    rmdir(temporary);
    fd_scene resumed;
    cr_assert_eq(fd_scene_resume(path, NULL, 0, &resumed), FD_OK, "%s", fd_last_error());
    cr_assert_eq(fd_world_step_count(resumed.world), 300, "the checkpoint is the first one, whole");
    fd_scene_free(&resumed);
    remove(path);
}

Test(restart, a_world_between_a_hand_move_and_its_next_step_cannot_be_written)
{
    char path[1024];
    checkpoint_path("unprepared", path, sizeof path);
    fd_scene scene = load("lammps/pour.yaml", pour_small, 2);
    fd_body_id grain = fd_world_body_at(scene.world, 10);
    fd_body_state state = fd_body_get_state(scene.world, grain);
    state.velocity.x += 0.1;
    cr_assert_eq(fd_body_set_state(scene.world, grain, &state), FD_OK);
    cr_assert_neq(fd_world_write_checkpoint(scene.world, path), FD_OK);
    cr_assert(strstr(fd_last_error(), "between steps"), "%s", fd_last_error());
    cr_assert(access(path, F_OK) != 0);
    fd_scene_free(&scene);
}
