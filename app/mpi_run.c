/* `mpirun -np N fricdem run SCENE`: the domain decomposition of
 * src/parallel/partition.h with MPI carrying its messages. Every rank loads
 * the scene and takes its slab; after each step one reduction tells every
 * rank whether a step failed, how far a body has moved since the last
 * migration and whether rank 0 writes output now; the owners then send
 * their ghosts (an all-to-all), bodies and contacts migrate when a body has
 * moved half the skin, and rank 0 gathers the owned bodies when it writes.
 * The bodies are those of one process to the bit (partition.h), so the
 * files are too.
 *
 * Not yet with more than one process (each refused by name): resume and
 * checkpoints, stages, inlets and outlets, the ledger and events, and the
 * outputs that read contacts or their sums (contacts.csv, energy.csv,
 * walls.csv, VTU snapshots, a trajectory with contacts). */
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fricdem/fricdem.h"
#include "fricdem/io.h"
#include "mpi_run.h"
#include "parallel/partition.h"
#include "run_options.h"

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* What the decomposed run cannot write yet, as the keys to switch off. */
static bool refuse_outputs(const fd_scene* scene, char* text, size_t size)
{
    const fd_output_settings* o = &scene->output;
    text[0] = '\0';
    const struct {
        bool on;
        const char* set;
    } refused[] = {
        {o->contacts_csv, "output.contacts_csv=false"},
        {o->energy_csv, "output.energy_csv=false"},
        {o->walls_csv, "output.walls_csv=false"},
        {o->events_csv, "output.events_csv=false"},
        {o->vtu_interval > 0.0, "output.vtu_interval=0"},
        {o->trajectory && o->trajectory_contacts, "output.trajectory_contacts=false"},
        {o->checkpoint_interval > 0.0, "output.checkpoint_interval=0"},
    };
    for (size_t k = 0; k < sizeof refused / sizeof refused[0]; ++k) {
        if (refused[k].on) {
            size_t used = strlen(text);
            snprintf(text + used, size - used, " --set %s", refused[k].set);
        }
    }
    return text[0] != '\0';
}

/* Rank 0 gathers the owned bodies of every rank, holds every body with
 * them, and writes (close: the last rows); the others only send. */
static fd_status gather_and_write(fd_partition* part, fd_output* output, int rank, int ranks, bool closing)
{
    int64_t owned = fd_partition_owned_count(part);
    int bytes = (int)(owned * (int64_t)sizeof(fd_body_record));
    int* counts = NULL;
    int* offsets = NULL;
    fd_body_record* all = NULL;
    fd_body_record* mine = malloc((size_t)(owned > 0 ? owned : 1) * sizeof *mine);
    fd_partition_pack_owned(part, mine);
    int total = 0;
    if (rank == 0) {
        counts = malloc((size_t)ranks * sizeof *counts);
        offsets = malloc((size_t)ranks * sizeof *offsets);
    }
    MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 0; r < ranks; ++r) {
            offsets[r] = total;
            total += counts[r];
        }
        all = malloc((size_t)(total > 0 ? total : 1));
    }
    MPI_Gatherv(mine, bytes, MPI_BYTE, all, counts, offsets, MPI_BYTE, 0, MPI_COMM_WORLD);
    fd_status status = FD_OK;
    if (rank == 0) {
        fd_partition_put_bodies(part, all, total / (int64_t)sizeof(fd_body_record));
        fd_partition_hold_everything(part, true);
        status = closing ? fd_output_close(output, part->world) : fd_output_write(output, part->world);
        fd_partition_hold_everything(part, false);
    }
    free(mine);
    free(all);
    free(counts);
    free(offsets);
    return status;
}

/* The ghosts each rank owns for each other rank, all to all. */
static void exchange_ghosts(fd_partition* part, int ranks)
{
    int* send_counts = calloc((size_t)ranks, sizeof *send_counts);
    int* send_offsets = calloc((size_t)ranks, sizeof *send_offsets);
    int* receive_counts = calloc((size_t)ranks, sizeof *receive_counts);
    int* receive_offsets = calloc((size_t)ranks, sizeof *receive_offsets);
    int64_t sending = 0;
    for (int r = 0; r < ranks; ++r) {
        sending += fd_partition_ghost_count(part, r);
    }
    fd_body_record* out = malloc((size_t)(sending > 0 ? sending : 1) * sizeof *out);
    int64_t at = 0;
    for (int r = 0; r < ranks; ++r) {
        fd_partition_pack_ghosts(part, r, out + at);
        send_counts[r] = (int)(fd_partition_ghost_count(part, r) * (int64_t)sizeof *out);
        send_offsets[r] = (int)(at * (int64_t)sizeof *out);
        at += fd_partition_ghost_count(part, r);
    }
    MPI_Alltoall(send_counts, 1, MPI_INT, receive_counts, 1, MPI_INT, MPI_COMM_WORLD);
    int total = 0;
    for (int r = 0; r < ranks; ++r) {
        receive_offsets[r] = total;
        total += receive_counts[r];
    }
    fd_body_record* in = malloc((size_t)(total > 0 ? total : 1));
    MPI_Alltoallv(out, send_counts, send_offsets, MPI_BYTE, in, receive_counts, receive_offsets, MPI_BYTE,
                  MPI_COMM_WORLD);
    fd_partition_put_bodies(part, in, total / (int64_t)sizeof *in);
    free(out);
    free(in);
    free(send_counts);
    free(send_offsets);
    free(receive_counts);
    free(receive_offsets);
}

/* Bodies and contacts to the ranks that hold them next. */
static fd_status migrate(fd_partition* part, int ranks)
{
    fd_parcel* parcels = calloc((size_t)ranks, sizeof *parcels);
    int* send = calloc(4 * (size_t)ranks, sizeof *send);
    if (parcels == NULL || send == NULL) {
        free(parcels);
        free(send);
        return FD_ERR_OUT_OF_MEMORY;
    }
    fd_status status = fd_partition_pack_migration(part, parcels);
    int* send_offsets = send + ranks;
    int* receive = send + 2 * ranks;
    int* receive_offsets = send + 3 * ranks;
    /* the bodies, then the contacts' words */
    int64_t body_total = 0, word_total = 0;
    for (int r = 0; r < ranks; ++r) {
        body_total += parcels[r].body_count;
        word_total += parcels[r].word_count;
    }
    fd_body_record* bodies = malloc((size_t)(body_total > 0 ? body_total : 1) * sizeof *bodies);
    uint64_t* words = malloc((size_t)(word_total > 0 ? word_total : 1) * sizeof *words);
    int64_t b = 0, w = 0;
    for (int r = 0; r < ranks; ++r) {
        if (parcels[r].body_count > 0) {
            memcpy(bodies + b, parcels[r].bodies, (size_t)parcels[r].body_count * sizeof *bodies);
        }
        if (parcels[r].word_count > 0) {
            memcpy(words + w, parcels[r].words, (size_t)parcels[r].word_count * sizeof *words);
        }
        b += parcels[r].body_count;
        w += parcels[r].word_count;
    }
    /* bodies */
    int64_t at = 0;
    for (int r = 0; r < ranks; ++r) {
        send[r] = (int)(parcels[r].body_count * (int64_t)sizeof *bodies);
        send_offsets[r] = (int)(at * (int64_t)sizeof *bodies);
        at += parcels[r].body_count;
    }
    MPI_Alltoall(send, 1, MPI_INT, receive, 1, MPI_INT, MPI_COMM_WORLD);
    int total = 0;
    for (int r = 0; r < ranks; ++r) {
        receive_offsets[r] = total;
        total += receive[r];
    }
    fd_body_record* bodies_in = malloc((size_t)(total > 0 ? total : 1));
    MPI_Alltoallv(bodies, send, send_offsets, MPI_BYTE, bodies_in, receive, receive_offsets, MPI_BYTE, MPI_COMM_WORLD);
    int64_t bodies_received = total / (int64_t)sizeof *bodies;
    /* contacts */
    at = 0;
    for (int r = 0; r < ranks; ++r) {
        send[r] = (int)parcels[r].word_count;
        send_offsets[r] = (int)at;
        at += parcels[r].word_count;
    }
    MPI_Alltoall(send, 1, MPI_INT, receive, 1, MPI_INT, MPI_COMM_WORLD);
    total = 0;
    for (int r = 0; r < ranks; ++r) {
        receive_offsets[r] = total;
        total += receive[r];
    }
    uint64_t* words_in = malloc((size_t)(total > 0 ? total : 1) * sizeof *words_in);
    MPI_Alltoallv(words, send, send_offsets, MPI_UINT64_T, words_in, receive, receive_offsets, MPI_UINT64_T,
                  MPI_COMM_WORLD);
    if (status == FD_OK) {
        status = fd_partition_unpack_migration(part, bodies_in, bodies_received, words_in, total);
    }
    for (int r = 0; r < ranks; ++r) {
        fd_parcel_free(&parcels[r]);
    }
    free(parcels);
    free(send);
    free(bodies);
    free(words);
    free(bodies_in);
    free(words_in);
    return status;
}

/* Every rank's verdict: 0 when all agree that nothing failed. */
static bool any_rank_failed(bool failed)
{
    int mine = failed ? 1 : 0, any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any != 0;
}

static int run(const run_options* options, bool resume, int rank, int ranks)
{
    bool leader = rank == 0;
    if (resume) {
        if (leader) {
            fprintf(stderr, "error: resume with %d processes: not supported yet (resume with one process)\n", ranks);
        }
        return EXIT_USAGE;
    }
    fd_scene scene;
    double start = now_seconds();
    fd_status status = fd_scene_load(options->scene_path, options->overrides, options->override_count, &scene);
    if (status != FD_OK) {
        if (leader) {
            fprintf(stderr, "error: %s\n", fd_last_error());
        }
        return EXIT_USAGE;
    }
    if (options->out_dir != NULL) {
        snprintf(scene.output.directory, sizeof scene.output.directory, "%s", options->out_dir);
    }
    char refused[512];
    if (refuse_outputs(&scene, refused, sizeof refused) || scene.stages != NULL) {
        if (leader) {
            if (scene.stages != NULL) {
                fprintf(stderr, "error: %s: stages with %d processes: not supported yet\n", scene.path, ranks);
            } else {
                fprintf(stderr, "error: %s: with %d processes fricdem writes bodies.csv (and a trajectory without "
                        "contacts) only, not yet the outputs that read contacts; switch them off:%s\n",
                        scene.path, ranks, refused);
            }
        }
        fd_scene_free(&scene);
        return EXIT_USAGE;
    }
    fd_world* world = scene.world;
    fd_world_set_contact_output(world, FD_CONTACT_OUTPUT_ON_REQUEST); /* no output here reads them */
    if ((int64_t)fd_world_body_count(world) > INT_MAX / (int64_t)sizeof(fd_body_record)) {
        /* MPI's counts are ints: rank 0's gather of every body must fit. */
        if (leader) {
            fprintf(stderr, "error: %s: %d bodies with %d processes: at most %d yet (one message of every body's "
                    "state must stay under 2^31 bytes)\n", scene.path, fd_world_body_count(world), ranks,
                    (int)(INT_MAX / (int64_t)sizeof(fd_body_record)));
        }
        fd_scene_free(&scene);
        return EXIT_USAGE;
    }
    /* The directory first (rank 0), as one process does: nothing touched on failure. */
    bool failed = leader && fd_output_claim_directory(scene.output.directory, options->overwrite) != FD_OK;
    if (failed) {
        fprintf(stderr, "error: %s\n", fd_last_error());
    }
    if (any_rank_failed(failed)) {
        fd_scene_free(&scene);
        return EXIT_USAGE;
    }
    fd_domain domain = {0};
    fd_partition part = {0};
    status = fd_world_prepare(world);
    if (status == FD_OK) {
        status = fd_domain_plan(world, ranks, &domain);
    }
    if (status == FD_OK) {
        status = fd_partition_init(&part, world, &domain, rank);
    }
    if (status != FD_OK && leader) {
        fprintf(stderr, "error: %s: %s\n", scene.path, fd_last_error());
    }
    if (any_rank_failed(status != FD_OK)) {
        fd_domain_free(&domain);
        fd_scene_free(&scene);
        return EXIT_USAGE;
    }
    fd_output* output = leader ? fd_output_open(world, &scene.output) : NULL;
    failed = leader && output == NULL;
    if (failed) {
        fprintf(stderr, "error: %s\n", fd_last_error());
    }
    if (!any_rank_failed(failed) && gather_and_write(&part, output, rank, ranks, false) != FD_OK) {
        fprintf(stderr, "error: %s\n", fd_last_error());
        failed = true;
    }
    double dt = fd_world_time_step(world);
    long long steps = llround(scene.duration / dt);
    if (leader && !options->quiet) {
        printf("fricdem %s: scene %s (%s)\n", FRICDEM_VERSION_STRING, scene.name, scene.path);
        printf("  ranks    %d, slabs along %c, halo %.3g m (bodies held by each rank in the summary)\n", ranks,
               "xyz"[domain.axis], domain.halo);
        printf("  steps    %lld x %g s = %g s\n", steps, dt, (double)steps * dt);
        printf("  outputs  %s\n", scene.output.directory);
        fflush(stdout);
    }
    double loop_start = now_seconds();
    long long done = 0;
    int next_tenth = 1;
    for (; done < steps; ++done) {
        status = fd_world_step(world);
        if (status != FD_OK) {
            fprintf(stderr, "error (rank %d): %s\n", rank, fd_last_error());
            failed = true;
        }
        /* One reduction a step: a failure anywhere (this step's, or the
         * last one's writing or migrating), the largest move since the
         * last migration, and whether rank 0 writes now. */
        double mine[3] = {failed ? 1.0 : 0.0, fd_partition_largest_move(&part),
                          leader && fd_output_due(output, world) ? 1.0 : 0.0};
        double all[3];
        MPI_Allreduce(mine, all, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (all[0] != 0.0) {
            failed = true;
            break;
        }
        exchange_ghosts(&part, ranks);
        if (all[1] > domain.migrate_after && migrate(&part, ranks) != FD_OK) {
            fprintf(stderr, "error (rank %d): %s\n", rank, fd_last_error());
            failed = true;
        }
        if (all[2] != 0.0 && gather_and_write(&part, output, rank, ranks, false) != FD_OK) {
            fprintf(stderr, "error: %s\n", fd_last_error());
            failed = true;
        }
        if (leader && !options->quiet && steps >= 10 && (done + 1) * 10 >= steps * next_tenth) {
            fprintf(stderr, "step %lld of %lld (%d%%), t = %.6g s, %.1f s\n", done + 1, steps, 10 * next_tenth,
                    fd_world_time(world), now_seconds() - loop_start);
            ++next_tenth;
        }
    }
    failed = any_rank_failed(failed); /* the last step's writing or migrating too */
    double wall = now_seconds() - loop_start;
    if (!failed && gather_and_write(&part, output, rank, ranks, true) != FD_OK) {
        fprintf(stderr, "error: %s\n", fd_last_error());
        failed = true;
    } else if (failed && leader) {
        fd_output_close(output, NULL);
        fprintf(stderr, "stopped at step %lld of %lld; outputs so far are in %s\n", done, steps,
                scene.output.directory);
    }
    /* What each rank held: owned and ghosts. */
    int64_t held[2] = {fd_partition_owned_count(&part), 0};
    for (int b = 0; b < fd_world_body_count(world); ++b) {
        held[1] += part.role[b] == FD_ROLE_GHOST;
    }
    int64_t* every = leader ? malloc((size_t)ranks * 2 * sizeof *every) : NULL;
    MPI_Gather(held, 2, MPI_INT64_T, every, 2, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (leader && !options->quiet && !failed) {
        printf("done: %lld steps in %.2f s wall (%.3g ms a step) on %d ranks, %lld migrations; load and set-up "
               "%.2f s\n", done, wall, done > 0 ? 1e3 * wall / (double)done : 0.0, ranks, (long long)part.migrations,
               loop_start - start);
        for (int r = 0; r < ranks; ++r) {
            printf("  rank %d: %lld bodies owned, %lld ghosts\n", r, (long long)every[2 * r],
                   (long long)every[2 * r + 1]);
        }
    }
    free(every);
    fd_partition_free(&part);
    fd_domain_free(&domain);
    fd_scene_free(&scene);
    return failed ? EXIT_RUN_FAILED : 0;
}

int run_on_ranks(const run_options* options, bool resume)
{
    MPI_Init(NULL, NULL);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    int code = run(options, resume, rank, ranks);
    MPI_Finalize();
    return code;
}
