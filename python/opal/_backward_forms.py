"""PyTorch's backward ops, as AOTAutograd's backward graphs call them, in
the terms of opal's derivative formulas (aten_backward::*), for opal.torch's
graph compiler.

Called as ops, opal's kernels of these ops are native (they leave out the
gradients whose output_mask entry is false, which an MLIR kernel's fixed
results cannot), so a graph holding one would run op by op. In a graph the
mask is the graph's constant: each form calls only the formulas whose
gradients are asked for, and those are MLIR decompositions that fuse into
the graph's kernel. PyTorch's meta functions checked the arguments when
AOTAutograd traced the graph. Each form takes the graph node first (what
it recorded), then the op's arguments.
"""

from . import ops as _ops


def _wants(mask, i):
    return mask is not None and i < len(mask) and bool(mask[i])


def _summed_to(node, gradient, kept):
    """A per-element gradient of a parameter summed over the input's
    leading dims (all but the last `kept`), as the parameter's shape."""
    leading = list(range(node.args[1].meta["val"].dim() - kept))
    return _ops.aten.sum.dim_IntList(gradient, leading) if leading else gradient


def layer_norm_backward(node, grad, input, normalized_shape, mean, rstd, weight, bias,
                        output_mask):
    """native_layer_norm_backward: the formula gives weight's and bias's
    gradients at the input's shape; they are summed to the parameters'."""
    gi, gw, gb = _ops.aten_backward.native_layer_norm(grad, input, list(normalized_shape),
                                                      weight, mean, rstd)
    kept = len(normalized_shape)
    return (gi if _wants(output_mask, 0) else None,
            _summed_to(node, gw, kept) if _wants(output_mask, 1) and weight is not None
            else None,
            _summed_to(node, gb, kept) if _wants(output_mask, 2) and bias is not None
            else None)


def group_norm_backward(node, grad, input, mean, rstd, weight, n, channels, hxw, group,
                        output_mask):
    gi, gw, gb = _ops.aten_backward.native_group_norm(grad, input, weight, n, channels, hxw,
                                                      group, mean, rstd)
    return (gi if _wants(output_mask, 0) else None,
            gw if _wants(output_mask, 1) else None,
            gb if _wants(output_mask, 2) else None)


def embedding_dense_backward(node, grad, indices, num_weights, padding_idx,
                             scale_grad_by_freq):
    """The formula reads only the table's shape and dtype (a zero-filled
    stand-in, which the compiler drops)."""
    like = _ops.aten.new_zeros(grad, [num_weights, grad.size(-1)])
    return _ops.aten_backward.embedding(grad, like, indices, padding_idx, scale_grad_by_freq)


def max_pool2d_backward(node, grad, self, kernel_size, stride, padding, dilation,
                        ceil_mode, indices):
    return _ops.aten_backward.max_pool2d_with_indices(grad, self, indices)


FORMS = {"aten.native_layer_norm_backward.default": layer_norm_backward,
         "aten.native_group_norm_backward.default": group_norm_backward,
         "aten.embedding_dense_backward.default": embedding_dense_backward,
         "aten.max_pool2d_with_indices_backward.default": max_pool2d_backward}
