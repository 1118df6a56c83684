/** @file app_h5.c
 *  The apps' parallel HDF5 result file (see app_h5.h): the errors of the writer, the file's
 *  creation as an exclusive temporary and its rename when complete, groups and attributes. The
 *  datasets are app_h5_data.c, the XDMF descriptions app_xdmf.c. */
#define _GNU_SOURCE /* fallocate, FALLOC_FL_KEEP_SIZE (Linux) */
#include "app_h5.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "app_file.h"
#include "app_h5_private.h"
#include "app_mpi.h"

/* ---- errors --------------------------------------------------------------------------------
 * HDF5's automatic printing is switched off inside every call here (the message carries what
 * HDF5 said instead) and restored before returning. */

app_h5_quiet_ app_h5_quiet_begin_(void) {
  app_h5_quiet_ q = {NULL, NULL};
  H5Eget_auto2(H5E_DEFAULT, &q.func, &q.data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  return q;
}

void app_h5_quiet_end_(app_h5_quiet_ q) { H5Eset_auto2(H5E_DEFAULT, q.func, q.data); }

/* The outermost (API) and innermost entries of HDF5's error stack, and every entry's text (to
 * look for the OS's reason). */
typedef struct h5_walk {
  int n;
  char first[256], last[256], all[1024];
} h5_walk;

static herr_t h5_walk_cb(unsigned n, const H5E_error2_t *e, void *data) {
  (void)n;
  h5_walk *w = (h5_walk *)data;
  char *dst = w->n == 0 ? w->first : w->last;
  snprintf(dst, sizeof w->first, "%s: %s", e->func_name ? e->func_name : "?",
           e->desc ? e->desc : "?");
  const size_t used = strlen(w->all);
  if (used + 1 < sizeof w->all) snprintf(w->all + used, sizeof w->all - used, "%s\n", dst);
  ++w->n;
  return 0;
}

/* What HDF5 said about the call that just failed (read before any other HDF5 call clears it).
 * The innermost entry carries the OS's or MPI's reason where there is one ("MPI_File_open
 * failed: ... no such file or directory", "errno = 13, error message = 'Permission denied'").
 * all[size]: every entry's text. */
static void h5_reason(char *buf, size_t len, char *all, size_t size) {
  h5_walk w;
  memset(&w, 0, sizeof w);
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, h5_walk_cb, &w);
  if (w.n == 0)
    snprintf(buf, len, "HDF5 gave no detail");
  else if (w.n == 1)
    snprintf(buf, len, "HDF5: %s", w.first);
  else
    snprintf(buf, len, "HDF5: %s <- %s", w.first, w.last);
  snprintf(all, size, "%s", w.all);
}

/* A file system that has no room left for the file `path` is in (statvfs; root may still
 * use the reserved blocks). */
static int dir_full(const char *path) {
  char dir[sizeof((app_h5 *)0)->tmp];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else if (slash == dir)
    slash[1] = '\0';
  else
    *slash = '\0';
  struct statvfs sv;
  if (statvfs(dir, &sv) != 0) return 0;
  return sv.f_bfree == 0 || (geteuid() != 0 && sv.f_bavail == 0);
}

/* The cause of a failed write in words, "" where none is known. With the MPI-IO driver the
 * OS's reason does not reach HDF5's stack ("H5FD__mpio_write: file write failed"): errno as the
 * write left it, what the stack says, then the file system itself. */
static void h5_cause(char *cause, size_t len, int err, const char *stack, const char *tmp) {
  cause[0] = '\0';
  if (err == ENOSPC || err == EDQUOT || err == EFBIG)
    snprintf(cause, len, "%s", strerror(err));
  else if (strstr(stack, "No space left") || strstr(stack, "errno = 28,"))
    snprintf(cause, len, "%s", strerror(ENOSPC));
  else if (strstr(stack, "quota") || strstr(stack, "errno = 122,"))
    snprintf(cause, len, "%s", strerror(EDQUOT));
  else if (tmp && tmp[0] && dir_full(tmp))
    snprintf(cause, len, "%s", strerror(ENOSPC));
}

int app_h5_fail_(const char *op, const char *label, app_h5 *h, const char *call) {
  const int err = errno; /* before anything here changes it */
  char reason[600], stack[1024];
  h5_reason(reason, sizeof reason, stack, sizeof stack);
  char cause[sizeof h->cause] = "";
  h5_cause(cause, sizeof cause, err, stack, h ? h->tmp : NULL);
  if (h) snprintf(h->cause, sizeof h->cause, "%s", cause);
  return porta_error(PORTA_ERROR_IO, op, label, "%s failed in '%s' (%s)", call, h ? h->tmp : "?",
                     reason);
}

void app_h5_fail_note_(app_h5 *h) {
  h->cause[0] = '\0';
  if (h->tmp[0] && dir_full(h->tmp)) snprintf(h->cause, sizeof h->cause, "%s", strerror(ENOSPC));
}

void app_h5_fatal(const app_h5 *h) {
  const char *path = h && h->path[0] ? h->path : "?";
  if (h && h->cause[0])
    app_fatal("%s while writing the result '%s': %s", h->cause, path, porta_last_error_message());
  app_fatal("writing the result '%s' failed: %s", path, porta_last_error_message());
}

void app_h5_create_failed(const app_h5 *h) {
  app_exit_all(APP_EXIT_RUN_FAILED, "%s%s%s", h->cause, h->cause[0] ? ": " : "",
               porta_last_error_message());
}

/* ---- file ----------------------------------------------------------------------------------
 * The temporary is created by rank 0 with open(O_CREAT | O_EXCL | O_NOFOLLOW) under a name of
 * its own (FINAL.tmp.PID.RANDOM): a name another run cannot share and nobody can plant a link
 * at beforehand. HDF5 then opens that file (H5F_ACC_TRUNC of an empty file); rank 0 checks it
 * is still the file it created. */

static const char create_op[] = "app_h5_create";

/* What rank 0 found preparing the file: the errno and the step it failed at. */
enum { PREP_OK = 0, PREP_FINAL_IS_DIR, PREP_XMF, PREP_CREATE };

/* Rank 0's preparation: step[0] a PREP_* value, step[1] its errno; the temporary's descriptor
 * (-1: none) and what fstat said of it. */
typedef struct h5_prep {
  int step[2];
  int fd;
  struct stat made;
} h5_prep;

/* A closed h5 of `comm` named NAME.h5, or an error (every rank gets the same). */
static int create_begin(app_h5 *h, const char *name, MPI_Comm comm) {
  memset(h, 0, sizeof *h);
  h->file = -1;
  h->dxpl = -1;
  h->cleanup = -1;
  h->fd = -1;
  h->comm = comm;
  MPI_Comm_rank(comm, &h->rank);
  if (!name || !name[0])
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, create_op, NULL, "empty file name");
  if (snprintf(h->path, sizeof h->path, "%s.h5", name) >= (int)sizeof h->path)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, create_op, name, "file name too long");
  app_mpi_io_env();
  return PORTA_SUCCESS;
}

/* Rank 0: the result's name must be free for the final rename (a directory there would only
 * fail it after the run), so must NAME.xmf, written beside it after the run (a directory there
 * would fail the run after NAME.h5 was replaced), and the temporary is created now, so a
 * directory that is missing or not writable fails here with the OS's reason. */
static void create_prepare(app_h5 *h, const char *name, h5_prep *p) {
  char xmf[sizeof h->path + 8];
  struct stat sb;
  snprintf(xmf, sizeof xmf, "%s.xmf", name);
  if (lstat(h->path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
    p->step[0] = PREP_FINAL_IS_DIR, p->step[1] = EISDIR;
    snprintf(h->tmp, sizeof h->tmp, "%s.tmp", h->path);
  } else if (lstat(xmf, &sb) == 0 && S_ISDIR(sb.st_mode)) {
    p->step[0] = PREP_XMF, p->step[1] = EISDIR;
    snprintf(h->tmp, sizeof h->tmp, "%s", xmf);
  } else if ((p->fd = app_file_tmp_create(h->path, h->tmp, sizeof h->tmp, &p->step[1])) < 0 ||
             fstat(p->fd, &p->made) != 0) {
    if (p->fd >= 0) p->step[1] = errno, close(p->fd), unlink(h->tmp), p->fd = -1;
    p->step[0] = PREP_CREATE;
  } else {
    h->cleanup = app_cleanup_add(h->tmp);
  }
}

/* Rank 0's findings and the temporary's name to every rank; an error where it failed. */
static int create_share(app_h5 *h, h5_prep *p) {
  if (MPI_Bcast(p->step, 2, MPI_INT, 0, h->comm) != MPI_SUCCESS ||
      MPI_Bcast(h->tmp, (int)sizeof h->tmp, MPI_CHAR, 0, h->comm) != MPI_SUCCESS) {
    if (p->fd >= 0) close(p->fd), unlink(h->tmp);
    app_cleanup_forget(h->cleanup);
    h->cleanup = -1;
    return porta_error(PORTA_ERROR_IO, create_op, h->path, "MPI_Bcast failed");
  }
  if (p->step[0] == PREP_FINAL_IS_DIR)
    return porta_error(PORTA_ERROR_IO, create_op, h->path,
                       "the result cannot be written under this name: %s", strerror(p->step[1]));
  if (p->step[0] == PREP_XMF)
    return porta_error(PORTA_ERROR_IO, create_op, h->tmp,
                       "the result's XDMF description cannot be written under this name: %s",
                       strerror(p->step[1]));
  if (p->step[0] == PREP_CREATE)
    return porta_error(PORTA_ERROR_IO, create_op, h->tmp,
                       "cannot create the temporary result file: %s", strerror(p->step[1]));
  return PORTA_SUCCESS;
}

/* Every rank must open the file rank 0 created: ranks in different working directories given
 * a relative NAME would each open a file of their own (MPI-IO creating it) and wait for each
 * other in the collective open. Each rank looks the temporary's name up itself and compares the
 * inode with rank 0's (st_dev can differ between the nodes of one network file system). Where
 * a rank finds no such file or another one, every rank returns the same error naming rank 0's
 * directory and the lowest such rank's, and rank 0 removes its temporary. */
static int create_same_file(app_h5 *h, h5_prep *p) {
  unsigned long long ino = h->rank == 0 ? (unsigned long long)p->made.st_ino : 0;
  int size = 1, first = 0;
  MPI_Comm_size(h->comm, &size);
  int bcast = MPI_Bcast(&ino, 1, MPI_UNSIGNED_LONG_LONG, 0, h->comm);
  struct stat sb;
  const int same = h->rank == 0 || (stat(h->tmp, &sb) == 0 && S_ISREG(sb.st_mode) &&
                                    (unsigned long long)sb.st_ino == ino);
  int mine = same ? size : h->rank;
  if (bcast == MPI_SUCCESS) bcast = MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, h->comm);
  if (bcast == MPI_SUCCESS && first == size) return PORTA_SUCCESS;
  char dir0[APP_PATH_MAX] = "?", dirk[APP_PATH_MAX] = "?";
  if (bcast == MPI_SUCCESS) {
    if (h->rank == 0) app_file_dir_of(h->path, dir0, sizeof dir0);
    if (h->rank == first) app_file_dir_of(h->path, dirk, sizeof dirk);
    if (MPI_Bcast(dir0, (int)sizeof dir0, MPI_CHAR, 0, h->comm) != MPI_SUCCESS ||
        MPI_Bcast(dirk, (int)sizeof dirk, MPI_CHAR, first, h->comm) != MPI_SUCCESS)
      bcast = MPI_ERR_OTHER;
  }
  if (p->fd >= 0) close(p->fd), unlink(h->tmp), p->fd = -1;
  app_cleanup_forget(h->cleanup);
  h->cleanup = -1;
  if (bcast != MPI_SUCCESS)
    return porta_error(PORTA_ERROR_IO, create_op, h->path, "MPI_Bcast/MPI_Allreduce failed");
  return porta_error(PORTA_ERROR_INVALID_ARGUMENT, create_op, h->path,
                     "the ranks do not name the same result file: rank 0 writes it in '%s', rank "
                     "%d in '%s' (ranks started in different working directories with a relative "
                     "--out?); give --out an absolute path or start every rank in one directory",
                     dir0, first, dirk);
}

/* Every rank opens the temporary; bad[0]: this rank failed (its message recorded, the code
 * returned), bad[1]: rank 0 found another file under the temporary's name after HDF5 opened
 * it. Rank 0's descriptor moves to h->fd (to reserve the file's space before the close). */
static int create_open(app_h5 *h, h5_prep *p, int bad[2]) {
  int rc = PORTA_SUCCESS;
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  /* the 1.8 file format: attributes of any size (over 64 KiB they go to dense storage) */
  if (fapl < 0 || H5Pset_fapl_mpio(fapl, h->comm, MPI_INFO_NULL) < 0 ||
      H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18) < 0) {
    rc = app_h5_fail_(create_op, h->tmp, h, "H5Pset_fapl_mpio/H5Pset_libver_bounds");
    bad[0] = 1;
  } else {
    /* With the MPI-IO driver the OS's reason comes through MPI's error string in HDF5's stack;
     * errno is not reliable after H5Fcreate (MPI leaves unrelated values in it). */
    h->file = H5Fcreate(h->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (h->file < 0) rc = app_h5_fail_(create_op, h->tmp, h, "H5Fcreate"), bad[0] = 1;
  }
  if (fapl >= 0) H5Pclose(fapl);
  if (p->fd >= 0) {
    struct stat now;
    if (lstat(h->tmp, &now) != 0 || !S_ISREG(now.st_mode) || now.st_dev != p->made.st_dev ||
        now.st_ino != p->made.st_ino)
      bad[1] = 1;
    h->fd = p->fd;
    p->fd = -1;
  }
  if (h->file >= 0) {
    h->dxpl = H5Pcreate(H5P_DATASET_XFER);
    if (h->dxpl < 0 || H5Pset_dxpl_mpio(h->dxpl, H5FD_MPIO_COLLECTIVE) < 0)
      rc = app_h5_fail_(create_op, h->tmp, h, "H5Pset_dxpl_mpio"), bad[0] = 1;
  }
  return rc;
}

/* The ranks agree on the opening: all well, or every rank closes what it opened, rank 0
 * removes the temporary (unless another file stands there now) and all return an error. */
static int create_agree(app_h5 *h, int rc, const int bad[2]) {
  int all[2] = {0, 0};
  MPI_Allreduce(bad, all, 2, MPI_INT, MPI_MAX, h->comm);
  if (all[0] == 0 && all[1] == 0) return PORTA_SUCCESS;
  if (h->dxpl >= 0) H5Pclose(h->dxpl);
  if (h->file >= 0) H5Fclose(h->file);
  h->file = h->dxpl = -1;
  if (h->fd >= 0) close(h->fd);
  h->fd = -1;
  MPI_Barrier(h->comm);
  if (h->rank == 0 && !all[1]) unlink(h->tmp); /* another file there now: not ours to remove */
  app_cleanup_forget(h->cleanup);
  h->cleanup = -1;
  if (all[1])
    return porta_error(PORTA_ERROR_IO, create_op, h->tmp,
                       "the temporary result file was replaced by another file while it was "
                       "opened; nothing is written");
  return bad[0]
             ? rc
             : porta_error(PORTA_ERROR_IO, create_op, h->tmp, "H5Fcreate failed on another rank");
}

static int create_impl(app_h5 *h, const char *name, MPI_Comm comm) {
  PORTA_CHECK(create_begin(h, name, comm));
  h5_prep p;
  memset(&p, 0, sizeof p);
  p.step[0] = PREP_OK;
  p.fd = -1;
  if (h->rank == 0) create_prepare(h, name, &p);
  PORTA_CHECK(create_share(h, &p));
  PORTA_CHECK(create_same_file(h, &p));
  int bad[2] = {0, 0};
  const int rc = create_open(h, &p, bad);
  return create_agree(h, rc, bad);
}

int app_h5_create(app_h5 *h, const char *name, MPI_Comm comm) {
  app_h5_quiet_ q = app_h5_quiet_begin_();
  int rc = create_impl(h, name, comm);
  app_h5_quiet_end_(q);
  return rc;
}

/* ---- close ---------------------------------------------------------------------------------
 * H5Fclose writes the metadata HDF5 still holds, and its collective steps (the metadata cache's
 * barrier, MPI_File_close) wait for every rank: a write failing there on one rank only returns
 * that rank early to the next collective step while the others wait in the previous one. So
 * the file's space is reserved first and the ranks agree on it; a file being discarded is
 * emptied first, so its close finds room. */

/* Rank 0: reserve the blocks of [0, size) of the temporary without changing its size: 0, or the
 * errno where the file system has no room (ENOSPC, EDQUOT, EFBIG). Where nothing can be
 * reserved (not Linux, a file system without fallocate) 0: the close goes on as it did. */
static int close_reserve(int fd, long long size) {
  if (fd < 0 || size <= 0) return 0;
#if defined(__linux__) && defined(FALLOC_FL_KEEP_SIZE)
  int r;
  do r = fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)size);
  while (r != 0 && errno == EINTR);
  if (r != 0 && (errno == ENOSPC || errno == EDQUOT || errno == EFBIG)) return errno;
#endif
  return 0;
}

/* The largest of every rank's v (collective). */
static int agree_max(const app_h5 *h, int v) {
  int all = v;
  if (MPI_Allreduce(&v, &all, 1, MPI_INT, MPI_MAX, h->comm) != MPI_SUCCESS) return v;
  return all;
}

/* Before H5Fclose (collective): 1 where it may run. *err: with ok, the errno of a failed
 * reservation (every rank gets rank 0's), else 0. Where the file is discarded (!ok, or the
 * reservation failed) rank 0 empties it and reserves again: 0 where even that fails.
 * What the close still writes is the metadata HDF5 holds in its cache, at addresses below the
 * end of allocation, which the MPI-IO driver does not tell (H5Fget_eoa and H5Fget_filesize fail
 * with it): the file's size on disk, plus the cache's size (every rank's cache holds every
 * dirty entry: the smallest), plus the aggregators' blocks HDF5 may have begun past the end
 * (2 KiB each by default) bound it. It overestimates by the clean entries: a file system with
 * less room than that fails the run here although the close might have fit. */
static int close_prepare(app_h5 *h, int ok, int *err) {
  size_t max = 0, min_clean = 0, cur = 0;
  int num = 0;
  if (H5Fget_mdc_size(h->file, &max, &min_clean, &cur, &num) < 0) cur = 0;
  long long mine = (long long)cur, cache = mine;
  if (MPI_Allreduce(&mine, &cache, 1, MPI_LONG_LONG, MPI_MIN, h->comm) != MPI_SUCCESS) cache = mine;
  hsize_t meta = 2048, sdata = 2048;
  hid_t fapl = H5Fget_access_plist(h->file); /* collective (it duplicates the communicator) */
  if (fapl >= 0) {
    if (H5Pget_meta_block_size(fapl, &meta) < 0) meta = 2048;
    if (H5Pget_small_data_block_size(fapl, &sdata) < 0) sdata = 2048;
    H5Pclose(fapl);
  }
  long long size = 0;
  struct stat sb;
  if (h->rank == 0 && h->fd >= 0 && fstat(h->fd, &sb) == 0)
    size = (long long)sb.st_size + cache + (long long)(meta + sdata);
  *err = agree_max(h, ok && h->rank == 0 ? close_reserve(h->fd, size) : 0);
  if (ok && *err == 0) return 1;
  int again = 0;
  if (h->rank == 0 && h->fd >= 0) {
    if (ftruncate(h->fd, 0) == 0) again = close_reserve(h->fd, size);
  }
  return agree_max(h, again) == 0;
}

int app_h5_close(app_h5 *h, int ok) {
  static const char op[] = "app_h5_close";
  app_h5_quiet_ q = app_h5_quiet_begin_();
  int rc = PORTA_SUCCESS;
  /* [0]: 0 ok, 1 H5Fclose failed (or the space could not be reserved), 2 rename failed;
   * [1]: errno of the rename */
  int st[2] = {0, 0};
  if (h->dxpl >= 0) H5Pclose(h->dxpl);
  if (h->file >= 0) {
    int err = 0;
    const int closable = close_prepare(h, ok, &err);
    if (err) {
      st[0] = 1;
      ok = 0; /* discarded: removed below */
      snprintf(h->cause, sizeof h->cause, "%s", strerror(err));
      rc = porta_error(PORTA_ERROR_IO, op, h->tmp,
                       "cannot reserve the file's space before its last writes (fallocate)");
    }
    /* not closable: HDF5 keeps the file open (its close could wait for a rank that failed) */
    if (closable && H5Fclose(h->file) < 0) {
      st[0] = 1;
      if (ok) rc = app_h5_fail_(op, h->tmp, h, "H5Fclose");
    }
  }
  h->file = -1;
  h->dxpl = -1;
  if (h->fd >= 0) {
    /* the blocks reserved past the file's end are given back */
    struct stat sb;
    if (ok && st[0] == 0 && fstat(h->fd, &sb) == 0) (void)!ftruncate(h->fd, sb.st_size);
    close(h->fd);
    h->fd = -1;
  }
  MPI_Barrier(h->comm);
  if (h->rank == 0) {
    /* rename replaces whatever is at the final name (a link itself, never its target) */
    if (ok && st[0] == 0) {
      if (rename(h->tmp, h->path) != 0) st[1] = errno, st[0] = 2;
    } else {
      unlink(h->tmp);
    }
    /* renamed, removed, or complete and kept where it is (a failed rename) */
    app_cleanup_forget(h->cleanup);
    h->cleanup = -1;
  }
  int all[2] = {0, 0};
  MPI_Allreduce(st, all, 2, MPI_INT, MPI_MAX, h->comm);
  if (ok && rc == PORTA_SUCCESS && all[0] == 1)
    rc = porta_error(PORTA_ERROR_IO, op, h->tmp, "H5Fclose failed on another rank");
  else if (ok && rc == PORTA_SUCCESS && all[0] == 2)
    rc = porta_error(PORTA_ERROR_IO, op, h->tmp,
                     "cannot rename it to '%s': %s; the complete result is left in '%s'", h->path,
                     strerror(all[1]), h->tmp);
  else if (!ok && rc == PORTA_SUCCESS && all[0] != 0)
    rc = PORTA_ERROR_IO;
  app_h5_quiet_end_(q);
  return rc;
}

/* ---- groups and attributes ----------------------------------------------------------------- */

int app_h5_group(app_h5 *h, const char *path) {
  app_h5_quiet_ q = app_h5_quiet_begin_();
  int rc = PORTA_SUCCESS;
  hid_t g = H5Gcreate2(h->file, path, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0)
    rc = app_h5_fail_("app_h5_group", path, h, "H5Gcreate2");
  else
    H5Gclose(g);
  app_h5_quiet_end_(q);
  return rc;
}

static int attr_write(app_h5 *h, const char *op, const char *obj, const char *name, hid_t type,
                      const void *v) {
  char what[320];
  app_h5_quiet_ q = app_h5_quiet_begin_();
  int rc = PORTA_SUCCESS;
  hid_t o = H5Oopen(h->file, obj, H5P_DEFAULT);
  if (o < 0) {
    rc = app_h5_fail_(op, obj, h, "H5Oopen");
  } else {
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(o, name, type, sp, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0) {
      snprintf(what, sizeof what, "H5Acreate2 of attribute '%s'", name);
      rc = app_h5_fail_(op, obj, h, what);
    } else {
      if (H5Awrite(a, type, v) < 0) {
        snprintf(what, sizeof what, "H5Awrite of attribute '%s'", name);
        rc = app_h5_fail_(op, obj, h, what);
      }
      H5Aclose(a);
    }
    H5Sclose(sp);
    H5Oclose(o);
  }
  app_h5_quiet_end_(q);
  return rc;
}

int app_h5_attr_string(app_h5 *h, const char *obj, const char *name, const char *value) {
  hid_t t = H5Tcopy(H5T_C_S1);
  size_t n = strlen(value);
  H5Tset_size(t, n > 0 ? n : 1);
  H5Tset_strpad(t, H5T_STR_NULLTERM);
  int rc = attr_write(h, "app_h5_attr_string", obj, name, t, n > 0 ? value : "");
  H5Tclose(t);
  return rc;
}

int app_h5_attr_double(app_h5 *h, const char *obj, const char *name, double value) {
  return attr_write(h, "app_h5_attr_double", obj, name, H5T_NATIVE_DOUBLE, &value);
}

int app_h5_attr_int(app_h5 *h, const char *obj, const char *name, int64_t value) {
  return attr_write(h, "app_h5_attr_int", obj, name, H5T_NATIVE_INT64, &value);
}
