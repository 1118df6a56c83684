"""The kernels of examples/python/lj_md.py's re-neighbouring (miniMD's on one rank): the atoms
wrapped into the box, sorted by bin (a stable counting sort), the ghost atoms of the periodic
box chosen and refreshed, and the binned full neighbour list. lj_md_system.py launches them."""
import porta


@porta.kernel
def update_ghosts(g: int, nlocal: porta.i64, owner: porta.i32[:], shift: porta.f64[:, 3],
                  x: porta.f64[:, 3]):
    """Ghost g is the periodic image of owned atom owner[g], shifted by whole box lengths."""
    o = owner[g]
    for d in range(3):
        x[nlocal + g, d] = x[o, d] + shift[g, d]


@porta.function
def bin_coord(c: float, prd: float, bininv: float, nbin: int, mbinlo: int) -> int:
    """miniMD's coord2bin along one axis, relative to the first bin of the local grid (which
    reaches a cut-off and one bin beyond the box on each side, for the ghosts)."""
    if c >= prd:
        return int((c - prd) * bininv) + nbin - mbinlo
    if c >= 0.0:
        return int(c * bininv) - mbinlo
    return int(c * bininv) - mbinlo - 1


@porta.kernel
def wrap(i: int, grid: porta.f64[:], x: porta.f64[:, 3]):
    """Owned atom i back into the box [0, prd) (grid[0:3]): as miniMD, x < 0 first, then
    x >= prd."""
    for d in range(3):
        c = x[i, d]
        if c < 0.0:
            c += grid[d]
        if c >= grid[d]:
            c -= grid[d]
        x[i, d] = c


@porta.kernel
def bin_count(i: int, outside: porta.Max[porta.i32], x: porta.f64[:, 3], grid: porta.f64[:],
              igrid: porta.i32[:], atombin: porta.i32[:], bincount: porta.i32[:]):
    """Atom i's bin (grid: prd[3], bininv[3]; igrid: nbin[3], mbinlo[3], mbin[3]), counted
    with an atomic add; the reduction is 1 when an atom is outside the grid (it moved too
    far)."""
    ix = bin_coord(x[i, 0], grid[0], grid[3], igrid[0], igrid[3])
    iy = bin_coord(x[i, 1], grid[1], grid[4], igrid[1], igrid[4])
    iz = bin_coord(x[i, 2], grid[2], grid[5], igrid[2], igrid[5])
    if ix < 0 or ix >= igrid[6] or iy < 0 or iy >= igrid[7] or iz < 0 or iz >= igrid[8]:
        outside = max(outside, 1)
        atombin[i] = 0
    else:
        b = (iz * igrid[7] + iy) * igrid[6] + ix
        atombin[i] = b
        porta.atomic_add(bincount, b, 1)


@porta.kernel
def bin_start(b: int, upd: porta.Sum[porta.i64], final: bool, bincount: porta.i32[:],
              binstart: porta.i32[:]):
    """binstart[b] = the atoms of the bins before b (an exclusive scan over mbins + 1 entries);
    the counters back to zero for the fill."""
    nbins = bincount.shape[0]
    c = 0
    if b < nbins:
        c = bincount[b]
    if final:
        binstart[b] = upd
        if b < nbins:
            bincount[b] = 0
    upd += c


@porta.kernel
def bin_fill(i: int, atombin: porta.i32[:], binstart: porta.i32[:], bincount: porta.i32[:],
             binatom: porta.i32[:]):
    """Atom i into a free slot of its bin (the order within a bin is the atomics'; bin_order
    puts it back in the atoms' order)."""
    b = atombin[i]
    binatom[binstart[b] + porta.atomic_fetch_add(bincount, b, 1)] = i


@porta.kernel
def bin_order(b: int, binstart: porta.i32[:], binatom: porta.i32[:]):
    """The atoms of bin b in increasing order (an insertion sort of a few atoms): with it the
    fill is a stable counting sort, the same order on every back end and thread count."""
    lo = binstart[b]
    for p in range(lo + 1, binstart[b + 1]):
        a = binatom[p]
        q = p - 1
        while q >= lo and binatom[q] > a:
            binatom[q + 1] = binatom[q]
            q -= 1
        binatom[q + 1] = a


@porta.kernel
def bin_positions(p: int, x: porta.f64[:, 3], binatom: porta.i32[:], binx: porta.f64[:, 3]):
    """The binned atoms' positions beside them (binx), for the distance tests: the atoms of a
    bin, and of consecutive bins, are consecutive."""
    j = binatom[p]
    for d in range(3):
        binx[p, d] = x[j, d]


@porta.kernel
def permute(s: int, binatom: porta.i32[:], x: porta.f64[:, 3], v: porta.f64[:, 3],
            xnew: porta.f64[:, 3], vnew: porta.f64[:, 3]):
    """The owned atoms in bin order (the sort): atom s of the new order is binatom[s]."""
    j = binatom[s]
    for d in range(3):
        xnew[s, d] = x[j, d]
        vnew[s, d] = v[j, d]


@porta.kernel
def copy_rows(i: int, src: porta.f64[:, 3], dst: porta.f64[:, 3]):
    for d in range(3):
        dst[i, d] = src[i, d]


@porta.kernel
def ghost_select(k: int, upd: porta.Sum[porta.i64], final: bool, d: porta.i64, m: porta.i64,
                 nlocal: porta.i64, ng0: porta.i64, lo: float, hi: float, prd: float,
                 x: porta.f64[:, 3], owner: porta.i32[:], shift: porta.f64[:, 3]):
    """miniMD's borders along axis d, over the m atoms so far (owned, then the ghosts of the
    earlier axes): entries k < m are atom k near the lower face (c <= lo, its image shifted up
    by prd), entries k >= m atom k - m near the upper face (c >= hi, shifted down). The scan
    gives each selected entry its ghost slot, ng0 + its rank, where the final pass writes the
    ghost: its owned atom, its total shift and its position (when it fits: the total, returned,
    tells the caller whether it did)."""
    a = k
    s = prd
    if k >= m:
        a = k - m
        s = -prd
    c = x[a, d]
    sel = 0
    if k < m:
        if c <= lo:
            sel = 1
    elif c >= hi:
        sel = 1
    if sel == 1:
        if final:
            g = ng0 + upd
            if nlocal + g < x.shape[0]:
                o = a
                if a >= nlocal:
                    o = owner[a - nlocal]
                owner[g] = o
                for e in range(3):
                    se = 0.0
                    if a >= nlocal:
                        se = shift[a - nlocal, e]
                    if e == d:
                        se += s
                    shift[g, e] = se
                    x[nlocal + g, e] = x[o, e] + se
        upd += 1


@porta.kernel
def build_full(i: int, longest: porta.Max[porta.i32], x: porta.f64[:, 3],
               atombin: porta.i32[:], binstart: porta.i32[:], binx: porta.f64[:, 3],
               binatom: porta.i32[:], rows: porta.i32[:, :], cutneighsq: float,
               numneigh: porta.i32[:], neighbors: porta.i32[:, :]):
    """Owned atom i's full list: every other atom (owned or ghost) within cutneigh, from the
    bins of the stencil. The stencil is kept as rows of bins consecutive along x, each row one
    contiguous range of binned atoms. The reduction is the longest list: when it does not fit,
    the caller grows the list and builds again."""
    xi = x[i, 0]
    yi = x[i, 1]
    zi = x[i, 2]
    ib = atombin[i]
    maxneighs = neighbors.shape[1]
    n = 0
    for r in range(rows.shape[0]):
        b0 = ib + rows[r, 0]
        for p in range(binstart[b0], binstart[b0 + rows[r, 1]]):
            dx = xi - binx[p, 0]
            dy = yi - binx[p, 1]
            dz = zi - binx[p, 2]
            if dx * dx + dy * dy + dz * dz <= cutneighsq:
                j = binatom[p]
                if j != i:
                    if n < maxneighs:
                        neighbors[i, n] = j
                    n += 1
    numneigh[i] = n
    longest = max(longest, n)
