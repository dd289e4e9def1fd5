/* `fricdem resume` (app/fricdem.c, docs/restart.md), run as separate
 * processes: a run interrupted with Ctrl-C (SIGINT) and resumed from its
 * checkpoint ends with the state hash of the run that never stopped; the
 * summary prints that hash; a resume that would change the physics is
 * refused with exit status 2. */
#include <criterion/criterion.h>
#include <hdf5.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "support/cli.h"
#include "support/file.h"

TestSuite(resume, .init = make_dir, .fini = remove_dir);

/* The "state hash 0x..." of the last run's summary. */
static unsigned long long state_hash(void)
{
    const char* out = out_text();
    const char* line = strstr(out, "state hash   0x");
    cr_assert_not_null(line, "no state hash in the summary:\n%s", out);
    return strtoull(line + strlen("state hash   0x"), NULL, 16);
}

static int64_t checkpoint_step(const char* path)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert_geq(file, 0, "cannot open %s", path);
    hid_t attribute = H5Aopen(file, "step", H5P_DEFAULT);
    int64_t step = -1;
    cr_assert_geq(H5Aread(attribute, H5T_NATIVE_INT64, &step), 0);
    H5Aclose(attribute);
    H5Fclose(file);
    return step;
}

/* The rows of the CSV file `name` of the output directory temp_dir/dir at
 * its last time (malloc'ed). */
static char* last_rows(const char* dir, const char* name)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", temp_path(dir), name);
    char* text = read_all(path, NULL);
    size_t end = strlen(text);
    while (end > 0 && text[end - 1] == '\n') {
        --end;
    }
    size_t begin = end;
    while (begin > 0 && text[begin - 1] != '\n') {
        --begin;
    }
    const char* comma = strchr(text + begin, ',');
    cr_assert_not_null(comma, "no rows in %s", path);
    char time[64];
    snprintf(time, sizeof time, "\n%.*s,", (int)(comma - (text + begin)), text + begin);
    const char* first = strstr(text, time);
    cr_assert_not_null(first);
    char* rows = strdup(first);
    free(text);
    return rows;
}

/* The demo heap, small, falling fast, with a checkpoint every 250 steps
 * (0.01 s at 4e-5 s) and CSV rows every 1250. Without contacts.csv in the
 * interrupted run: the step Ctrl-C stopped at did not record its contacts,
 * so with contacts.csv neither its rows nor its checkpoint would be written
 * (the CLI says so), and the test wants the interrupted step's checkpoint. */
/* time.step 4e-5 s: the demo's former step, fine for this short pour (the demo
 * itself now steps 1.2e-5 s for its settled heap); the step counts below
 * (1500 steps to 0.06 s) assume it. */
static const char* demo_options =
    "--set generators.0.count=120 --set generators.0.velocity=[0,0,-1.5] --set output.vtu_interval=0 "
    "--set output.csv_interval=0.05 --set output.checkpoint_interval=0.01 --set time.step=4e-5";
static const char* no_contacts = "--set output.contacts_csv=false";

/* The path of scenes/demo.yaml, the scene every test here runs. */
static const char* demo_scene(void)
{
    static char path[600];
    snprintf(path, sizeof path, "%s/scenes/demo.yaml", FRICDEM_SOURCE_DIR);
    return path;
}

Test(resume, an_interrupted_run_resumed_ends_with_the_hash_of_the_run_that_never_stopped)
{
    const char* scene = demo_scene();
    const char* stopped_dir = temp_path("stopped");
    pid_t pid = start_cli("run '%s' --out '%s' --set time.duration=1e6 %s %s", scene, stopped_dir, demo_options,
                          no_contacts);
    /* Ctrl-C once the run has written a checkpoint and gone on a little. */
    char checkpoint[600];
    snprintf(checkpoint, sizeof checkpoint, "%s/checkpoint.h5", stopped_dir);
    cr_assert(wait_for_file(checkpoint, 6000), "the run never wrote a checkpoint: %s", err_text());
    pause_ms(300);
    int status = stop_cli(pid, SIGINT);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 130, "%s", err_text());
    char temporary[700];
    snprintf(temporary, sizeof temporary, "%s.tmp", checkpoint);
    cr_assert(!exists(temporary), "a temporary checkpoint was left behind");

    /* The checkpoint is the interrupted step's. */
    int64_t step = checkpoint_step(checkpoint);
    cr_assert_gt(step, 0);
    cr_assert(strstr(err_text(), "interrupted at step"), "%s", err_text());

    double duration = (double)(step + 700) * 4.0e-5;
    cr_assert_eq(run_cli("resume '%s' --out '%s' --set time.duration=%.17g", checkpoint, temp_path("resumed"),
                         duration),
                 0, "%s", err_text());
    cr_assert(strstr(out_text(), "resumed  from"), "%s", out_text());
    unsigned long long resumed = state_hash();

    cr_assert_eq(run_cli("run '%s' --out '%s' --set time.duration=%.17g %s %s", scene, temp_path("straight"), duration,
                         demo_options, no_contacts),
                 0, "%s", err_text());
    unsigned long long straight = state_hash();
    cr_assert_eq(resumed, straight, "resumed at step %lld: %016llx, straight: %016llx", (long long)step, resumed,
                 straight);

    /* The two runs' last energy.csv rows agree to the character. */
    char* resumed_rows = last_rows("resumed", "energy.csv");
    char* straight_rows = last_rows("straight", "energy.csv");
    cr_assert_str_eq(resumed_rows, straight_rows);
    free(resumed_rows);
    free(straight_rows);
}

Test(resume, a_finished_run_extended_from_its_last_checkpoint_is_the_longer_run)
{
    /* Contacts written: the checkpoint's step records them, and the resumed
     * run's first rows come from the checkpoint. */
    const char* scene = demo_scene();
    cr_assert_eq(run_cli("run '%s' --out '%s' --set time.duration=0.06 %s", scene, temp_path("first"), demo_options),
                 0, "%s", err_text());
    char checkpoint[600];
    snprintf(checkpoint, sizeof checkpoint, "%s/checkpoint.h5", temp_path("first"));
    cr_assert_eq(checkpoint_step(checkpoint), 1500, "the end of the run, not the last multiple of the interval");
    cr_assert_eq(run_cli("resume '%s' --out '%s' --set time.duration=0.11", checkpoint, temp_path("extended")), 0,
                 "%s", err_text());
    unsigned long long extended = state_hash();
    cr_assert_eq(run_cli("run '%s' --out '%s' --set time.duration=0.11 %s", scene, temp_path("long"), demo_options), 0,
                 "%s", err_text());
    cr_assert_eq(extended, state_hash());
    char* extended_rows = last_rows("extended", "contacts.csv");
    char* long_rows = last_rows("long", "contacts.csv");
    cr_assert_gt(strlen(extended_rows), 2000, "few contacts at the end: %s", extended_rows);
    cr_assert(strcmp(extended_rows, long_rows) == 0, "the last contacts.csv rows differ");
    free(extended_rows);
    free(long_rows);
}

Test(resume, a_change_of_the_physics_is_refused_with_status_2)
{
    cr_assert_eq(run_cli("run '%s' --out '%s' --set time.duration=0.004 %s --quiet", demo_scene(), temp_path("short"),
                         demo_options),
                 0, "%s", err_text());
    cr_assert_eq(run_cli("resume '%s/checkpoint.h5' --set contacts.0.slide.mu_s=0.9", temp_path("short")), 2);
    cr_assert(strstr(err_text(), "contacts.0.slide.mu_s=0.9") && strstr(err_text(), "only time.duration"), "%s",
              err_text());
    cr_assert_eq(run_cli("resume"), 2);
    cr_assert(strstr(err_text(), "resume needs a checkpoint file"), "%s", err_text());
    cr_assert_eq(run_cli("resume /nonexistent/checkpoint.h5"), 2);
    cr_assert(strstr(err_text(), "cannot open"), "%s", err_text());
}
