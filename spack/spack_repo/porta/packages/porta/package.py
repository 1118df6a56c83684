# Spack recipe for Porta (README.md, "Install with Spack"). This package repository lives in
# Porta's own tree, so the recipe builds the clone that holds it: `spack repo add
# PORTA/spack/spack_repo/porta` then `spack install porta`, or `spack develop` for a checkout
# with changes of its own.
import json
import os
import shutil

from spack_repo.builtin.build_systems.cmake import CMakePackage
from spack_repo.builtin.build_systems.cuda import CudaPackage

from spack.package import *


def _clone_root():
    """The Porta clone holding this file (spack/spack_repo/porta/packages/porta/package.py)."""
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, *([os.pardir] * 5)))


class Porta(CMakePackage, CudaPackage):
    """Porta: a C11 performance-portability core in the Kokkos programming model (views,
    range, multi-dimensional and team policies, parallel for/reduce/scan, back ends Serial,
    OpenMP and CUDA chosen at run time) and the MPI mini-apps TeaLeaf, miniFE and miniMD built
    on it, writing verifiable results to HDF5."""

    homepage = "file://" + _clone_root()
    git = "file://" + _clone_root()

    license("BSD-3-Clause", checked_by="porta")

    version("main", branch="main")

    variant("openmp", default=True, description="Build the OpenMP back end")
    variant(
        "apps",
        default=True,
        description="Build and install tealeaf, minife and minimd (needs MPI and parallel HDF5)",
    )
    variant(
        "nccl",
        default=True,
        when="+cuda",
        description="NCCL for the sums and halo exchanges the apps queue on several GPUs",
    )
    variant("shared", default=False, description="Build libporta as a shared library")
    variant(
        "tests",
        default=False,
        description="Build the test suite (ctest in the build directory; on with --test)",
    )

    conflicts(
        "+cuda",
        when="cuda_arch=none",
        msg="Porta's CUDA back end is compiled for named GPUs: give cuda_arch (e.g. cuda_arch=90)",
    )

    depends_on("c", type="build")
    depends_on("cxx", type="build")
    depends_on("cmake@3.24:", type="build")
    depends_on("cuda@12:", when="+cuda")
    for _arch in CudaPackage.cuda_arch_values:
        depends_on(f"nccl +cuda cuda_arch={_arch}", when=f"+nccl cuda_arch={_arch}")
    depends_on("mpi", when="+apps")
    depends_on("hdf5+mpi", when="+apps")

    def cmake_args(self):
        args = [
            # Spack chooses the target's instruction set; no -march=native from the project
            self.define("PORTA_NATIVE", False),
            self.define_from_variant("PORTA_ENABLE_OPENMP", "openmp"),
            self.define_from_variant("PORTA_ENABLE_CUDA", "cuda"),
            self.define_from_variant("PORTA_BUILD_APPS", "apps"),
            self.define_from_variant("BUILD_SHARED_LIBS", "shared"),
            # NCCL as the spec says, never whatever the system has (CMake's default is AUTO)
            self.define("PORTA_ENABLE_NCCL", "ON" if self.spec.satisfies("+nccl") else "OFF"),
            self.define("PORTA_BUILD_TESTS", self.spec.satisfies("+tests") or self.run_tests),
            self.define("PORTA_BUILD_BENCHMARKS", False),
        ]
        if self.spec.satisfies("~apps"):
            # the exchange library is built with MPI only for the apps, which depend on it
            args.append(self.define("CMAKE_DISABLE_FIND_PACKAGE_MPI", True))
        if self.spec.satisfies("+cuda"):
            archs = self.spec.variants["cuda_arch"].value
            args += [
                self.define("CMAKE_CUDA_ARCHITECTURES", ";".join(archs)),
                self.define("CMAKE_CUDA_COMPILER", self.spec["cuda"].prefix.bin.nvcc),
            ]
        return args

    def setup_build_environment(self, env):
        env.set("CTEST_OUTPUT_ON_FAILURE", "1")

    # ---- checks of the installed apps: after `spack install --test=root` and in
    # ---- `spack test run porta`; each runs one rank on a deck the prefix holds

    @run_after("install")
    @on_package_attributes(run_tests=True)
    def check_installed_apps(self):
        if not self.spec.satisfies("+apps"):
            return
        with working_dir(join_path(self.stage.path, "installed-apps"), create=True):
            self.test_tealeaf()
            self.test_minife()
            self.test_minimd()

    def _run_app(self, name, app, *args):
        """Run the installed APP on one rank and require its summary to say the check passed."""
        if not self.spec.satisfies("+apps"):
            raise SkipTest("porta ~apps installs no mini-apps")
        mpiexec = which(self.spec["mpi"].prefix.bin.mpiexec, "mpiexec", required=True)
        summary = f"{name}.json"
        app_args = ["--no-h5", "--summary-json", summary]
        # Spack's build environment drops OMPI_* variables; Open MPI refuses root without them,
        # and a build already running as root (a container, CI) gains nothing from the refusal
        env = {}
        if os.geteuid() == 0 and self.spec.satisfies("^openmpi"):
            env = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
        mpiexec("-n", "1", join_path(self.prefix.bin, app), *args, *app_args, extra_env=env)
        with open(summary) as f:
            result = json.load(f)
        check = result.get("check")
        detail = result.get("check_detail", "")
        assert check == "passed", f"installed {app} ({name}): check {check!r}: {detail}"
        print(f"{name}: check passed ({detail})")

    @property
    def _inputs(self):
        return join_path(self.prefix.share.porta, "inputs")

    def test_tealeaf(self):
        """run the installed tealeaf on tea_bm_1 and check its answer"""
        self._run_app("tealeaf", "tealeaf", "--in", join_path(self._inputs, "tealeaf", "tea_bm_1.in"))

    def test_minife(self):
        """run the installed minife on 10^3 and check it against the analytic solution"""
        self._run_app("minife", "minife", "--nx", "10", "--verify_solution", "1")

    def test_minimd(self):
        """run the installed minimd on its LJ and EAM decks and check their energy drift"""
        decks = join_path(self._inputs, "minimd")
        self._run_app("minimd_lj", "minimd", "-i", join_path(decks, "in.lj.miniMD"), "-s", "8")
        # the EAM deck names its potential file relative to the run directory
        for f in ("in.eam.miniMD", "Cu_u6.eam"):
            shutil.copy(join_path(decks, f), f)
        self._run_app("minimd_eam", "minimd", "-i", "in.eam.miniMD", "-s", "8")
