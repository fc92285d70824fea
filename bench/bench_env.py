"""The environment the benchmarks run the worker in.

Some machines (this project's sandboxes among them) export OPENBLAS_CORETYPE=Haswell and OPENBLAS_L2_SIZE: OpenBLAS
then uses its AVX2 kernels on a CPU that has AVX-512, and a U²-Netp pass takes 0.208 s instead of 0.159 s (2026-11-25,
AMD EPYC with AVX-512: OpenBLAS picks Cooperlake by itself). A user's machine runs the worker with what OpenBLAS
detects, so the benchmarks do too: they drop these variables (saying so) unless --keep-openblas-env is given. The
worker itself no longer links OpenBLAS (its matrix products are its own); what the variables still reach is
onnxruntime's and numpy's peers and photobench's `gemm` suite.
"""
import os
import sys

OPENBLAS_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def add_openblas_option(parser):
    """The benchmarks' --keep-openblas-env flag, for `use_detected_openblas(args.keep_openblas_env)`."""
    parser.add_argument("--keep-openblas-env", action="store_true",
                        help="keep OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE (bench/bench_env.py)")


def use_detected_openblas(keep=False):
    """Removes OpenBLAS's kernel overrides from this process's environment (children inherit the result)."""
    found = {k: os.environ[k] for k in OPENBLAS_VARIABLES if k in os.environ}
    if not found:
        return
    if keep:
        print(f"bench: keeping {found} (OpenBLAS kernels forced)", file=sys.stderr)
        return
    for k in found:
        del os.environ[k]
    print(f"bench: dropped {found} from the environment so OpenBLAS picks its kernels for this CPU "
          "(--keep-openblas-env keeps them)", file=sys.stderr)
