/* What the bench tools share: a scene from the command line (SCENE and two
 * more arguments, then KEY=VALUE overrides), run as the CLI runs it. */
#ifndef FRICDEM_BENCH_SCENE_H
#define FRICDEM_BENCH_SCENE_H

#include <stdio.h>

#include "fricdem/io.h"

/* Loads argv[1] with the overrides argv[4..] into *scene and returns its
 * world, contact details only on request (as the CLI runs a scene whose
 * outputs want none); NULL after printing the usage (fewer than three
 * arguments: `usage` names them) or the error. */
static inline fd_world* bench_load_scene(int argc, char** argv, const char* usage, fd_scene* scene)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s %s [KEY=VALUE ...]\n", argv[0], usage);
        return NULL;
    }
    if (fd_scene_load(argv[1], (const char* const*)argv + 4, argc - 4, scene) != FD_OK) {
        fprintf(stderr, "error: %s\n", fd_last_error());
        return NULL;
    }
    fd_world_set_contact_output(scene->world, FD_CONTACT_OUTPUT_ON_REQUEST);
    return scene->world;
}

#endif
