/* Contact events (the PFC manual's callback events, papers/001 Table 4):
 * contact activated, slip started and ended per mechanism, through the API
 * after each step and in events.csv. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fricdem/fricdem.h"
#include "fricdem/io.h"
#include "support/support.h"

/* The PFC verification ball (scenes/pfc/ball_rrlinear.yaml): thrown at 2 m/s
 * without spin, it slides until t1, rolls with the rolling moment at its
 * limit M* until t2, then rests (docs/validation/pfc_ball.md):
 * t1 = 2 v0 / ((7 mu - 5 mu_r) g) = 0.13592 s, t2 = 2.03874 s. */
Test(events, the_pfc_ball_raises_activation_then_slide_and_roll_slip_ends_at_t1_and_t2)
{
    char scene_path[1024];
    snprintf(scene_path, sizeof scene_path, "%s/scenes/pfc/ball_rrlinear.yaml", FRICDEM_SOURCE_DIR);
    const char* overrides[] = {"output.directory=" FRICDEM_BINARY_DIR "/test_events_out", "output.events_csv=true",
                               "output.bodies_csv=false", "output.contacts_csv=false", "output.energy_csv=false",
                               "time.duration=2.2"};
    fd_scene scene;
    cr_assert_eq(fd_scene_load(scene_path, overrides, 6, &scene), FD_OK, "%s", fd_last_error());
    fd_world* world = scene.world;
    cr_assert_eq(fd_world_prepare(world), FD_OK, "%s", fd_last_error());
    fd_output* output = fd_output_open(world, &scene.output);
    cr_assert_not_null(output, "%s", fd_last_error());
    cr_assert_eq(fd_output_write(output, world), FD_OK, "%s", fd_last_error());

    /* The prepare pass: the contact begins, already sliding (v0 = 2 m/s, no
     * spin) and with the rolling spring loaded by the spin-up at once. */
    int total = fd_world_event_count(world);
    const fd_contact_event* first = fd_world_events(world);
    cr_assert_geq(total, 2);
    cr_assert_eq(first[0].type, FD_EVENT_CONTACT_ACTIVATED);
    cr_assert_eq(first[0].step, 0);
    cr_assert_eq(first[1].type, FD_EVENT_SLIP_STARTED);
    cr_assert_eq(first[1].mechanism, FD_MECHANISM_SLIDE);

    int slip_column = fd_world_find_contact_column(world, "lin_slip");
    int roll_column = fd_world_find_contact_column(world, "rr_slip");
    double slide_ended = NAN, roll_ended = NAN;
    double previous_slide = 1.0, previous_roll = NAN;
    fd_contact_view view;
    cr_assert_eq(fd_world_get_contact(world, 0, &view), FD_OK);
    previous_roll = view.columns[roll_column];
    int steps = (int)lround(scene.duration / fd_world_time_step(world));
    for (int s = 0; s < steps; ++s) {
        cr_assert_eq(fd_world_step(world), FD_OK, "%s", fd_last_error());
        cr_assert_eq(fd_output_write(output, world), FD_OK, "%s", fd_last_error());
        cr_assert_eq(fd_world_get_contact(world, 0, &view), FD_OK);
        double slide = view.columns[slip_column], roll = view.columns[roll_column];
        /* Exactly one event per change of a slip state, none otherwise. */
        int expected = (slide != previous_slide) + (roll != previous_roll);
        int count = fd_world_event_count(world);
        cr_assert_eq(count, expected, "step %d: %d events for %d slip changes", s + 1, count, expected);
        for (int k = 0; k < count; ++k) {
            const fd_contact_event* e = &fd_world_events(world)[k];
            cr_assert_eq(e->contact_id, view.id);
            cr_assert_float_eq(e->time, fd_world_time(world), 0.0);
            bool is_slide = e->mechanism == FD_MECHANISM_SLIDE;
            double now = is_slide ? slide : roll;
            cr_assert_eq(e->type, now == 1.0 ? FD_EVENT_SLIP_STARTED : FD_EVENT_SLIP_ENDED);
            if (e->type == FD_EVENT_SLIP_ENDED) {
                *(is_slide ? &slide_ended : &roll_ended) = e->time;
            }
        }
        total += count;
        previous_slide = slide;
        previous_roll = roll;
    }
    /* The last slip ends against the closed forms: the slide within 2 ms of t1
     * (the shear spring settles over a few of its periods, 2 sqrt(m/ks) = 2 ms),
     * the roll within 1 ms of t2 (the rolling spring's period at k_r = ks R^2,
     * I = 0.004: 2 pi sqrt(I/k_r) = 4 ms, and the moment falls below M* within
     * a fraction of it; docs/validation/pfc_ball.md measures 2.039 s). */
    cr_assert_float_eq(slide_ended, 0.13592, 2e-3, "slide slip ended at %g s", slide_ended);
    cr_assert_float_eq(roll_ended, 2.03874, 1e-3, "roll slip ended at %g s", roll_ended);

    cr_assert_eq(fd_output_close(output, world), FD_OK, "%s", fd_last_error());
    /* events.csv: the two header lines and one row per event. */
    FILE* file = fopen(FRICDEM_BINARY_DIR "/test_events_out/events.csv", "r");
    cr_assert_not_null(file);
    char line[512];
    int lines = 0, ended = 0;
    while (fgets(line, sizeof line, file)) {
        ++lines;
        ended += strstr(line, ",slip_ended,") != NULL;
    }
    fclose(file);
    cr_assert_eq(lines, total + 2, "events.csv has %d lines for %d events", lines, total);
    cr_assert_geq(ended, 2);
    fd_scene_free(&scene);
}
