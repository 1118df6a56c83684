/** @file minife_mesh.c
 *  The reference's decomposition, computed identically on every rank from the sizes alone:
 *  recursive coordinate bisection of the element box (cuts along z, y, x, z, ...), then the
 *  optional load imbalance (the most loaded rank grows by a plane, the least loaded shrinks
 *  by one, until the imbalance reaches the requested percentage), node ownership and global
 *  row numbers. Then the column map and the exchange plan of the external columns, derived
 *  from the boxes of all ranks (no messages needed). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "porta/exchange.h"
#include "minife_setup.h"

/* ---- recursive coordinate bisection (box_partition) ---- */

static void partition(int ip, int up, int axis, minife_box box, minife_box *out) {
  const int np = up - ip;
  if (np == 1) {
    out[ip] = box;
    return;
  }
  const int64_t n = box.hi[axis] - box.lo[axis];
  const int np_low = np / 2, np_upp = np - np_low;
  const int64_t n_upp = (int64_t)((double)n * ((double)np_upp / (double)np));
  const int64_t n_low = n - n_upp;
  const int next = (axis + 2) % 3;
  minife_box low = box, upp = box;
  low.hi[axis] = low.lo[axis] + n_low;
  upp.lo[axis] += n_low;
  upp.hi[axis] = upp.lo[axis] + n_upp;
  if (np_low) partition(ip, ip + np_low, next, low, out);
  partition(ip + np_low, up, next, upp, out);
}

static int64_t box_elements(const minife_box *b) {
  return (b->hi[0] - b->lo[0]) * (b->hi[1] - b->lo[1]) * (b->hi[2] - b->lo[2]);
}

/* ---- load imbalance (add_imbalance / compute_imbalance, in the reference's float) ---- */

typedef struct imbalance {
  float largest, std_dev;
  int min_proc, max_proc;
} imbalance;

static imbalance measure(const minife_box *boxes, int np) {
  imbalance r;
  int64_t total = 0, mn = INT64_MAX, mx = -1;
  r.min_proc = r.max_proc = 0;
  for (int i = 0; i < np; ++i) {
    const int64_t n = box_elements(&boxes[i]);
    total += n;
    if (n < mn) { /* lowest-numbered rank with the fewest */
      mn = n;
      r.min_proc = i;
    }
    if (n >= mx) { /* highest-numbered rank with the most */
      mx = n;
      r.max_proc = i;
    }
  }
  const float avg = (float)total / (float)np;
  float a = fabsf((float)mn - avg), b = fabsf((float)mx - avg);
  if (fabsf(avg) > 1.e-5f) {
    a = a / avg * 100;
    b = b / avg * 100;
  } else {
    a = b = -1;
  }
  r.largest = b > a ? b : a;
  float ss = 0;
  for (int i = 0; i < np; ++i) {
    float d = (float)box_elements(&boxes[i]) - avg;
    ss += d * d;
  }
  r.std_dev = np > 1 ? sqrtf(ss / (float)(np - 1)) / avg * 100 : 0;
  return r;
}

/** Which face of `b` to move: z upper, z lower, y upper, ... (grow: any face inside the mesh;
 *  shrink: only if the extent is more than 2). Returns the axis (3: none) and sets *end. */
static int choose_face(const minife_box *b, const int64_t elems[3], int shrink, int *end) {
  for (int axis = 2; axis >= 0; --axis) {
    const int ok = !shrink || b->hi[axis] - b->lo[axis] > 2;
    if (b->hi[axis] < elems[axis] && ok) {
      *end = 1;
      return axis;
    }
    if (b->lo[axis] > 0 && ok) {
      *end = 0;
      return axis;
    }
  }
  *end = 1;
  return 3;
}

/** Move the plane `val` of `axis` by `incr` in every box with a face there, unless one of
 *  them would be left thinner than... (the reference's test: a box whose moving face is at
 *  val and whose extent is < 2 vetoes the move). Returns 1 if moved. */
static int move_plane(minife_box *boxes, int np, int axis, int incr, int64_t val) {
  for (int q = 0; q < np; ++q) {
    const minife_box *b = &boxes[q];
    if (((incr == 1 && b->lo[axis] == val) || (incr == -1 && b->hi[axis] == val)) &&
        b->hi[axis] - b->lo[axis] < 2)
      return 0;
  }
  return 1;
}

static void apply_plane(minife_box *boxes, int np, int axis, int incr, int64_t val) {
  for (int q = 0; q < np; ++q) {
    if (boxes[q].lo[axis] == val) boxes[q].lo[axis] += incr;
    if (boxes[q].hi[axis] == val) boxes[q].hi[axis] += incr;
  }
}

static void add_imbalance(minife_box *boxes, int np, const int64_t elems[3], float target) {
  if (np == 1) return;
  imbalance cur = measure(boxes, np);
  for (long guard = 0; cur.largest < target && guard < 10000000L; ++guard) {
    int gend = 1, send = 1;
    const int gaxis = choose_face(&boxes[cur.max_proc], elems, 0, &gend);
    const int saxis = choose_face(&boxes[cur.min_proc], elems, 1, &send);
    if (gaxis == 3 && saxis == 3) break;
    const int gincr = gend == 0 ? -1 : 1, sincr = send == 0 ? 1 : -1;
    const int64_t gval = gaxis == 3 ? 0
                         : gend     ? boxes[cur.max_proc].hi[gaxis]
                                    : boxes[cur.max_proc].lo[gaxis];
    const int64_t sval = saxis == 3 ? 0
                         : send     ? boxes[cur.min_proc].hi[saxis]
                                    : boxes[cur.min_proc].lo[saxis];
    const int grow = gaxis != 3 && move_plane(boxes, np, gaxis, gincr, gval);
    const int shrink = saxis != 3 && move_plane(boxes, np, saxis, sincr, sval);
    if (!grow && !shrink) break;
    if (grow) apply_plane(boxes, np, gaxis, gincr, gval);
    if (shrink) apply_plane(boxes, np, saxis, sincr, sval);
    cur = measure(boxes, np);
  }
}

void minife_owned_nodes(const minife_box *b, const int64_t elems[3], int64_t nlo[3], int64_t n[3]) {
  for (int d = 0; d < 3; ++d) {
    nlo[d] = b->lo[d];
    n[d] = b->hi[d] - b->lo[d] + (b->hi[d] == elems[d] ? 1 : 0);
  }
}

int minife_mesh_create(minife_mesh *mesh, const minife_params *prm, int rank, int nranks,
                       float *largest_imbalance, float *std_dev) {
  memset(mesh, 0, sizeof *mesh);
  mesh->rank = rank;
  mesh->nranks = nranks;
  mesh->elems[0] = prm->nx;
  mesh->elems[1] = prm->ny;
  mesh->elems[2] = prm->nz;
  for (int d = 0; d < 3; ++d) mesh->nodes[d] = mesh->elems[d] + 1;
  mesh->boxes = (minife_box *)calloc((size_t)nranks, sizeof(minife_box));
  if (!mesh->boxes)
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "minife_mesh_create", "boxes", "calloc failed");
  minife_box all;
  for (int d = 0; d < 3; ++d) {
    all.lo[d] = 0;
    all.hi[d] = mesh->elems[d];
  }
  partition(0, nranks, 2, all, mesh->boxes);
  for (int q = 0; q < nranks; ++q)
    if (box_elements(&mesh->boxes[q]) <= 0)
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "minife_mesh_create", "decomposition",
                         "One or more processors have 0 equations: %lld x %lld x %lld elements "
                         "cannot be split over %d ranks (rank %d gets none)",
                         (long long)prm->nx, (long long)prm->ny, (long long)prm->nz, nranks, q);
  if (prm->load_imbalance > 0)
    add_imbalance(mesh->boxes, nranks, mesh->elems, (float)prm->load_imbalance);
  imbalance im = measure(mesh->boxes, nranks);
  *largest_imbalance = im.largest;
  *std_dev = im.std_dev;
  mesh->box = mesh->boxes[rank];
  minife_owned_nodes(&mesh->box, mesh->elems, mesh->nlo, mesh->n);
  mesh->nrows = mesh->n[0] * mesh->n[1] * mesh->n[2];
  for (int q = 0; q < nranks; ++q) {
    int64_t lo[3], n[3];
    minife_owned_nodes(&mesh->boxes[q], mesh->elems, lo, n);
    const int64_t rows = n[0] * n[1] * n[2];
    if (q < rank) mesh->first_row += rows;
    mesh->global_rows += rows;
  }
  return PORTA_SUCCESS;
}

void minife_mesh_free(minife_mesh *mesh) {
  free(mesh->boxes);
  mesh->boxes = NULL;
}

/* ---- the column map and the exchange plan ---- */

/** Owned node box of rank q as [lo, hi) per dimension. */
static void owned_box(const minife_mesh *mesh, int q, int64_t lo[3], int64_t hi[3]) {
  int64_t n[3];
  minife_owned_nodes(&mesh->boxes[q], mesh->elems, lo, n);
  for (int d = 0; d < 3; ++d) hi[d] = lo[d] + n[d];
}

static int inside(const int64_t lo[3], const int64_t hi[3], int64_t x, int64_t y, int64_t z) {
  return x >= lo[0] && x < hi[0] && y >= lo[1] && y < hi[1] && z >= lo[2] && z < hi[2];
}

/** The working state of minife_columns. The extended box is this rank's owned nodes and one
 *  layer around them: for each of its nodes, the owner (-2 outside the mesh, -1 this rank) and
 *  the column (local row, external slot, or -1). */
typedef struct columns_work {
  int64_t e[3], o[3], ne; /**< the extended box: extents, origin, nodes */
  int32_t *map, *owner;
  int64_t (*box)[2][3];                            /**< every rank's owned node box */
  int64_t *count;                                  /**< the 4 blocks below, one allocation */
  int64_t *recv_count, *send_count, *displ, *fill; /**< per rank */
  int64_t nexternal, nsend;                        /**< nodes received and sent */
  int nn;                                          /**< ranks exchanged with */
} columns_work;

static int columns_work_alloc(columns_work *w, const minife_mesh *mesh) {
  const int np = mesh->nranks;
  memset(w, 0, sizeof *w);
  for (int d = 0; d < 3; ++d) {
    w->e[d] = mesh->n[d] + 2;
    w->o[d] = mesh->nlo[d] - 1;
  }
  w->ne = w->e[0] * w->e[1] * w->e[2];
  w->map = (int32_t *)malloc(sizeof(int32_t) * (size_t)w->ne);
  w->owner = (int32_t *)malloc(sizeof(int32_t) * (size_t)w->ne);
  w->count = (int64_t *)calloc((size_t)np * 4, sizeof(int64_t));
  w->box = (int64_t(*)[2][3])malloc(sizeof(int64_t) * 6 * (size_t)np);
  if (!w->map || !w->owner || !w->count || !w->box)
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "minife_columns", "column_map", "malloc failed");
  w->recv_count = w->count;
  w->send_count = w->count + np;
  w->displ = w->count + 2 * np;
  w->fill = w->count + 3 * np;
  for (int q = 0; q < np; ++q) owned_box(mesh, q, w->box[q][0], w->box[q][1]);
  return PORTA_SUCCESS;
}

static void columns_work_free(columns_work *w) {
  free(w->map);
  free(w->owner);
  free(w->count);
  free(w->box);
}

/** The owner of each node of the extended box, and how many nodes each rank sends here. */
static int find_owners(const minife_mesh *mesh, columns_work *w) {
  const int np = mesh->nranks, me = mesh->rank;
  const int64_t *e = w->e, *o = w->o;
  for (int64_t i = 0; i < w->ne; ++i) {
    const int64_t x = o[0] + i % e[0], y = o[1] + (i / e[0]) % e[1], z = o[2] + i / (e[0] * e[1]);
    w->owner[i] = -2;
    if (x < 0 || y < 0 || z < 0 || x >= mesh->nodes[0] || y >= mesh->nodes[1] ||
        z >= mesh->nodes[2])
      continue;
    if (inside(w->box[me][0], w->box[me][1], x, y, z)) {
      w->owner[i] = -1;
      continue;
    }
    for (int q = 0; q < np; ++q)
      if (inside(w->box[q][0], w->box[q][1], x, y, z)) {
        w->owner[i] = q;
        w->recv_count[q]++;
        break;
      }
    if (w->owner[i] == -2)
      return porta_error(PORTA_ERROR_BACKEND, "minife_columns", "column_map",
                         "node (%lld, %lld, %lld) has no owner", (long long)x, (long long)y,
                         (long long)z);
  }
  return PORTA_SUCCESS;
}

/** The columns: owned nodes by their local row, the others after the owned rows, grouped by
 *  owner in node order. */
static void number_columns(const minife_mesh *mesh, columns_work *w) {
  const int64_t *e = w->e;
  int64_t next = 0;
  for (int q = 0; q < mesh->nranks; ++q) {
    w->displ[q] = next;
    next += w->recv_count[q];
  }
  w->nexternal = next;
  for (int64_t i = 0; i < w->ne; ++i) {
    const int64_t lx = i % e[0] - 1, ly = (i / e[0]) % e[1] - 1, lz = i / (e[0] * e[1]) - 1;
    const int32_t q = w->owner[i];
    if (q == -1)
      w->map[i] = (int32_t)((lz * mesh->n[1] + ly) * mesh->n[0] + lx);
    else if (q >= 0)
      w->map[i] = (int32_t)(mesh->nrows + w->displ[q] + w->fill[q]++);
    else
      w->map[i] = -1;
  }
}

/** This rank's owned nodes inside rank q's extended box, as [lo, hi); returns their number. */
static int64_t send_box(const columns_work *w, int q, int me, int64_t lo[3], int64_t hi[3]) {
  int64_t cnt = 1;
  for (int d = 0; d < 3; ++d) {
    lo[d] = w->box[q][0][d] - 1 > w->box[me][0][d] ? w->box[q][0][d] - 1 : w->box[me][0][d];
    hi[d] = w->box[q][1][d] + 1 < w->box[me][1][d] ? w->box[q][1][d] + 1 : w->box[me][1][d];
    cnt *= hi[d] > lo[d] ? hi[d] - lo[d] : 0;
  }
  return cnt;
}

/** What each other rank needs from here, and how many ranks this one exchanges with. */
static void count_sends(const minife_mesh *mesh, columns_work *w) {
  const int np = mesh->nranks, me = mesh->rank;
  for (int q = 0; q < np; ++q) {
    if (q == me) continue;
    int64_t lo[3], hi[3];
    w->send_count[q] = send_box(w, q, me, lo, hi);
    w->nsend += w->send_count[q];
  }
  for (int q = 0; q < np; ++q)
    if (q != me && (w->send_count[q] > 0 || w->recv_count[q] > 0)) ++w->nn;
}

/** The exchange lists: the ranks, the counts sent then received (sc[0..nn), sc[nn..2nn)), the
 *  nodes sent in node order and the external slots received. */
static void fill_lists(const minife_mesh *mesh, const columns_work *w, int *ranks, int64_t *sc,
                       int64_t *sidx, int64_t *ridx) {
  const int me = mesh->rank, nn = w->nn;
  int k = 0;
  int64_t s = 0, rr = 0;
  for (int q = 0; q < mesh->nranks; ++q) {
    if (q == me || (w->send_count[q] == 0 && w->recv_count[q] == 0)) continue;
    ranks[k] = q;
    sc[k] = w->send_count[q];
    sc[nn + k] = w->recv_count[q];
    int64_t lo[3], hi[3];
    send_box(w, q, me, lo, hi);
    if (w->send_count[q] > 0)
      for (int64_t z = lo[2]; z < hi[2]; ++z)
        for (int64_t y = lo[1]; y < hi[1]; ++y)
          for (int64_t x = lo[0]; x < hi[0]; ++x)
            sidx[s++] = ((z - mesh->nlo[2]) * mesh->n[1] + (y - mesh->nlo[1])) * mesh->n[0] +
                        (x - mesh->nlo[0]);
    for (int64_t j = 0; j < w->recv_count[q]; ++j) ridx[rr++] = mesh->nrows + w->displ[q] + j;
    ++k;
  }
}

/** The halo exchange plan of the columns (several ranks only). */
static int exchange_plan_create(const minife_mesh *mesh, const columns_work *w, MPI_Comm comm,
                                porta_exec exec, struct porta_exchange **plan) {
  const int nn = w->nn;
  int *ranks = (int *)malloc(sizeof(int) * (size_t)(nn + 1));
  int64_t *sc = (int64_t *)malloc(sizeof(int64_t) * (size_t)(2 * nn + 2));
  int64_t *sidx = (int64_t *)malloc(sizeof(int64_t) * (size_t)(w->nsend + 1));
  int64_t *ridx = (int64_t *)malloc(sizeof(int64_t) * (size_t)(w->nexternal + 1));
  int rc;
  if (!ranks || !sc || !sidx || !ridx) {
    rc =
        porta_error(PORTA_ERROR_OUT_OF_MEMORY, "minife_columns", "exchange lists", "malloc failed");
  } else {
    fill_lists(mesh, w, ranks, sc, sidx, ridx);
    porta_exchange_lists l;
    l.nneighbours = nn;
    l.ranks = ranks;
    l.send_count = sc;
    l.send_index = sidx;
    l.recv_count = sc + nn;
    l.recv_index = ridx;
    rc = porta_exchange_create(plan, "minife_halo", comm, &l, sizeof(double), 1, exec, 99);
  }
  free(ranks);
  free(sc);
  free(sidx);
  free(ridx);
  return rc;
}

/** The column map on the execution space. */
static int column_map_upload(const columns_work *w, porta_exec exec, porta_view_i32 *column_map) {
  porta_view_options opt = {porta_exec_memory_space(exec), PORTA_LAYOUT_DEFAULT,
                            PORTA_VIEW_UNINITIALIZED, NULL};
  PORTA_CHECK(porta_view_i32_create(column_map, "column_map", 1, &w->ne, &opt));
  porta_view_i32 host;
  porta_view_options hopt = {PORTA_HOST_SPACE, PORTA_LAYOUT_DEFAULT, PORTA_VIEW_UNMANAGED, NULL};
  PORTA_CHECK(porta_view_i32_wrap(&host, w->map, "column_map_host", 1, &w->ne, &hopt));
  return porta_deep_copy(*column_map, host);
}

int minife_columns(minife_mesh *mesh, MPI_Comm comm, porta_exec exec, porta_view_i32 *column_map,
                   struct porta_exchange **plan, int64_t *nexternal, int64_t *exchange_bytes) {
  columns_work w;
  int rc = columns_work_alloc(&w, mesh);
  if (rc == PORTA_SUCCESS) rc = find_owners(mesh, &w);
  if (rc == PORTA_SUCCESS) {
    number_columns(mesh, &w);
    *nexternal = w.nexternal;
    count_sends(mesh, &w);
    *exchange_bytes = (w.nsend + w.nexternal) * (int64_t)(sizeof(int64_t) + 3 * sizeof(double));
    if (mesh->nranks > 1) rc = exchange_plan_create(mesh, &w, comm, exec, plan);
  }
  if (rc == PORTA_SUCCESS) rc = column_map_upload(&w, exec, column_map);
  columns_work_free(&w);
  return rc;
}
