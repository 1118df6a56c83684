#!/usr/bin/python3
"""The performance model (scripts/lib/porta_model.py) and scripts/scaling --model-only, on the CPU
in about a second: the model reproduces its 1-GPU input; hand-computed times for parameter sets
of this file's own (computed here from the apps' geometry, not by the model's functions);
NCCL's latency model across nodes; the decompositions the apps use; strong-scaling efficiency
that never rises with the GPUs; --model-only's printed table, CSV and refusals.

  test_model.py SCRIPTS_DIR
"""
import csv
import math
import os
import subprocess
import sys
import tempfile

scripts = os.path.abspath(sys.argv[1])
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(scripts, "lib"))
import porta_model  # noqa: E402

failures = []


def expect(ok, what):
    if not ok:
        failures.append(what)


def close(a, b, rel=1e-12):
    return abs(a - b) <= rel * max(abs(a), abs(b))


# Round figures, not the machine's: the hand computations below do not move when the lead
# replaces model_h100.json's values with measured ones.
P = {
    "memory_bandwidth_Bps": 2e12, "nvlink_bandwidth_Bps": 100e9, "nic_bandwidth_Bps": 25e9,
    "sum_latency_s": {"2": 10e-6, "4": 20e-6}, "sum_latency_nccl_s": {"2": 10e-6, "4": 20e-6},
    "halo_phase_latency_s": {"nccl": 5e-6, "peer": 4e-6, "ipc": 30e-6},
    "reneighbour_round_s": 100e-6, "plan_update_s": 50e-6,
    "fixed_s": {"tealeaf": 10e-6, "minife": 0.0, "minimd": 50e-6},
    "inter_node_extra_latency_s": 3e-6,
    "nccl_base_latency_s": {"tree": 7e-6, "ring": 6e-6}, "nccl_nvlink_hop_s": 1e-6,
    "nccl_net_hop_s": {"tree": 5e-6, "ring": 3e-6}, "nccl_net_overhead_s": 2e-6,
}

# 1. one GPU: the model's time is its input, exactly, for every series of the parameter file
file_params = porta_model.load_params()
for app in ("tealeaf", "minife", "minimd"):
    for series in ("strong", "weak"):
        size, t1 = porta_model.series_input(app, series, file_params)
        row = porta_model.predict(app, series, size, [1], t1, 4, file_params)[0]
        expect(row["time_per_iteration_s"] == t1 and row["efficiency"] == 1.0,
               f"{app} {series}: 1 GPU {row['time_per_iteration_s']} s, input {t1} s")
        expect(row["halo_s"] == 0 and row["sums_s"] == 0 and row["reneighbour_s"] == 0,
               f"{app} {series}: communication on one GPU")

# 2. TeaLeaf tea_bm_5 (4000 x 4000) strong on 4 GPUs of one node, as the exchange was before
# issue 56 (two phases by NCCL, nothing beside it): a 2 x 2 grid of 2000 x 2000 cells; 2
# exchange phases of 2002 doubles (a face and its 2 ghost cells); 2 sums
now = dict(porta_model.STRUCTURE["tealeaf"])
porta_model.STRUCTURE["tealeaf"].update(faces=False, phase="nccl", halo_overlap=0.0)
t1 = 0.5e-3
want = (10e-6 + (t1 - 10e-6) * (2000 * 2000) / (4000 * 4000)
        + 2 * (5e-6 + 8 * 2002 / 100e9) + 2 * 20e-6)
row = porta_model.predict("tealeaf", "strong", "tea_bm_5.in", [1, 4], t1, 4, P)[1]
expect(close(row["time_per_iteration_s"], want), f"tealeaf 4 GPUs: {row['time_per_iteration_s']}"
       f" s, hand-computed {want} s")
expect(row["grid"] == "2x2", f"tealeaf 4 GPUs: grid {row['grid']}")
expect(close(row["efficiency"], t1 / (4 * want)), "tealeaf 4 GPUs: efficiency t1 / (4 t)")
expect(close(row["bandwidth_floor_s"], 96 * 2000 * 2000 / 2e12), "tealeaf: floor at 96 B/cell")

# ... and with one sum round an iteration and the exchange hidden (STRUCTURE, the what-if of
# docs/clusters.md): compute and one sum
porta_model.STRUCTURE["tealeaf"].update(sum_rounds=1, halo_hidden=True)
row = porta_model.predict("tealeaf", "strong", "tea_bm_5.in", [1, 4], t1, 4, P)[1]
porta_model.STRUCTURE["tealeaf"].update(sum_rounds=2, halo_hidden=False)
want = 10e-6 + (t1 - 10e-6) * (2000 * 2000) / (4000 * 4000) + 20e-6
expect(close(row["time_per_iteration_s"], want), f"tealeaf, one sum, halo hidden: "
       f"{row['time_per_iteration_s']} s, hand-computed {want} s")

# 3. the same on 8 GPUs, 4 a node: a 4 x 2 grid of 1000 x 2000 cells, ranks x fastest, so ranks
# 0-3 (node 0) are the row y = 0 and 4-7 (node 1) the row y = 1. x phase: 2002 doubles to x
# neighbours of the node; y phase: 1002 doubles across the nodes (the NIC, and the extra
# latency). A sum: the 4-GPU figure plus NCCL's tree (2 nodes) less its best on one node.
tree_8 = 7e-6 + 2 * (3 * 1e-6 + 1 * 5e-6)          # 23 us
ring_8 = 6e-6 + (14 - 4) * max(1e-6, 2e-6) + 4 * 3e-6  # 38 us
one_node = min(7e-6 + 2 * 3 * 1e-6, 6e-6 + 6 * 1e-6)   # tree 13, ring 12: 12 us
sum8 = 20e-6 + min(tree_8, ring_8) - one_node
want = (10e-6 + (t1 - 10e-6) * (1000 * 2000) / (4000 * 4000)
        + (5e-6 + 8 * 2002 / 100e9) + (5e-6 + 3e-6 + 8 * 1002 / 25e9) + 2 * sum8)
row = porta_model.predict("tealeaf", "strong", "tea_bm_5.in", [1, 8], t1, 4, P)[1]
expect(close(row["time_per_iteration_s"], want), f"tealeaf 8 GPUs (2 nodes): "
       f"{row['time_per_iteration_s']} s, hand-computed {want} s")
expect(row["grid"] == "4x2" and row["nodes"] == 2, f"tealeaf 8 GPUs: {row['grid']}, "
       f"{row['nodes']} nodes")
porta_model.STRUCTURE["tealeaf"].clear()
porta_model.STRUCTURE["tealeaf"].update(now)
# ... and as it is: the faces in one phase (2000 doubles to each of 2 neighbours) by the peer
# transport on one node, beside the inside's update, which hides it (40 / 96 of the work:
# 40 / 96 x 121.25 us against 4.16 us); on 2 nodes by NCCL, still hidden (8.32 us)
compute4 = 10e-6 + (t1 - 10e-6) * (2000 * 2000) / (4000 * 4000)
row = porta_model.predict("tealeaf", "strong", "tea_bm_5.in", [1, 4], t1, 4, P)[1]
expect(close(row["time_per_iteration_s"], compute4 + 2 * 20e-6) and row["halo_s"] == 0.0,
       f"tealeaf 4 GPUs, faces beside the update: {row['time_per_iteration_s']} s")
compute8 = 10e-6 + (t1 - 10e-6) * (1000 * 2000) / (4000 * 4000)
row = porta_model.predict("tealeaf", "strong", "tea_bm_5.in", [1, 8], t1, 4, P)[1]
expect(close(row["time_per_iteration_s"], compute8 + 2 * sum8) and row["halo_s"] == 0.0,
       f"tealeaf 8 GPUs, faces beside the update: {row['time_per_iteration_s']} s")
# with no work beside it the whole phase shows: 5 + 3 us latency, 8000 bytes over the NIC
porta_model.STRUCTURE["tealeaf"].update(halo_overlap=0.0)
row = porta_model.predict("tealeaf", "strong", "tea_bm_5.in", [1, 8], t1, 4, P)[1]
porta_model.STRUCTURE["tealeaf"].update(now)
expect(close(row["halo_s"], 8e-6 + 8 * 1000 / 25e9), f"tealeaf 8 GPUs, faces: {row['halo_s']}")
expect(close(porta_model.sum_latency(8, 4, P), 31e-6), "a sum on 2 nodes of 4: 31 us")
expect(close(porta_model.sum_latency(3, 4, P), 20e-6), "3 GPUs take the 4-GPU figure")
# 64 GPUs on 16 nodes: tree 7 + 2 (3 + 4 x 5) = 53 us against ring 6 + 94 x 2 + 32 x 3 = 290
expect(close(porta_model.sum_latency(64, 4, P), 20e-6 + 53e-6 - 12e-6), "a sum on 16 nodes")

# 4. miniFE 20^3 elements on 2 GPUs: bisection along z into 10 + 10 element layers; rank 0 owns
# node planes z = 0..9, rank 1 z = 10..20 (11 planes of 21 x 21); each sends one plane of
# 21 x 21 nodes (its nodes in the other's ghost-extended box), both at once; 2 sums
t1 = 2e-3
want = t1 * (21 * 21 * 11) / 21 ** 3 + (4e-6 + 8 * 441 / 100e9) + 2 * 10e-6  # the peer phase
row = porta_model.predict("minife", "strong", "20", [1, 2], t1, 4, P)[1]
expect(close(row["time_per_iteration_s"], want), f"minife 2 GPUs: {row['time_per_iteration_s']}"
       f" s, hand-computed {want} s")
expect(row["grid"] == "1x1x2", f"minife 2 GPUs: cuts {row['grid']}")
# its bandwidth floor: 12 nnz + 116 rows for rank 1's 21 x 21 x 11 nodes, the mesh's last plane
# among them (a face row has 2 stencil points across the face, not 3)
nnz = (3 * 21 - 2) * (3 * 21 - 2) * (3 * 11 - 1)
expect(close(row["bandwidth_floor_s"], (12 * nnz + 116 * 21 * 21 * 11) / 2e12), "minife floor")

# 5. miniMD LJ 10^3 cells a GPU, weak, 2 GPUs: 20 x 10 x 10 cells, split along x (least surface),
# each sub-domain a cube of side 10 a (a = (4 / 0.8442)^(1/3)); the x swaps send the atoms within
# 2.8 (cut-off 2.5 + skin 0.3) of a face, both swaps to the one neighbour (periodic), 24 bytes an
# atom, queued beside the forces of the atoms 2.8 from every face: 0.9 of the step's compute
# beyond the fixed part times (1 - 5.6 / side)^3 of the atoms, far more than the swaps, so none
# shows; every 20 steps a re-neighbouring: 1 migration round, 2 border rounds (40 bytes an atom),
# 2 plan updates and a sum; thermo every 100 steps: 2 sums
t1 = 1e-3
side = 10 * (4 / 0.8442) ** (1 / 3)
ghosts = 0.8442 * 2.8 * side * side
forward = 4e-6 + 2 * 24 * ghosts / 100e9
hides = 0.9 * (1 - 5.6 / side) ** 3 * (t1 - 50e-6)
expect(hides > forward, f"minimd 2 GPUs: the swaps {forward} s longer than the forces {hides} s")
reneigh = 100e-6 + 2 * (100e-6 + 40 * ghosts / 100e9) + 2 * 50e-6 + 10e-6
want = t1 + reneigh / 20 + 2 * 10e-6 / 100
row = porta_model.predict("minimd", "weak", "lj:10", [1, 2], t1, 4, P)[1]
expect(close(row["time_per_iteration_s"], want, 1e-9), f"minimd 2 GPUs: "
       f"{row['time_per_iteration_s']} s, hand-computed {want} s")
expect(row["halo_s"] == 0.0, f"minimd 2 GPUs: {row['halo_s']} s of swaps not hidden")
expect(row["grid"] == "2x1x1", f"minimd weak 2 GPUs: grid {row['grid']}")
# the same at 1 cell a GPU (side 1.68 < 5.6: no atom without ghost neighbours): nothing hides
small = porta_model.predict("minimd", "weak", "lj:1", [1, 2], t1, 4, P)[1]
expect(small["halo_s"] > 0.0, "minimd 1 cell a GPU: the swaps hidden with no inner atoms")

# 6. decompositions as the apps choose them
expect(porta_model.tealeaf_grid(8, 4000, 4000) == (4, 2), "tealeaf 8 ranks, square: 4 x 2")
expect(porta_model.tealeaf_grid(4, 100, 4000) == (1, 4), "tealeaf 4 ranks, 100 x 4000: 1 x 4")
expect(porta_model.minimd_grid(4, (1.0, 1.0, 1.0)) == (1, 2, 2), "minimd 4 ranks, cube: 1 2 2")
expect(porta_model.minimd_grid(2, (2.0, 1.0, 1.0)) == (2, 1, 1), "minimd 2 ranks, 2:1:1 box")
boxes = porta_model.minife_boxes(3, (9, 9, 9))
# z cut first (3 layers below, 6 above), then the upper part's y (5 below, 4 above)
expect([b[1][2] - b[0][2] for b in boxes] == [3, 6, 6] and
       [b[1][1] - b[0][1] for b in boxes] == [9, 5, 4], f"minife 3 ranks: boxes {boxes}")

# 7. strong scaling with the parameter file: efficiency never rises with the GPUs
ranks = [1, 2, 4, 8, 16, 32, 64]
for app in ("tealeaf", "minife"):
    size, t1 = porta_model.series_input(app, "strong", file_params)
    eff = [r["efficiency"] for r in porta_model.predict(app, "strong", size, ranks, t1, 4,
                                                        file_params)]
    expect(all(b <= a for a, b in zip(eff, eff[1:])), f"{app} strong efficiency rises: {eff}")

# 9. scripts/scaling --model-only: runs nothing, prints the model's table and writes its CSV
out = tempfile.mkdtemp(prefix="model_only_")
r = subprocess.run([os.path.join(scripts, "scaling"), "tealeaf", "--strong", "--model-only",
                    "--ranks=1,2,4,8,16,32,64", "--gpus-per-node=4", f"--out={out}"],
                   capture_output=True, text=True, env=dict(os.environ, NO_BUILD="1"), timeout=60)
print(r.stdout, r.stderr)
expect(r.returncode == 0, f"--model-only: exit {r.returncode}")
lines = [ln.split() for ln in r.stdout.splitlines() if ln and ln.split()[0].isdigit()]
size, t1 = porta_model.series_input("tealeaf", "strong", file_params)
want = porta_model.predict("tealeaf", "strong", size, ranks, t1, 4, file_params)
expect([int(x[0]) for x in lines] == ranks, f"printed ranks {[x[0] for x in lines]}")
expect([int(x[1]) for x in lines] == [1, 1, 1, 2, 4, 8, 16], "printed nodes")
for x, w in zip(lines, want):
    expect(abs(float(x[3]) - w["time_per_iteration_s"] * 1e3) < 0.6e-4 and
           abs(float(x[4]) - 100 * w["efficiency"]) < 0.06, f"printed row {x} against {w}")
expect(lines and float(lines[0][3]) == round(t1 * 1e3, 4), "printed 1-GPU time is the input")
with open(os.path.join(out, "tealeaf-strong-model.csv")) as f:
    rows = list(csv.DictReader(f))
expect([int(x["ranks"]) for x in rows] == ranks, "CSV ranks")
expect(all(close(float(x["time_per_iteration_s"]), w["time_per_iteration_s"])
           for x, w in zip(rows, want)), "CSV times are the model's")
comm = [float(x["halo_s"]) + float(x["sums_s"]) for x in rows]
expect(comm[0] == 0 and all(b >= a for a, b in zip(comm, comm[1:])),
       f"communication per iteration grows with the GPUs: {comm}")
for argv, words in ((["--gpus-per-node=0"], "bad value"), (["--size=nothing.in"], "cannot take"),
                    (["--params=/nonexistent.json"], "cannot read")):
    r = subprocess.run([os.path.join(scripts, "scaling"), "tealeaf", "--strong", "--model-only",
                        f"--out={out}"] + argv, capture_output=True, text=True, timeout=60)
    expect(r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr,
           f"--model-only {argv}: exit {r.returncode}, said {r.stderr!r}")

# another potential than the parameter file's 1-GPU time: refused, not scaled
r = subprocess.run([os.path.join(scripts, "scaling"), "minimd", "--weak", "--model-only",
                    "--size=eam:32", f"--out={out}"], capture_output=True, text=True, timeout=60)
expect(r.returncode == 2 and "another potential" in r.stderr, f"eam from lj's t1: {r.stderr!r}")

for f in failures:
    print("FAIL:", f)
print("PASS" if not failures else f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
