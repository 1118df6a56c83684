#!/usr/bin/python3
"""What scripts/scaling reads from the user's files, refused with a message and exit 2 instead of
a traceback, a wrong answer, a hang or a machine's memory (issue 68, point 11): --params=FILE
(a JSON list, strings, a zero bandwidth, deep nesting, negative, NaN and boolean values, a FIFO,
/dev/zero, a file larger than the bound), --size with a zero size (--model-only), and --replot's
CSV (a byte-order mark accepted, as spreadsheets save it; zero, negative and NaN values refused
naming their line; a FIFO refused). Every run is bounded in time and in address space, so a
regression fails here instead of blocking or growing. Only Python: no app runs, a few seconds.

  test_scaling_input.py SCRIPTS_DIR
"""
import json
import os
import resource
import subprocess
import sys
import tempfile

scripts = os.path.abspath(sys.argv[1])
scaling = os.path.join(scripts, "scaling")
failures = []


def expect(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL: " + what)
    return ok


def bounded():
    # 4 GiB of address space: reading /dev/zero into memory fails here, not in the kernel's OOM
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


def run(args, cwd):
    try:
        return subprocess.run([scaling] + args, cwd=cwd, capture_output=True, text=True,
                              timeout=30, preexec_fn=bounded,
                              env=dict(os.environ, NO_BUILD="1"))
    except subprocess.TimeoutExpired:
        return None


def refused(args, cwd, words, what):
    """Exit 2, one line naming the file (or option) and the reason, no traceback, no hang."""
    r = run(args, cwd)
    if not expect(r is not None, f"{what}: still running after 30 s (blocked?)"):
        return
    err = r.stderr.strip()
    print(f"{what}: exit {r.returncode}: {err}")
    expect(r.returncode == 2 and all(w in err for w in words) and "Traceback" not in err + r.stdout
           and len(err.splitlines()) == 1,
           f"{what}: exit {r.returncode}, stderr {err!r}; want 2, one line with {words}, "
           "no traceback")


with tempfile.TemporaryDirectory(prefix="test_scaling_input.") as tmp:
    out = os.path.join(tmp, "out")
    with open(os.path.join(scripts, "lib", "model_h100.json")) as f:
        base = json.load(f)

    def params(name, change=None, text=None):
        """A copy of the shipped parameter file with one change (key, new value), or text."""
        path = os.path.join(tmp, name)
        if text is None:
            p = json.loads(json.dumps(base))
            key, value = change
            *outer, last = key.split(".")
            node = p
            for k in outer:
                node = node[k]["value"] if "value" in node[k] else node[k]
            if not outer:
                p[last]["value"] = value
            else:
                node[last] = value
            text = json.dumps(p)
        with open(path, "w") as f:
            f.write(text)
        return path

    model = ["tealeaf", "--strong", "--model-only", f"--out={out}"]
    # the shipped file, and the same file given by name: accepted
    r = run(model + [f"--params={params('same.json', text=json.dumps(base))}"], tmp)
    expect(r is not None and r.returncode == 0 and "Traceback" not in r.stderr,
           f"--params=a copy of model_h100.json: {r and r.returncode}, {r and r.stderr!r}")
    fifo = os.path.join(tmp, "fifo.json")
    os.mkfifo(fifo)
    big = params("big.json", text=" " * (2 << 20) + json.dumps(base))
    cases = [
        (params("list.json", text="[1, 2, 3]"), ["a JSON list", "not an object"]),
        (params("strings.json", ("nvlink_bandwidth_Bps", "150e9")),
         ["nvlink_bandwidth_Bps", "not a number"]),
        (params("zero_bw.json", ("nic_bandwidth_Bps", 0)), ["nic_bandwidth_Bps is 0", "> 0"]),
        (params("deep.json", text="[" * 200000 + "]" * 200000), ["nested too deeply"]),
        (params("deep_value.json", text='{"nvlink_bandwidth_Bps": ' + "[" * 200000 +
                "]" * 200000 + "}"), ["nested too deeply"]),
        (params("negative.json", ("reneighbour_round_s", -1e-4)),
         ["reneighbour_round_s is -0.0001", ">= 0"]),
        (params("negative_t1.json", ("one_gpu.tealeaf", {"strong": {"size": "tea_bm_5.in",
                                                                    "t1_s": -5e-4},
                                                         "weak": {"size": "bench_4000_long.in",
                                                                  "t1_s": 5e-4}})),
         ["one_gpu.tealeaf.strong.t1_s is -0.0005", "> 0"]),
        (params("nan.json", text=json.dumps(base).replace('"minife": 0.0', '"minife": NaN', 1)),
         ["fixed_s.minife is nan", "not a finite number"]),
        (params("inf.json", ("memory_bandwidth_Bps", float("inf"))),
         ["memory_bandwidth_Bps is inf", "not a finite number"]),
        (params("bool.json", ("plan_update_s", True)), ["plan_update_s is true", "not a number"]),
        (params("bool_map.json", ("sum_latency_s.2", False)),
         ["sum_latency_s.2 is false", "not a number"]),
        (params("missing.json", text='{"_doc": {"value": "nothing else"}}'),
         ["lacks memory_bandwidth_Bps"]),
        (params("notjson.json", text="{nvlink: 1}"), ["not JSON"]),
        (fifo, ["a FIFO, not a regular file"]),
        ("/dev/zero", ["a device, not a regular file"]),
        (tmp, ["a folder, not a regular file"]),
        (big, ["larger than 1048576 bytes"]),
        (os.path.join(tmp, "absent.json"), ["cannot read"]),
    ]
    for path, words in cases:
        refused(model + [f"--params={path}"], tmp, [f"--params={path}:"] + words,
                f"--params={os.path.basename(path)}")

    # a zero (or negative) size: refused, not divided by
    for app, size in (("minimd", "lj:0"), ("minimd", "eam:-3"), ("minife", "0")):
        refused([app, "--weak", "--model-only", f"--size={size}", f"--out={out}"], tmp,
                [f"--size={size}:", "not a problem size"], f"{app} --size={size} --model-only")

    # --replot: a spreadsheet's CSV (a byte-order mark, CRLF) drawn; bad values named by line
    try:
        import matplotlib  # noqa: F401
        have_mpl = True
    except ImportError:
        have_mpl = False
    bom = os.path.join(tmp, "minife-weak.csv")
    with open(bom, "wb") as f:
        f.write(b"\xef\xbb\xbfranks,efficiency,model_efficiency\r\n1,1.0,1.0\r\n2,0.9,0.95\r\n"
                b"4,0.8,0.9\r\n")
    r = run([f"--replot={bom}"], tmp)
    png = os.path.join(tmp, "minife-weak.png")
    if expect(r is not None and r.returncode == 0 and "Traceback" not in r.stderr,
              f"--replot of a CSV with a byte-order mark: {r and r.returncode}, "
              f"{r and r.stderr.strip()!r}"):
        print(f"--replot with a BOM: {r.stderr.strip()}")
        expect(os.path.exists(png) if have_mpl else "matplotlib missing" in r.stderr,
               f"--replot of a CSV with a byte-order mark: no {png}")
    for sub, body, words in (
            ("zero", "ranks,efficiency\n1,1.0\n2,0\n", ["line 3", "efficiency is '0'"]),
            ("negative", "ranks,efficiency\n1,1.0\n2,-0.5\n", ["line 3", "efficiency is '-0.5'"]),
            ("ranks0", "ranks,efficiency\n0,1.0\n2,0.5\n", ["line 2", "ranks is '0'"]),
            ("ranks_neg", "ranks,efficiency\n1,1.0\n-4,0.5\n", ["line 3", "ranks is '-4'"]),
            ("nan", "ranks,efficiency\n1,1.0\n2,nan\n", ["line 3", "efficiency is 'nan'"]),
            ("model", "ranks,efficiency,model_efficiency\n1,1.0,1.0\n2,0.9,0\n4,0.8,0.7\n",
             ["line 3", "model_efficiency is '0'"]),
            ("nocols", "rank,eff\n1,1.0\n", ["lacks the ranks and efficiency columns"])):
        d = os.path.join(tmp, sub)
        os.mkdir(d)
        path = os.path.join(d, "tealeaf-strong.csv")
        with open(path, "w") as f:
            f.write(body)
        refused([f"--replot={path}"], tmp, [f"'{path}'"] + words, f"--replot {sub}")
        expect(not os.path.exists(os.path.join(d, "tealeaf-strong.png")),
               f"--replot {sub}: drew a plot of a refused CSV")
    d = os.path.join(tmp, "fifo")
    os.mkdir(d)
    fifo_csv = os.path.join(d, "minimd-weak.csv")
    os.mkfifo(fifo_csv)
    refused([f"--replot={fifo_csv}"], tmp, [f"'{fifo_csv}'", "a FIFO, not a regular file"],
            "--replot of a FIFO")

print("test_scaling_input: " + (f"{len(failures)} failures" if failures else "all checks pass"))
sys.exit(1 if failures else 0)
