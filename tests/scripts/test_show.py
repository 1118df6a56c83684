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
"((" / "))" and no "()". Exit 77 (skipped) where h5py or matplotlib is missing.
"""
import importlib.machinery
import importlib.util
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
# results whose captions once read "within 0% of", "()" and "(... (...))"
CAPTION_RUNS = {
    "tealeaf": [os.path.join(root, "tests", "app", "decks", "bom.in")],  # test_problem 1, exact
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
