"""What a device allocation costs (issue 20: the part of a conversion's wall
time outside its kernels): cudaMalloc / cudaFree of the sizes a large DIA or
SELL conversion allocates, against cudaMallocAsync / cudaFreeAsync from a
pool that keeps its memory, timed on the host around synchronized calls.
Usage: python3 bench/profile/alloc_cost.py  (needs CuPy)"""
import statistics
import time

from cupy.cuda import runtime


def timed(f):
    runtime.deviceSynchronize()
    t = time.perf_counter()
    r = f()
    runtime.deviceSynchronize()
    return r, time.perf_counter() - t


def main():
    pool = runtime.deviceGetDefaultMemPool(0)
    for mb in (1, 24, 80, 170, 300):
        n = mb << 20
        a, f, pa, pf = [], [], [], []
        for _ in range(7):
            p, t = timed(lambda: runtime.malloc(n))
            a.append(t)
            _, t = timed(lambda: runtime.free(p))
            f.append(t)
            p, t = timed(lambda: runtime.mallocFromPoolAsync(n, pool, 0))
            pa.append(t)
            _, t = timed(lambda: runtime.freeAsync(p, 0))
            pf.append(t)
        us = lambda v: f"{statistics.median(v[1:]) * 1e6:8.1f}"
        print(f"{mb:4d} MiB  cudaMalloc {us(a)} us  cudaFree {us(f)} us  "
              f"pool alloc {us(pa)} us  pool free {us(pf)} us")


if __name__ == "__main__":
    main()
