/* The output directory of a run: refused when it holds anything, unless the
 * caller asks to overwrite, and then only fricdem's own outputs are removed.
 *
 * Why refuse. A run writes only the files its settings ask for: rerun into
 * the directory of a run that wrote events.csv or 500 VTU snapshots, with
 * those switched off, and the old files stayed beside the new ones, read
 * later as this run's. So a directory that holds anything is not written
 * into without a word.
 *
 * What --overwrite removes: exactly the names fd_output_open writes (the
 * table below) and the folder vtu/ when it holds only snapshot files. Any
 * other entry (a user's notes, a plot, a checkpoint of another tool) makes
 * the whole call fail before anything is removed, so a mistyped --out never
 * costs a file that fricdem did not write. docs/guarantees.md documents it.
 *
 * Also the paths of the files inside it (fd_output_path), for every writer
 * of the outputs.
 *
 * Must not touch: the steppers' internals (it reads the world through the public API). */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "fricdem/io.h"
#include "io/run_outputs.h"

/* The files fd_output_open and its writers create at the top level (the
 * .pvd.tmp files exist between a snapshot's write and its rename), and the
 * CLI's rolling checkpoint (docs/restart.md; .tmp between write and rename). */
static const char* const own_files[] = {
    "bodies.csv",  "contacts.csv",    "energy.csv",       "events.csv", "solver.csv", "walls.csv", "outlets.csv",
    "bodies.pvd",  "contacts.pvd",    "walls.pvd",        "bodies.pvd.tmp", "contacts.pvd.tmp", "walls.pvd.tmp",
    "checkpoint.h5", "checkpoint.h5.tmp",
    "trajectory.h5", "trajectory.xdmf", "trajectory.xdmf.tmp",
    "trajectory_contacts.xdmf", "trajectory_contacts.xdmf.tmp",
};

/* A file of vtu/: PREFIX_NNNNNN.vtu with PREFIX bodies, contacts or walls
 * and at least six digits (the snapshot number), or the planes.vtu that
 * runs before the walls series wrote. */
static bool is_own_snapshot(const char* name)
{
    if (strcmp(name, "planes.vtu") == 0) {
        return true;
    }
    const char* digits = strncmp(name, "bodies_", 7) == 0     ? name + 7
                         : strncmp(name, "contacts_", 9) == 0 ? name + 9
                         : strncmp(name, "walls_", 6) == 0    ? name + 6
                                                              : NULL;
    if (digits == NULL) {
        return false;
    }
    size_t count = strspn(digits, "0123456789");
    return count >= 6 && strcmp(digits + count, ".vtu") == 0;
}

/* What is found in the directory, for the decision and the messages. */
typedef struct survey {
    char own[512];            /* "bodies.csv, vtu/ (101 files)", cut short with "..." */
    char foreign[512];        /* entries fricdem did not write, the same way */
    int own_count, foreign_count;
    bool vtu_folder;          /* vtu/ is there and holds only snapshots */
} survey;

static void list_name(char* list, size_t size, const char* name)
{
    size_t used = strlen(list);
    if (used + 4 >= size) {
        return;
    }
    if (used + strlen(name) + 6 >= size) {
        snprintf(list + used, size - used, "%s...", used ? ", " : "");
        list[size - 1] = '\0';
        return;
    }
    snprintf(list + used, size - used, "%s%s", used ? ", " : "", name);
}

/* Counts the snapshot files of dir/vtu; -1 when it holds anything else (or
 * cannot be read). */
static int count_snapshots(const char* path)
{
    DIR* folder = opendir(path);
    if (folder == NULL) {
        return -1;
    }
    int count = 0;
    for (struct dirent* entry = readdir(folder); entry != NULL; entry = readdir(folder)) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) {
            continue;
        }
        if (!is_own_snapshot(entry->d_name)) {
            count = -1;
            break;
        }
        ++count;
    }
    closedir(folder);
    return count;
}

static int compare_names(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

/* Lists the directory: its own files in the table's order, then vtu/, then
 * the other entries sorted by name (folders with a trailing '/'). */
static fd_status take_survey(const char* directory, survey* out)
{
    memset(out, 0, sizeof *out);
    DIR* folder = opendir(directory);
    if (folder == NULL) {
        return fd_fail(FD_ERR_IO, "output: cannot read the directory '%s': %s", directory, strerror(errno));
    }
    bool present[sizeof own_files / sizeof own_files[0]] = {false};
    int snapshots = -1;
    char** foreign = NULL;
    int foreign_capacity = 0;
    fd_status status = FD_OK;
    for (struct dirent* entry = readdir(folder); entry != NULL && status == FD_OK; entry = readdir(folder)) {
        const char* name = entry->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
            continue;
        }
        char path[FD_PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", directory, name);
        struct stat info;
        bool known = lstat(path, &info) == 0;
        bool folder_entry = known && S_ISDIR(info.st_mode);
        int vtu = folder_entry && strcmp(name, "vtu") == 0 ? count_snapshots(path) : -1;
        size_t own = 0;
        while (own < sizeof own_files / sizeof own_files[0] && strcmp(name, own_files[own]) != 0) {
            ++own;
        }
        if (known && S_ISREG(info.st_mode) && own < sizeof own_files / sizeof own_files[0]) {
            present[own] = true;
            out->own_count += 1;
        } else if (vtu >= 0) {
            snapshots = vtu;
            out->own_count += 1;
        } else {
            if (out->foreign_count == foreign_capacity) {
                foreign_capacity = foreign_capacity ? 2 * foreign_capacity : 16;
                char** grown = realloc(foreign, (size_t)foreign_capacity * sizeof *grown);
                if (grown == NULL) {
                    status = fd_fail(FD_ERR_OUT_OF_MEMORY, "output: out of memory");
                    break;
                }
                foreign = grown;
            }
            size_t length = strlen(name);
            foreign[out->foreign_count] = malloc(length + 2);
            if (foreign[out->foreign_count] == NULL) {
                status = fd_fail(FD_ERR_OUT_OF_MEMORY, "output: out of memory");
                break;
            }
            snprintf(foreign[out->foreign_count], length + 2, "%s%s", name, folder_entry ? "/" : "");
            out->foreign_count += 1;
        }
    }
    closedir(folder);
    for (size_t k = 0; k < sizeof own_files / sizeof own_files[0]; ++k) {
        if (present[k]) {
            list_name(out->own, sizeof out->own, own_files[k]);
        }
    }
    if (snapshots >= 0) {
        char label[64];
        snprintf(label, sizeof label, "vtu/ (%d file%s)", snapshots, snapshots == 1 ? "" : "s");
        list_name(out->own, sizeof out->own, label);
        out->vtu_folder = true;
    }
    if (out->foreign_count > 1) {
        qsort(foreign, (size_t)out->foreign_count, sizeof *foreign, compare_names);
    }
    for (int k = 0; k < out->foreign_count; ++k) {
        list_name(out->foreign, sizeof out->foreign, foreign[k]);
        free(foreign[k]);
    }
    free(foreign);
    return status;
}

/* Removes what take_survey counted as fricdem's own: the files of the
 * table, then vtu/'s snapshots and vtu/ itself. */
static fd_status remove_own_outputs(const char* directory, const survey* found)
{
    char path[FD_PATH_MAX + 300];
    for (size_t k = 0; k < sizeof own_files / sizeof own_files[0]; ++k) {
        snprintf(path, sizeof path, "%s/%s", directory, own_files[k]);
        if (unlink(path) != 0 && errno != ENOENT) {
            return fd_fail(FD_ERR_IO, "output: cannot remove '%s': %s", path, strerror(errno));
        }
    }
    if (!found->vtu_folder) {
        return FD_OK;
    }
    char folder_path[FD_PATH_MAX + 8];
    snprintf(folder_path, sizeof folder_path, "%s/vtu", directory);
    DIR* folder = opendir(folder_path);
    if (folder == NULL) {
        return fd_fail(FD_ERR_IO, "output: cannot read '%s': %s", folder_path, strerror(errno));
    }
    fd_status status = FD_OK;
    for (struct dirent* entry = readdir(folder); entry != NULL && status == FD_OK; entry = readdir(folder)) {
        if (!is_own_snapshot(entry->d_name)) {
            continue; /* "." and ".."; nothing else is there (take_survey checked) */
        }
        snprintf(path, sizeof path, "%s/%s", folder_path, entry->d_name);
        if (unlink(path) != 0 && errno != ENOENT) {
            status = fd_fail(FD_ERR_IO, "output: cannot remove '%s': %s", path, strerror(errno));
        }
    }
    closedir(folder);
    if (status == FD_OK && rmdir(folder_path) != 0) {
        status = fd_fail(FD_ERR_IO, "output: cannot remove '%s': %s", folder_path, strerror(errno));
    }
    return status;
}

fd_status fd_output_claim_directory(const char* directory, bool overwrite)
{
    if (directory == NULL || directory[0] == '\0') {
        return fd_fail(FD_ERR_INVALID_ARGUMENT, "output: directory is empty");
    }
    struct stat info;
    if (stat(directory, &info) != 0) {
        if (errno == ENOENT) {
            return FD_OK; /* fd_output_open creates it */
        }
        return fd_fail(FD_ERR_IO, "output: cannot use '%s': %s", directory, strerror(errno));
    }
    if (!S_ISDIR(info.st_mode)) {
        return fd_fail(FD_ERR_IO, "output: '%s' exists and is not a directory", directory);
    }
    survey found;
    fd_status status = take_survey(directory, &found);
    if (status != FD_OK || found.own_count + found.foreign_count == 0) {
        return status;
    }
    if (!overwrite) {
        return fd_fail(FD_ERR_IO,
                       "output directory '%s' is not empty (%s%s%s): pass --overwrite to replace an earlier run's "
                       "outputs, or choose another directory with --out",
                       directory, found.own, found.own_count && found.foreign_count ? ", " : "", found.foreign);
    }
    if (found.foreign_count > 0) {
        return fd_fail(FD_ERR_IO,
                       "output directory '%s' holds files fricdem did not write (%s): --overwrite removes only an "
                       "earlier run's outputs, so nothing was removed; move them or choose another directory",
                       directory, found.foreign);
    }
    return remove_own_outputs(directory, &found);
}

/* Formats directory/name into the scratch buffer and returns it. */
const char* fd_output_path(fd_output* output, const char* format, ...)
{
    size_t used = (size_t)snprintf(output->path, output->path_size, "%s/", output->settings.directory);
    va_list args;
    va_start(args, format);
    vsnprintf(output->path + used, output->path_size - used, format, args);
    va_end(args);
    return output->path;
}
