"""Batch normalization against PyTorch 1.13: the normalized values, the
batch statistics, and the running statistics training updates in place."""

import numpy as np
import pytest

import opal

torch = pytest.importorskip("torch", reason="PyTorch 1.13 is the reference")
A = opal.ops.aten


def arrays(seed, *shapes, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(dtype) for shape in shapes]


@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 7), (2, 5, 3, 4), (1, 2, 3, 2, 2)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_training_updates_the_running_statistics(shape, dtype):
    x, w, b = arrays(1, shape, shape[1:2], shape[1:2], dtype=dtype)
    rm, rv = np.zeros(shape[1], dtype), np.ones(shape[1], dtype)
    ours = [opal.tensor(v) for v in (x, w, b, rm, rv)]
    theirs = [torch.from_numpy(v.copy()) for v in (x, w, b, rm, rv)]
    for step in range(3):  # the statistics accumulate
        got = A.native_batch_norm(*ours, True, 0.1, 1e-5)
        want = torch.ops.aten.native_batch_norm(*theirs, True, 0.1, 1e-5)
    tolerance = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-10)
    for o, t in zip(got, want):
        np.testing.assert_allclose(o.numpy(), t.numpy(), **tolerance)
    np.testing.assert_allclose(ours[3].numpy(), theirs[3].numpy(), **tolerance)
    np.testing.assert_allclose(ours[4].numpy(), theirs[4].numpy(), **tolerance)


def test_evaluation_uses_the_running_statistics_and_leaves_them():
    x, w, b, rm = arrays(2, (3, 4, 5, 5), (4,), (4,), (4,))
    rv = np.abs(arrays(3, (4,))[0]) + 0.5
    out, mean, invstd = A.native_batch_norm(*(opal.tensor(v) for v in (x, w, b, rm)),
                                            opal.tensor(rv), False, 0.1, 1e-5)
    want = torch.nn.functional.batch_norm(*(torch.from_numpy(v) for v in (x, rm, rv, w, b)),
                                          False, 0.1, 1e-5)
    np.testing.assert_allclose(out.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    assert mean.shape == (0,) and invstd.shape == (0,)
    got = A.batch_norm(opal.tensor(x), None, None, opal.tensor(rm), opal.tensor(rv), False, 0.1,
                       1e-5, False)
    want = torch.nn.functional.batch_norm(torch.from_numpy(x), torch.from_numpy(rm),
                                          torch.from_numpy(rv), None, None, False, 0.1, 1e-5)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


def test_errors():
    x = opal.ones(4, 3)
    for call, message in [
            (lambda: A.batch_norm(x, None, None, None, None, False, 0.1, 1e-5, False),
             "aten::batch_norm: in aten::native_batch_norm: running_mean must be defined in "
             "evaluation mode"),
            (lambda: A.native_batch_norm(x, opal.ones(2), None, None, None, True, 0.1, 1e-5),
             "aten::native_batch_norm: weight should contain 3 elements not 2 (arguments "
             "'weight' and 'input')"),
            (lambda: A.native_batch_norm(x, opal.ones(3, dtype=opal.float64), None, None, None,
                                         True, 0.1, 1e-5),
             "aten::native_batch_norm: mixed dtype (CPU): expect parameter to have scalar type "
             "of Float"),
            (lambda: A.native_batch_norm(opal.ones(4, dtype=opal.int64), None, None, None, None,
                                         True, 0.1, 1e-5),
             "aten::native_batch_norm: Dimension out of range (expected to be in range of "
             "[-1, 0], but got 1)"),
            (lambda: A.native_batch_norm(opal.ones(4, 2, dtype=opal.int64), None, None, None,
                                         None, True, 0.1, 1e-5),
             "aten::native_batch_norm: \"batch_norm\" not implemented for 'Long'")]:
        with pytest.raises(RuntimeError) as error:
            call()
        assert str(error.value) == message


@pytest.mark.parametrize("shape,groups", [((2, 6, 3, 4), 3), ((4, 6), 2), ((1, 4, 5), 4),
                                          ((0, 6, 3), 3)])
def test_group_norm(shape, groups):
    x, w, b = arrays(4, shape, shape[1:2], shape[1:2])
    got = A.group_norm(opal.tensor(x), groups, opal.tensor(w), opal.tensor(b))
    want = torch.nn.functional.group_norm(torch.from_numpy(x), groups, torch.from_numpy(w),
                                          torch.from_numpy(b))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
    out, mean, rstd = A.native_group_norm(opal.tensor(x), None, None, shape[0], shape[1],
                                          int(np.prod(shape[2:])), groups, 1e-5)
    theirs = torch.ops.aten.native_group_norm(torch.from_numpy(x), None, None, shape[0],
                                              shape[1], int(np.prod(shape[2:])), groups, 1e-5)
    for o, t in zip((out, mean, rstd), theirs):
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-5, atol=1e-5)


def test_group_norm_errors():
    with pytest.raises(RuntimeError) as error:
        A.group_norm(opal.ones(2, 6, 3), 4)
    assert str(error.value) == (
        "aten::group_norm: in aten::native_group_norm: Expected number of channels in input to "
        "be divisible by num_groups, but got input of shape [2, 6, 3] and num_groups=4")
    # Empty channels or planes are refused, channels first, as PyTorch 2 does.
    for shape, groups in (((2, 6, 0), 3), ((2, 0, 3), 1), ((2, 0, 0), 0)):
        with pytest.raises(RuntimeError) as theirs:
            torch.ops.aten.native_group_norm(torch.ones(shape), None, None, shape[0], shape[1],
                                             int(np.prod(shape[2:])), groups, 1e-5)
        with pytest.raises(RuntimeError) as ours:
            A.native_group_norm(opal.ones(*shape), None, None, shape[0], shape[1],
                                int(np.prod(shape[2:])), groups, 1e-5)
        assert str(ours.value) == "aten::native_group_norm: " + str(theirs.value)


@pytest.mark.parametrize("threads", [1, 2])
def test_batch_and_group_norm_channel_by_channel_match_pytorch(threads):
    # Batch norm's rows are its channels and group_norm's (sample, group)
    # (opal-fuse-rows); large enough to split over threads; a channels-last
    # input (a permuted view) and a slice of the batch read in place or
    # copied, whichever the JIT does.
    before = opal.get_num_threads()
    opal.set_num_threads(threads)
    try:
        x, w, b = arrays(7, (8, 32, 20, 20), (32,), (32,))
        nhwc = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
        inputs = [(opal.tensor(x), torch.from_numpy(x)),
                  (opal.tensor(nhwc).permute([0, 3, 1, 2]),
                   torch.from_numpy(nhwc).permute(0, 3, 1, 2)),
                  (opal.tensor(x)[2:6], torch.from_numpy(x)[2:6])]
        for ours, theirs in inputs:
            rm, rv = np.zeros(32, np.float32), np.ones(32, np.float32)
            got = A.native_batch_norm(ours, opal.tensor(w), opal.tensor(b), opal.tensor(rm),
                                      opal.tensor(rv), True, 0.1, 1e-5)
            want = torch.ops.aten.native_batch_norm(
                theirs, torch.from_numpy(w), torch.from_numpy(b), torch.from_numpy(rm.copy()),
                torch.from_numpy(rv.copy()), True, 0.1, 1e-5)
            for o, t in zip(got, want):
                np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-4, atol=1e-5)
            got = A.group_norm(ours, 8, opal.tensor(w), opal.tensor(b))
            want = torch.nn.functional.group_norm(theirs, 8, torch.from_numpy(w),
                                                  torch.from_numpy(b))
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-5)
    finally:
        opal.set_num_threads(before)
