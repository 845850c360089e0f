"""Bad shapes and sizes raise instead of reading or writing outside a buffer.

Each case runs in its own process, so a crash fails that case alone. Where
PyTorch 1.13 (Debian's python3-torch, a test-only reference) has a message
for the same input, opal's message carries it word for word; opal adds the
op's name in front and the arguments it read behind.
"""

import json
import subprocess
import sys

import numpy as np
import pytest

import opal

A = opal.ops.aten

# (opal expression, PyTorch expression or None, expected message part)
SHAPE_CASES = [
    ("A.add(opal.ones(4), opal.arange(0, 2, 1.0))", "torch.ones(4) + torch.arange(0, 2, 1.0)",
     "aten::add.Tensor: The size of tensor a (4) must match the size of tensor b (2) at "
     "non-singleton dimension 0 (arguments 'self' and 'other')"),
    ("A.add(opal.ones(100000), opal.ones(3))", "torch.ones(100000) + torch.ones(3)",
     "The size of tensor a (100000) must match the size of tensor b (3)"),
    ("A.add(opal.ones(0), opal.ones(5))", "torch.ones(0) + torch.ones(5)",
     "The size of tensor a (0) must match the size of tensor b (5)"),
    ("A.mul(opal.ones(2, 3), opal.ones(1, 4))", "torch.ones(2, 3) * torch.ones(1, 4)",
     "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"),
    ("A.mm(opal.ones(2, 100000), opal.ones(3, 2))", "torch.mm(torch.ones(2, 100000), torch.ones(3, 2))",
     "aten::mm: mm: mat1 and mat2 shapes cannot be multiplied (2x100000 and 3x2) "
     "(arguments 'self' and 'mat2')"),
    ("A.mm(opal.ones(2, 1), opal.ones(3, 5))", "torch.mm(torch.ones(2, 1), torch.ones(3, 5))",
     "mat1 and mat2 shapes cannot be multiplied (2x1 and 3x5)"),
    ("A.bmm(opal.ones(2, 3, 4), opal.ones(3, 4, 5))",
     "torch.bmm(torch.ones(2, 3, 4), torch.ones(3, 4, 5))",
     "aten::bmm: Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [3, 4]."),
    ("A.matmul(opal.ones(2, 3), opal.ones(4, 5))", "torch.matmul(torch.ones(2, 3), torch.ones(4, 5))",
     "aten::matmul: mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5) "
     "(arguments 'self' and 'other')"),
    ("A.linear(opal.ones(2, 3), opal.ones(4, 5))",
     "torch.nn.functional.linear(torch.ones(2, 3), torch.ones(4, 5))",
     "mat1 and mat2 shapes cannot be multiplied (2x3 and 5x4) (arguments 'input' and 'weight')"),
    ("A.linear(opal.ones(2, 3), opal.ones(4, 3), opal.ones(5))",
     None,  # PyTorch words it as an expand: "The expanded size of the tensor (4) ..."
     "aten::linear: The size of tensor a (4) must match the size of tensor b (5) at "
     "non-singleton dimension 1 (arguments 'weight' and 'bias')"),
    ("A.where(A.gt(opal.ones(3), 0.0), opal.ones(4), opal.ones(3))",
     "torch.where(torch.ones(3) > 0, torch.ones(4), torch.ones(3))",
     "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0"),
    ("A.pow(opal.ones(3), opal.ones(4))", "torch.pow(torch.ones(3), torch.ones(4))",
     "The size of tensor a (3) must match the size of tensor b (4)"),
    ("A.eq(opal.ones(3), opal.ones(4))", "torch.eq(torch.ones(3), torch.ones(4))",
     "The size of tensor a (3) must match the size of tensor b (4)"),
    # On meta tensors opal raises what PyTorch raises on the CPU (PyTorch 2's
    # meta kernels word some of these otherwise).
    ("A.add(opal.ones(4, device='meta'), opal.ones(3, device='meta'))",
     "torch.ones(4) + torch.ones(3)",
     "The size of tensor a (4) must match the size of tensor b (3)"),
    ("A.mm(opal.ones(2, 3, device='meta'), opal.ones(4, 5, device='meta'))",
     "torch.mm(torch.ones(2, 3), torch.ones(4, 5))",
     "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"),
    # An op's own checks (opal.check in its definition), with PyTorch's words.
    ("A.layer_norm(opal.ones(3, 3), [2])", "torch.ops.aten.layer_norm(torch.ones(3, 3), [2])",
     "aten::layer_norm: in aten::native_layer_norm: Given normalized_shape=[2], expected input with shape [*, 2], but got "
     "input of size[3, 3] (argument 'input')"),
    ("A.layer_norm(opal.ones(3), [3, 3])", "torch.ops.aten.layer_norm(torch.ones(3), [3, 3])",
     "aten::layer_norm: in aten::native_layer_norm: Given normalized_shape=[3, 3], expected input with shape [*, 3, 3], but "
     "got input of size[3]"),
    ("A.layer_norm(opal.ones(3, 3), [])", "torch.ops.aten.layer_norm(torch.ones(3, 3), [])",
     "aten::layer_norm: in aten::native_layer_norm: Expected normalized_shape to be at least 1-dimensional, i.e., containing "
     "at least one element, but got normalized_shape = []"),
    ("A.layer_norm(opal.ones(3, 3), [3], opal.ones(2))",
     "torch.ops.aten.layer_norm(torch.ones(3, 3), [3], torch.ones(2))",
     "aten::layer_norm: in aten::native_layer_norm: Expected weight to be of same shape as normalized_shape, but got weight "
     "of shape [2] and normalized_shape = [3] (argument 'weight')"),
    ("A.layer_norm(opal.ones(3, 3), [3], opal.ones(2, 3))",
     "torch.ops.aten.layer_norm(torch.ones(3, 3), [3], torch.ones(2, 3))",
     "Expected weight to be of same shape as normalized_shape, but got weight of shape [2, 3] and "
     "normalized_shape = [3]"),
    ("A.layer_norm(opal.ones(3, 3), [3], opal.ones(3), opal.ones(1))",
     "torch.ops.aten.layer_norm(torch.ones(3, 3), [3], torch.ones(3), torch.ones(1))",
     "Expected bias to be of same shape as normalized_shape, but got bias of shape [1] and "
     "normalized_shape = [3]"),
    ("A.layer_norm(opal.ones(2, 4, device='meta'), [3])",
     "torch.ops.aten.layer_norm(torch.ones(2, 4), [3])",
     "Given normalized_shape=[3], expected input with shape [*, 3], but got input of size[2, 4]"),
    ("A.amax(opal.ones(3, 0), [1])", "torch.amax(torch.ones(3, 0), [1])",
     "aten::amax: amax(): Expected reduction dim 1 to have non-zero size. (argument 'self')"),
    ("A.amin(opal.ones(0, 3, device='meta'), [-2])",
     "torch.amin(torch.ones(0, 3), [-2])",
     "amin(): Expected reduction dim -2 to have non-zero size."),
    ("A.amax(opal.ones(2, 0, 3))", "torch.amax(torch.ones(2, 0, 3))",
     "amax(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
     "reduction dim with the 'dim' argument."),
    ("A.linear(opal.ones(3), opal.ones(3, 3), opal.ones(5))",
     "torch.nn.functional.linear(torch.ones(3), torch.ones(3, 3), torch.ones(5))",
     "aten::linear: The expanded size of the tensor (3) must match the existing size (5) at "
     "non-singleton dimension 1.  Target sizes: [1, 3].  Tensor sizes: [5]"),
    ("A.linear(opal.ones(2, 3), opal.ones(4, 3), opal.ones(3, 2, 4))",
     "torch.nn.functional.linear(torch.ones(2, 3), torch.ones(4, 3), torch.ones(3, 2, 4))",
     "aten::linear: expand(torch.FloatTensor{[3, 2, 4]}, size=[2, 4]): the number of sizes "
     "provided (2) must be greater or equal to the number of dimensions in the tensor (3)"),
]

# Convolutions whose checks run after the kernel (data checks): the kernel
# must not read past its input meanwhile.
CONV_CASES = [
    ("A.convolution(opal.ones(2, 4, 5, 5), opal.ones(6, 2, 3, 3), None, [1], [0], [1], False, "
     "[0], 3)",
     "torch.convolution(torch.ones(2, 4, 5, 5), torch.ones(6, 2, 3, 3), None, [1], [0], [1], "
     "False, [0], 3)",
     "Given groups=3, weight of size [6, 2, 3, 3], expected input[2, 4, 5, 5] to have 6 "
     "channels, but got 4 channels instead"),
    ("A.convolution(opal.ones(2, 4, 5, 5), opal.ones(5, 2, 3, 3), None, [1], [0], [1], False, "
     "[0], 2)",
     "torch.convolution(torch.ones(2, 4, 5, 5), torch.ones(5, 2, 3, 3), None, [1], [0], [1], "
     "False, [0], 2)",
     "expected weight to be divisible by 2 at dimension 0"),
    ("A.convolution(opal.ones(2, 4, 0, 3), opal.ones(6, 4, 1, 1), None, [1], [1], [1], False, "
     "[0], 1)",
     "torch.convolution(torch.ones(2, 4, 0, 3), torch.ones(6, 4, 1, 1), None, [1], [1], [1], "
     "False, [0], 1)",
     "Only zero batch or zero channel inputs are supported, but got input shape: [2, 4, 0, 3]"),
    ("A.convolution(opal.ones(2, 4, 5, 5), opal.ones(4, 3, 3, 3), opal.ones(5), [1], [0], [1], "
     "True, [0], 2)",
     "torch.convolution(torch.ones(2, 4, 5, 5), torch.ones(4, 3, 3, 3), torch.ones(5), [1], "
     "[0], [1], True, [0], 2)",
     "expected bias to be 1-dimensional with 6 elements, but got bias of size [5] instead"),
    ("A.convolution(opal.ones(2, 4, 5, 5), opal.ones(6, 4, 3, 3), None, [1, 1, 1], [0], [1], "
     "False, [0], 1)",
     "torch.convolution(torch.ones(2, 4, 5, 5), torch.ones(6, 4, 3, 3), None, [1, 1, 1], [0], "
     "[1], False, [0], 1)",
     "expected stride to be a single integer value or a list of 2 values to match the "
     "convolution dimensions, but got stride=[1, 1, 1]"),
]

# Pooling, upsampling and distances: checks that raise after the kernel
# (sizes computed from the call's sizes, p known per call) and list checks.
POOL_CASES = [
    ("A.max_pool3d_with_indices(opal.ones(2, 3, 5, 6, 7), [3, 1, 1], [1], [0], [3])",
     "torch.ops.aten.max_pool3d_with_indices(torch.ones(2, 3, 5, 6, 7), [3, 1, 1], [1], [0], "
     "[3])",
     "Given input size: (3x5x6x7). Calculated output size: (3x-1x6x7). Output size is too small"),
    ("A.max_pool3d_with_indices(opal.ones(2, 3, 5, 6, 7), [2, 2])",
     "torch.ops.aten.max_pool3d_with_indices(torch.ones(2, 3, 5, 6, 7), [2, 2])",
     "max_pool3d: kernel_size must either be a single int, or a tuple of three ints"),
    ("A.avg_pool3d(opal.ones(2, 3, 5, 6, 7), [6, 2, 2])",
     "torch.ops.aten.avg_pool3d(torch.ones(2, 3, 5, 6, 7), [6, 2, 2])",
     "input image (T: 5 H: 6 W: 7) smaller than kernel size (kT: 6 kH: 2 kW: 2)"),
    ("A.upsample_bilinear2d.vec(opal.ones(2, 3, 4, 5), None, True, [0.1, 2.0])",
     "torch.ops.aten.upsample_bilinear2d.vec(torch.ones(2, 3, 4, 5), None, True, [0.1, 2.0])",
     "Input and output sizes should be greater than 0, but got input (H: 4, W: 5) output "
     "(H: 0, W: 10)"),
    ("A._cdist_forward(opal.ones(3, 4), opal.ones(5, 4), -1.0, None)",
     "torch.ops.aten._cdist_forward(torch.ones(3, 4), torch.ones(5, 4), -1.0, None)",
     "cdist only supports non-negative p values"),
    ("A._cdist_forward(opal.ones(2, 3, 4), opal.ones(3, 5, 4), 2.0, None)",
     "torch.ops.aten._cdist_forward(torch.ones(2, 3, 4), torch.ones(3, 5, 4), 2.0, None)",
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    ("A._pdist_forward(opal.ones(3), 2.0)", "torch.ops.aten._pdist_forward(torch.ones(3), 2.0)",
     "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
]

SPATIAL_CASES = [
    ("A.col2im(opal.ones(2, 12, 6), [4, 5], [2, 2], [1, 1], [0, 0], [1, 1])",
     "torch.ops.aten.col2im(torch.ones(2, 12, 6), [4, 5], [2, 2], [1, 1], [0, 0], [1, 1])",
     "expected size of input's dimension 2 to match the calculated number of sliding blocks "
     "3 * 4 = 12, but got input.size(2)=6."),
    ("A.col2im(opal.ones(2, 10, 6), [3, 4], [2, 2], [1, 1], [0, 0], [1, 1])",
     "torch.ops.aten.col2im(torch.ones(2, 10, 6), [3, 4], [2, 2], [1, 1], [0, 0], [1, 1])",
     "Expected size of input's dimension 1 to be divisible by the product of kernel_size"),
    ("A.grid_sampler_2d(opal.ones(2, 3, 4, 5), opal.ones(1, 6, 7, 2), 0, 0, False)",
     "torch.ops.aten.grid_sampler_2d(torch.ones(2, 3, 4, 5), torch.ones(1, 6, 7, 2), 0, 0, False)",
     "grid_sampler(): expected grid and input to have same batch size"),
    ("A._embedding_bag(opal.ones(6, 2), opal.tensor([1, 2, 700000, -1]), opal.tensor([0, 2]), "
     "False, 2, False, None, False, -1)",
     "torch.ops.aten._embedding_bag(torch.ones(6, 2), torch.tensor([1, 2, 700000, -1]), "
     "torch.tensor([0, 2]), False, 2, False, None, False, -1)",
     "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be 700000"),
    ("A._embedding_bag(opal.ones(6, 2), opal.tensor([1, 2, 3]), opal.tensor([0, 9]), "
     "False, 1, False, None, False, -1)",
     "torch.ops.aten._embedding_bag(torch.ones(6, 2), torch.tensor([1, 2, 3]), "
     "torch.tensor([0, 9]), False, 1, False, None, False, -1)",
     "offsets[-1] can not be greater than input's length 3 but got offsets[-1] of 9"),
    # PyTorch 1.13 crashes on these; opal raises.
    ("A._embedding_bag(opal.ones(6, 2), opal.tensor([1, 2, 3]), opal.tensor([0, 2]), "
     "False, 3, False, None, False, -1)", None,
     "opal takes mode 0 (sum), 1 (mean) or 2 (max) for _embedding_bag, but got 3"),
    ("A._embedding_bag(opal.ones(6, 2), opal.tensor([1, 2, 3]), opal.tensor([0, 3, 1]), "
     "False, 1, False, None, False, -1)", None,
     "opal takes non-decreasing offsets for _embedding_bag"),
]

SIZE_CASES = [
    # aten's factories take their size lists at run time on the CPU: the
    # runtime's size checks, not the compiler's, see them.
    ("A.zeros([2**40, 2**40])", "torch.ops.aten.zeros([2**40, 2**40])",
     "Storage size calculation overflowed with sizes=[1099511627776, 1099511627776]"),
    ("A.randn([2**33, 2**33])", "torch.ops.aten.randn([2**33, 2**33])",
     "Storage size calculation overflowed with sizes=[8589934592, 8589934592]"),
    ("A.full([2**62, 4], 1.0)", "torch.ops.aten.full([2**62, 4], 1.0)",
     "Storage size calculation overflowed with sizes=[4611686018427387904, 4]"),
    ("opal.empty([2**62])", "torch.empty([2**62])",
     "Storage size calculation overflowed with sizes=[4611686018427387904]"),
    ("opal.zeros(2**31, 2**31, dtype=opal.float64)",
     "torch.zeros(2**31, 2**31, dtype=torch.float64)",
     "Storage size calculation overflowed with sizes=[2147483648, 2147483648]"),
    ("opal.arange(0, 2**62)", "torch.arange(0, 2**62)",
     "Storage size calculation overflowed with sizes=[4611686018427387904]"),
    ("opal.randn(2**62)", "torch.randn(2**62)",
     "Storage size calculation overflowed with sizes=[4611686018427387904]"),
    ("opal.ones(1).expand(2**40, 2**40)", "torch.ones(1).expand(2**40, 2**40)",
     "numel: integer multiplication overflow"),
    ("opal.empty([-1])", "torch.empty([-1])",
     "Trying to create tensor with negative dimension -1: [-1]"),
    ("opal.full((2,), float('inf'), dtype=opal.int64)",
     "torch.full((2,), float('inf'), dtype=torch.int64)",
     "value cannot be converted to type int64_t without overflow"),
    ("opal.full((2,), 2**70, dtype=opal.int64)",
     "torch.full((2,), 2**70, dtype=torch.int64)", "int too big to convert"),
    ("opal.zeros(1).expand(4).copy_(opal.ones(4))", None,
     "unsupported operation: more than one element of the written-to tensor refers to a single "
     "memory location. Please clone() the tensor before performing the operation."),
    ("(lambda t: t.copy_(t.t()))(opal.arange(0, 4, 1.0).view(2, 2))",
     "(lambda t: t.copy_(t.t()))(torch.arange(0, 4.0).view(2, 2))",
     "unsupported operation: some elements of the input tensor and the written-to tensor refer "
     "to a single memory location. Please clone() the tensor before performing the operation."),
    ("opal.from_numpy(np.arange(3, dtype='>f4'))", "torch.from_numpy(np.arange(3, dtype='>f4'))",
     "given numpy array has byte order different from the native byte order. Conversion between "
     "byte orders is currently not supported."),
    ("opal.from_numpy(np.frombuffer(b'abcdefgh', dtype=np.float32)).fill_(1)", None,
     "fill_: the tensor's memory is read-only (it was imported from a read-only buffer); "
     "clone() it first"),
    ("A.gelu(opal.ones(2), approximate='bogus')",
     "torch.ops.aten.gelu(torch.ones(2), approximate='bogus')",
     "aten::gelu: approximate argument must be either none or tanh."),
    ("A.clamp(opal.ones(2))", "torch.ops.aten.clamp(torch.ones(2))",
     "torch.clamp: At least one of 'min' or 'max' must not be None"),
    ("A.zeros_like(opal.ones(2, device='meta'), device='cpu')", None,
     "aten::zeros_like: argument 'device' asks for the result on cpu, but the inputs are on "
     "meta and opal computes on its inputs' device"),
    ("opal.library.load('/tmp')", None,
     "/tmp: error: cannot open op library: it is a directory, not an op-library file"),
    ("opal.library.load(sys.executable)", None,
     "error: cannot open op library: it is an ELF file, not op-library text (load a shared "
     "library of ops with opal.ops.load_library)"),
    ("opal.from_numpy(np.zeros(17, dtype=np.uint8)[1:].view(np.float32))", None,
     "from_numpy: the array's data is not aligned to its element size (4 bytes)"),
    ("opal.empty([2**40, 0]).view([2**40, 2**40, 2**40])", None,
     "shape '[1099511627776, 1099511627776, 1099511627776]' is invalid for input of size 0"),
]

RUNNER = """
import json, sys
import numpy as np
import opal
A = opal.ops.aten
try:
    eval(sys.argv[1])
    print(json.dumps(None))
except Exception as error:
    print(json.dumps([type(error).__name__, str(error)]))
"""


def outcome(code, module="opal"):
    runner = RUNNER if module == "opal" else RUNNER.replace("import opal\nA = opal.ops.aten\n",
                                                            "import torch\n")
    result = subprocess.run([sys.executable, "-c", runner, code], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, f"{code} died ({result.returncode}): {result.stderr[-2000:]}"
    return json.loads(result.stdout.strip().splitlines()[-1])


def torch_available():
    try:
        import torch  # noqa: F401
        return True
    except ImportError:
        return False


@pytest.mark.parametrize("code,reference,expected",
                         SHAPE_CASES + SIZE_CASES + CONV_CASES + POOL_CASES + SPATIAL_CASES,
                         ids=[case[0] for case in SHAPE_CASES + SIZE_CASES + CONV_CASES +
                              POOL_CASES + SPATIAL_CASES])
def test_bad_input_raises_with_pytorchs_message(code, reference, expected):
    result = outcome(code)
    assert result is not None, f"{code} returned instead of raising"
    kind, message = result
    assert expected in message
    if reference and torch_available():
        torch_result = outcome(reference, "torch")
        assert torch_result is not None, f"PyTorch accepts {reference}"
        assert torch_result[1].splitlines()[0] in message


def test_good_shapes_still_compute():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = np.arange(3, dtype=np.float32)
    np.testing.assert_allclose(A.add(opal.tensor(x), opal.tensor(y)).numpy(), x + y)
    np.testing.assert_allclose(A.mul(opal.tensor(x), opal.tensor(y[None, :])).numpy(), x * y)
    np.testing.assert_allclose(A.mm(opal.tensor(x), opal.tensor(x.T)).numpy(), x @ x.T)
    np.testing.assert_allclose(A.mm(opal.ones(2, 1), opal.ones(1, 5)).numpy(), np.ones((2, 5)))


def test_a_user_decomposition_gets_the_checks():
    lib = opal.library.Library("safetylib", "DEF")
    lib.define("axpy(Tensor x, Tensor y, float a) -> Tensor")

    @opal.library.register_decomposition("safetylib::axpy", lib=lib)
    def axpy(x, y, a):
        return A.add(A.mul(x, a), y)

    try:
        np.testing.assert_allclose(opal.ops.safetylib.axpy(opal.ones(3), opal.ones(3), 2.0).numpy(),
                                   np.full(3, 3.0))
        with pytest.raises(RuntimeError) as error:
            opal.ops.safetylib.axpy(opal.ones(3), opal.ones(5), 2.0)
        assert str(error.value) == (
            "safetylib::axpy: in aten::add.Tensor: The size of tensor a (3) must match the size "
            "of tensor b (5) at non-singleton dimension 0 (arguments 'x' and 'y')")
    finally:
        lib._destroy()


def test_a_refusal_raises_with_each_calls_sizes():
    # A weight of the wrong rank refuses the call before any code is
    # compiled; the refusal is kept like a kernel and raises with the sizes
    # of each call, not those of the first.
    for rows in (2, 4, 2):
        with pytest.raises(RuntimeError) as error:
            A.layer_norm(opal.ones(3, 3), [3], opal.ones(rows, 3))
        assert str(error.value) == (
            "aten::layer_norm: in aten::native_layer_norm: Expected weight to be of same shape "
            "as normalized_shape, but got "
            f"weight of shape [{rows}, 3] and normalized_shape = [3]")
    np.testing.assert_allclose(A.layer_norm(opal.ones(2, 3), [3], opal.ones(3)).numpy(),
                               np.zeros((2, 3)))


CHECKLIB = """
opal.library "checklib" {
  opal.def "rowsum(Tensor a, Tensor b) -> Tensor"
  opal.decomposition "rowsum" {
  ^bb0(%a: !opal.tensor, %b: !opal.tensor):
    %ra = opal.dim_size %a, 0 : !opal.tensor -> i64
    %rb = opal.dim_size %b, 0 : !opal.tensor -> i64
    %same = arith.cmpi eq, %ra, %rb : i64
    opal.check %same, "rowsum: a has {0} rows but b has {1}" (%ra, %rb : i64, i64)
    %r = aten.add.Tensor %a, %b, %ra : (!opal.tensor, !opal.tensor, i64) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
}
"""


def test_a_user_check_is_checked_per_call(tmp_path):
    path = tmp_path / "checklib.opal.mlir"
    path.write_text(CHECKLIB)
    libraries = opal.library.load(str(path))
    try:
        op = opal.ops.checklib.rowsum
        np.testing.assert_allclose(op(opal.ones(2, 3), opal.ones(2, 1)).numpy(),
                                   np.full((2, 3), 3.0))
        for rows in (3, 5):
            with pytest.raises(RuntimeError) as error:
                op(opal.ones(2, 3), opal.ones(rows, 1))
            assert str(error.value) == (
                f"checklib::rowsum: rowsum: a has 2 rows but b has {rows} "
                "(arguments 'a' and 'b')")
    finally:
        for library in libraries:
            library._destroy()


def compiled_then_loaded(code, cache_dir):
    """Runs `code` in two processes sharing the disk cache `cache_dir`: the
    first compiles, the second loads from disk."""
    env = dict(__import__("os").environ, OPAL_CACHE_DIR=str(cache_dir))
    for _ in range(2):
        yield subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=env, timeout=120)


def test_ops_with_the_same_kernel_ir_keep_their_own_disk_entries(tmp_path):
    # aten::matmul of two matrices decomposes to exactly aten::mm's IR; each
    # op's entry keeps its own manifest (the op its checks name).
    code = ("import opal; A = opal.ops.aten\n"
            "for f in (A.matmul, A.mm):\n"
            "    try:\n        f(opal.ones(2, 3), opal.ones(4, 5))\n"
            "    except RuntimeError as e:\n        print(e)\n")
    for out in compiled_then_loaded(code, tmp_path):
        assert out.stdout.splitlines() == [
            "aten::matmul: mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5) "
            "(arguments 'self' and 'other')",
            "aten::mm: mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5) "
            "(arguments 'self' and 'mat2')"], out.stderr


def test_checks_travel_with_disk_cache_entries(tmp_path):
    code = ("import opal; A = opal.ops.aten\n"
            "try:\n    A.sub(opal.ones(3), opal.ones(4))\n"
            "except RuntimeError as e:\n    print(e)\n")
    for out in compiled_then_loaded(code, tmp_path):
        assert "The size of tensor a (3) must match the size of tensor b (4)" in out.stdout
    manifests = list(tmp_path.rglob("*manifest*")) + list(tmp_path.rglob("*.txt"))
    assert any("checks: broadcast,aten::sub.Tensor,0,a0.0,a1.0" in p.read_text(errors="ignore")
               for p in manifests if p.is_file())


def test_expanded_fill_writes_once_and_read_only_memory_stays_read_only(tmp_path):
    t = opal.zeros(1).expand(2**40).fill_(1)
    assert t.shape == (2**40,)
    path = tmp_path / "data.bin"
    np.ones(4, dtype=np.float32).tofile(path)
    mapped = np.memmap(path, dtype=np.float32, mode="r", shape=(4,))
    x = opal.from_numpy(mapped)
    with pytest.raises(RuntimeError, match="fill_: the tensor's memory is read-only"):
        x.fill_(2)
    assert not x.numpy().flags.writeable
    np.testing.assert_allclose(A.add(x, x).numpy(), np.full(4, 2.0))


def test_a_damaged_checks_line_is_never_run_unchecked(tmp_path):
    code = ("import json, opal; A = opal.ops.aten\n"
            "ok = A.sub(opal.ones(3), opal.ones(3)).tolist()\n"
            "try:\n    A.sub(opal.ones(3), opal.ones(4)); error = None\n"
            "except RuntimeError as e:\n    error = str(e)\n"
            "print(json.dumps([ok, error, opal.jit.stats()['compiles']]))\n")

    def run(**extra):
        env = dict(__import__("os").environ, OPAL_CACHE_DIR=str(tmp_path), **extra)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=env, timeout=120)
        assert out.returncode == 0, out.stderr[-2000:]
        return json.loads(out.stdout.strip().splitlines()[-1])

    assert run()[2] == 1
    damaged = 0
    for path in tmp_path.rglob("*"):
        if path.is_file():
            text = path.read_bytes()
            if b"checks: broadcast," in text:
                path.write_bytes(text.replace(b"checks: broadcast,", b"checks: bogus,"))
                damaged += 1
    assert damaged >= 1
    # The disk cache's manifest (OPAL_DUMP_DIR turns the warm start off):
    # compiled afresh, and the bad call still raises.
    ok, error, compiles = run(OPAL_DUMP_DIR=str(tmp_path / "dump"))
    assert ok == [0.0, 0.0, 0.0] and compiles == 1
    assert "The size of tensor a (3) must match the size of tensor b (4)" in error
    # The warm-start index, if one was damaged too: dropped, never run unchecked.
    ok, error, _ = run()
    assert "The size of tensor a (3) must match the size of tensor b (4)" in error


def test_zeros_like_honours_a_meta_device():
    result = A.zeros_like(opal.ones(2, 3), device="meta")
    assert result.device.type == "meta" and list(result.shape) == [2, 3]


def test_floats_out_of_range_convert_to_ints_as_on_x86():
    # NaN, inf and huge values: the lowest int (PyTorch on x86 gives the same).
    values = [float("nan"), float("inf"), -1e30, 1e30, 2.5, -2.5]
    got = opal.tensor(values).to(opal.int32).tolist()
    assert got == [-2**31, -2**31, -2**31, -2**31, 2, -2]
    assert opal.tensor(values).to(opal.int64).tolist()[:4] == [-2**63] * 4
    if torch_available():
        import torch
        assert torch.tensor(values).to(torch.int32).tolist() == got


LIBRARY_RUNNER = """
import sys, opal
try:
    opal.library.load(sys.argv[1])
    print(opal.ops.myops.softplus(opal.ones(3)))
except Exception as error:
    print("raised", type(error).__name__)
"""


def mutations(lines):
    """The example library with two lines swapped, and with a body line
    moved to library level (the issue's cases), a few dozen in all."""
    body = [i for i, line in enumerate(lines) if line.startswith("    ") or "^bb0" in line]
    for a, b in zip(body, body[3:]):
        swapped = list(lines)
        swapped[a], swapped[b] = swapped[b], swapped[a]
        yield swapped
    for i in body:
        moved = list(lines)
        line = moved.pop(i)
        moved.insert(6, line)
        yield moved


def test_malformed_op_libraries_never_crash(tmp_path):
    import os
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    lines = open(os.path.join(root, "examples", "aot", "myops.opal.mlir")).read().splitlines()
    raised = 0
    for n, text in enumerate(mutations(lines)):
        path = tmp_path / f"m{n}.opal.mlir"
        path.write_text("\n".join(text))
        result = subprocess.run([sys.executable, "-c", LIBRARY_RUNNER, str(path)],
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, f"mutation {n} died: {result.stderr[-2000:]}\n" + \
            "\n".join(text)
        raised += "raised" in result.stdout
    assert raised > 20


def test_a_truncated_op_library_is_refused_before_dlopen(tmp_path):
    import os
    build = os.environ.get("OPAL_BUILD_DIR", "build")
    library = os.path.join(build, "lib", "libmyops.so")
    if not os.path.exists(library):
        pytest.skip("the example AOT library is not built")
    data = open(library, "rb").read()
    for size in (100, 3000, len(data) // 2, len(data) - 1):
        path = tmp_path / f"cut{size}.so"
        path.write_bytes(data[:size])
        code = f"opal.ops.load_library({str(path)!r})"
        result = outcome(code)
        assert result is not None, f"a library cut to {size} bytes loaded"
        assert "is not a shared library" in result[1] and "truncated?" in result[1], result


# PyTorch's backward ops where PyTorch 1.13 itself reads past its tensors
# (a crash or a corrupted heap), and the autograd API's bad inputs: opal
# raises, each case in its own process.
BACKWARD_CASES = [
    ("A._adaptive_avg_pool2d_backward(opal.ones(3, 4, 2, 2), opal.ones(2, 3, 7, 6))",
     "expected grad_output with the rank, batch and channel sizes of input [2, 3, 7, 6], but "
     "got grad_output of shape [3, 4, 2, 2]"),
    ("A._adaptive_avg_pool2d_backward(opal.ones(0, 3, 2, 2), opal.ones(2, 3, 7, 6))",
     "expected grad_output with the rank, batch and channel sizes of input [2, 3, 7, 6]"),
    ("A._adaptive_avg_pool3d_backward(opal.ones(2, 3, 2, 2), opal.ones(2, 3, 4, 5, 6))",
     "expected grad_output with the rank, batch and channel sizes of input [2, 3, 4, 5, 6]"),
    ("A.native_group_norm_backward(opal.ones(2, 6, 4), opal.ones(2, 6, 4), opal.ones(8), "
     "opal.ones(8), None, 2, 6, 4, 4, [True, True, True])",
     "Expected group > 0 && C % group == 0 to be true, but got false."),
    ("A.avg_pool2d_backward(opal.ones(2, 3, 9, 9), opal.ones(2, 3, 7, 6), [3, 2], [2, 2], "
     "[1, 1], True, False, None)",
     "Expected a tensor of dimension 4 and tensor.size[2] == 4 but got: dimension 4 and "
     "tensor.size[2] = 9"),
    # The autograd API's new inputs: a hook's result, backward's inputs.
    ("(lambda x: (x.register_hook(lambda g: 'text'), (x * 2).sum().backward()))"
     "(opal.ones(2, requires_grad=True))",
     "a gradient hook must return a Tensor or None, got str"),
    ("(lambda x: (x.register_hook(lambda g: opal.ones(5)), (x * 2).sum().backward()))"
     "(opal.ones(2, requires_grad=True))", "has changed the size of value"),
    ("(opal.ones(2, requires_grad=True) * 2).sum().backward(inputs=[])",
     "'inputs' argument to backward() cannot be empty."),
    ("(opal.ones(2, requires_grad=True) * 2).sum().backward(inputs=[opal.ones(2)])",
     "can't retain_grad on Tensor that has requires_grad=False"),
    # dropout's native kernel, and writes into views under autograd.
    ("A.dropout(opal.ones(3, requires_grad=True), 1.5, True)",
     "dropout probability has to be between 0 and 1, but got 1.5"),
    ("A.dropout(opal.ones(3), float('nan'), False)",
     "dropout probability has to be between 0 and 1, but got nan"),
    ("opal.ones(3, requires_grad=True)[0:2].mul_(2)",
     "a view of a leaf Variable that requires grad is being used in an in-place operation."),
    ("(lambda x: (x * 1).detach()[0:2].copy_(x[0:2]))(opal.ones(3, requires_grad=True))",
     "writing under autograd into a view whose base opal does not know"),
    ("A.select.int(A.empty_strided([2, 2], [1, 2]), 0, 0).copy_(opal.ones(2, requires_grad=True))",
     "writing under autograd into a view of a tensor that is not contiguous"),
]


@pytest.mark.parametrize("code,expected", BACKWARD_CASES, ids=[c[0] for c in BACKWARD_CASES])
def test_backward_ops_refuse_what_pytorch_reads_out_of_bounds(code, expected):
    result = outcome(code)
    assert result is not None, f"{code} returned instead of raising"
    assert expected in result[1]


DLPACK_CASES = [
    ("opal.tensor([1.0]).__dlpack__(max_version='one')", "TypeError",
     "__dlpack__: max_version must be a pair of ints, got 'one'"),
    ("opal.tensor([1.0]).__dlpack__(max_version=(1,))", "TypeError",
     "__dlpack__: max_version must be a pair of ints, got (1,)"),
    ("opal.tensor([1.0]).__dlpack__(dl_device=(7, 0))", "BufferError",
     "__dlpack__: opal cannot export to DLPack device (7, 0)"),
    ("opal.tensor([1.0]).__dlpack__(dl_device=(2, -1))", "BufferError",
     "__dlpack__: opal cannot export to DLPack device (2, -1)"),
    ("opal.tensor([1.0]).__dlpack__(dl_device=(1, 5))", "BufferError",
     "__dlpack__: opal cannot export to DLPack device (1, 5)"),
    ("opal.tensor([1.0]).__dlpack__(dl_device=(2, 10 ** 30))", "TypeError",
     "__dlpack__: dl_device must be a pair of ints"),
    ("opal.tensor([1.0]).__dlpack__(copy=1)", "TypeError",
     "__dlpack__: copy must be True, False or None"),
]


@pytest.mark.parametrize("code,kind,expected", DLPACK_CASES, ids=[c[0] for c in DLPACK_CASES])
def test_bad_dlpack_export_arguments_raise_cleanly(code, kind, expected):
    # Each in its own process: a clean Python error, never a crash.
    result = outcome(code)
    assert result is not None and result[0] == kind and expected in result[1], result
