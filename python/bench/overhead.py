"""Per-call overhead of the Python binding.

For a few matrix sizes: the time of one spx.spmv called from Python (output
given, and allocated), the same product called in a C++ loop inside the
extension (no Python), and SciPy's A @ x on the same matrix; then the time to
wrap a SciPy CSR (spx.matrix), validated and trusted, for growing sizes.
Medians of repeated runs.

    python3 python/bench/overhead.py [--quick]
"""

import argparse
import os
import platform
import statistics
import time

import numpy as np
import scipy
import scipy.sparse as sp

import spx


def per_call(f, reps, rounds=7):
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(reps):
            f()
        times.append((time.perf_counter() - t0) / reps)
    return statistics.median(times)


def banded_csr(rows, per_row=10):
    """A valid CSR (sorted, unique columns) with per_row entries a row, built
    without sorting: column k*(rows/per_row) + i mod (rows/per_row)."""
    step = rows // per_row
    i = np.repeat(np.arange(rows, dtype=np.int64), per_row)
    k = np.tile(np.arange(per_row, dtype=np.int64), rows)
    indices = (k * step + i % step).astype(np.int32)
    indptr = np.arange(0, rows * per_row + 1, per_row, dtype=np.int32)
    data = np.ones(rows * per_row)
    return sp.csr_array((data, indices, indptr), shape=(rows, rows))


def reps_for(nnz):
    return max(20, min(20000, int(2e7 // max(nnz, 1))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller sizes, fewer repetitions")
    args = ap.parse_args()

    print(f"# spx overhead: Python {platform.python_version()}, NumPy "
          f"{np.__version__}, SciPy {scipy.__version__}, {os.cpu_count()} CPUs, "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}")
    print("# times per call in microseconds (median of 7 rounds)")
    print(f"{'matrix':24}{'rows':>9}{'nnz':>10}{'py spmv(y)':>12}{'py spmv()':>12}"
          f"{'C++ loop':>11}{'overhead':>10}{'scipy A@x':>11}")
    sides = [10, 100, 300] if args.quick else [10, 100, 300, 1000]
    for n in sides:
        G = spx.generate("stencil2d", n=n)
        A = G.to_scipy().tocsr()
        M = spx.matrix(A)
        x = np.ones(A.shape[1])
        y = np.empty(A.shape[0])
        reps = reps_for(A.nnz) // (4 if args.quick else 1)
        t_py = per_call(lambda: spx.spmv(M, x, y), reps)
        t_alloc = per_call(lambda: spx.spmv(M, x), reps)
        t_cpp = statistics.median(M._m.time_spmv(x, y, reps) for _ in range(7))
        t_scipy = per_call(lambda: A @ x, reps)
        print(f"{'stencil2d n=' + str(n):24}{A.shape[0]:>9}{A.nnz:>10}{t_py * 1e6:>12.2f}"
              f"{t_alloc * 1e6:>12.2f}{t_cpp * 1e6:>11.2f}{(t_py - t_cpp) * 1e6:>10.2f}"
              f"{t_scipy * 1e6:>11.2f}")

    print()
    print("# wrapping a SciPy CSR: spx.matrix(A) (validated: reads the arrays, O(nnz)) and")
    print("# spx.matrix(A, check=False) (trusted: no read, independent of size), microseconds")
    print(f"{'rows':>10}{'nnz':>12}{'validated':>12}{'trusted':>10}")
    sizes = [10**4, 10**5, 10**6] if args.quick else [10**4, 10**5, 10**6, 10**7]
    for rows in sizes:
        A = banded_csr(rows)
        t_full = per_call(lambda: spx.matrix(A), max(3, 10**6 // rows), rounds=5)
        t_trusted = per_call(lambda: spx.matrix(A, check=False), 2000, rounds=5)
        print(f"{rows:>10}{A.nnz:>12}{t_full * 1e6:>12.1f}{t_trusted * 1e6:>10.2f}")


if __name__ == "__main__":
    main()
