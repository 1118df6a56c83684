"""scripts/show on a small result of each app, and on files it must refuse.

  python3 test_show.py SCRIPTS_DIR BUILD_DIR

Each app runs small (one rank) in a directory of its own; scripts/show draws its result and
the PNG must exist, be 1200 x 700 pixels, and not be blank (the variance of its pixels, and of
the drawing area alone, well above zero). A missing file, a text file, an HDF5 file that is not
a Porta result and a result of an unknown app are refused with exit status 2, a message naming
the file and the reason, and no picture. Exit 77 (skipped) where h5py or matplotlib is missing.
"""
import os
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
    "minimd": ["-i", os.path.join(root, "inputs", "minimd", "in.lj.miniMD"), "-s", "3", "-n", "20"],
}

with tempfile.TemporaryDirectory(prefix="test_show.") as tmp:
    for app, args in RUNS.items():
        d = os.path.join(tmp, app)
        os.mkdir(d)
        r = run([os.path.join(build, "bin", app), *args, "--out", "result"], d)
        if not check(r.returncode == 0, f"{app} exited with {r.returncode}:\n{r.stdout}{r.stderr}"):
            continue
        png = os.path.join(d, "picture.png")
        r = run([show, "result.h5", "-o", png], d)
        print(r.stdout.strip(), r.stderr.strip())
        if not check(r.returncode == 0 and os.path.exists(png),
                     f"show {app}: exit {r.returncode}, {r.stderr.strip()}"):
            continue
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
