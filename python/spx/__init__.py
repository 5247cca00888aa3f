"""SpX sparse products from Python, on the caller's arrays without copies.

A matrix made from a SciPy CSR/COO/CSC array or matrix, from raw
(indptr, indices, data) arrays, or on the GPU from CuPy/PyTorch sparse
tensors, is a *view*: SpX reads the caller's memory and keeps its owners
alive. Dense operands are used in place too, and results come back as the
caller's array type.

    import scipy.sparse as sp, numpy as np, spx
    A = spx.matrix(sp.random_array((1000, 1000), density=0.01, format="csr"))
    y = A @ np.ones(1000)                    # spx.spmv(A, x)
    S = A.to("sell", slice_size=32)          # a copy in another format; S.bytes
    p = spx.plan(A, products=1000)           # the advisor's format and kernel
    print(spx.advise(A, products=1000))      # the ranking as a table (and a dict)
"""

from __future__ import annotations

__version__ = "0.1.0"

import numpy as np

from . import _spx
from ._spx import (  # noqa: F401  (re-exported)
    DimensionMismatch,
    Error,
    InternalError,
    InvalidInput,
    IoError,
    OutOfMemory,
    Unsupported,
    CudaError,
    cuda_available,
    cuda_compiled,
)

__all__ = [
    "Matrix", "Batch", "Plan", "Advice", "matrix", "csr", "coo", "csc", "spmv", "spmm",
    "batch", "batch_spmv", "plan", "advise", "aslinearoperator", "read_matrix_market",
    "write_matrix_market", "generate", "formats", "cuda_compiled", "cuda_available", "Error",
    "InvalidInput", "DimensionMismatch", "Unsupported", "OutOfMemory", "IoError", "CudaError",
    "InternalError",
]


def formats():
    """The names of SpX's storage formats."""
    return _spx.formats()


# ---- arrays -----------------------------------------------------------------

def _module_of(a):
    return type(a).__module__.split(".")[0]


def _stream(a, stream, name="stream"):
    """The cudaStream_t (an integer) a device product on `a` runs on: the
    given `stream` (an integer, a CuPy stream or a PyTorch stream), else the
    caller's current CuPy or PyTorch stream for arrays of those libraries, else
    0 (the legacy default stream). Host arrays: 0."""
    if stream is not None:
        for attr in ("ptr", "cuda_stream"):
            if hasattr(stream, attr):
                return int(getattr(stream, attr))
        if isinstance(stream, (int, np.integer)) and not isinstance(stream, bool) and stream >= 0:
            return int(stream)
        raise TypeError(f"{name}: expected a CuPy or PyTorch stream or a cudaStream_t as a "
                        f"non-negative integer, got {type(stream).__name__}")
    mod = _module_of(a)
    if mod == "cupy":
        import cupy
        return int(cupy.cuda.get_current_stream().ptr)
    if mod == "torch" and getattr(a, "is_cuda", False):
        import torch
        return int(torch.cuda.current_stream(a.device).cuda_stream)
    return 0


def _gpu_of(a):
    """The GPU index of a CUDA array (DLPack's device), None for host arrays."""
    dev = getattr(a, "__dlpack_device__", None)
    if dev is None:
        return None
    kind, index = dev()
    return int(index) if int(kind) in (2, 3) else None  # kDLCUDA, kDLCUDAHost


def _current_gpu(a):
    """The caller's current CUDA device for arrays of CuPy or PyTorch, else None."""
    mod = _module_of(a)
    if mod == "cupy":
        import cupy
        return int(cupy.cuda.runtime.getDevice())
    if mod == "torch":
        import torch
        return int(torch.cuda.current_device())
    return None


def _check_gpu(A, operands):
    """Operands on the matrix's GPU, and that GPU current (SpX runs its kernels
    on the current device): a ValueError naming the argument otherwise."""
    gpu = getattr(A, "_gpu", None)
    if gpu is None:
        return
    for a, name in operands:
        g = _gpu_of(a)
        if g is not None and g != gpu:
            raise ValueError(f"{name}: the array is on GPU {g}, the matrix on GPU {gpu}")
        cur = _current_gpu(a) if g is not None else None
        if cur is not None and cur != gpu:
            raise ValueError(f"{name}: the matrix is on GPU {gpu} but the current device is GPU "
                             f"{cur}; call under `with cupy.cuda.Device({gpu}):` or "
                             f"`with torch.cuda.device({gpu}):`")


def _is_array(a):
    return (isinstance(a, np.ndarray) or hasattr(a, "__dlpack__")
            or hasattr(a, "__cuda_array_interface__"))


def _array(a, name):
    """`a` as something the extension reads in place: a NumPy array, or a
    DLPack-capable array (CuPy, PyTorch). Anything else is a TypeError naming
    `name`."""
    if isinstance(a, np.ndarray):
        return a
    if _module_of(a) == "torch":
        return a.detach() if a.requires_grad else a
    if hasattr(a, "__dlpack__"):
        return a
    if hasattr(a, "__cuda_array_interface__"):
        import cupy  # __cuda_array_interface__ without DLPack: view it through CuPy

        return cupy.asarray(a)
    if np.isscalar(a) or isinstance(a, (list, tuple)):
        raise TypeError(f"{name}: expected an array (NumPy, CuPy, PyTorch), got "
                        f"{type(a).__name__}; SpX uses arrays in place and does not copy lists")
    raise TypeError(f"{name}: expected an array with the buffer protocol, DLPack or "
                    f"__cuda_array_interface__, got {type(a).__name__}")


def _check_numpy(a, name, writable=False):
    if isinstance(a, np.ndarray):
        if a.dtype.kind == "c" or a.dtype == np.float16:
            raise TypeError(f"{name}: dtype {a.dtype} is not supported; SpX computes in "
                            "float32 or float64")
        if writable and not a.flags.writeable:
            raise ValueError(f"{name}: the array is read-only; SpX writes the result into it")


def _empty(like, shape, dtype, order="C"):
    """An uninitialized array of the caller's array type and device."""
    mod = _module_of(like)
    if mod == "torch":
        import torch

        t = torch.empty(shape[::-1] if order == "F" else shape,
                        dtype=getattr(torch, dtype), device=like.device)
        return t.T if order == "F" and len(shape) == 2 else t
    if mod == "cupy":
        import cupy

        return cupy.empty(shape, dtype=dtype, order=order)
    return np.empty(shape, dtype=dtype, order=order)


# ---- matrices ---------------------------------------------------------------

class Matrix:
    """An SpX matrix: a view over the caller's arrays (csr/coo/csc/matrix), or
    an owning copy (conversions, the generators, files). It keeps the
    objects it views alive."""

    __array_priority__ = 100  # `x @ A` is not defined; `A @ x` is ours

    def __init__(self, handle, owner=None, gpu=None):
        self._m = handle
        self._owner = owner
        self._gpu = gpu  # the GPU index of a device matrix (None: host or unknown)

    shape = property(lambda s: tuple(s._m.shape))
    nnz = property(lambda s: s._m.nnz)
    format = property(lambda s: s._m.format)
    dtype = property(lambda s: np.dtype(s._m.dtype))
    index_dtype = property(lambda s: np.dtype(s._m.index_dtype))
    device = property(lambda s: s._m.device)
    is_view = property(lambda s: s._m.is_view)
    ndim = 2

    @property
    def bytes(self):
        """Bytes of the format's arrays (what a product reads from the matrix)."""
        return self._m.bytes

    def __repr__(self):
        kind = "view" if self.is_view else "owning"
        return (f"<spx.Matrix {self.shape[0]}x{self.shape[1]} {self.format} nnz={self.nnz} "
                f"{self.dtype}/{self.index_dtype} {self.device} {kind}, {self.bytes} bytes>")

    def to(self, format, **options):
        """A copy in `format` (any of formats()); options are the conversion
        parameters: slice_size, sigma, threads_per_row (SELL, SELL-pack), hack_size (HLL,
        HDI), block_size, min_block_fill (BCSR), hyb_width (HYB),
        max_expansion (padded formats)."""
        if not isinstance(format, str):
            raise TypeError(f"format: expected a name such as 'sell', got {type(format).__name__}")
        return Matrix(self._m.to(format, options), gpu=self._gpu)

    def arrays(self):
        """The (indptr, indices, data) of a CSR/CSC, (row, col, data) of a COO,
        as NumPy arrays over the matrix's memory."""
        return self._m.arrays()

    def to_scipy(self):
        """A SciPy array with a copy of the entries (CSR, CSC or COO; other
        formats through CSR)."""
        import scipy.sparse as sp

        m = self if self.format in ("csr", "csc", "coo") else self.to("csr")
        a, b, v = (np.array(t) for t in m.arrays())
        if m.format == "csr":
            return sp.csr_array((v, b, a), shape=self.shape)
        if m.format == "csc":
            return sp.csc_array((v, b, a), shape=self.shape)
        return sp.coo_array((v, (a, b)), shape=self.shape)

    def __matmul__(self, other):
        arr = _array(other, "x")
        if len(getattr(arr, "shape", ())) == 2:
            return spmm(self, arr)
        return spmv(self, arr)

    def dot(self, other):
        return self @ other

    def __len__(self):
        raise TypeError("sparse matrix length is ambiguous; use .shape or .nnz")


def _from_arrays(kind, a0, a1, data, shape, check, n0, n1):
    if shape is None:
        raise TypeError("shape: required, a (rows, cols) tuple")
    try:
        rows, cols = (int(s) for s in shape)
    except (TypeError, ValueError):
        raise TypeError(f"shape: expected (rows, cols), got {shape!r}") from None
    arrs = (_array(a0, n0), _array(a1, n1), _array(data, "data"))
    for a, n in zip(arrs, (n0, n1, "data")):
        _check_numpy(a, n)
    gpus = {g for g in map(_gpu_of, arrs) if g is not None}
    if len(gpus) > 1:
        raise ValueError(f"{n0}, {n1} and data: on different GPUs {sorted(gpus)}")
    h = getattr(_spx, kind)(rows, cols, *arrs, bool(check), n0, n1)
    return Matrix(h, owner=arrs, gpu=gpus.pop() if gpus else None)


def csr(indptr, indices, data, shape, check=True):
    """A CSR view over (indptr, indices, data); `check=False` skips the
    validation (you vouch for sorted, unique, in-range indices)."""
    return _from_arrays("csr", indptr, indices, data, shape, check, "indptr", "indices")


def csc(indptr, indices, data, shape, check=True):
    """A CSC view over (indptr, indices, data)."""
    return _from_arrays("csc", indptr, indices, data, shape, check, "indptr", "indices")


def coo(row, col, data, shape, check=True):
    """A COO view over (row, col, data); duplicates and any order allowed."""
    return _from_arrays("coo", row, col, data, shape, check, "row", "col")


def matrix(A, check=True):
    """An SpX view over a SciPy CSR/COO/CSC array or matrix, a CuPy
    (cupyx.scipy.sparse) CSR/COO/CSC matrix or a PyTorch sparse CSR/COO
    tensor; an spx.Matrix is returned as it is. SciPy CSR/CSC need sorted,
    unique indices (A.sum_duplicates() makes them so)."""
    if isinstance(A, Matrix):
        return A
    mod = _module_of(A)
    if mod == "torch":
        import torch

        if A.layout == torch.sparse_csr:
            m = csr(A.crow_indices(), A.col_indices(), A.values(), tuple(A.shape), check)
        elif A.layout == torch.sparse_coo:
            A = A.coalesce()
            idx = A.indices()
            m = coo(idx[0].contiguous(), idx[1].contiguous(), A.values(), tuple(A.shape), check)
        else:
            raise TypeError(f"A: torch layout {A.layout} is not supported (sparse_csr, sparse_coo)")
    elif mod in ("scipy", "cupyx") and hasattr(A, "format"):
        fmt = A.format
        if fmt == "csr":
            m = csr(A.indptr, A.indices, A.data, A.shape, check)
        elif fmt == "csc":
            m = csc(A.indptr, A.indices, A.data, A.shape, check)
        elif fmt == "coo":
            m = coo(A.row, A.col, A.data, A.shape, check)
        else:
            raise TypeError(f"A: {mod} format '{fmt}' is not viewed in place; convert it with "
                            "A.tocsr() first")
    else:
        raise TypeError(f"A: expected a SciPy/CuPy sparse array or matrix, a PyTorch sparse "
                        f"tensor or an spx.Matrix, got {type(A).__name__}")
    m._owner = (A, m._owner)
    return m


# ---- products ---------------------------------------------------------------

def _scalar(v, name):
    if isinstance(v, (complex, np.complexfloating)):
        raise TypeError(f"{name}: complex scalars are not supported")
    try:
        return float(v)
    except (TypeError, ValueError):
        raise TypeError(f"{name}: expected a real number, got {type(v).__name__}") from None


def spmv(A, x, y=None, alpha=1.0, beta=0.0, algorithm="auto", stream=None):
    """y = alpha*A*x + beta*y (beta = 0: y is only written). Returns y: the
    given one, or a new array of x's type. `algorithm` forces a kernel. On the
    GPU the product is enqueued on `stream` (default: the caller's current
    CuPy/PyTorch stream) and the call returns without waiting, as CuPy's do.
    With an explicit `stream` other than the current one, a y allocated here
    comes from the current stream's pool: keep the operands alive and order
    the streams (events, synchronize) as for any work on two streams."""
    A = matrix(A)
    x = _array(x, "x")
    _check_numpy(x, "x")
    if y is None:
        if _scalar(beta, "beta") != 0.0:
            raise ValueError("y: required when beta != 0")
        y = _empty(x, (A.shape[0],), A.dtype.name)
    else:
        y = _array(y, "y")
        _check_numpy(y, "y", writable=True)
    _check_gpu(A, ((x, "x"), (y, "y")))
    A._last = A._m.spmv(_scalar(alpha, "alpha"), x, _scalar(beta, "beta"), y, algorithm,
                        _stream(x, stream))
    return y


def spmm(A, B, C=None, alpha=1.0, beta=0.0, algorithm="auto", stream=None):
    """C = alpha*A*B + beta*C; B and C row- or column-major (any leading
    dimension). A new C follows B's order. GPU streams as in spmv."""
    A = matrix(A)
    B = _array(B, "B")
    _check_numpy(B, "B")
    if len(B.shape) != 2:
        raise ValueError(f"B: expected a 2-D array, got shape {tuple(B.shape)}")
    if C is None:
        if _scalar(beta, "beta") != 0.0:
            raise ValueError("C: required when beta != 0")
        order = "F" if (isinstance(B, np.ndarray) and B.flags.f_contiguous
                        and not B.flags.c_contiguous) else "C"
        C = _empty(B, (A.shape[0], B.shape[1]), A.dtype.name, order)
    else:
        C = _array(C, "C")
        _check_numpy(C, "C", writable=True)
    _check_gpu(A, ((B, "B"), (C, "C")))
    A._last = A._m.spmm(_scalar(alpha, "alpha"), B, _scalar(beta, "beta"), C, algorithm,
                        _stream(B, stream))
    return C


class Batch:
    """CSR matrices of one dtype concatenated for batched SpMV (a copy of
    their arrays: a batch owns its memory)."""

    def __init__(self, matrices):
        ms = [matrix(m) for m in matrices]
        self._b = _spx.batch([m._m for m in ms])
        self.count = self._b.count
        self.row_offsets = np.asarray(self._b.row_offsets)
        self.col_offsets = np.asarray(self._b.col_offsets)
        self.dtype = ms[0].dtype

    def spmv(self, x, y=None, alpha=1.0, beta=0.0):
        """y_i = alpha*A_i*x_i + beta*y_i. x is the concatenated x_i (length
        col_offsets[-1]) or a list of them; the result is the concatenated y
        (or, for a list x, a list of views into it)."""
        split = isinstance(x, (list, tuple))
        if split:
            if len(x) != self.count:
                raise ValueError(f"x: {len(x)} vectors for a batch of {self.count} matrices")
            x = np.concatenate([_array(v, f"x[{i}]") for i, v in enumerate(x)])
        x = _array(x, "x")
        _check_numpy(x, "x")
        if y is None:
            if _scalar(beta, "beta") != 0.0:
                raise ValueError("y: required when beta != 0")
            y = _empty(x, (int(self.row_offsets[-1]),), self.dtype.name)
        else:
            y = _array(y, "y")
            _check_numpy(y, "y", writable=True)
        self._b.spmv(_scalar(alpha, "alpha"), x, _scalar(beta, "beta"), y)
        if split:
            return [y[self.row_offsets[i]:self.row_offsets[i + 1]] for i in range(self.count)]
        return y


def batch(matrices):
    """A Batch of CSR matrices (spx.Matrix or SciPy CSR)."""
    return Batch(matrices)


def batch_spmv(matrices, x, y=None, alpha=1.0, beta=0.0):
    """Batched SpMV over a list of CSR matrices (or a Batch); see Batch.spmv."""
    b = matrices if isinstance(matrices, Batch) else Batch(matrices)
    return b.spmv(x, y, alpha, beta)


# ---- plans and the advisor --------------------------------------------------

class Plan:
    """The setup of a product done once (advice, conversion, preprocessing),
    the product many times. `report` says what was chosen and why."""

    def __init__(self, A, products, op, cols, memory_limit, tune, format, algorithm, warm,
                 always_advise=False):
        self.matrix = matrix(A)
        self._p = _spx.plan(self.matrix._m, int(products), op, int(cols), memory_limit,
                            bool(tune), format, algorithm, bool(warm), bool(always_advise))
        self.report = self._p.report()
        self.format = self.report["format"]
        self.algorithm = self.report["algorithm"]
        self.why = self.report["why"]

    def run(self, x, y=None, alpha=1.0, beta=0.0, stream=None):
        """y = alpha*A*x + beta*y (x 1-D) or C = alpha*A*B + beta*C (x 2-D).
        GPU streams as in spmv."""
        x = _array(x, "x")
        _check_numpy(x, "x")
        rows = self.matrix.shape[0]
        if y is None:
            if _scalar(beta, "beta") != 0.0:
                raise ValueError("y: required when beta != 0")
            shape = (rows,) if len(x.shape) == 1 else (rows, x.shape[1])
            y = _empty(x, shape, self.matrix.dtype.name)
        else:
            y = _array(y, "y")
            _check_numpy(y, "y", writable=True)
        _check_gpu(self.matrix, ((x, "x"), (y, "y")))
        self._p.run(_scalar(alpha, "alpha"), x, _scalar(beta, "beta"), y, _stream(x, stream))
        return y

    __call__ = run

    def update_values(self, values):
        """New values, same structure (the CSR order of the matrix)."""
        v = _array(values, "values")
        _check_numpy(v, "values")
        self._p.update_values(v)

    def __repr__(self):
        return f"<spx.Plan {self.format}/{self.algorithm}: {self.why}>"


def plan(A, products=1, op="spmv", cols=1, memory_limit=None, tune=False, format=None,
         algorithm="auto", warm=False, always_advise=False):
    """A Plan for `products` products of `op` ('spmv' or 'spmm' with `cols`
    columns). `format`/`algorithm` force the choice; `tune` measures the best
    few candidates. A plan for too few products for any conversion to pay
    (CPU or GPU) keeps the CSR without the advice; `always_advise` ranks
    every candidate anyway (report['advice'])."""
    return Plan(A, products, op, cols, memory_limit, tune, format, algorithm, warm,
                always_advise)


class Advice(dict):
    """The advisor's answer: a dict (candidates, pick, why, ...) that prints
    as a table."""

    def table(self):
        lines = [f"{self['op']} x {self['products']} on {self['backend']} "
                 f"({self['bandwidth_gbs']:.1f} GB/s, {self['regularity']}): {self['why']}",
                 f"{'':2}{'format':7}{'kernel':18}{'bytes':>12}{'product us':>12}"
                 f"{'convert us':>12}{'total us':>12}{'break-even':>11}"]
        for i, c in enumerate(self["candidates"]):
            mark = "*" if i == self["pick"] else " "
            if not c["feasible"]:
                lines.append(f"{mark} {c['format']:7}{c['algorithm']:18}  -- {c['reason']}")
                continue
            be = c["break_even"]
            be = "never" if be == float("inf") else f"{be:.0f}"
            lines.append(f"{mark} {c['format']:7}{c['algorithm']:18}{c['bytes']:>12}"
                         f"{c['product_s'] * 1e6:>12.2f}{c['convert_s'] * 1e6:>12.1f}"
                         f"{c['total_s'] * 1e6:>12.1f}{be:>11}")
        return "\n".join(lines)

    __str__ = table

    def __repr__(self):
        return self.table()


def advise(A, products=1, op="spmv", cols=1, memory_limit=None, bandwidth_gbs=0.0,
           compute_scale=0.0):
    """The advisor's ranking of every (format, kernel) for `products`
    products, conversion included: an Advice (a dict; print it for a table).
    A GPU matrix (CuPy, PyTorch) is advised for products on the GPU; a CSR
    one is measured where it is (only its row pointers are copied).
    bandwidth_gbs and compute_scale (the CPU model's machine factor,
    docs/advisor.md) are measured once per process when 0."""
    m = matrix(A)
    return Advice(_spx.advise(m._m, int(products), op, int(cols), memory_limit,
                              float(bandwidth_gbs), float(compute_scale)))


# ---- SciPy interoperation ---------------------------------------------------

def aslinearoperator(A):
    """A scipy.sparse.linalg.LinearOperator whose matvec/matmat are SpX
    products (x converted to the matrix's dtype when it differs)."""
    from scipy.sparse.linalg import LinearOperator

    m = matrix(A)

    def mv(x):
        x = np.ascontiguousarray(np.asarray(x).reshape(-1), dtype=m.dtype)
        return spmv(m, x)

    def mm(X):
        return spmm(m, np.ascontiguousarray(X, dtype=m.dtype))

    return LinearOperator(m.shape, matvec=mv, matmat=mm, dtype=m.dtype)


# ---- files and generators ---------------------------------------------------

def _type_names(dtype, index_dtype):
    try:
        return np.dtype(dtype).name, np.dtype(index_dtype).name
    except TypeError as e:
        raise TypeError(f"dtype: {e}") from None


def read_matrix_market(path, dtype=np.float64, index_dtype=np.int32):
    """A CSR matrix (owning) read from a Matrix Market file (.mtx or .mtx.gz)."""
    return Matrix(_spx.read_matrix_market(str(path), *_type_names(dtype, index_dtype)))


def write_matrix_market(path, A, precision=17):
    """Writes A (spx.Matrix or SciPy sparse) as a `general` coordinate file."""
    _spx.write_matrix_market(str(path), matrix(A)._m, int(precision))


def generate(spec, dtype=np.float64, index_dtype=np.int32, **params):
    """A generated CSR matrix: spec "KIND" or "KIND:key=value,..." as for
    `spx gen` (stencil2d, stencil3d, fem, random, rmat, chunglu, road, banded,
    denserows, mixed); keyword parameters are appended (n=64, seed=3)."""
    if params:
        extra = ",".join(f"{k}={v}" for k, v in params.items())
        spec = f"{spec},{extra}" if ":" in spec else f"{spec}:{extra}"
    return Matrix(_spx.generate(spec, *_type_names(dtype, index_dtype)))
