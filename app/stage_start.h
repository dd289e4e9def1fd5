/* The command line's start of a stage (docs/stages.md), shared by one
 * process's run (fricdem.c) and the ranks' (mpi_run.c): each decides when
 * the stage under way has finished, this begins the next one.
 * Must not touch: the world's storage (it calls the public API). */
#ifndef FRICDEM_APP_STAGE_START_H
#define FRICDEM_APP_STAGE_START_H

#include <stdbool.h>

#include "fricdem/io.h"

/* The output intervals of the stage under way, from now on (output may be
 * NULL: a rank that writes nothing; nothing without stages). */
void stage_apply_output(const fd_scene* scene, fd_output* output);

/* After the step that finished the stage under way (or before the first
 * step): the next stage begins, its changes applied to the scene's world
 * and its output intervals to `output`; `announce` prints its line.
 * *over: the last stage had finished (nothing begins). False after an
 * error (printed, naming `who` when it is not NULL). */
bool stage_begin_next(fd_scene* scene, fd_output* output, bool announce, const char* who, bool* over);

/* The line of the stage under way (it began now). */
void stage_announce(const fd_scene* scene);

#endif
