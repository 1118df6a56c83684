/** @file app_file.h
 *  Small files the apps write beside their results (the JSON summary, the XDMF descriptions),
 *  written so that a failing or concurrent run never destroys a file already there. What is at
 *  FINAL decides how, its links followed one by one:
 *  - one of the process's own descriptors ("-" for standard output, /dev/stdout, /dev/stderr,
 *    /dev/fd/N, /proc/self/fd/N, or a link to one of these): written into a copy of that
 *    descriptor, wherever it leads (a terminal, a pipe, the file standard output goes to),
 *    never renamed over: the link stays as it was;
 *  - a character device or a FIFO (/dev/null, a pipe), also through links: written straight
 *    into (renaming over it would replace the device with a file);
 *  - nothing, a file, or a link to a file: the text goes to a temporary created exclusively
 *    under a name of its own (FINAL.tmp.PID.RANDOM, never through a link) and is renamed over
 *    FINAL only when complete, so a link at FINAL is replaced, not followed (as the HDF5
 *    results' links are, app_h5.h);
 *  - a directory at FINAL is refused.
 *  The probe checks all of that at start-up, so a bad name fails before the run. */
#ifndef APP_FILE_H
#define APP_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "app_mpi.h"
#include "porta/macros.h"

PORTA_EXTERN_C_BEGIN

/** The longest file name POSIX promises (NAME_MAX on Linux); app_file_name_max's fallback. */
#define APP_FILE_NAME_MAX 255

/** The longest file name (bytes, not the directory) the directory of `path` takes
 *  (pathconf _PC_NAME_MAX; APP_FILE_NAME_MAX where it does not say, e.g. a missing
 *  directory). */
size_t app_file_name_max(const char *path);

/** Create FINAL.tmp.PID.RANDOM exclusively (O_EXCL | O_NOFOLLOW; a name that exists is tried
 *  again under another), in FINAL's directory. Where that name would be longer than the
 *  directory takes (app_file_name_max), FINAL's own name is cut to fit before ".tmp.PID.RANDOM",
 *  so every FINAL whose own name fits has a temporary. Its name is in tmp, also on failure
 *  (the last name tried). Returns the descriptor, or -1 with *err = errno. */
int app_file_tmp_create(const char *final, char *tmp, size_t len, int *err);

/** Create a new file STEM.SUFFIX, or STEM.2.SUFFIX, STEM.3.SUFFIX, ... where that name is
 *  taken (reports named by the second, as the reference mini-apps name theirs: a second run in
 *  the same second keeps the first one's), exclusively and never through a link. Its name is
 *  in path. Returns it open for writing, or NULL with *err = errno. */
FILE *app_file_create_unique(const char *stem, const char *suffix, char *path, size_t len,
                             int *err);

/** A text file being written (app_text_file_open / app_text_file_commit). */
typedef struct app_text_file {
  FILE *f;
  const char *path;
  char tmp[APP_CLEANUP_PATH_MAX]; /**< the temporary ("" when written straight into path) */
  int cleanup;                    /**< the temporary's slot in the exit clean-up list, or -1 */
} app_text_file;

/** Start writing `path` (see the file comment). PORTA_ERROR_IO naming `op` and `path`, with the
 *  OS's reason, when it cannot. */
int app_text_file_open(const char *op, const char *path, app_text_file *t);

/** Finish: close, and rename the temporary over the path. On a write or rename failure the
 *  temporary is removed, the file at the path is left as it was, and PORTA_ERROR_IO says why. */
int app_text_file_commit(const char *op, app_text_file *t);

/** Could app_text_file_open write `path` now? 0, or the errno that says why not (EISDIR for a
 *  directory there; a device or FIFO is fine). Leaves nothing behind. */
int app_text_file_probe(const char *path);

/** The real path (realpath) of the directory `path` is in, into out; where it does not
 *  resolve, the directory as named and the OS's reason. */
void app_file_dir_of(const char *path, char *out, size_t len);

/** Do a and b name the same file: the same inode where both exist, else the same name in the
 *  same directory (so a file a run is about to create counts too)? */
int app_file_same(const char *a, const char *b);

PORTA_EXTERN_C_END

#endif /* APP_FILE_H */
