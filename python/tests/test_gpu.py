"""The device path (CuPy, PyTorch on a GPU). Skipped without those modules,
a GPU or a CUDA build of SpX, unless SPX_REQUIRE_GPU=1, which makes a missing
piece a failure."""

import os

import numpy as np
import pytest
import scipy.sparse as sp

import spx

REQUIRE = os.environ.get("SPX_REQUIRE_GPU") == "1"


def need(module):
    try:
        mod = __import__(module)
    except ImportError:
        if REQUIRE:
            pytest.fail(f"SPX_REQUIRE_GPU=1 but {module} is not installed")
        pytest.skip(f"{module} not installed")
    if not spx.cuda_available():
        if REQUIRE:
            pytest.fail("SPX_REQUIRE_GPU=1 but SpX has no usable GPU (cuda_available() is False)")
        pytest.skip("no usable GPU in this SpX build")
    return mod


def host_ref():
    A = sp.random_array((200, 150), density=0.05, format="csr", dtype=np.float64)
    A.data = np.random.default_rng().uniform(0.5, 1.5, A.nnz)
    x = np.random.default_rng().uniform(-1, 1, 150)
    return A, x


def test_cupy_csr_spmv_spmm():
    cp = need("cupy")
    import cupyx.scipy.sparse as csp

    A, x = host_ref()
    dA = csp.csr_matrix(A)
    M = spx.matrix(dA)
    assert M.device == "cuda" and M.is_view
    y = spx.spmv(M, cp.asarray(x))
    assert isinstance(y, cp.ndarray)
    np.testing.assert_allclose(cp.asnumpy(y), A @ x, rtol=1e-12, atol=1e-12)
    B = cp.asarray(np.ones((150, 4)))
    C = spx.spmm(M, B)
    np.testing.assert_allclose(cp.asnumpy(C), A @ np.ones((150, 4)), rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="x: the array is on the CPU"):
        spx.spmv(M, x)


def test_torch_csr_spmv():
    torch = need("torch")
    if not torch.cuda.is_available():
        if REQUIRE:
            pytest.fail("SPX_REQUIRE_GPU=1 but torch sees no GPU")
        pytest.skip("torch sees no GPU")
    A, x = host_ref()
    t = torch.sparse_csr_tensor(torch.from_numpy(A.indptr.astype(np.int64)),
                                torch.from_numpy(A.indices.astype(np.int64)),
                                torch.from_numpy(A.data), size=A.shape).cuda()
    M = spx.matrix(t)
    y = spx.spmv(M, torch.from_numpy(x).cuda())
    assert isinstance(y, torch.Tensor) and y.is_cuda
    np.testing.assert_allclose(y.cpu().numpy(), A @ x, rtol=1e-12, atol=1e-12)


def test_cupy_products_run_on_the_current_stream():
    """Work enqueued on a non-blocking CuPy stream (which does not wait for the
    legacy default stream, nor it for it) is followed in order by spx's
    product there: a product on another stream could read x before it is
    written."""
    cp = need("cupy")
    import cupyx.scipy.sparse as csp

    rng = np.random.default_rng()
    n, k = 1 << 20, 4  # k distinct random columns a row, built directly (no n*n mask)
    cols = np.sort(rng.choice(n // k, size=(n, k)) + np.arange(k) * (n // k), axis=1)
    A = sp.csr_array((rng.uniform(0.5, 1.5, n * k), cols.ravel().astype(np.int32),
                      np.arange(0, n * k + 1, k, dtype=np.int32)), shape=(n, n))
    M = spx.matrix(csp.csr_matrix(A))
    P = spx.plan(M, products=1)
    s = cp.cuda.Stream(non_blocking=True)
    for _ in range(3):
        with s:
            x = cp.zeros(n)
            for _ in range(20):  # keep the stream busy before x is final
                x = cp.sqrt(x * x + 1.0)
            y = spx.spmv(M, x)
            z = P.run(x)
            w = spx.spmv(M, x, stream=s)
        s.synchronize()
        expected = A @ cp.asnumpy(x)
        for got in (y, z, w):
            np.testing.assert_allclose(cp.asnumpy(got), expected, rtol=1e-12, atol=1e-12)


def test_stream_argument_is_checked():
    cp = need("cupy")
    import cupyx.scipy.sparse as csp

    A, x = host_ref()
    M = spx.matrix(csp.csr_matrix(A))
    with pytest.raises(TypeError, match="stream"):
        spx.spmv(M, cp.asarray(x), stream="default")


def test_device_plan_for_one_product_keeps_csr_without_advice():
    """A device plan for one product keeps the CuPy CSR (no host copy, no
    advice), classified by the row lengths measured on the GPU."""
    cp = need("cupy")
    import cupyx.scipy.sparse as csp

    rng = np.random.default_rng()
    n = 20000  # rows beyond one wave of warps: the V-lane kernel, not the small-matrix one
    A = sp.random_array((n, n), density=5e-4, format="csr", dtype=np.float64)
    A.data = rng.uniform(0.5, 1.5, A.nnz)
    x = rng.uniform(-1, 1, n)
    M = spx.matrix(csp.csr_matrix(A))
    p = spx.plan(M, products=1)
    assert p.format == "csr" and "without the advice" in p.why, p.why
    advice = p.report["advice"]
    assert len(advice["candidates"]) == 1
    lengths = np.diff(A.indptr)
    mean, std = lengths.mean(), lengths.std()
    klass = ("skewed" if lengths.max() > 8 * mean + 64 else
             "regular" if std <= 0.5 * mean else "irregular")
    assert advice["regularity"] == klass
    y = p.run(cp.asarray(x))
    np.testing.assert_allclose(cp.asnumpy(y), A @ x, rtol=1e-12, atol=1e-10)
    full = spx.plan(M, products=1, always_advise=True)
    assert full.format == "csr" and len(full.report["advice"]["candidates"]) > 5


def test_advise_ranks_gpu_kernels_for_a_gpu_matrix():
    """spx.advise of a CuPy matrix ranks the CUDA kernels: a CSR measured
    where it is, a COO through a host CSR; the same footprints either way,
    and the pick a device plan makes from the same advice."""
    cp = need("cupy")
    import cupyx.scipy.sparse as csp

    rng = np.random.default_rng()
    n = 20000  # 200k entries: the device counts, not a small matrix's host copy
    A = sp.random_array((n, n), density=5e-4, format="csr", dtype=np.float64)
    A.data = rng.uniform(0.5, 1.5, A.nnz)
    M = spx.matrix(csp.csr_matrix(A))
    adv = spx.advise(M, products=1000)
    assert adv["backend"] == "cuda" and adv["candidates"][adv["pick"]]["feasible"]
    pick = adv["candidates"][adv["pick"]]
    plan = spx.plan(M, products=1000)
    assert plan.format == pick["format"], (plan.why, adv.table())
    ranked = {(c["format"], c["algorithm"]): c["bytes"] for c in adv["candidates"]}
    coo = spx.advise(spx.matrix(csp.coo_matrix(A)), products=1000)
    assert coo["backend"] == "cuda"
    assert {(c["format"], c["algorithm"]): c["bytes"] for c in coo["candidates"]} == ranked
    host = spx.advise(A, products=1000)
    assert host["backend"] == "cpu"
    with pytest.raises(ValueError, match="products"):
        spx.advise(M, products=0)
