/* Resuming a scene from a checkpoint (fd_scene_resume, `fricdem resume`).
 *
 * A checkpoint of a scene keeps the scene file's text, its path and the
 * overrides the run was given (checkpoint.c, group /scene). Resuming builds
 * the scene again from that text, not from the file on disk, which may have
 * changed since; relative paths in it (bodies_file) still start at the
 * scene's directory. Then fd_world_read_checkpoint puts the dynamic state
 * back, and refuses it if the world came out different.
 *
 * New overrides may change what does not touch the physics: how long the
 * run goes on (time.duration, the total simulated time from t = 0), what it
 * writes (output.*) and with how many threads (world.threads: results do not
 * depend on the thread count, docs/design.md). Every other key is refused by
 * name before anything is built, so that a resumed run cannot silently be a
 * different run.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "io/checkpoint.h"
#include "io/scene_loader.h"

/* Override keys a resumed run may change. */
static bool changes_no_physics(const char* arg)
{
    const char* equals = strchr(arg, '=');
    size_t length = equals != NULL ? (size_t)(equals - arg) : strlen(arg);
    static const char* const exact[] = {"time.duration", "world.threads"};
    for (size_t k = 0; k < sizeof exact / sizeof exact[0]; ++k) {
        if (length == strlen(exact[k]) && strncmp(arg, exact[k], length) == 0) {
            return true;
        }
    }
    return length > 7 && strncmp(arg, "output.", 7) == 0;
}

fd_status fd_scene_resume_with_progress(const char* checkpoint, const char* const* overrides, int override_count,
                                        fd_scene_progress_fn progress, void* user, fd_scene* out)
{
    if (out == NULL || checkpoint == NULL || override_count < 0 || (override_count > 0 && overrides == NULL)) {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "fd_scene_resume: NULL checkpoint or output, or bad overrides");
    }
    memset(out, 0, sizeof *out);
    for (int i = 0; i < override_count; ++i) {
        if (overrides[i] == NULL || !changes_no_physics(overrides[i])) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT,
                           "resume: --set %s: a resumed run keeps the physics of the run it continues; only "
                           "time.duration (the total simulated time), output.* and world.threads may change",
                           overrides[i] != NULL ? overrides[i] : "(null)");
        }
    }
    fd_checkpoint_scene_copy stored;
    fd_status status = fd_checkpoint_read_scene(checkpoint, &stored);
    if (status != FD_OK) {
        return status;
    }
    /* The run's overrides first, then the new ones (the later wins). */
    int total = stored.override_count + override_count;
    const char** all = calloc((size_t)(total > 0 ? total : 1), sizeof *all);
    if (all == NULL) {
        fd_checkpoint_scene_free(&stored);
        return fd_fail(FD_ERR_OUT_OF_MEMORY, "resume: out of memory");
    }
    for (int i = 0; i < stored.override_count; ++i) {
        all[i] = stored.overrides[i];
    }
    for (int i = 0; i < override_count; ++i) {
        all[stored.override_count + i] = overrides[i];
    }
    status = fd_scene_load_text(stored.path, stored.source, stored.source_size, all, total, progress, user, out);
    if (status != FD_OK) {
        char message[2048];
        snprintf(message, sizeof message, "%s", fd_last_error());
        status = fd_fail(status, "resume: the scene stored in checkpoint '%s': %s", checkpoint, message);
    }
    if (status == FD_OK) {
        status = fd_world_read_checkpoint(out->world, checkpoint);
        /* The stage under way goes on: its changes are in the world's state
         * (wall motions, inlets, gravity), only where it stands is the scene's. */
        if (status == FD_OK && (stored.stage < -1 || stored.stage >= fd_scene_stage_count(out))) {
            status = fd_fail(FD_ERR_PARSE, "checkpoint '%s': stage %d of a scene with %d stages", checkpoint,
                             stored.stage, fd_scene_stage_count(out));
        }
        if (status == FD_OK) {
            out->stage = stored.stage;
            out->stage_start_time = stored.stage_start_time;
        }
        if (status != FD_OK) {
            fd_scene_free(out);
        }
    }
    free(all);
    fd_checkpoint_scene_free(&stored);
    return status;
}

fd_status fd_scene_resume(const char* checkpoint, const char* const* overrides, int override_count, fd_scene* out)
{
    return fd_scene_resume_with_progress(checkpoint, overrides, override_count, NULL, NULL, out);
}
