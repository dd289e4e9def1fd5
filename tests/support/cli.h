/* The fricdem command line run as a separate process from a test, in the
 * test's temporary directory (temp_dir.h): what it printed to stdout and
 * stderr, a run started in the background and stopped by a signal. The
 * fixtures of the tests that run the CLI (test_cli.c, test_restart_cli.c,
 * test_trajectory.c); the build defines FRICDEM_CLI, the binary's path. */
#ifndef FRICDEM_TEST_CLI_SUPPORT_H
#define FRICDEM_TEST_CLI_SUPPORT_H

#include <criterion/criterion.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "temp_dir.h"

#ifndef FRICDEM_CLI
#error "FRICDEM_CLI (path of the fricdem binary) must be defined by the build"
#endif

/* The shell command that runs FRICDEM_CLI with the arguments (a printf
 * format of a shell fragment, and its list) into out[size]: to the end, with
 * stdout and stderr into temp_dir/stdout and temp_dir/stderr, or (background)
 * exec'ed by the shell, whose streams start_cli redirects. */
static inline void cli_command(char* out, size_t size, bool background, const char* format, va_list list)
{
    char arguments[3600];
    vsnprintf(arguments, sizeof arguments, format, list);
    if (background) {
        snprintf(out, size, "exec '%s' %s", FRICDEM_CLI, arguments);
    } else {
        snprintf(out, size, "'%s' %s >'%s/stdout' 2>'%s/stderr' </dev/null", FRICDEM_CLI, arguments, temp_dir,
                 temp_dir);
    }
}

/* Runs FRICDEM_CLI with the arguments (a printf format of a shell fragment)
 * to the end, stdout and stderr into temp_dir/stdout and temp_dir/stderr;
 * returns the exit status. */
__attribute__((format(printf, 1, 2))) static inline int run_cli(const char* format, ...)
{
    char command[4400];
    va_list list;
    va_start(list, format);
    cli_command(command, sizeof command, false, format, list);
    va_end(list);
    int status = system(command);
    cr_assert(status != -1 && WIFEXITED(status), "%s did not exit normally", command);
    return WEXITSTATUS(status);
}

/* What the last run printed on stdout, on stderr (read_text's buffer: the
 * next read reuses it). */
static inline char* out_text(void) { return read_text(temp_path("stdout")); }
static inline char* err_text(void) { return read_text(temp_path("stderr")); }

/* Starts FRICDEM_CLI with the arguments (as run_cli's) in the background,
 * stdout to /dev/null and stderr into temp_dir/stderr; returns its process
 * id (the shell that starts it execs it, so the id is the CLI's). */
__attribute__((format(printf, 1, 2))) static inline pid_t start_cli(const char* format, ...)
{
    va_list list;
    va_start(list, format);
    char command[4400];
    cli_command(command, sizeof command, true, format, list);
    va_end(list);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        FILE* ignored = freopen("/dev/null", "w", stdout);
        ignored = freopen(temp_path("stderr"), "w", stderr);
        (void)ignored;
        execl("/bin/sh", "sh", "-c", command, (char*)NULL);
        _exit(127);
    }
    return pid;
}

/* Sleeps for the milliseconds (under a second), while a background run works. */
static inline void pause_ms(long milliseconds)
{
    struct timespec pause = {0, milliseconds * 1000 * 1000};
    nanosleep(&pause, NULL);
}

/* Waits, 10 ms at a time and at most `tries` times, for a background run to
 * create the file at path; returns whether it exists. */
static inline bool wait_for_file(const char* path, int tries)
{
    for (int i = 0; i < tries && !exists(path); ++i) {
        pause_ms(10);
    }
    return exists(path);
}

/* Sends the signal to a background run and waits for it to end; returns its
 * wait status (waitpid's). */
static inline int stop_cli(pid_t pid, int signal)
{
    kill(pid, signal);
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    return status;
}

#endif
