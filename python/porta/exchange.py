"""MPI from Python: Porta's exchange library (libporta_exchange, porta/exchange.h) beside
mpi4py (docs/python.md, "MPI and the exchange plan").

    from mpi4py import MPI
    import porta, porta.exchange as px

    d = px.Decomp(MPI.COMM_WORLD, global_cells=(nx, ny))           # porta_decomp_create
    h = px.Halo2D(d, halo=2, x_dim=1, max_fields=4)                # porta_halo2d_create
    u = np.zeros((d.local[0] + 4, d.local[1] + 4)).T               # x is view dimension 1
    h.exchange([u], depth=1)                                       # porta_halo2d_exchange

    plan = px.Plan(comm, ranks, send_counts, send_index, recv_counts, recv_index)
    plan.run([field])                                              # porta_exchange_run
    total = px.global_sum(comm, local)                             # MPI_Allreduce, one C call

MPI must be initialised first (`from mpi4py import MPI` does it); communicators are mpi4py's,
passed to C as their Fortran handles (`comm.py2f()`, MPI_Comm_f2c), so the extension needs no
mpi4py headers, only the same MPI library as mpi4py (Debian's python3-mpi4py and the system's
Open MPI). Fields are porta.Views or any array a kernel takes (NumPy, CuPy ...), in memory the
default back end reads; every exchange and finish() fences that back end before returning, so
the host sees the values. Importing this module loads MPI (the extension porta._exchange); plain
`import porta` does not.

Constructing a Decomp, Halo2D or Plan is collective over its communicator: the ranks compare
the arguments that must be alike (one small MPI_Allreduce) and every rank raises a ValueError
naming the argument and each rank's value where they differ, or where one rank refused its
arguments, rather than hang in unmatched messages; a Plan's ranks also compare what each
pair of them sends and receives. Calls made again and again compare too, as cheaply as they
can: every Halo2D exchange and Plan start compares the depth and the number of fields in one
MPI_Allreduce of 10 int64, and global_sum carries the number of values in its own
MPI_Allreduce; where ranks differ, every rank raises the same ValueError.
"""
import os

import numpy as np

from . import _ensure_init

try:
    from . import _exchange
except ImportError as e:  # built without MPI (setup.py: PORTA_MPI, mpicc)
    from . import _buildinfo
    if getattr(_buildinfo, "MPI", False):
        raise
    raise ImportError("porta.exchange is not available: this porta was built without MPI "
                      "(install an MPI and mpi4py, e.g. Debian's libopenmpi-dev and "
                      "python3-mpi4py, then reinstall; docs/python.md): %s" % e) from e

__all__ = ["Decomp", "Halo2D", "Plan", "global_sum", "transports_used", "PROC_NULL", "LOW",
           "HIGH", "MAX_FIELDS"]

PROC_NULL = _exchange.PROC_NULL
"""MPI_PROC_NULL of the MPI library (mpi4py's MPI.PROC_NULL): a neighbour on the boundary."""
LOW = _exchange.LOW
HIGH = _exchange.HIGH
MAX_FIELDS = _exchange.MAX_FIELDS
"""Most fields in one exchange (PORTA_EXCHANGE_MAX_FIELDS)."""


def _ready():
    """Porta initialised (the extension checks MPI, at every call, with the same message)."""
    _ensure_init()


def _collective(comm, who, make):
    """Make an object on every rank of comm: make() returns (object, arguments), the arguments
    ((name, value), ...) those every rank must give alike. Its exceptions (bad arguments) are
    raised after the ranks have compared their arguments, so that every rank raises, never
    waits for one that failed; where the ranks' arguments differ, every rank raises a
    ValueError naming the argument and the values (and closes what it made)."""
    _exchange.check_comm(comm, who)  # a rank that cannot compare raises alone
    try:
        obj, args = make()
    except Exception:
        _exchange.agree(comm, who, True, ())  # the other ranks raise too
        raise
    try:
        _exchange.agree(comm, who, False, args)
    except BaseException:
        if obj is not None and hasattr(obj, "close"):
            obj.close()
        raise
    return obj


def _ints(values):
    """A sequence of integers as a tuple for the C side (which names what is wrong)."""
    if isinstance(values, (str, bytes)):
        return values
    try:
        return tuple(values)
    except TypeError:
        return values


def _fields(fields):
    """A list or tuple of fields (the C side reads either): one array or view alone is a list
    of one."""
    return fields if isinstance(fields, (list, tuple)) else [fields]


def _i64(values, what):
    """`values` (a sequence or an integer NumPy array) as packed int64 bytes for the C side."""
    a = np.asarray(values)
    if a.size == 0:
        return b""
    if a.dtype.kind not in "iu" and not (a.dtype == object and all(
            isinstance(v, (int, np.integer)) for v in a.ravel())):
        raise TypeError("%s must hold integers, not %s" % (what, a.dtype))
    if a.ndim != 1:
        raise ValueError("%s must be one-dimensional (it has shape %s)" % (what, a.shape))
    return np.ascontiguousarray(a, dtype=np.int64).tobytes()


def _lists(ranks, send_counts, send_index, recv_counts, recv_index):
    return (_i64(ranks, "ranks"), _i64(send_counts, "send_counts"),
            _i64(send_index, "send_index"), _i64(recv_counts, "recv_counts"),
            _i64(recv_index, "recv_index"))


class Decomp:
    """A rank's share of a Cartesian grid (porta_decomp_create): the rank grid `dims`
    (None: the one with the fewest cells on faces between ranks), ranks numbered with
    dimension 0 fastest, cells split as evenly as possible. Attributes: comm, rank, nranks,
    ndims, dims, coords, global_cells, offset (first global cell of this rank), local (its
    cells), neighbour (per dimension (low, high): a rank, or PROC_NULL on the boundary).
    `comm` is an mpi4py intracommunicator; every rank of it constructs the Decomp with the
    same global_cells and dims (compared: a ValueError on every rank otherwise)."""

    def __init__(self, comm, global_cells, dims=None):
        _ready()
        self.comm = comm

        def make():
            cells = _ints(global_cells)
            grid = None if dims is None else _ints(dims)
            h = _exchange.Decomp(comm, cells, grid)
            return h, (("global_cells", cells), ("dims", grid))

        self._h = _collective(comm, "Decomp", make)
        (self.rank, self.nranks, self.dims, self.coords, self.global_cells, self.offset,
         self.local, self.neighbour) = self._h.info()
        self.ndims = len(self.dims)

    def is_boundary(self, dim, side):
        """Whether this rank's `side` (LOW 0 / HIGH 1) of dimension `dim` is the domain's
        boundary."""
        if side not in (LOW, HIGH):
            raise ValueError("side must be LOW (0) or HIGH (1), not %r" % (side,))
        return self.neighbour[dim][side] == PROC_NULL

    def __repr__(self):
        return ("Decomp(rank=%d of %d, dims=%s, coords=%s, offset=%s, local=%s)"
                % (self.rank, self.nranks, self.dims, self.coords, self.offset, self.local))


class _Closing:
    """close() frees the C object (also done when the Python object goes); `with` closes."""

    def close(self):
        self._h.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Halo2D(_Closing):
    """Halo exchanges of depth 1..halo for 2D float64 fields over a 2D Decomp
    (porta_halo2d_create on the default back end). Every field has `halo` ghost layers on each
    side: x (decomposition dimension 0) is view dimension `x_dim`, and owned cell (i, j) is at
    x index halo + i, y index halo + j. An extent may be longer than local + 2 halo: the rest
    is padding that no exchange touches (lines padded to an aligned length). Any layout (C, F,
    strided; not negative strides) works; all fields of one Halo2D have the strides of the first
    exchanged. Plans use MPI tags tag .. tag + 2 halo - 1. Construction and exchanges are
    collective over the decomposition's ranks: halo, x_dim, max_fields, tag and the Decomp are
    compared at construction, depth and the number of fields at every exchange (one small
    MPI_Allreduce each), so ranks that differ raise together instead of waiting for each other.
    check_every_exchange (or PORTA_EXCHANGE_CHECK=1 in the environment) is still taken and
    compared between the ranks, but changes nothing now: every exchange is compared.
    """

    def __init__(self, decomp, halo=1, x_dim=1, max_fields=1, tag=1000,
                 check_every_exchange=None):
        _ready()
        if not isinstance(decomp, Decomp):
            raise TypeError("decomp must be a porta.exchange.Decomp, not %s"
                            % type(decomp).__name__)
        self.decomp = decomp
        self.halo, self.x_dim, self.max_fields, self.tag = halo, x_dim, max_fields, tag
        if check_every_exchange is None:
            check_every_exchange = os.environ.get("PORTA_EXCHANGE_CHECK", "0") not in ("", "0")
        self.check_every_exchange = every = bool(check_every_exchange)

        def make():
            h = _exchange.Halo2D(decomp._h, halo, x_dim, max_fields, tag, every)
            return h, (("halo", halo), ("x_dim", x_dim), ("max_fields", max_fields),
                       ("tag", tag), ("decomp.global_cells", decomp.global_cells),
                       ("decomp.dims", decomp.dims), ("check_every_exchange", int(every)))

        self._h = _collective(decomp.comm, "Halo2D", make)

    def exchange(self, fields, depth=1):
        """Fill ghost layers 1..depth of `fields` (a list, or one field) from the neighbours
        (porta_halo2d_exchange): x first, then y, so corners are right. Boundary ghosts are
        left as they are. Complete on return. Every rank passes the same depth and number of
        fields: every exchange compares them between the ranks (one MPI_Allreduce of 10 int64;
        a ValueError on every rank where they differ, or where one rank refuses its fields)."""
        self._h.exchange(_fields(fields), depth)

    def prepare(self, field):
        """Build the plans now for fields shaped like `field` (collective over the
        decomposition's ranks: a field one rank refuses raises on every rank)."""
        self._h.prepare(field)

    @property
    def messages(self):
        """Messages sent so far."""
        return self._h.counters()[0]

    @property
    def bytes(self):
        """Bytes sent so far."""
        return self._h.counters()[1]


class Plan(_Closing):
    """An exchange plan (porta_exchange_create on the default back end): for each neighbour
    ranks[k], send_counts[k] values at offsets send_index (concatenated per neighbour) of each
    field, and recv_counts[k] values into offsets recv_index. An offset numbers a field's
    elements in its layout's order: the flat index of a C-ordered array (a.ravel()[k]), of an
    F-ordered one in F order; for an array that is not one block (a slice such as x[::2] or
    a[1:-1, ::2]) the same order over its own elements (x[::2]: offset k is x[k]), with the
    dimensions taken from the largest stride to the smallest. Such fields are exchanged
    through a contiguous copy of the values sent and received (host memory only). Elements
    are `value_size` bytes (or dtype's itemsize). A neighbour may be this rank and may appear
    more than once; both sides list each other in corresponding order. Up to `max_fields`
    fields per exchange, MPI tag `tag`, `label` in messages. Construction is collective over
    `comm` (an mpi4py intracommunicator): the ranks compare tag and value_size, and what each
    pair of ranks sends and receives (rank p's send counts to q against q's receive counts
    from p, entry by entry: one MPI_Alltoall of 3 int64 per rank and one MPI_Allreduce), and a
    refusal on one rank raises on all. start() and run() are collective over `comm` too (every
    rank calls them, an empty plan's ranks as well): they compare the number of fields. A
    field the plan receives nothing into may be read-only."""

    def __init__(self, comm, ranks, send_counts, send_index, recv_counts, recv_index,
                 value_size=8, dtype=None, max_fields=1, tag=0, label="plan"):
        _ready()
        self.comm = comm
        self.max_fields = max_fields
        self.label = label
        made = {}

        def check():  # every check first, made alike on every rank (a GPU plan's creation
            # shakes hands with the neighbours, so the ranks compare before it)
            vs = value_size if dtype is None else np.dtype(dtype).itemsize
            lists = _lists(ranks, send_counts, send_index, recv_counts, recv_index)
            _exchange.plan_check(comm, *lists, vs, max_fields, tag, label)
            made.update(lists=lists, value_size=vs)
            return None, (("tag", tag), ("value_size", vs))

        _collective(comm, "Plan %s" % (label,), check)
        self.value_size = made["value_size"]
        self._h = _exchange.Plan(comm, *made["lists"], self.value_size, max_fields, tag, label)

    def run(self, fields):
        """start + finish: the fields' received values are in place on return. Collective over
        the plan's communicator, as start()."""
        self._h.run(_fields(fields))

    def start(self, fields):
        """Post the receives, pack and send (porta_exchange_start). The plan holds the fields
        until finish(). Collective over the plan's communicator: the ranks compare the number
        of fields first (one MPI_Allreduce of 10 int64), and a ValueError on every rank names
        each rank's number where they differ, or the ranks where one refused its fields."""
        self._h.start(_fields(fields))

    def finish(self):
        """Wait for the messages and unpack (porta_exchange_finish), then fence."""
        self._h.finish()

    def set_accumulate(self, on=True):
        """Make the unpack add into the fields (doubles, distinct receive offsets)."""
        self._h.set_accumulate(bool(on))

    def update(self, ranks, send_counts, send_index, recv_counts, recv_index):
        """New lists with the same neighbours in the same order (porta_exchange_update)."""
        self._h.update(*_lists(ranks, send_counts, send_index, recv_counts, recv_index))

    @property
    def transport(self):
        """How the values travel: "host", "pinned-host", "cuda-aware-mpi", "cuda-ipc" ..."""
        return self._h.transport()

    def stats(self):
        """(messages, bytes) sent over this plan's exchanges."""
        return self._h.stats()

    @property
    def send_total(self):
        """Values sent per field in one exchange."""
        return self._h.totals()[0]

    @property
    def recv_total(self):
        """Values received per field in one exchange."""
        return self._h.totals()[1]



# the sums over a communicator's ranks in one MPI_Allreduce made in C (its docstring says more)
global_sum = _exchange.global_sum


def transports_used():
    """The transports of every plan made so far in this process, joined by '+' ("none")."""
    return _exchange.transports_used()
