#ifndef INTENTMESH_CCHILDPROCESS_H
#define INTENTMESH_CCHILDPROCESS_H

#include <sys/types.h>

/// Starts the executable at `path` with `argv` and `envp` (each ending with NULL) as a child
/// process, with `posix_spawn`: its standard input from the descriptor `input`, its standard
/// output and error to `output` (a descriptor below 0 leaves the one this process has), and no
/// other descriptor of this process (every one from 3 up closed in the child, whether or not it
/// was opened close-on-exec); in a process group of its own, every signal's disposition the
/// default and none blocked, as a shell starts a command. Sets `*pid`; returns 0 or an errno value.
///
/// In C because `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34) is declared only with
/// _GNU_SOURCE, which Swift's Glibc module does not define. Not Foundation's `Process`: on Linux it
/// lists /proc/self/fd before each start, and swift-corelibs-foundation up to Swift 6.3 reads past
/// a directory entry there (swiftlang/swift-corelibs-foundation#5472), which crashes a process
/// with many descriptors open now and then.
int intentmesh_spawn(pid_t *pid, const char *path, char *const argv[], char *const envp[], int input, int output);

/// A pipe whose two descriptors are close-on-exec (`pipe2(O_CLOEXEC)`): `fds[0]` reads what is
/// written to `fds[1]`. Returns 0, or -1 with errno set.
int intentmesh_pipe(int fds[2]);

/// The exit code in a `waitpid` status, or -1 when the process did not exit (WEXITSTATUS).
int intentmesh_exit_code(int status);

/// The signal that ended the process in a `waitpid` status, or 0 when none did (WTERMSIG).
int intentmesh_exit_signal(int status);

#endif
