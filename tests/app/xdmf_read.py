"""An app's result as ParaView shows it: NAME.xmf opened with each of ParaView's three XDMF
readers ("XDMF Reader", Xdmf3ReaderS, Xdmf3ReaderT), checked against the run and the HDF5 file.

  pvpython xdmf_read.py APP NAME [--cells NXxNY[xNZ]] [--box X0,X1,Y0,Y1[,Z0,Z1]]
                        [--atoms N] [--steps S0,S1,...] [--dt DT] [--probe X,Y,Z[,ARRAY=VALUE]]...

APP is tealeaf, minife or minimd; NAME.xmf and NAME.h5 are the run's result (NAME absolute:
the Xdmf3 readers find the .h5 beside a bare file name at the wrong place). For every reader
and every time step:
  - the time values are steps x dt (--steps; a result without a series has none);
  - the data set: TeaLeaf a rectilinear grid of (nx+1, ny+1, 1) points in the x-y plane,
    miniFE image data of (nx+1, ny+1, nz+1) points, both with the --box as their bounds and
    their point and cell counts; miniMD N points and N one-point cells, one an atom (drawn by
    every reader);
  - TeaLeaf's cell edges (the grid's x and y coordinates) double precision and bit for bit
    /mesh/x and /mesh/y, in the plane z = 0;
  - every array (and miniMD's points) equal, bit for bit, to its dataset in NAME.h5, read
    with h5py: TeaLeaf's /snapshots/step_NNNNNN (or /fields), miniFE's /solution, miniMD's
    /snapshots/step_N and /final (the last time);
  - at the last time, each --probe point is inside the data (ParaView's Probe Location), its
    ARRAY equals VALUE where one is given (relative 1e-12), and every array equals the file's
    value there: its cell's (TeaLeaf), interpolated from the nodes around it (miniFE). Probe
    points are single precision in ParaView: give coordinates that a float holds exactly.
Prints one line per check that fails and a summary; exit status 0 when all pass, 1 otherwise,
77 (skipped) when h5py cannot be imported by this interpreter.
"""
import argparse
import math
import sys

try:
    import h5py
    import numpy as np
except ImportError as e:  # the test is skipped, saying why, never passed silently
    print("SKIP: %s (install python3-h5py: scripts/install-deps)" % e)
    sys.exit(77)

from paraview import simple
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkCommonCore import vtkIdList

READERS = ("XDMFReader", "Xdmf3ReaderS", "Xdmf3ReaderT")
VTK_VERTEX, VTK_POLY_VERTEX = 1, 2
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL: " + what)
    return ok


def open_reader(kind, xmf):
    if kind == "XDMFReader":
        return simple.XDMFReader(FileNames=[xmf])
    return getattr(simple, kind)(FileName=[xmf])


def timesteps(reader):
    t = reader.TimestepValues
    if t is None:
        return []
    return list(t) if hasattr(t, "__len__") else [t]


def arrays(data, centre):
    fields = data.GetCellData() if centre == "cell" else data.GetPointData()
    out = {}
    for i in range(fields.GetNumberOfArrays()):
        name = fields.GetArrayName(i)
        if not name.startswith("vtk"):
            out[name] = vtk_to_numpy(fields.GetArray(i))
    return out


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and np.array_equal(a, b)


def close(a, b, rel=1e-12):
    return abs(a - b) <= rel * max(1.0, abs(b))


class Grid:
    """TeaLeaf (2D, cell fields) or miniFE (3D, node fields)."""

    def __init__(self, app, h5, args):
        self.app, self.h5 = app, h5
        self.cells = [int(c) for c in args.cells.split("x")]
        self.box = [float(v) for v in args.box.split(",")]
        if app == "tealeaf":
            self.cells.append(0)
            self.box += [0.0, 0.0]
            self.names = ("u", "energy", "density")
            self.centre = "cell"
            self.kind = "vtkRectilinearGrid"
        else:
            self.names = ("u",)
            self.centre = "point"
            self.kind = "vtkImageData"  # the Xdmf3 readers' vtkUniformGrid is one

    def datasets(self, k, steps):
        """name -> the HDF5 values of time index k, flattened (x fastest)."""
        if self.app == "minife":
            return {"u": self.h5["/solution"][...].ravel()}
        group = "/snapshots/step_%06d" % steps[k] if steps else "/fields"
        return {n: self.h5[group + "/" + n][...].ravel() for n in self.names}

    def check_data(self, who, data, k, steps):
        dims = tuple(c + 1 for c in self.cells)
        check(data.IsA(self.kind), "%s: a %s, not a %s" % (who, data.GetClassName(), self.kind))
        if hasattr(data, "GetDimensions"):
            check(tuple(data.GetDimensions()) == dims,
                  "%s: dims %s, want %s" % (who, data.GetDimensions(), dims))
        check(tuple(data.GetBounds()) == tuple(self.box),
              "%s: bounds %s, want %s" % (who, data.GetBounds(), self.box))
        npts = math.prod(dims)
        ncells = math.prod(c for c in self.cells if c > 0)
        check(data.GetNumberOfPoints() == npts and data.GetNumberOfCells() == ncells,
              "%s: %d points, %d cells, want %d, %d" % (who, data.GetNumberOfPoints(),
                                                      data.GetNumberOfCells(), npts, ncells))
        if self.app == "tealeaf":
            # the cell edges the reader returns, bit for bit /mesh/x and /mesh/y (a reader told
            # Precision 4, or a float32 array, gives 0.76923078 for 10/13 = 0.76923077...)
            for axis, coords in (("x", data.GetXCoordinates()), ("y", data.GetYCoordinates())):
                got_c = vtk_to_numpy(coords) if coords is not None else np.zeros(0)
                want_c = self.h5["/mesh/" + axis][...]
                check(got_c.dtype == np.float64 and same(got_c, want_c),
                      "%s: %s coordinates (%s) differ from /mesh/%s" % (who, axis, got_c.dtype,
                                                                      axis))
            z = data.GetZCoordinates()
            check(z is not None and list(vtk_to_numpy(z)) == [0.0],
                  "%s: z coordinates, want the single plane z = 0" % who)
        got = arrays(data, self.centre)
        want = self.datasets(k, steps)
        check(sorted(got) == sorted(want), "%s: arrays %s, want %s" % (who, sorted(got),
                                                                      sorted(want)))
        for name, values in want.items():
            if name in got:
                check(same(got[name], values), "%s: %s differs from the HDF5 dataset" % (who, name))

    def file_value(self, name, point, k, steps):
        """The file's value at `point`: its cell's (TeaLeaf), or the trilinear interpolation of
        the nodes around it (miniFE)."""
        if self.app == "tealeaf":
            idx = []
            for d in range(2):
                lo, hi, n = self.box[2 * d], self.box[2 * d + 1], self.cells[d]
                idx.append(min(int(math.floor((point[d] - lo) / (hi - lo) * n)), n - 1))
            group = "/snapshots/step_%06d" % steps[k] if steps else "/fields"
            return float(self.h5[group + "/" + name][idx[1], idx[0]])
        u = self.h5["/solution"][...]  # [z][y][x]
        base, frac = [], []
        for d in range(3):
            f = (point[d] - self.box[2 * d]) / (self.box[2 * d + 1] - self.box[2 * d]) * self.cells[d]
            i = min(int(math.floor(f)), self.cells[d] - 1)
            base.append(i)
            frac.append(f - i)
        value = 0.0
        for corner in range(8):
            o = [(corner >> d) & 1 for d in range(3)]
            w = math.prod(frac[d] if o[d] else 1.0 - frac[d] for d in range(3))
            value += w * u[base[2] + o[2], base[1] + o[1], base[0] + o[0]]
        return float(value)


class Atoms:
    """miniMD: a Polyvertex per time, its points the atoms."""

    names = ()

    def __init__(self, h5, args):
        self.h5, self.natoms = h5, args.atoms

    def group(self, k, steps):
        return "/final" if k == len(steps) - 1 else "/snapshots/step_%d" % steps[k]

    def check_data(self, who, data, k, steps):
        n = self.natoms
        check(data.IsA("vtkUnstructuredGrid"), "%s: a %s" % (who, data.GetClassName()))
        check(data.GetNumberOfPoints() == n and data.GetNumberOfCells() == n,
              "%s: %d points, %d cells, want %d of each (cells > 0: the atoms are drawn)"
              % (who, data.GetNumberOfPoints(), data.GetNumberOfCells(), n))
        # one cell an atom, of that atom's point alone (the XDMF Reader makes VTK_VERTEX
        # cells, the Xdmf3 readers one-point VTK_POLY_VERTEX cells: both are drawn)
        types = {data.GetCellType(i) for i in range(data.GetNumberOfCells())}
        check(types <= {VTK_VERTEX, VTK_POLY_VERTEX}, "%s: cell types %s" % (who, types))
        ids = vtkIdList()
        owners = []
        for i in range(data.GetNumberOfCells()):
            data.GetCellPoints(i, ids)
            owners += [ids.GetId(j) for j in range(ids.GetNumberOfIds())]
        check(sorted(owners) == list(range(n)), "%s: the cells are not one an atom" % who)
        g = self.group(k, steps)
        if not check(g in self.h5, "%s: no group %s in the HDF5 file" % (who, g)):
            return
        pts = data.GetPoints()
        check(pts is not None and same(vtk_to_numpy(pts.GetData()), self.h5[g + "/x"][...]),
              "%s: points differ from %s/x" % (who, g))
        got = arrays(data, "point")
        check(sorted(got) == ["type", "velocity"], "%s: arrays %s" % (who, sorted(got)))
        if "velocity" in got:
            check(same(got["velocity"], self.h5[g + "/v"][...]), "%s: velocity != %s/v" % (who, g))
        if "type" in got:
            check(same(got["type"], self.h5[g + "/type"][...]), "%s: type != %s/type" % (who, g))


def probe(reader, point, t):
    p = simple.ProbeLocation(Input=reader, ProbeType="Fixed Radius Point Source")
    p.ProbeType.Center = list(point)
    p.UpdatePipeline(t)
    out = p.GetClientSideObject().GetOutputDataObject(0)
    pd = out.GetPointData()
    values = {pd.GetArrayName(i): pd.GetArray(i).GetTuple(0)[0]
              for i in range(pd.GetNumberOfArrays())}
    simple.Delete(p)
    return values


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("app", choices=("tealeaf", "minife", "minimd"))
    ap.add_argument("name")
    ap.add_argument("--cells")
    ap.add_argument("--box")
    ap.add_argument("--atoms", type=int)
    ap.add_argument("--steps", default="")
    ap.add_argument("--dt", type=float, default=0.0)
    ap.add_argument("--probe", action="append", default=[])
    args = ap.parse_args()
    steps = [int(s) for s in args.steps.split(",") if s]
    want_times = [s * args.dt for s in steps]
    h5 = h5py.File(args.name + ".h5", "r")
    model = Atoms(h5, args) if args.app == "minimd" else Grid(args.app, h5, args)
    xmf = args.name + ".xmf"
    for kind in READERS:
        reader = open_reader(kind, xmf)
        times = timesteps(reader)
        check(len(times) == len(want_times) and all(close(a, b) for a, b in zip(times, want_times)),
              "%s: times %s, want %s" % (kind, times, want_times))
        for k, t in enumerate(times if times else [0.0]):
            reader.UpdatePipeline(t)
            data = reader.GetClientSideObject().GetOutputDataObject(0)
            model.check_data("%s t=%g" % (kind, t), data, k, steps)
        last = len(steps) - 1
        for spec in args.probe:
            parts = spec.split(",")
            point = [float(c) for c in parts[:3]]
            got = probe(reader, point, times[-1] if times else 0.0)
            who = "%s probe at %s" % (kind, point)
            if not check(got.get("vtkValidPointMask") == 1.0, "%s: outside the data" % who):
                continue
            if len(parts) > 3:  # a value known from the problem itself
                name, value = parts[3].split("=")
                check(close(got.get(name, math.nan), float(value)),
                      "%s: %s = %r, want %s" % (who, name, got.get(name), value))
            for n in model.names:
                want = model.file_value(n, point, last, steps)
                check(close(got.get(n, math.nan), want),
                      "%s: %s = %r, the file holds %r there" % (who, n, got.get(n), want))
        simple.Delete(reader)
    print("xdmf_read: %s %s: %d readers, times %s, %d probes: %s"
          % (args.app, xmf, len(READERS), want_times or "none", len(args.probe),
             "%d failures" % len(failures) if failures else "all checks pass"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
