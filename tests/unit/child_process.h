/** @file child_process.h
 *  Running part of a test in a child process whose output the parent reads (tests of checks that
 *  abort or trap). POSIX only; include after harness.h. */
#ifndef PORTA_TEST_CHILD_PROCESS_H
#define PORTA_TEST_CHILD_PROCESS_H

#include <errno.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/** Make a pipe in `fds` and fork: returns 0 in the child (which writes to fds[1]), the child's
 *  pid in the parent, or -1 (a test failure is recorded) when either call fails. */
static inline pid_t pt_child_start(int fds[2]) {
  if (pipe(fds) != 0) {
    pt_fail_(__FILE__, __LINE__, "pipe failed");
    return -1;
  }
  fflush(stdout);
  fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) {
    pt_fail_(__FILE__, __LINE__, "fork failed");
    close(fds[0]);
    close(fds[1]);
  }
  return pid;
}

/** In the parent: read the child's output to its end into `text` (NUL-terminated, at most
 *  size - 1 bytes), and return the child's wait status. */
static inline int pt_child_finish(int fds[2], pid_t pid, char *text, size_t size) {
  close(fds[1]);
  size_t n = 0;
  for (;;) {
    ssize_t got = read(fds[0], text + n, size - 1 - n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    n += (size_t)got;
    if (n == size - 1) break;
  }
  text[n] = '\0';
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

#endif
