"""scripts/show on a small result of each app, and on files it must refuse.

  python3 test_show.py SCRIPTS_DIR BUILD_DIR

Each app runs small (one rank) in a directory of its own; scripts/show draws its result and
the PNG must exist, be 1200 x 700 pixels, and not be blank (the variance of its pixels, and of
the drawing area alone, well above zero). A missing file, a text file, an HDF5 file that is not
a Porta result and a result of an unknown app are refused with exit status 2, a message naming
the file and the reason, and no picture; so are a real result truncated (10, 50, 99 %) or with
one bit flipped in an object header (the checksum HDF5 then finds), and -o with an extension that
is not a picture format, all without a traceback. -o DIR writes DIR/result.png (miniFE's
picture); --help prints the whole usage; the captions of real results (a TeaLeaf test problem
matched exactly, miniFE without verification, miniMD without a thermo pair) have no "0%", no
"((" / "))" and no "()". Read back from the figures (scripts/show's draw, draw_grid and animate): miniMD's thermo
lines hold every point of /thermo (3, written every 10 steps) and the title says how often
thermo was written (also for a 0-step run); miniFE's slices (-ny 5) are the /solution node
values shaded at the node coordinates and titled with the node's coordinate (y = 0.6); the
TeaLeaf (visit_frequency) and miniMD (--dump-every) time series have one frame per snapshot,
each titled with its step and time, on one colour scale, in the grid and in -o movie.gif (its
frame count read with Pillow), with NAME-frames.png beside the picture; miniMD's series ends
with /final, as its XDMF file's (5 frames for -n 20 --dump-every 5); -o x.gif of miniFE is
refused. Copies of the miniMD result made with h5py that a run does not write (/snapshots a
dataset, an inf or fractional step, an inf or NaN thermo_every, an inf nsteps, dt 0, 0 atoms)
and a file this user may not read (root: show run as nobody through setpriv) are refused with
exit 2, one line naming the file and the problem ("cannot read it (permission denied)", not
"damaged"), no traceback and no picture. Exit 77 (skipped) where h5py or matplotlib is missing.
"""
import importlib.machinery
import importlib.util
import os
import re
import subprocess
import sys
import tempfile

try:
    import h5py
    import matplotlib.image as mpimg
    import numpy as np
except ImportError as e:
    print(f"SKIP: {e.name} missing (scripts/install-deps installs python3-h5py and "
          "python3-matplotlib)")
    sys.exit(77)

scripts, build = sys.argv[1], sys.argv[2]
show = os.path.join(scripts, "show")
root = os.path.dirname(scripts)
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL: " + what)
    return ok


def run(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300)


RUNS = {
    "tealeaf": [os.path.join(root, "tests", "app", "decks", "visit.in")],
    "minife": ["-nx", "6", "-ny", "5", "-nz", "4"],
    # thermo every 10 steps: 3 points, each to be drawn
    "minimd": ["-i", os.path.join(root, "inputs", "minimd", "in.lj.t10.miniMD"), "-s", "3",
               "-n", "20", "--dump-every", "5"],
}
# results whose captions once read "within 0% of", "()" and "(... (...))"
CAPTION_RUNS = {
    # test_problem 1's expected value to the last digit, with ordinary sums
    "tealeaf": [os.path.join(root, "tests", "app", "decks", "bom.in"), "--sums", "ordinary"],
    "minimd": ["-i", os.path.join(root, "inputs", "minimd", "in.lj.miniMD"), "-s", "3", "-n", "0"],
}


def refused(r, path, reason, png, what):
    """Exit 2, a message naming the file and the reason, no traceback and no picture."""
    ok = check(r.returncode == 2 and path in r.stderr and reason in r.stderr
               and "Traceback" not in r.stderr + r.stdout and not os.path.exists(png),
               f"{what}: exit {r.returncode}, stderr {r.stderr.strip()!r}, want 2 and "
               f"'{reason}' naming {path}, no traceback, no picture")
    print(f"refused ({what}): {r.stderr.strip()}")
    return ok


def load_show():
    loader = importlib.machinery.SourceFileLoader("show_tool", show)
    spec = importlib.util.spec_from_loader("show_tool", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module

with tempfile.TemporaryDirectory(prefix="test_show.") as tmp:
    for app, args in RUNS.items():
        d = os.path.join(tmp, app)
        os.mkdir(d)
        r = run([os.path.join(build, "bin", app), *args, "--out", "result"], d)
        if not check(r.returncode == 0, f"{app} exited with {r.returncode}:\n{r.stdout}{r.stderr}"):
            continue
        png = os.path.join(d, "picture.png")
        target = png
        if app == "minife":  # -o DIR: the picture goes into the directory, named after the file
            target = os.path.join(d, "pictures")
            os.mkdir(target)
            png = os.path.join(target, "result.png")
        r = run([show, "result.h5", "-o", target], d)
        print(r.stdout.strip(), r.stderr.strip())
        if not check(r.returncode == 0 and os.path.exists(png) and f"drawn in {png}" in r.stdout,
                     f"show {app} -o {target}: exit {r.returncode}, {r.stdout.strip()} "
                     f"{r.stderr.strip()}, want {png} written and named"):
            continue
        check(not os.path.exists(target + ".png"), f"show -o DIR: wrote {target}.png beside it")
        img = mpimg.imread(png)
        check(img.shape[:2] == (700, 1200), f"show {app}: {img.shape[1]} x {img.shape[0]} pixels")
        rgb = img[..., :3]
        check(float(rgb.var()) > 1e-3, f"show {app}: a blank picture (variance {rgb.var():.3g})")
        # below the caption, the drawing itself: not one flat colour either
        body = rgb[60:, :, :]
        check(float(body.var()) > 1e-3, f"show {app}: nothing drawn below the caption")
        print(f"show {app}: {img.shape[1]} x {img.shape[0]}, pixel variance {rgb.var():.4f}")
        # the default name is RESULT.png beside the file
        r = run([show, "result.h5"], d)
        check(r.returncode == 0 and os.path.exists(os.path.join(d, "result.png")),
              f"show {app} without -o: no result.png ({r.stderr.strip()})")

    # damaged copies of a real result: truncated, and one bit flipped in an object header
    real = os.path.join(tmp, "minife", "result.h5")
    if check(os.path.exists(real), "no miniFE result to damage"):
        data = open(real, "rb").read()
        for pct in (10, 50, 99):
            cut = os.path.join(tmp, f"cut{pct}.h5")
            with open(cut, "wb") as f:
                f.write(data[:len(data) * pct // 100])
            r = run([show, cut, "-o", cut + ".png"], tmp)
            refused(r, cut, "truncated", cut + ".png", f"show on a result cut to {pct} %")
        with h5py.File(real, "r") as f:
            headers = {k: h5py.h5o.get_info(f[k].id).addr for k in ("/summary", "/solution")}
        for key, addr in headers.items():
            flipped = os.path.join(tmp, f"flip{key.replace('/', '_')}.h5")
            b = bytearray(data)
            check(b[addr:addr + 4] == b"OHDR", f"{key}: no object header at {addr}")
            b[addr + 8] ^= 0x10  # inside the header: its checksum no longer matches
            with open(flipped, "wb") as f:
                f.write(b)
            r = run([show, flipped, "-o", flipped + ".png"], tmp)
            refused(r, flipped, "damaged", flipped + ".png", f"show with {key}'s header flipped")
        # pictures it cannot write: refused before anything is drawn
        for name in ("pic.txt", "x.bogus"):
            png = os.path.join(tmp, name)
            r = run([show, real, "-o", png], tmp)
            refused(r, png, "not a picture format", png, f"show -o {name}")
            check(".png" in r.stderr, f"show -o {name}: the formats it can write are not named")

    # --help: the whole usage, not its first line
    r = run([show, "--help"], tmp)
    for line in ("scripts/show RESULT.h5 [-o FILE.png | -o DIR]", "TeaLeaf", "miniFE", "miniMD",
                 "Exit status: 0 drawn; 2", "-o FILE|DIR, --output FILE|DIR"):
        check(r.returncode == 0 and line in r.stdout, f"show --help: no {line!r} in {r.stdout!r}")

    # captions: no "0%", no doubled brackets, no empty "()"
    tool = load_show()
    captions = {}
    for app in RUNS:
        if os.path.exists(os.path.join(tmp, app, "result.h5")):
            captions[app] = os.path.join(tmp, app, "result.h5")
    for app, args in CAPTION_RUNS.items():
        d = os.path.join(tmp, app)
        r = run([os.path.join(build, "bin", app), *args, "--out", "edge"], d)
        if check(r.returncode == 0, f"{app} {args[-2:]} exited with {r.returncode}:\n{r.stderr}"):
            captions[app + " (edge)"] = os.path.join(d, "edge.h5")
    for what, path in captions.items():
        with h5py.File(path, "r") as f:
            detail = f["/summary"].attrs["check_detail"]
            text = tool.caption(f["/summary"])
        print(f"caption of {what}: {text!r}  (check_detail {detail!r})")
        check(not any(g in text for g in (" 0%", "((", "))", "()")),
              f"caption of {what} has a glitch: {text!r}")
        check(text.count("(") == text.count(")"), f"caption of {what}: unpaired brackets")
    check(any("within 0%" in str(h5py.File(p, "r")["/summary"].attrs["check_detail"])
              for p in captions.values()) and any(
        h5py.File(p, "r")["/summary"].attrs["check_detail"] in (b"", "")
        for p in captions.values()),
        "the edge results no longer hold 'within 0%' and an empty check_detail: update the test")

    # what the figures hold, read back from their axes
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import QuadMesh
    # miniMD: every thermo point of the file is drawn, and the title says how often it was written
    for what in ("minimd", "minimd (edge)"):
        if what not in captions:
            continue
        with h5py.File(captions[what], "r") as f:
            fig = tool.draw(f, "minimd", captions[what])
            steps = f["/thermo/step"][...]
            t = steps * float(f["/parameters"].attrs["dt"])
            every = int(f["/parameters"].attrs["thermo_every"])
            for key in ("T", "U", "P"):
                lines = [ln for ax in fig.axes for ln in ax.get_lines()
                         if ln.get_gid() == "thermo " + key]
                want = f["/thermo/" + key][...]
                check(len(lines) == 1 and np.array_equal(lines[0].get_xdata(), t)
                      and np.array_equal(lines[0].get_ydata(), want)
                      and lines[0].get_marker() == "o",
                      f"{what}: thermo {key} drawn is not the file's {len(want)} points, marked")
            title = fig.axes[0].get_title().replace("\n", " ")
            print(f"{what}: {len(steps)} thermo points at steps {list(steps)}; title {title!r}")
            check(title.startswith(f"{len(steps)} thermo point"),
                  f"{what}: the thermo title does not count the {len(steps)} points: {title!r}")
            check((f"every {every} steps" in title) if 0 < every <= steps[-1] else
                  "at step 0 only" in title if steps[-1] == 0 else
                  "at the start and end only" in title,
                  f"{what}: the thermo title does not say how often (every {every}): {title!r}")
            plt.close(fig)
    check("minimd" not in captions or len(h5py.File(captions["minimd"], "r")["/thermo/step"]) > 2,
          "the miniMD run no longer writes more than 2 thermo points: update the test")
    # miniFE (-nx 6 -ny 5 -nz 4): each slice is the nodes' values at the nodes' coordinates,
    # titled with its real coordinate (y = 0.6: node 3 of 0..5)
    if "minife" in captions:
        with h5py.File(captions["minife"], "r") as f:
            u = f["/solution"][...]
            fig = tool.draw(f, "minife", captions["minife"])
        nz, ny, nx = u.shape
        node = {a: np.linspace(0.0, 1.0, n) for a, n in (("x", nx), ("y", ny), ("z", nz))}
        mid = {"x": nx // 2, "y": ny // 2, "z": nz // 2}
        want = {"z": u[mid["z"], :, :], "y": u[:, mid["y"], :], "x": u[:, :, mid["x"]]}
        seen = set()
        for ax in fig.axes:
            m = re.match(r"u on ([xyz]) = ([0-9.]+) \(([xyz])-([xyz])", ax.get_title())
            if not m:
                continue
            a, at, h, v = m[1], float(m[2]), m[3], m[4]
            seen.add(a)
            print(f"minife slice {ax.get_title()!r}: node {mid[a]} of {a} at {node[a][mid[a]]}")
            check(abs(at - node[a][mid[a]]) < 5e-4,
                  f"minife slice {a}: titled {at}, its nodes are at {a} = {node[a][mid[a]]}")
            meshes = [c for c in ax.collections if isinstance(c, QuadMesh)]
            ok = len(meshes) == 1 and meshes[0]._shading == "gouraud"
            if ok:
                xy = meshes[0].get_coordinates()
                gx, gy = np.meshgrid(node[h], node[v])
                ok = (np.array_equal(xy[..., 0], gx) and np.array_equal(xy[..., 1], gy)
                      and np.array_equal(np.asarray(meshes[0].get_array()).reshape(gx.shape),
                                         want[a]))
            check(ok, f"minife slice {a}: not the node values shaded at the node coordinates")
        check(seen == {"x", "y", "z"}, f"minife: slices titled {sorted(seen)}, want x, y and z")
        check(ny % 2 == 0, "the miniFE run has an odd node count along y: y = 0.5 proves nothing")
        plt.close(fig)

    # time series (TeaLeaf's visit_frequency, miniMD's --dump-every): a GIF with one frame per
    # snapshot, each titled with its step and time, on one colour scale; a grid of frames
    # beside the picture; miniFE (no snapshots) refused for a GIF
    # miniMD's series ends with /final (its last step has no snapshot of its own), as its XDMF
    # file's does: -n 20 --dump-every 5 is 5 frames, steps 0, 5, 10, 15 and 20
    for app in ("tealeaf", "minimd"):
        path = os.path.join(tmp, app, "result.h5")
        if not os.path.exists(path):
            continue
        with h5py.File(path, "r") as f:
            groups = [g for k, g in f["/snapshots"].items() if k.startswith("step_")]
            dt = float(f["/parameters"].attrs["dt"]) if app == "minimd" else None
            want = sorted((int(g.attrs["step"]) if "step" in g.attrs else int(g.name.split("_")[-1]),
                           float(g.attrs["time"]) if "time" in g.attrs else None) for g in groups)
            want = [(st, t if t is not None else st * dt) for st, t in want]
            if app == "minimd":
                last = int(f["/parameters"].attrs["nsteps"])
                check(want[-1][0] < last and "/final" in f,
                      f"minimd: a snapshot of the last step {last}: update the test")
                want.append((last, last * dt))
                xmf = open(os.path.join(tmp, app, "result.xmf")).read()
                series_xmf = [(name, float(t)) for name, t in re.findall(
                    r'<Grid Name="([^"]+)" GridType="Uniform">\s*<Time Value="([^"]+)"', xmf)]
                print(f"minimd: the XDMF series {series_xmf}")
                check(len(series_xmf) == len(want) == 5 and series_xmf[-1][0] == "final" and
                      all(abs(t - w[1]) < 1e-12 for (_, t), w in zip(series_xmf, want)),
                      f"minimd: the XDMF series {series_xmf}, the frames' {want}")
            titles = [f"at step {st}, t = {t:.4g}" for st, t in want]
            fig, update, n = tool.animate(f, app, path, tool.series(f, app))
            scales = set()
            for i in range(n):
                update(i)
                ax = fig.axes[0]
                check(ax.get_title().endswith(titles[i]),
                      f"{app} frame {i}: titled {ax.get_title()!r}, want ...{titles[i]!r}")
                for c in ax.collections:
                    scales.add((c.norm.vmin, c.norm.vmax))
            plt.close(fig)
            check(n == len(want) and len(want) >= 3,
                  f"{app}: {n} frames for the file's {len(want)} snapshots (want >= 3)")
            check(len(scales) == 1, f"{app}: the colour scale changes across frames: {scales}")
            grid = tool.draw_grid(f, app, path, tool.series(f, app))
            got = [ax.get_title() for ax in grid.axes if " at step " in ax.get_title()]
            check([g.split(" at ", 1)[1] for g in got] == [t[3:] for t in titles],
                  f"{app}: the grid's frames are {got}, want {titles}")
            plt.close(grid)
        print(f"{app}: {len(want)} frames {titles}")
        gif = os.path.join(tmp, app, "movie.gif")
        r = run([show, "result.h5", "-o", gif], os.path.join(tmp, app))
        if check(r.returncode == 0 and os.path.exists(gif),
                 f"show {app} -o movie.gif: exit {r.returncode}, {r.stderr.strip()}"):
            from PIL import Image
            with Image.open(gif) as im:
                check(im.n_frames == len(want),
                      f"show {app} -o movie.gif: {im.n_frames} frames, {len(want)} snapshots")
                print(f"{app}: movie.gif {im.n_frames} frames, {im.size[0]} x {im.size[1]}")
        frames_png = os.path.join(tmp, app, "picture-frames.png")
        check(os.path.exists(frames_png) and mpimg.imread(frames_png).shape[:2] == (700, 1200),
              f"show {app} -o picture.png: no 1200 x 700 {frames_png} beside it")
    fe = os.path.join(tmp, "minife", "result.h5")
    if os.path.exists(fe):
        gif = os.path.join(tmp, "fe.gif")
        refused(run([show, fe, "-o", gif], tmp), fe, "no snapshots", gif, "show minife -o .gif")

    # results a run does not write (issue 68, point 10): one line naming the file and what is
    # wrong, exit 2, no traceback, no picture, for the picture and for the animation
    md = os.path.join(tmp, "minimd", "result.h5")
    if check(os.path.exists(md), "no miniMD result to damage"):
        import shutil

        def variant(name, change):
            path = os.path.join(tmp, name + ".h5")
            shutil.copy(md, path)
            with h5py.File(path, "a") as f:
                change(f)
            return path

        def snapshots_dataset(f):
            del f["/snapshots"]
            f["/snapshots"] = np.arange(4)

        def no_atoms(f):
            for g in [f["/final"]] + [f["/snapshots"][k] for k in f["/snapshots"]]:
                for key in ("x", "v", "type"):
                    shape, dtype = g[key].shape, g[key].dtype
                    del g[key]
                    g[key] = np.zeros((0,) + shape[1:], dtype)
            f["/parameters"].attrs["natoms"] = 0

        def set_attr(where, key, value):
            return lambda f: f[where].attrs.__setitem__(key, value)

        bad = [
            (variant("snapshots_dataset", snapshots_dataset), "/snapshots is a dataset",
             (".png", ".gif")),
            (variant("inf_step", set_attr("/snapshots/step_5", "step", np.inf)),
             "/snapshots/step_5's step is inf", (".png", ".gif")),
            (variant("fraction_step", set_attr("/snapshots/step_5", "step", 5.5)),
             "/snapshots/step_5's step is 5.5, not a whole number", (".png", ".gif")),
            (variant("inf_thermo", set_attr("/parameters", "thermo_every", np.inf)),
             "thermo_every is inf", (".png",)),
            (variant("nan_thermo", set_attr("/parameters", "thermo_every", np.nan)),
             "thermo_every is nan", (".png",)),
            (variant("inf_nsteps", set_attr("/parameters", "nsteps", np.inf)),
             "nsteps is inf", (".png", ".gif")),
            (variant("zero_dt", set_attr("/parameters", "dt", 0.0)),
             "dt is 0, not a positive finite number", (".png", ".gif")),
            (variant("no_atoms", no_atoms), "holds 0 atoms", (".png", ".gif")),
        ]
        for path, reason, exts in bad:
            for ext in exts:
                out = path + ext
                r = run([show, path, "-o", out], tmp)
                if refused(r, path, reason, out, f"show {os.path.basename(path)} -o *{ext}"):
                    check(len(r.stderr.strip().splitlines()) == 1,
                          f"show {os.path.basename(path)}: more than one line: {r.stderr!r}")
        # a file this user may not read: "cannot read it (permission denied)", not "damaged";
        # root reads any file, so root runs show as nobody (setpriv) where it can
        locked_dir = os.path.join(tmp, "locked")
        os.mkdir(locked_dir)
        locked = os.path.join(locked_dir, "result.h5")
        shutil.copy(md, locked)
        os.chmod(locked, 0)
        cmd = [show, locked, "-o", locked + ".png"]
        env = None
        if os.geteuid() == 0:
            setpriv = shutil.which("setpriv")
            cmd = ([setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"] + cmd
                   if setpriv else None)
            cache = os.path.join(tmp, "mplconfig")  # matplotlib's cache, writable by nobody
            os.mkdir(cache)
            for d in (tmp, locked_dir, cache):
                os.chmod(d, 0o777 if d != tmp else 0o755)
            env = dict(os.environ, MPLCONFIGDIR=cache)
        if cmd is None:
            print("SKIP (unreadable file): running as root without setpriv")
        else:
            r = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=300, env=env)
            refused(r, locked, "cannot read it (permission denied)", locked + ".png",
                    "show on a file it may not read")
            check("damaged" not in r.stderr, f"an unreadable file called damaged: {r.stderr!r}")
            if os.geteuid() == 0:  # a folder of its path it may not enter: the same
                os.chmod(locked, 0o644)
                os.chmod(locked_dir, 0o700)
                r = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=300,
                                   env=env)
                refused(r, locked, "cannot read it (permission denied)", locked + ".png",
                        "show on a file in a folder it may not enter")
        os.chmod(tmp, 0o700)

    # files it must refuse
    text = os.path.join(tmp, "notes.h5")
    with open(text, "w") as f:
        f.write("not HDF5\n")
    other = os.path.join(tmp, "other.h5")
    with h5py.File(other, "w") as f:
        f["/data"] = np.arange(10.0)
    unknown = os.path.join(tmp, "unknown.h5")
    with h5py.File(unknown, "w") as f:
        f.create_group("summary").attrs["app"] = "lulesh"
    for path, reason in ((os.path.join(tmp, "missing.h5"), "no such file"),
                         (text, "not an HDF5 file"), (other, "not a Porta result"),
                         (unknown, "'lulesh', which show does not know")):
        png = path + ".png"
        r = run([show, path, "-o", png], tmp)
        check(r.returncode == 2 and path in r.stderr and reason in r.stderr
              and not os.path.exists(png),
              f"show {os.path.basename(path)}: exit {r.returncode}, stderr {r.stderr.strip()!r}, "
              f"want 2 and '{reason}', no picture")
        print(f"refused: {r.stderr.strip()}")

print("test_show: " + (f"{len(failures)} failures" if failures else "all checks pass"))
sys.exit(1 if failures else 0)
