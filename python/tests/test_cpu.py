"""The spx package on the CPU with NumPy/SciPy: every entry point against
scipy.sparse, zero copy, lifetime, and the refusals of bad input."""

import gc
import weakref

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import spx

RNG = np.random.default_rng()
TYPES = [(np.float32, np.int32), (np.float32, np.int64), (np.float64, np.int32),
         (np.float64, np.int64)]


def nonzero_values(n, dtype):
    """Fresh random values, never zero: +-U[0.5, 1.5]."""
    return (RNG.uniform(0.5, 1.5, n) * RNG.choice([-1, 1], n)).astype(dtype)


def random_csr(m, n, density, dtype=np.float64, index=np.int32):
    A = sp.random_array((m, n), density=density, format="csr", dtype=np.float64, rng=RNG)
    A.data = nonzero_values(A.nnz, dtype)
    A.indptr = A.indptr.astype(index)
    A.indices = A.indices.astype(index)
    return A


def expect_close(got, A, x, alpha=1.0, beta=0.0, y0=None):
    """got == alpha*A@x + beta*y0 within a tolerance scaled by the
    magnitudes: c*eps*(|beta||y0| + |alpha| |A||x|) per entry."""
    A64 = sp.csr_array(A).astype(np.float64)
    x64 = np.asarray(x, dtype=np.float64)
    ref = alpha * (A64 @ x64)
    bound = abs(alpha) * (abs(A64) @ np.abs(x64))
    if y0 is not None and beta != 0:
        ref = ref + beta * np.asarray(y0, dtype=np.float64)
        bound = bound + abs(beta) * np.abs(np.asarray(y0, dtype=np.float64))
    row_len = max(1, int(np.diff(sp.csr_array(A).indptr).max(initial=1)))
    eps = np.finfo(np.asarray(got).dtype).eps
    tol = (row_len + 4) * eps * bound + np.finfo(np.float64).tiny
    err = np.abs(np.asarray(got, dtype=np.float64) - ref)
    assert np.all(np.isfinite(got))
    assert np.all(err <= tol), f"max error {err.max()} over tolerance {tol[np.argmax(err - tol)]}"


# ---- construction and products ----------------------------------------------

@pytest.mark.parametrize("dtype,index", TYPES)
@pytest.mark.parametrize("kind", ["csr", "csc", "coo"])
def test_spmv_matches_scipy(kind, dtype, index):
    A = random_csr(300, 200, 0.03, dtype, index).asformat(kind)
    if kind == "coo":
        A.row, A.col = A.row.astype(index), A.col.astype(index)
    M = spx.matrix(A)
    assert M.format == kind and M.is_view and M.dtype == dtype and M.index_dtype == index
    x = nonzero_values(200, dtype)
    expect_close(spx.spmv(M, x), A, x)
    for alpha, beta in [(1.0, 0.0), (-2.5, 0.0), (0.5, 1.5), (0.0, -1.0), (2.0, 1.0)]:
        y = np.full(300, np.nan, dtype) if beta == 0 else nonzero_values(300, dtype)
        y0 = y.copy()
        out = spx.spmv(M, x, y, alpha=alpha, beta=beta)
        assert out is y
        expect_close(y, A, x, alpha, beta, y0)


def test_matmul_and_matrix_types():
    A = random_csr(64, 50, 0.1)
    x = nonzero_values(50, np.float64)
    for src in (A, sp.csr_matrix(A), sp.coo_matrix(A), sp.csc_matrix(A)):
        expect_close(spx.matrix(src) @ x, A, x)
    X = nonzero_values(50 * 3, np.float64).reshape(50, 3)
    C = spx.matrix(A) @ X
    assert C.shape == (64, 3)
    for j in range(3):
        expect_close(C[:, j], A, X[:, j])


def test_raw_arrays_and_empty_shapes():
    A = random_csr(10, 7, 0.3)
    M = spx.csr(A.indptr, A.indices, A.data, A.shape)
    x = nonzero_values(7, np.float64)
    expect_close(M @ x, A, x)
    E = spx.csr(np.zeros(1, np.int32), np.zeros(0, np.int32), np.zeros(0), (0, 0))
    assert spx.spmv(E, np.zeros(0)).shape == (0,)
    Z = spx.csr(np.zeros(4, np.int32), np.zeros(0, np.int32), np.zeros(0), (3, 5))
    y = spx.spmv(Z, np.ones(5), np.full(3, np.nan))
    assert np.all(y == 0)


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_spmm_row_and_column_major(order, dtype):
    A = random_csr(120, 90, 0.05, dtype)
    B = np.asarray(nonzero_values(90 * 5, dtype).reshape(90, 5), order=order)
    C = np.full((120, 5), np.nan, dtype=dtype, order=order)
    out = spx.spmm(A, B, C)
    assert out is C
    for j in range(5):
        expect_close(C[:, j], A, B[:, j])
    C0 = nonzero_values(120 * 5, dtype).reshape(120, 5)
    C = np.array(C0, order="F" if order == "C" else "C")  # mixed layouts
    spx.spmm(spx.matrix(A), B, C, alpha=0.5, beta=-1.0)
    for j in range(5):
        expect_close(C[:, j], A, B[:, j], 0.5, -1.0, C0[:, j])
    assert spx.spmm(A, B).flags[order + "_CONTIGUOUS"]


def test_spmm_leading_dimension_slice():
    A = random_csr(40, 30, 0.1)
    big = nonzero_values(30 * 8, np.float64).reshape(30, 8)
    B = big[:, 2:5]  # row-major with ld 8
    C = spx.spmm(A, B)
    for j in range(3):
        expect_close(C[:, j], A, B[:, j])


def test_batch_spmv():
    mats = [random_csr(int(RNG.integers(1, 40)), int(RNG.integers(1, 40)), 0.2) for _ in range(7)]
    xs = [nonzero_values(m.shape[1], np.float64) for m in mats]
    ys = spx.batch_spmv(mats, xs)
    assert len(ys) == 7
    for A, x, y in zip(mats, xs, ys):
        expect_close(y, A, x)
    b = spx.batch(mats)
    x = np.concatenate(xs)
    y0 = nonzero_values(int(b.row_offsets[-1]), np.float64)
    y = y0.copy()
    b.spmv(x, y, alpha=2.0, beta=0.5)
    for i, A in enumerate(mats):
        r0, r1 = b.row_offsets[i], b.row_offsets[i + 1]
        expect_close(y[r0:r1], A, xs[i], 2.0, 0.5, y0[r0:r1])


# ---- conversions ------------------------------------------------------------

@pytest.mark.parametrize("fmt", spx.formats())
def test_every_format(fmt):
    m, n = 200, 150
    A = random_csr(m, n, 0.04)
    if fmt in ("sym_csr", "sym_dia"):  # symmetric storage: a square symmetric matrix
        m = n
        A = random_csr(n, n, 0.04)
        A = sp.csr_array(A + A.T)
        A.sort_indices()
        A.indptr = A.indptr.astype(np.int32)
        A.indices = A.indices.astype(np.int32)
    opts = {"sell": {"slice_size": 8, "sigma": 16}, "bcsr": {"block_size": 2},
            "hll": {"hack_size": 16}}.get(fmt, {})
    S = spx.matrix(A).to(fmt, **opts)
    assert S.format == fmt and not S.is_view and S.bytes > 0 and S.nnz >= A.nnz
    ref = A
    if fmt in ("sell_lp", "dia_lp"):  # values stored in float: the products are those of the rounded matrix
        ref = A.copy()
        ref.data = ref.data.astype(np.float32).astype(np.float64)
        assert abs(ref - A).max() > 0
    x = nonzero_values(n, np.float64)
    expect_close(spx.spmv(S, x, np.full(m, np.nan)), ref, x)
    back = S.to_scipy()
    assert abs(sp.csr_array(back) - ref).max() == 0
    expect_close(spx.spmm(S, np.ones((n, 2)))[:, 1], ref, np.ones(n))


def test_sym_csr_refuses_a_matrix_that_is_not_symmetric():
    with pytest.raises(spx.Unsupported, match="not symmetric"):
        spx.matrix(random_csr(40, 40, 0.2)).to("sym_csr")


def test_conversion_refusals_are_spx_errors():
    A = random_csr(50, 50, 0.1)
    with pytest.raises(spx.InvalidInput):
        spx.matrix(A).to("bcsr", block_size=99)
    with pytest.raises(TypeError, match="unknown conversion option 'slices'"):
        spx.matrix(A).to("sell", slices=3)
    with pytest.raises(spx.InvalidInput, match="format"):
        spx.matrix(A).to("nonsense")


# ---- zero copy and lifetime -------------------------------------------------

def test_zero_copy_values_seen():
    A = random_csr(30, 30, 0.2)
    M = spx.matrix(A)
    x = np.ones(30)
    before = M @ x
    A.data[:] *= 2.0  # the caller changes its values in place
    assert np.allclose(M @ x, 2 * before)
    ip, ix, v = M.arrays()
    assert v.__array_interface__["data"][0] == A.data.__array_interface__["data"][0]
    assert ip.__array_interface__["data"][0] == A.indptr.__array_interface__["data"][0]


def test_zero_copy_dense_operands():
    A = random_csr(20, 20, 0.3)
    x = np.ones(20)
    y = np.empty(20)
    assert spx.spmv(A, x, y) is y
    view = y[:]  # the same memory
    spx.spmv(A, 2 * x, y)
    assert np.shares_memory(view, y) and np.allclose(view, A @ (2 * x))


def test_lifetime_owner_deleted():
    A = random_csr(100, 80, 0.1)
    x = nonzero_values(80, np.float64)
    ref = A @ x
    data_ref = weakref.ref(A.data.base if A.data.base is not None else A.data)
    M = spx.matrix(A)
    del A
    gc.collect()
    assert data_ref() is not None  # kept alive by M
    np.testing.assert_allclose(M @ x, ref, rtol=1e-13, atol=1e-13)
    indptr = np.array([0, 1, 2], np.int64)
    M2 = spx.csr(indptr, np.array([1, 0], np.int64), np.array([3.0, 4.0]), (2, 2))
    del indptr
    gc.collect()
    assert np.allclose(M2 @ np.array([1.0, 2.0]), [6.0, 4.0])
    del M
    gc.collect()
    assert data_ref() is None  # released with the matrix


def test_plan_keeps_matrix_alive():
    A = random_csr(60, 60, 0.1)
    x = nonzero_values(60, np.float64)
    ref = A @ x
    p = spx.plan(A, products=10)
    del A
    gc.collect()
    np.testing.assert_allclose(p.run(x), ref, rtol=1e-12, atol=1e-12)


# ---- plans, advisor, SciPy interop -------------------------------------------

def test_plan_and_advise():
    A = random_csr(500, 500, 0.01)
    x = nonzero_values(500, np.float64)
    p = spx.plan(A, products=1000)
    assert p.format in spx.formats() and p.why
    expect_close(p.run(x, np.full(500, np.nan)), A, x)
    p2 = spx.plan(A, products=10, format="ell")
    assert p2.format == "ell"
    expect_close(p2(x), A, x)
    new = nonzero_values(A.nnz, np.float64)
    p2.update_values(new)
    A2 = A.copy()
    A2.data = new
    expect_close(p2(x), A2, x)
    ps = spx.plan(A, products=50, op="spmm", cols=4)
    B = nonzero_values(500 * 4, np.float64).reshape(500, 4)
    C = ps.run(B)
    expect_close(C[:, 3], A, B[:, 3])
    adv = spx.advise(A, products=1000)
    assert isinstance(adv, dict) and adv["candidates"][adv["pick"]]["feasible"]
    text = str(adv)
    assert "format" in text and "csr" in text and len(text.splitlines()) > 5
    with pytest.raises(spx.InvalidInput, match="products"):
        spx.plan(A, products=0)
    with pytest.raises(spx.InvalidInput):
        spx.advise(A, products=10, op="spmv", cols=3)


def test_advise_compute_scale():
    """The CPU model's machine factor: measured once per process (a positive
    number in [1/16, 16]) unless given; it prices CSR's costs per row and
    entry, so a larger one makes CSR's product dearer; a bad one is named."""
    A = random_csr(500, 500, 0.01)
    measured = spx.advise(A, products=100)["compute_scale"]
    assert 1 / 16 <= measured <= 16

    def csr_product(adv):
        return next(c["product_s"] for c in adv["candidates"] if c["format"] == "csr")

    one = spx.advise(A, products=100, compute_scale=1.0)
    four = spx.advise(A, products=100, compute_scale=4.0)
    assert one["compute_scale"] == 1.0 and four["compute_scale"] == 4.0
    assert csr_product(four) > csr_product(one)
    with pytest.raises(spx.InvalidInput, match="compute_scale"):
        spx.advise(A, products=100, compute_scale=-1.0)


def test_plan_for_one_product_keeps_csr_without_advice():
    A = random_csr(500, 500, 0.01)
    x = nonzero_values(500, np.float64)
    p = spx.plan(A, products=1)
    assert p.format == "csr" and "without the advice" in p.why
    assert len(p.report["advice"]["candidates"]) == 1
    expect_close(p.run(x), A, x)
    full = spx.plan(A, products=1, always_advise=True)
    assert full.format == "csr" and len(full.report["advice"]["candidates"]) > 5


def test_linear_operator_cg():
    n = 30
    L = sp.diags_array([-1.0, 2.5, -1.0], offsets=[-1, 0, 1], shape=(n, n), format="csr")
    b = np.ones(n)
    x, info = spla.cg(spx.aslinearoperator(L), b, rtol=1e-10)
    assert info == 0
    assert np.linalg.norm(L @ x - b) <= 1e-8 * np.linalg.norm(b)


def test_matrix_market_round_trip_and_generators(tmp_path):
    G = spx.generate("stencil2d", n=12)
    assert G.shape == (144, 144) and G.format == "csr" and not G.is_view
    ref = G.to_scipy()
    path = tmp_path / "g.mtx"
    spx.write_matrix_market(path, G)
    R = spx.read_matrix_market(path)
    assert abs(R.to_scipy() - ref).max() == 0
    R32 = spx.read_matrix_market(path, dtype=np.float32, index_dtype=np.int64)
    assert R32.dtype == np.float32 and R32.index_dtype == np.int64
    spx.write_matrix_market(tmp_path / "c.mtx.gz", sp.coo_array(ref))
    assert spx.read_matrix_market(tmp_path / "c.mtx.gz").nnz == ref.nnz
    for spec in ("random:n=200,degree=5", "rmat:scale=8", "fem:n=5,block=3", "mixed:n=300"):
        M = spx.generate(spec, dtype=np.float32)
        x = np.ones(M.shape[1], np.float32)
        expect_close(M @ x, M.to_scipy(), x)
    with pytest.raises(spx.IoError, match="nope.mtx"):
        spx.read_matrix_market(tmp_path / "nope.mtx")
    with pytest.raises(spx.InvalidInput, match="kind|generator|bogus"):
        spx.generate("bogus")


# ---- bad input ----------------------------------------------------------------

def test_bad_dtypes_name_the_argument():
    A = random_csr(10, 10, 0.3)
    M = spx.matrix(A)
    with pytest.raises(TypeError, match="x: dtype complex128"):
        spx.spmv(M, np.ones(10, np.complex128))
    with pytest.raises(TypeError, match="x: dtype float16"):
        spx.spmv(M, np.ones(10, np.float16))
    with pytest.raises(TypeError, match="x: dtype float32 does not match the float64"):
        spx.spmv(M, np.ones(10, np.float32))
    with pytest.raises(TypeError, match="y: dtype int64"):
        spx.spmv(M, np.ones(10), np.zeros(10, np.int64))
    with pytest.raises(TypeError, match="data: dtype complex128"):
        spx.csr(A.indptr, A.indices, A.data.astype(np.complex128), A.shape)
    with pytest.raises(TypeError, match="data: dtype float16"):
        spx.csr(A.indptr, A.indices, A.data.astype(np.float16), A.shape)
    with pytest.raises(TypeError, match="indices: dtype uint32"):
        spx.csr(A.indptr, A.indices.astype(np.uint32), A.data, A.shape)
    with pytest.raises(TypeError, match="indices: dtype float64"):
        spx.csr(A.indptr, A.indices.astype(np.float64), A.data, A.shape)
    with pytest.raises(TypeError, match="indptr and indices have different dtypes"):
        spx.csr(A.indptr.astype(np.int64), A.indices, A.data, A.shape)
    with pytest.raises(TypeError, match="x: expected an array"):
        spx.spmv(M, [1.0] * 10)
    with pytest.raises(TypeError, match="A: expected"):
        spx.spmv("matrix", np.ones(10))
    with pytest.raises(TypeError, match="dtype"):
        spx.generate("stencil2d", dtype=np.complex64)


def test_bad_layouts_and_lengths():
    A = random_csr(10, 8, 0.3)
    M = spx.matrix(A)
    with pytest.raises(ValueError, match="x: not contiguous"):
        spx.spmv(M, np.ones(16)[::2])
    with pytest.raises(ValueError, match="x: expected a 1-D array"):
        spx.spmv(M, np.ones((8, 1)), np.zeros(10))
    with pytest.raises(spx.DimensionMismatch) as e:
        spx.spmv(M, np.ones(9))
    assert isinstance(e.value, ValueError) and "9" in str(e.value)
    with pytest.raises(spx.DimensionMismatch):
        spx.spmv(M, np.ones(8), np.zeros(11))
    with pytest.raises(ValueError, match="y: the array is read-only"):
        y = np.zeros(10)
        y.flags.writeable = False
        spx.spmv(M, np.ones(8), y)
    with pytest.raises(ValueError, match="B: strides"):
        spx.spmm(M, np.ones((16, 6))[::2, ::2])  # strides (12, 2) elements
    with pytest.raises(spx.DimensionMismatch):
        spx.spmm(M, np.ones((7, 3)))
    with pytest.raises(ValueError, match="y: required when beta"):
        spx.spmv(M, np.ones(8), beta=1.0)
    with pytest.raises(ValueError, match="data: not contiguous"):
        spx.csr(A.indptr, A.indices, np.repeat(A.data, 2)[::2], A.shape)


def test_spx_exceptions_keep_the_message():
    # unsorted column indices: SpX's validation message, as a Python exception
    indptr = np.array([0, 2], np.int32)
    with pytest.raises(spx.InvalidInput, match="col_idx") as e:
        spx.csr(indptr, np.array([3, 1], np.int32), np.ones(2), (1, 5))
    assert isinstance(e.value, ValueError) and isinstance(e.value, spx.Error)
    with pytest.raises(spx.InvalidInput, match="row_ptr"):
        spx.csr(np.array([0, 5], np.int32), np.array([1], np.int32), np.ones(1), (1, 5))
    with pytest.raises(spx.InvalidInput):
        spx.coo(np.array([0], np.int32), np.array([9], np.int32), np.ones(1), (2, 2))
    with pytest.raises(spx.Unsupported):
        spx.spmv(spx.matrix(random_csr(5, 5, 0.5)), np.ones(5), algorithm="segmented")
    # trusted views skip validation
    spx.csr(indptr, np.array([3, 1], np.int32), np.ones(2), (1, 5), check=False)


def test_int32_overflowing_shape():
    with pytest.raises(ValueError, match="shape"):
        spx.csr(np.zeros(2, np.int32), np.zeros(0, np.int32), np.zeros(0), (1, 2**31))


def test_batch_refusals():
    with pytest.raises(ValueError, match="matrices: the batch is empty"):
        spx.batch([])
    mixed = [random_csr(5, 5, 0.5), random_csr(5, 5, 0.5, np.float32)]
    with pytest.raises(TypeError, match=r"matrices\[1\]"):
        spx.batch(mixed)
    with pytest.raises(TypeError, match=r"matrices\[0\]"):
        spx.batch([spx.matrix(random_csr(5, 5, 0.5)).to("ell")])
    b = spx.batch([random_csr(4, 3, 0.5), random_csr(2, 6, 0.5)])
    with pytest.raises(ValueError, match="x: 1 vectors for a batch of 2"):
        b.spmv([np.ones(3)])
    with pytest.raises(spx.DimensionMismatch):
        b.spmv(np.ones(8))


def test_plan_operand_checks_and_float32_operator():
    A = random_csr(40, 40, 0.2, np.float32)
    p = spx.plan(A, products=5)
    with pytest.raises(TypeError, match="x: dtype float64 does not match the float32"):
        p.run(np.ones(40))
    with pytest.raises(TypeError, match="values: dtype float64"):
        p.update_values(np.ones(A.nnz))
    op = spx.aslinearoperator(A)
    assert op.dtype == np.float32
    expect_close(op.matvec(np.ones(40)), A, np.ones(40, np.float32))  # converted for SciPy
    expect_close(op.matmat(np.ones((40, 2)))[:, 0], A, np.ones(40, np.float32))


def test_cpp_timing_helper_and_repr():
    A = random_csr(50, 50, 0.1)
    M = spx.matrix(A)
    y = np.full(50, np.nan)
    assert M._m.time_spmv(np.ones(50), y, 3) > 0
    expect_close(y, A, np.ones(50))
    assert "csr" in repr(M) and "view" in repr(M)
    assert M.to("ell").is_view is False


def test_stream_argument_on_the_host():
    """A host product ignores a valid stream and refuses a malformed one,
    naming the argument."""
    A = sp.random_array((30, 20), density=0.2, format="csr", dtype=np.float64)
    x = np.ones(20)
    np.testing.assert_allclose(spx.spmv(A, x, stream=0), A @ x)
    with pytest.raises(TypeError, match="stream"):
        spx.spmv(A, x, stream=-1)
    with pytest.raises(TypeError, match="stream"):
        spx.spmm(A, np.ones((20, 2)), stream=1.5)
