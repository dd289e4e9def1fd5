/* Checkpoints, inside src/io/: the world's file, written (checkpoint.c, with
 * the layout and why) and read (checkpoint_read.c), the shapes both use
 * (checkpoint_layout.c), the scene it came from (checkpoint_scene.c), HDF5
 * helpers (checkpoint_hdf5.c). docs/restart.md.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#ifndef FD_IO_CHECKPOINT_H
#define FD_IO_CHECKPOINT_H

#include <stddef.h>

#include "fricdem/io.h"

/* What a checkpoint keeps of the scene, so that `fricdem resume` can build
 * the world again: the file's text, where it was (relative paths in it,
 * messages) and the overrides it was run with. */
typedef struct fd_checkpoint_scene {
    const char* path;
    const char* name;
    const char* source;
    size_t source_size;
    const char* const* overrides;
    int override_count;
    int stage;               /* the stage under way (-1: none) */
    double stage_start_time; /* s */
} fd_checkpoint_scene;

/* fd_world_write_checkpoint with the scene's group when scene is not NULL. */
fd_status fd_checkpoint_write(const fd_world* world, const char* path, const fd_checkpoint_scene* scene);

/* The scene group of a checkpoint, copied (fd_checkpoint_scene_free). */
typedef struct fd_checkpoint_scene_copy {
    char path[FD_PATH_MAX];
    char* source;
    size_t source_size;
    char** overrides;
    int override_count;
    int stage;               /* -1 when the checkpoint has none */
    double stage_start_time;
} fd_checkpoint_scene_copy;
fd_status fd_checkpoint_read_scene(const char* path, fd_checkpoint_scene_copy* out);
void fd_checkpoint_scene_free(fd_checkpoint_scene_copy* scene);

#endif
