#define _GNU_SOURCE
#include "CChildProcess.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

int intentmesh_spawn(pid_t *pid, const char *path, char *const argv[], char *const envp[], int input, int output) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  int status = posix_spawn_file_actions_init(&actions);
  if (status != 0) return status;
  status = posix_spawnattr_init(&attributes);
  if (status != 0) {
    posix_spawn_file_actions_destroy(&actions);
    return status;
  }
  // dup2 clears close-on-exec on the copy: the child keeps 0, 1 and 2 whatever the originals were.
  if (status == 0 && input >= 0) status = posix_spawn_file_actions_adddup2(&actions, input, 0);
  if (status == 0 && output >= 0) status = posix_spawn_file_actions_adddup2(&actions, output, 1);
  if (status == 0 && output >= 0) status = posix_spawn_file_actions_adddup2(&actions, output, 2);
#ifdef __APPLE__
  short closeOthers = POSIX_SPAWN_CLOEXEC_DEFAULT;
#else
  short closeOthers = 0;
  if (status == 0) status = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
#endif
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  if (status == 0) status = posix_spawnattr_setsigmask(&attributes, &none);
  if (status == 0) status = posix_spawnattr_setsigdefault(&attributes, &all);
  if (status == 0) status = posix_spawnattr_setpgroup(&attributes, 0);
  if (status == 0) {
    status = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | closeOthers);
  }
  if (status == 0) status = posix_spawn(pid, path, &actions, &attributes, argv, envp);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  return status;
}

int intentmesh_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

int intentmesh_exit_code(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

int intentmesh_exit_signal(int status) { return WIFSIGNALED(status) ? WTERMSIG(status) : 0; }
