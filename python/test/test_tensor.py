"""opal.Tensor: factories, views, numpy and DLPack interop, repr."""

import gc
import sys

import numpy as np
import pytest

import opal


def test_factories_and_dtypes():
    assert opal.zeros(2, 3).shape == (2, 3)
    assert opal.ones(2).dtype == opal.float32
    assert opal.full((2,), 7).dtype == opal.int64
    assert opal.full((2,), 7.5).tolist() == [7.5, 7.5]
    assert opal.arange(4).tolist() == [0, 1, 2, 3]
    assert opal.arange(0, 1, 0.25).dtype == opal.float32
    assert opal.empty(3, dtype=opal.float64).dtype == opal.float64
    assert opal.tensor([1, 2]).dtype == opal.int64
    assert opal.tensor([1.0, 2]).dtype == opal.float32
    assert opal.tensor([True]).dtype == opal.bool
    assert opal.tensor([1, 2], dtype=opal.float16).tolist() == [1.0, 2.0]
    assert opal.zeros_like(opal.ones(2, dtype=opal.int32)).dtype == opal.int32
    assert opal.ones_like(opal.ones(2, 2)).tolist() == [[1, 1], [1, 1]]
    assert opal.full_like(opal.ones(2), 3).tolist() == [3.0, 3.0]
    assert repr(opal.float32) == "opal.float32" and opal.float is opal.float32
    assert opal.int64.itemsize == 8 and opal.float16.is_floating_point


def test_random_is_seedable():
    opal.manual_seed(3)
    a = opal.rand(5).tolist()
    opal.manual_seed(3)
    assert opal.rand(5).tolist() == a
    assert all(0 <= v < 1 for v in a)
    opal.manual_seed(3)
    b = opal.randn(1000).numpy()
    assert abs(b.mean()) < 0.15 and 0.8 < b.std() < 1.2
    assert opal.rand_like(opal.ones(2, 2)).shape == (2, 2)


def test_metadata():
    t = opal.zeros(2, 3, 4)
    assert t.stride() == (12, 4, 1) and t.stride(-1) == 1
    assert t.size() == (2, 3, 4) and t.size(1) == 3
    assert t.numel() == 24 and t.dim() == 3 and t.ndim == 3 and len(t) == 2
    assert t.is_contiguous()
    assert str(t.device) == "cpu" and repr(t.device) == "device(type='cpu')"
    assert t.device == "cpu"
    assert opal.empty(2, device="meta").is_meta
    assert t.is_cpu and not t.is_meta and not t.is_cuda
    assert not opal.empty(2, device="meta").is_cpu


def test_views_share_storage():
    t = opal.arange(6).view(2, 3)
    tt = t.transpose(0, 1)
    assert tt.shape == (3, 2) and not tt.is_contiguous()
    assert tt.data_ptr() == t.data_ptr()
    tt[1].fill_(9)
    assert t.tolist() == [[0, 9, 2], [3, 9, 5]]
    assert t.permute(1, 0).tolist() == tt.tolist()
    assert t.reshape(-1).tolist() == [0, 9, 2, 3, 9, 5]
    assert t.unsqueeze(0).shape == (1, 2, 3)
    assert t.unsqueeze(0).squeeze().shape == (2, 3)
    assert t[:, None].shape == (2, 1, 3)
    assert t[..., 1].tolist() == [9, 9]
    assert t[1, ::2].tolist() == [3, 5]
    assert t.expand(4, 2, 3).stride() == (0, 3, 1)
    assert t.t().contiguous().is_contiguous()
    c = t.clone()
    assert c.data_ptr() != t.data_ptr() and c.tolist() == t.tolist()


def test_view_errors_name_the_problem():
    t = opal.arange(6).view(2, 3).t()
    with pytest.raises(RuntimeError, match=r"view size is not compatible .* Use \.reshape\(\.\.\.\) instead\."):
        t.view(6)
    with pytest.raises(RuntimeError, match=r"shape '\[4, 4\]' is invalid for input of size 6"):
        t.reshape(4, 4)
    with pytest.raises(RuntimeError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 5\)"):
        t.transpose(0, 5)
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        t[3]
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 2"):
        t[0, 0, 0]


def test_numpy_round_trip_shares_memory():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = opal.from_numpy(a)
    a[0, 0] = 100
    assert t[0, 0].item() == 100
    back = t.numpy()
    back[1, 1] = -1
    assert a[1, 1] == -1
    assert np.shares_memory(back, a)
    # A transposed numpy array keeps its strides.
    assert opal.from_numpy(a.T).stride() == (1, 4)
    with pytest.raises(TypeError, match="can't convert np.ndarray of type uint16"):
        opal.from_numpy(np.zeros(2, dtype=np.uint16))


def test_numpy_lifetime():
    a = np.arange(5, dtype=np.int64)
    t = opal.from_numpy(a)
    del a
    gc.collect()
    assert t.tolist() == [0, 1, 2, 3, 4]  # the tensor keeps the array alive
    arr = opal.arange(4).numpy()
    gc.collect()
    assert arr.tolist() == [0, 1, 2, 3]  # the array keeps the tensor alive


def test_dlpack_with_numpy():
    t = opal.arange(6, dtype=opal.float64).view(2, 3)
    a = np.from_dlpack(t)
    assert a.tolist() == t.tolist()
    t[0].fill_(7)  # numpy 1.24 marks DLPack imports read-only; write through opal
    assert a[0, 0] == 7
    u = opal.from_dlpack(np.arange(3.0))
    assert u.tolist() == [0.0, 1.0, 2.0] and u.dtype == opal.float64
    assert t.__dlpack_device__() == (1, 0)


def test_dlpack_with_pytorch():
    torch = pytest.importorskip("torch", reason="PyTorch is only the reference")
    t = opal.arange(6, dtype=opal.float32).view(2, 3)
    pt = torch.from_dlpack(t)
    assert pt.tolist() == t.tolist()
    pt[0, 1] = 42
    assert t[0, 1].item() == 42
    back = opal.from_dlpack(torch.arange(4))
    assert back.dtype == opal.int64 and back.tolist() == [0, 1, 2, 3]
    del pt
    gc.collect()
    assert t.tolist()[0][1] == 42


def test_repr_matches_pytorch():
    assert repr(opal.tensor([1.0, 2.0, 3.0])) == "tensor([1., 2., 3.])"
    assert repr(opal.tensor([1.5, 2.0])) == "tensor([1.5000, 2.0000])"
    assert repr(opal.tensor([[1, 2], [3, 4]])) == "tensor([[1, 2],\n        [3, 4]])"
    assert repr(opal.tensor([1, 2], dtype=opal.int32)) == "tensor([1, 2], dtype=opal.int32)"
    assert repr(opal.tensor([True, False])) == "tensor([ True, False])"  # (padded, as PyTorch)
    assert repr(opal.tensor(3.0)) == "tensor(3.)"
    assert repr(opal.empty(2, 3, device="meta")) == "tensor(..., device='meta', size=(2, 3))"


def test_repr_agrees_with_torch_on_common_cases():
    torch = pytest.importorskip("torch", reason="PyTorch is only the reference")
    for data in ([1.0, 2.0], [0.5, 1.25, -3.0], [[1, 2, 3], [4, 5, 6]], [True]):
        assert repr(opal.tensor(data)) == repr(torch.tensor(data))


def test_repr_of_a_large_tensor_reads_only_what_it_shows(monkeypatch):
    # Widths and notation come from the elements shown (PyTorch's rule): a
    # huge value in the elided middle changes nothing, and 50M elements
    # cost what 1000 do (formatting every element took minutes).
    torch = pytest.importorskip("torch", reason="PyTorch is only the reference")
    data = 100 + np.arange(2000, dtype=np.float32) / 8
    data[1000] = 1e12
    assert repr(opal.tensor(data)) == repr(torch.from_numpy(data)) == \
        "tensor([100.0000, 100.1250, 100.2500,  ..., 349.6250, 349.7500, 349.8750])"
    ints = np.arange(3000)
    ints[1500] = 10 ** 15
    assert repr(opal.tensor(ints)) == repr(torch.from_numpy(ints)) == \
        "tensor([   0,    1,    2,  ..., 2997, 2998, 2999])"
    # The formatter sees the 6 elements shown, not the 50M.
    import opal._tensor_str as tensor_str
    seen = []
    original = tensor_str._formatter
    monkeypatch.setattr(tensor_str, "_formatter", lambda a: seen.append(a.size) or original(a))
    assert repr(opal.zeros(50_000_000)) == "tensor([0., 0., 0.,  ..., 0., 0., 0.])"
    assert seen == [6]


def test_allocator_reuses_blocks():
    opal.empty(1000)
    before = opal._C._allocator_stats()
    opal.empty(1000)
    after = opal._C._allocator_stats()
    assert after["cache_hits"] == before["cache_hits"] + 1


def test_kernel_temporaries_come_from_the_caching_allocator():
    # A compiled kernel's temporary buffers (log_softmax's row maxima
    # before the sums) are the caching allocator's blocks, as its outputs
    # are: after a warm-up, every call allocates its output and its
    # temporaries from free lists (no page faults of fresh memory), and
    # gives all back but the outputs it returns.
    x = opal.randn(64, 1000)
    for _ in range(3):
        opal.ops.aten._log_softmax(x, 1, False)
    before = opal._C._allocator_stats()
    for _ in range(10):
        opal.ops.aten._log_softmax(x, 1, False)
    after = opal._C._allocator_stats()
    allocations = after["allocations"] - before["allocations"]
    assert allocations > 10  # one output per call, and temporaries
    assert after["cache_hits"] - before["cache_hits"] == allocations
    assert after["bytes_in_use"] == before["bytes_in_use"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.int16, np.bool_])
def test_copies_between_any_layouts(dtype):
    # Permuted sources (a transpose copies in tiles), strided and permuted
    # destinations, dims of size 1 and merged runs: every element lands.
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((3, 4, 5, 6)) * 10).astype(dtype)
    t = opal.from_numpy(x)
    for perm in [(0, 1, 2, 3), (3, 2, 1, 0), (1, 0, 3, 2), (0, 2, 1, 3), (2, 3, 0, 1),
                 (1, 2, 3, 0)]:
        np.testing.assert_array_equal(t.permute(perm).contiguous().numpy(), x.transpose(perm))
    big = opal.from_numpy(np.zeros((6, 8, 10, 12), dtype=dtype))
    big[::2, ::2, ::2, ::2].copy_(t)
    np.testing.assert_array_equal(big.numpy()[::2, ::2, ::2, ::2], x)
    reversed_dims = opal.from_numpy(np.zeros((6, 5, 4, 3), dtype=dtype)).permute(3, 2, 1, 0)
    reversed_dims.copy_(t)
    np.testing.assert_array_equal(reversed_dims.numpy(), x)
    tall = opal.from_numpy((rng.standard_normal((1, 67, 1, 130)) * 10).astype(dtype))
    np.testing.assert_array_equal(tall.permute(3, 2, 1, 0).contiguous().numpy(),
                                  tall.numpy().transpose(3, 2, 1, 0))


@pytest.mark.parametrize("rows,columns", [(64, 48), (37, 61), (128, 7), (5, 3), (96, 96)])
def test_transposes_of_float32_in_whole_and_partial_tiles(rows, columns):
    # Whole 16x16 tiles go through 4x4 register transposes, the edges
    # element by element; batched transposes keep their outer dim.
    rng = np.random.default_rng(rows * columns)
    a = rng.standard_normal((rows, columns)).astype(np.float32)
    np.testing.assert_array_equal(opal.from_numpy(a).t().contiguous().numpy(), a.T)
    b = rng.standard_normal((3, rows, columns)).astype(np.float32)
    np.testing.assert_array_equal(opal.from_numpy(b).transpose(1, 2).contiguous().numpy(),
                                  b.transpose(0, 2, 1))
    out = opal.empty([columns, rows])
    out.copy_(opal.from_numpy(a).t())
    np.testing.assert_array_equal(out.numpy(), a.T)


def test_a_size_one_dim_may_have_any_stride():
    # Found by the tensor-sizes fuzzer: a dim of size 1 with a stride near
    # int64's limit made expand's stride of a new dim and the copy's
    # odometer overflow (undefined behaviour under UBSan).
    x = opal.arange(4.0).reshape(1, 4)
    y = opal.ops.aten.as_strided(x, [1, 4], [2 ** 62, 1])
    assert y.contiguous().tolist() == [[0.0, 1.0, 2.0, 3.0]]
    assert y.to(opal.float64).tolist() == [[0.0, 1.0, 2.0, 3.0]]
    assert y.expand([3, 1, 4]).tolist()[2] == [[0.0, 1.0, 2.0, 3.0]]
    z = opal.ops.aten.as_strided(x, [1, 4], [2 ** 63 - 1, 1]).expand([1 << 10, 1, 4])
    assert z.stride() == (0, 2 ** 63 - 1, 1)
    assert z.contiguous().tolist()[-1] == [[0.0, 1.0, 2.0, 3.0]]
