"""Per-call overhead of the Python binding on the GPU (CuPy).

For a few matrix sizes: the time of one spx.spmv called from Python on CuPy
arrays (output given), the same product called in a C++ loop inside the
extension (no Python), and CuPy's A @ x (cuSPARSE) on the same matrix; each
loop ends with a device synchronization, so the times are of finished
products. Then the time to wrap a CuPy CSR of about 20M nonzeros
(spx.matrix: validated, which reads the arrays, and trusted, which does not).
Medians of repeated rounds.

    python3 python/bench/overhead_gpu.py
"""

import platform
import statistics
import time

import cupy as cp
import cupyx.scipy.sparse as csp
import numpy as np

import spx


def per_call(f, reps, rounds=7):
    times = []
    for _ in range(rounds):
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        for _ in range(reps):
            f()
        cp.cuda.Device().synchronize()
        times.append((time.perf_counter() - t0) / reps)
    return statistics.median(times)


def main():
    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    print(f"# spx GPU overhead: {props['name'].decode()}, Python {platform.python_version()}, "
          f"CuPy {cp.__version__}, CUDA runtime {cp.cuda.runtime.runtimeGetVersion()}")
    print("# times per call in microseconds (median of 7 rounds, synchronized per round)")
    print(f"{'matrix':26}{'rows':>10}{'nnz':>11}{'py spmv(y)':>12}{'C++ loop':>11}"
          f"{'overhead':>10}{'cupyx A@x':>11}")
    for n in [30, 300, 1000, 3000]:
        G = spx.generate("stencil2d", n=n)
        A = csp.csr_matrix(G.to_scipy().tocsr())
        M = spx.matrix(A)
        x = cp.ones(A.shape[1])
        y = cp.empty(A.shape[0])
        reps = max(20, min(5000, int(2e8 // max(A.nnz, 1))))
        t_py = per_call(lambda: spx.spmv(M, x, y), reps)
        t_cpp = per_call(lambda: M._m.time_spmv(x, y, reps), 1) / reps
        t_cupy = per_call(lambda: A @ x, reps)
        print(f"{'stencil2d n=' + str(n):26}{A.shape[0]:>10}{A.nnz:>11}{t_py * 1e6:>12.2f}"
              f"{t_cpp * 1e6:>11.2f}{(t_py - t_cpp) * 1e6:>10.2f}{t_cupy * 1e6:>11.2f}")
        ref = A @ x
        spx.spmv(M, x, y)
        err = float(cp.max(cp.abs(y - ref)))
        assert err <= 1e-12 * float(cp.max(cp.abs(ref))) + 1e-12, f"spx.spmv differs by {err}"

    print()
    print("# wrapping a CuPy CSR: spx.matrix(A) validated (reads the arrays) and trusted")
    print(f"{'rows':>10}{'nnz':>12}{'validated us':>14}{'trusted us':>12}")
    for rows in [10**5, 10**6, 2 * 10**6]:
        per_row = 10
        step = rows // per_row
        i = cp.repeat(cp.arange(rows, dtype=cp.int64), per_row)
        k = cp.tile(cp.arange(per_row, dtype=cp.int64), rows)
        indices = (k * step + i % step).astype(cp.int32)
        indptr = cp.arange(0, rows * per_row + 1, per_row, dtype=cp.int32)
        data = cp.ones(rows * per_row)
        A = csp.csr_matrix((data, indices, indptr), shape=(rows, rows))
        t_full = per_call(lambda: spx.matrix(A), 3, rounds=5)
        t_trusted = per_call(lambda: spx.matrix(A, check=False), 200, rounds=5)
        print(f"{rows:>10}{A.nnz:>12}{t_full * 1e6:>14.1f}{t_trusted * 1e6:>12.2f}")


if __name__ == "__main__":
    np.random.seed(0)
    main()
