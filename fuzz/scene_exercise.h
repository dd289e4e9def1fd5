/* What the scene fuzzer does with one input (fuzz/fuzz_scene.c), shared with
 * the regression test that replays every input it ever crashed on
 * (tests/test_fuzz_inputs.c), so that a committed input is exercised exactly
 * as when it was found: load; when it loads with at most a few hundred bodies,
 * prepare and step it a few times, so the checks of fd_world_prepare and the
 * first steps see the same odd values (huge or tiny numbers, empty worlds). */
#ifndef FD_FUZZ_SCENE_EXERCISE_H
#define FD_FUZZ_SCENE_EXERCISE_H

#include <string.h>

#include "fricdem/fricdem.h"
#include "fricdem/io.h"

enum { FD_FUZZ_MOST_BODIES_TO_STEP = 500, FD_FUZZ_STEPS = 3 };

typedef enum fd_fuzz_outcome {
    FD_FUZZ_LOAD_ERROR = 0,    /* the scene was refused */
    FD_FUZZ_PREPARE_ERROR = 1, /* loaded, refused by fd_world_prepare */
    FD_FUZZ_STEP_ERROR = 2,    /* a step failed (e.g. the state blew up) */
    FD_FUZZ_STEPPED = 3,       /* prepared and stepped FD_FUZZ_STEPS times */
    FD_FUZZ_TOO_LARGE = 4,     /* loaded, too many bodies to step here */
} fd_fuzz_outcome;

/* Exercises the scene at path; *message gets fd_last_error()'s length on an
 * error (an error must come with a message: the caller checks it). */
static inline fd_fuzz_outcome fd_fuzz_exercise_scene(const char* path, size_t* message_length)
{
    fd_scene scene;
    *message_length = 0;
    if (fd_scene_load(path, NULL, 0, &scene) != FD_OK) {
        *message_length = strlen(fd_last_error());
        return FD_FUZZ_LOAD_ERROR;
    }
    fd_fuzz_outcome outcome = FD_FUZZ_STEPPED;
    if (fd_world_body_count(scene.world) > FD_FUZZ_MOST_BODIES_TO_STEP) {
        outcome = FD_FUZZ_TOO_LARGE;
    } else if (fd_world_prepare(scene.world) != FD_OK) {
        outcome = FD_FUZZ_PREPARE_ERROR;
    } else {
        for (int s = 0; s < FD_FUZZ_STEPS; ++s) {
            if (fd_world_step(scene.world) != FD_OK) {
                outcome = FD_FUZZ_STEP_ERROR;
                break;
            }
        }
    }
    if (outcome == FD_FUZZ_PREPARE_ERROR || outcome == FD_FUZZ_STEP_ERROR) {
        *message_length = strlen(fd_last_error());
    }
    fd_scene_free(&scene);
    return outcome;
}

#endif
