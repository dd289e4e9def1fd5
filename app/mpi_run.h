/* `fricdem run` on several MPI ranks (app/mpi_run.c): the domain
 * decomposition of src/parallel/partition.h.
 * Must not touch: the world's storage (the ranks drive it through the partition). */
#ifndef FRICDEM_APP_MPI_RUN_H
#define FRICDEM_APP_MPI_RUN_H

#include <stdbool.h>
#include <stdlib.h>

#include "run_options.h"

/* Whether mpirun (or another MPI launcher) started this process as one of
 * several ranks: Open MPI's variable, and the PMI ones of other launchers. */
static inline bool launched_on_ranks(void)
{
    const char* names[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k) {
        const char* value = getenv(names[k]);
        if (value != NULL && atoi(value) > 1) {
            return true;
        }
    }
    return false;
}

/* The run on every rank; returns the exit code (0, EXIT_USAGE or
 * EXIT_RUN_FAILED), the same on every rank. */
int run_on_ranks(const run_options* options, bool resume);

#endif
