/** @file test_app_h5_safety.c
 *  How the HDF5 writer (app_h5) treats the file system, on any number of ranks, in a scratch
 *  directory of its own:
 *  - attributes over 64 KiB (a 100 000-character string) are written and read back whole;
 *  - links planted at NAME.h5.tmp, NAME.h5, NAME.xmf and NAME.xmf.tmp pointing at victim files
 *    leave the victims unchanged: the temporary is a new regular file of its own name, the
 *    result and the XDMF replace the links at their names;
 *  - two files of the same NAME open at once get different temporaries and both complete;
 *  - a directory at NAME.h5, a missing directory (and, not as root, a read-only one) fail in
 *    app_h5_create on every rank with the path and the OS's reason, leaving nothing;
 *  - a directory path of about 300 characters works (Open MPI's lockedfile component);
 *  - a final rename that fails keeps the complete temporary and names it;
 *  - app_cleanup_run removes an open temporary, not one kept after a failed rename.
 *
 *  Reader modes for the apps' tests (no MPI):
 *    test_app_h5_safety --attr FILE.h5 OBJ NAME TEXT_FILE  exit 0 when string attribute NAME
 *                                                          of OBJ holds TEXT_FILE's bytes
 *    test_app_h5_safety --h5-ok FILE                        exit 0 when FILE opens as HDF5
 */
#include <dirent.h>
#include <errno.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app_h5.h"
#include "app_mpi.h"
#include "porta/porta.h"

#include "app_expect_mpi.h"

static int rank = 0, nranks = 1;
static char dir[256]; /* the scratch directory */

/* ---- reading back (serial HDF5, rank 0 or the reader modes) ---- */

/* Whole file into a NUL-terminated buffer (NULL if it cannot be read); *n its size. */
static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, len = 0;
  char *buf = (char *)malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
    len += got;
    if (cap - len - 1 == 0) {
      char *nb = (char *)realloc(buf, cap *= 2);
      if (!nb) free(buf);
      buf = nb;
    }
  }
  fclose(f);
  if (buf) buf[len] = '\0';
  if (n) *n = len;
  return buf;
}

/* String attribute `name` of `obj` (malloc'd), or NULL. */
static char *attr_text(const char *file, const char *obj, const char *name) {
  hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return NULL;
  char *s = NULL;
  hid_t a = H5Aopen_by_name(f, obj, name, H5P_DEFAULT, H5P_DEFAULT);
  if (a >= 0) {
    hid_t t = H5Aget_type(a);
    size_t n = H5Tget_size(t);
    s = (char *)calloc(n + 1, 1);
    if (s && H5Aread(a, t, s) < 0) free(s), s = NULL;
    H5Tclose(t);
    H5Aclose(a);
  }
  H5Fclose(f);
  return s;
}

static int h5_opens(const char *file) {
  hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return 0;
  H5Fclose(f);
  return 1;
}

static int reader_main(int argc, char **argv) {
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  if (!strcmp(argv[1], "--h5-ok") && argc == 3) {
    int ok = h5_opens(argv[2]);
    printf("%s: %s\n", argv[2], ok ? "an HDF5 file" : "FAIL: not an HDF5 file");
    return ok ? 0 : 1;
  }
  if (!strcmp(argv[1], "--attr") && argc == 6) {
    size_t n = 0;
    char *want = slurp(argv[5], &n);
    char *got = attr_text(argv[2], argv[3], argv[4]);
    if (!want || !got) {
      printf("FAIL: cannot read %s\n", !want ? argv[5] : "the attribute");
      return 1;
    }
    size_t k = 0, m = strlen(got);
    while (k < n && k < m && want[k] == got[k]) ++k;
    const int same = k == n && k == m;
    if (same)
      printf("attribute %s of %s in %s: %zu bytes, the same as %s\n", argv[4], argv[3], argv[2], m,
             argv[5]);
    else
      printf("FAIL: attribute %s of %s in %s has %zu bytes, %s has %zu; they differ at byte %zu\n",
             argv[4], argv[3], argv[2], m, argv[5], n, k);
    free(want);
    free(got);
    return same ? 0 : 1;
  }
  fprintf(stderr, "usage: %s [--attr FILE OBJ NAME TEXT_FILE | --h5-ok FILE]\n", argv[0]);
  return 2;
}

/* ---- helpers of the MPI checks ---- */

static void put(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  EXPECT(f != NULL, "cannot create %s: %s", path, strerror(errno));
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

static void expect_content(const char *path, const char *text, const char *context) {
  char *s = slurp(path, NULL);
  EXPECT(s && !strcmp(s, text), "%s: %s changed: '%.60s'", context, path, s ? s : "(unreadable)");
  free(s);
}

static int is_regular(const char *path) {
  struct stat sb;
  return lstat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

static int is_link(const char *path) {
  struct stat sb;
  return lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode);
}

/* Entries of `d` whose name starts with `prefix` and contains ".tmp." (temporaries). */
static int count_tmp(const char *d, const char *prefix) {
  DIR *dp = opendir(d);
  if (!dp) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(dp)) != NULL)
    if (!strncmp(e->d_name, prefix, strlen(prefix)) && strstr(e->d_name, ".tmp.")) {
      printf("  left: %s/%s\n", d, e->d_name);
      ++n;
    }
  closedir(dp);
  return n;
}

/* Remove `path` and everything under it (no links followed). */
static void remove_tree(const char *path) {
  struct stat sb;
  if (lstat(path, &sb) != 0) return;
  if (S_ISDIR(sb.st_mode)) {
    chmod(path, 0700);
    DIR *dp = opendir(path);
    struct dirent *e;
    while (dp && (e = readdir(dp)) != NULL) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      char sub[2048];
      snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
      remove_tree(sub);
    }
    if (dp) closedir(dp);
    rmdir(path);
  } else {
    unlink(path);
  }
}

static void at(char *buf, size_t len, const char *name) { snprintf(buf, len, "%s/%s", dir, name); }

/* Write one small dataset so the file has content. */
static int write_something(app_h5 *h) {
  const int64_t g = 2 * nranks, s = 2 * rank, c = 2;
  const double v[2] = {rank + 0.5, rank + 0.25};
  return app_h5_write_block_f64(h, "/v", 1, &g, &s, &c, v);
}

/* ---- the checks ---- */

static void check_big_attribute(void) {
  char name[300], file[320];
  at(name, sizeof name, "big");
  snprintf(file, sizeof file, "%s.h5", name);
  const size_t n = 100000;
  char *text = (char *)malloc(n + 1);
  for (size_t i = 0; i < n; ++i) text[i] = (char)('a' + (i * 7 + i / 26) % 26);
  for (size_t i = 79; i < n; i += 80) text[i] = '\n';
  text[n] = '\0';
  app_h5 h;
  int rc = app_h5_create(&h, name, MPI_COMM_WORLD);
  EXPECT(rc == PORTA_SUCCESS, "create %s: %s", name, porta_last_error_message());
  if (rc) return;
  rc = app_h5_attr_string(&h, "/", "text", text);
  EXPECT(rc == PORTA_SUCCESS, "a %zu-character attribute: %s", n, porta_last_error_message());
  EXPECT(app_h5_group(&h, "/g") == PORTA_SUCCESS, "group: %s", porta_last_error_message());
  rc = app_h5_attr_string(&h, "/g", "text", text + n - 70000);
  EXPECT(rc == PORTA_SUCCESS, "a 70000-character attribute on a group: %s",
         porta_last_error_message());
  EXPECT(app_h5_attr_string(&h, "/", "small", "x") == PORTA_SUCCESS, "small attribute after it");
  rc = app_h5_close(&h, 1);
  EXPECT(rc == PORTA_SUCCESS, "close %s: %s", file, porta_last_error_message());
  if (rank == 0) {
    char *a = attr_text(file, "/", "text"), *b = attr_text(file, "/g", "text");
    EXPECT(a && !strcmp(a, text), "/text read back: %zu characters", a ? strlen(a) : 0);
    EXPECT(b && !strcmp(b, text + n - 70000), "/g text read back: %zu characters",
           b ? strlen(b) : 0);
    free(a);
    free(b);
    printf("  attributes of %zu and 70000 characters read back whole\n", n);
  }
  free(text);
}

static void check_planted_links(void) {
  static const char *const links[4] = {"l.h5.tmp", "l.h5", "l.xmf", "l.xmf.tmp"};
  char victim[4][300], link[4][300], content[4][64], name[300], file[320], xmf[320];
  for (int i = 0; i < 4; ++i) {
    snprintf(content[i], sizeof content[i], "victim %d: must stay as it is\n", i);
    char v[32];
    snprintf(v, sizeof v, "victim%d", i);
    at(victim[i], sizeof victim[i], v);
    at(link[i], sizeof link[i], links[i]);
    if (rank == 0) {
      put(victim[i], content[i]);
      /* relative to the link's directory */
      EXPECT(symlink(v, link[i]) == 0, "symlink %s: %s", link[i], strerror(errno));
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  at(name, sizeof name, "l");
  snprintf(file, sizeof file, "%s.h5", name);
  snprintf(xmf, sizeof xmf, "%s.xmf", name);
  app_h5 h;
  int rc = app_h5_create(&h, name, MPI_COMM_WORLD);
  EXPECT(rc == PORTA_SUCCESS, "create with planted links: %s", porta_last_error_message());
  if (rc) return;
  char prefix[340];
  snprintf(prefix, sizeof prefix, "%s.tmp.", file);
  EXPECT(!strncmp(h.tmp, prefix, strlen(prefix)) && strlen(h.tmp) > strlen(prefix),
         "temporary '%s' is not %sPID.RANDOM", h.tmp, prefix);
  if (rank == 0) {
    EXPECT(is_regular(h.tmp), "temporary %s is not a regular file", h.tmp);
    printf("  temporary: %s\n", h.tmp);
  }
  EXPECT(write_something(&h) == PORTA_SUCCESS, "write: %s", porta_last_error_message());
  rc = app_h5_close(&h, 1);
  EXPECT(rc == PORTA_SUCCESS, "close: %s", porta_last_error_message());
  if (rank == 0) {
    const int64_t points[3] = {2, 2, 2};
    const double origin[3] = {0, 0, 0}, spacing[3] = {1, 1, 1};
    const char *names[1] = {"v"}, *paths[1] = {"/v"};
    rc = app_xdmf_write_3d(xmf, "l.h5", points, origin, spacing, names, paths, 1, 1);
    EXPECT(rc == PORTA_SUCCESS, "xdmf over a link: %s", porta_last_error_message());
    for (int i = 0; i < 4; ++i) expect_content(victim[i], content[i], "planted link");
    EXPECT(is_regular(file) && h5_opens(file), "%s is not a regular HDF5 file", file);
    char *x = slurp(xmf, NULL);
    EXPECT(is_regular(xmf) && x && strstr(x, "<Xdmf"), "%s is not a regular XDMF file", xmf);
    free(x);
    EXPECT(is_link(link[0]) && is_link(link[3]), "the links at other names were touched");
    printf("  links at l.h5.tmp, l.h5, l.xmf, l.xmf.tmp: victims unchanged\n");
  }
}

static void check_two_at_once(void) {
  char name[300], file[320];
  at(name, sizeof name, "twice");
  snprintf(file, sizeof file, "%s.h5", name);
  app_h5 a, b;
  int rc = app_h5_create(&a, name, MPI_COMM_WORLD);
  EXPECT(rc == PORTA_SUCCESS, "first create: %s", porta_last_error_message());
  if (rc) return;
  rc = app_h5_create(&b, name, MPI_COMM_WORLD);
  EXPECT(rc == PORTA_SUCCESS, "second create of the same name: %s", porta_last_error_message());
  if (rc) {
    app_h5_close(&a, 0);
    return;
  }
  EXPECT(strcmp(a.tmp, b.tmp) != 0, "both temporaries are '%s'", a.tmp);
  EXPECT(app_h5_attr_string(&a, "/", "who", "a") == PORTA_SUCCESS, "a: %s",
         porta_last_error_message());
  EXPECT(app_h5_attr_string(&b, "/", "who", "b") == PORTA_SUCCESS, "b: %s",
         porta_last_error_message());
  EXPECT(write_something(&a) == PORTA_SUCCESS && write_something(&b) == PORTA_SUCCESS, "writes");
  EXPECT(app_h5_close(&a, 1) == PORTA_SUCCESS, "close a: %s", porta_last_error_message());
  EXPECT(app_h5_close(&b, 1) == PORTA_SUCCESS, "close b: %s", porta_last_error_message());
  if (rank == 0) {
    char *who = attr_text(file, "/", "who");
    EXPECT(who && !strcmp(who, "b"), "the last one closed wins: '%s'", who ? who : "(none)");
    free(who);
    EXPECT(count_tmp(dir, "twice") == 0, "temporaries left");
  }
}

static void check_refusals(void) {
  char name[300], what[340];
  app_h5 h;
  /* a directory where the result goes */
  at(name, sizeof name, "dir");
  snprintf(what, sizeof what, "%s.h5", name);
  if (rank == 0) EXPECT(mkdir(what, 0755) == 0, "mkdir %s", what);
  MPI_Barrier(MPI_COMM_WORLD);
  porta_error_clear();
  int rc = app_h5_create(&h, name, MPI_COMM_WORLD);
  expect_failed_everywhere(rc, "a directory named NAME.h5");
  expect_message(what, "a directory named NAME.h5");
  expect_message("Is a directory", "a directory named NAME.h5");
  if (rank == 0) EXPECT(count_tmp(dir, "dir") == 0, "temporaries left");
  /* a directory that does not exist */
  at(name, sizeof name, "nodir/x");
  snprintf(what, sizeof what, "%s.h5.tmp", name);
  porta_error_clear();
  rc = app_h5_create(&h, name, MPI_COMM_WORLD);
  expect_failed_everywhere(rc, "a missing directory");
  expect_message(what, "a missing directory");
  expect_message("No such file or directory", "a missing directory");
  /* a read-only directory (root may write there anyway) */
  if (geteuid() == 0) {
    if (rank == 0) printf("  read-only directory: skipped (running as root)\n");
  } else {
    at(name, sizeof name, "ro");
    if (rank == 0) EXPECT(mkdir(name, 0555) == 0, "mkdir %s", name);
    MPI_Barrier(MPI_COMM_WORLD);
    at(name, sizeof name, "ro/x");
    porta_error_clear();
    rc = app_h5_create(&h, name, MPI_COMM_WORLD);
    expect_failed_everywhere(rc, "a read-only directory");
    expect_message(name, "a read-only directory");
    expect_message("Permission denied", "a read-only directory");
  }
}

static void check_long_path(void) {
  char name[640], sub[600];
  char a[151], b[151];
  memset(a, 'a', 150), a[150] = '\0';
  memset(b, 'b', 150), b[150] = '\0';
  snprintf(sub, sizeof sub, "%s/%s", dir, a);
  if (rank == 0) EXPECT(mkdir(sub, 0755) == 0, "mkdir %s", sub);
  snprintf(sub, sizeof sub, "%s/%s/%s", dir, a, b);
  if (rank == 0) EXPECT(mkdir(sub, 0755) == 0, "mkdir %s", sub);
  MPI_Barrier(MPI_COMM_WORLD);
  snprintf(name, sizeof name, "%s/res", sub);
  app_h5 h;
  int rc = app_h5_create(&h, name, MPI_COMM_WORLD);
  EXPECT(rc == PORTA_SUCCESS, "create under a %zu-character directory: %s", strlen(sub),
         porta_last_error_message());
  if (rc) return;
  EXPECT(write_something(&h) == PORTA_SUCCESS, "write: %s", porta_last_error_message());
  EXPECT(app_h5_close(&h, 1) == PORTA_SUCCESS, "close: %s", porta_last_error_message());
  if (rank == 0) {
    char file[660];
    snprintf(file, sizeof file, "%s.h5", name);
    EXPECT(h5_opens(file), "%s", file);
    printf("  a %zu-character path: written\n", strlen(file));
  }
}

static void check_rename_failure(void) {
  char name[300], file[320];
  at(name, sizeof name, "rf");
  snprintf(file, sizeof file, "%s.h5", name);
  app_h5 h;
  int rc = app_h5_create(&h, name, MPI_COMM_WORLD);
  EXPECT(rc == PORTA_SUCCESS, "create: %s", porta_last_error_message());
  if (rc) return;
  EXPECT(app_h5_attr_string(&h, "/", "state", "complete") == PORTA_SUCCESS, "attr");
  EXPECT(write_something(&h) == PORTA_SUCCESS, "write: %s", porta_last_error_message());
  if (rank == 0) EXPECT(mkdir(file, 0755) == 0, "mkdir %s", file); /* appears during the run */
  MPI_Barrier(MPI_COMM_WORLD);
  char tmp[sizeof h.tmp];
  memcpy(tmp, h.tmp, sizeof tmp);
  porta_error_clear();
  rc = app_h5_close(&h, 1);
  expect_failed_everywhere(rc, "a final rename that fails");
  expect_message("the complete result is left in", "a final rename that fails");
  expect_message(tmp, "a final rename that fails");
  expect_message("Is a directory", "a final rename that fails");
  if (rank == 0) {
    app_cleanup_run(); /* what app_fatal does: the kept result is not registered any more */
    char *s = attr_text(tmp, "/", "state");
    EXPECT(s && !strcmp(s, "complete"), "the kept temporary %s is not the complete result", tmp);
    free(s);
    unlink(tmp);
  }
}

static void check_cleanup_run(void) {
  char name[300];
  at(name, sizeof name, "cr");
  app_h5 h;
  int rc = app_h5_create(&h, name, MPI_COMM_WORLD);
  EXPECT(rc == PORTA_SUCCESS, "create: %s", porta_last_error_message());
  if (rc) return;
  if (rank == 0) {
    EXPECT(access(h.tmp, F_OK) == 0, "%s missing", h.tmp);
    app_cleanup_run(); /* app_fatal / app_exit_all before the file is complete */
    EXPECT(access(h.tmp, F_OK) != 0, "app_cleanup_run left %s", h.tmp);
  }
  app_h5_close(&h, 0);
  if (rank == 0) EXPECT(count_tmp(dir, "cr") == 0, "temporaries left");
}

int main(int argc, char **argv) {
  if (argc > 1 && !strncmp(argv[1], "--", 2)) return reader_main(argc, argv);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  porta_set_error_mode(PORTA_ERROR_MODE_RETURN, NULL, NULL);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  long pid = (long)getpid();
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  snprintf(dir, sizeof dir, "h5safety.np%d.%ld", nranks, pid);
  if (rank == 0) {
    remove_tree(dir);
    EXPECT(mkdir(dir, 0755) == 0, "mkdir %s: %s", dir, strerror(errno));
  }
  MPI_Barrier(MPI_COMM_WORLD);

  check_long_path();
  check_big_attribute();
  check_planted_links();
  check_two_at_once();
  check_refusals();
  check_rename_failure();
  check_cleanup_run();

  int all = 0;
  MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    if (all == 0) remove_tree(dir);
    printf("test_app_h5_safety on %d ranks: %s (%d failures)\n", nranks, all ? "FAIL" : "OK", all);
  }
  MPI_Finalize();
  return all != 0;
}
