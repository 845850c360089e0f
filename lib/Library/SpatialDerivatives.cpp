//===- SpatialDerivatives.cpp - Gradients of resampling ops ---------------===//
//
// The derivative formulas (derivatives.opal.mlir) of upsample_nearest2d,
// upsample_bilinear2d (and their .vec overloads), col2im and
// grid_sampler_2d as native kernels.
//
// - Nearest upsampling copies one input element per output element: the
//   forward op applied to the plane of the input's indices says which, and
//   the gradient is scatter-added back there (scatterThroughIndexPlane).
// - Bilinear upsampling is separable and linear: out = Wh · x · Wwᵀ per
//   image. The forward op applied to identity matrices laid out as images
//   gives Whᵀ and Wwᵀ with the forward's own coordinate rules, and the
//   gradient is Whᵀ · g · Ww (two aten::matmul calls).
// - col2im adds each column entry into one image element (or none, in the
//   padding): its gradient reads the image's gradient at those positions.
// - grid_sampler_2d's gradients (input and grid) follow PyTorch 1.13's CPU
//   kernel (GridSamplerKernel.cpp / GridSampler.h): every interpolation
//   (bilinear, nearest, bicubic) and padding (zeros, border, reflection)
//   mode, computed on the host.
//
//===----------------------------------------------------------------------===//

#include "NativeKernels.h"

#include "opal/Support/Exceptions.h"

#include <cmath>

using namespace opal;
using namespace opal::library_detail;

namespace {

using Sizes = std::vector<int64_t>;
using Scale = std::optional<double>;

IValue optional(Scale s) { return s ? IValue(*s) : IValue(); }

Scale scaleAt(const std::optional<std::vector<double>> &factors, size_t i) {
  if (!factors || i >= factors->size())
    return std::nullopt;
  return (*factors)[i];
}

Tensor nearestBackward(const Tensor &grad, const Tensor &self, const Sizes &outputSize, Scale h,
                       Scale w) {
  return scatterThroughIndexPlane(grad, self.sizes(), 2, [&](const Tensor &plane) {
    return callTensor("aten::upsample_nearest2d", "",
                      {IValue(plane), IValue(outputSize), optional(h), optional(w)});
  });
}

/// The transposed interpolation matrix of one axis (size in x out): the
/// forward on an identity of `in` channels, one image per row.
Tensor interpolationMatrix(const Tensor &like, int64_t in, int64_t out, bool alongHeight,
                           bool alignCorners, Scale scale) {
  Sizes sizes = alongHeight ? Sizes{1, in, in, 1} : Sizes{1, in, 1, in};
  Tensor eye = Tensor::empty(sizes, ScalarType::Double);
  double *data = eye.data<double>();
  for (int64_t i = 0; i < in; ++i)
    for (int64_t j = 0; j < in; ++j)
      data[i * in + j] = i == j ? 1.0 : 0.0;
  Sizes outputSize = alongHeight ? Sizes{out, 1} : Sizes{1, out};
  Tensor m = callTensor("aten::upsample_bilinear2d", "",
                        {IValue(eye.to(like.dtype()).to(like.device())), IValue(outputSize),
                         IValue(alignCorners), optional(alongHeight ? scale : Scale()),
                         optional(alongHeight ? Scale() : scale)});
  return m.reshape({in, out});
}

Tensor bilinearBackward(const Tensor &grad, const Tensor &self, bool alignCorners, Scale h,
                        Scale w) {
  Tensor mh = interpolationMatrix(grad, self.size(2), grad.size(2), true, alignCorners, h);
  Tensor mw = interpolationMatrix(grad, self.size(3), grad.size(3), false, alignCorners, w);
  Tensor rows = callTensor("aten::matmul", "", {IValue(mh), IValue(grad)});
  return callTensor("aten::matmul", "", {IValue(rows), IValue(mw.t())});
}

// col2im: column entry (c * kh * kw + k, l) was added into image element
// (c, y, x) of block l's kernel offset k, or into the padding (none).
Tensor col2imBackward(const Tensor &grad, const Tensor &self, Sizes outputSize, Sizes kernel,
                      Sizes dilation, Sizes padding, Sizes stride) {
  int64_t height = outputSize[0], width = outputSize[1];
  int64_t blocksH = (height + 2 * padding[0] - dilation[0] * (kernel[0] - 1) - 1) / stride[0] + 1;
  int64_t blocksW = (width + 2 * padding[1] - dilation[1] * (kernel[1] - 1) - 1) / stride[1] + 1;
  int64_t taps = kernel[0] * kernel[1], blocks = blocksH * blocksW;
  Tensor at = Tensor::empty({taps * blocks}, ScalarType::Long);
  int64_t *p = at.data<int64_t>();
  for (int64_t ki = 0; ki < kernel[0]; ++ki)
    for (int64_t kj = 0; kj < kernel[1]; ++kj)
      for (int64_t bi = 0; bi < blocksH; ++bi)
        for (int64_t bj = 0; bj < blocksW; ++bj) {
          int64_t y = bi * stride[0] - padding[0] + ki * dilation[0];
          int64_t x = bj * stride[1] - padding[1] + kj * dilation[1];
          bool inside = y >= 0 && y < height && x >= 0 && x < width;
          *p++ = inside ? y * width + x : height * width;
        }
  // The image's gradient flattened per channel, one zero after it for the
  // padding's entries.
  Sizes flat(grad.sizes().begin(), grad.sizes().end() - 2);
  flat.push_back(height * width);
  Tensor image = callTensor("aten::constant_pad_nd", "",
                            {IValue(grad.contiguous().reshape(flat)), IValue(Sizes{0, 1}),
                             IValue(0.0)});
  Tensor columns = callTensor("aten::index_select", "",
                              {IValue(image), IValue(int64_t(-1)), IValue(at.to(grad.device()))});
  return columns.reshape(self.sizes());
}

//===--- grid_sampler_2d ------------------------------------------------===//

enum class Interpolation { Bilinear = 0, Nearest = 1, Bicubic = 2 };
enum class Padding { Zeros = 0, Border = 1, Reflection = 2 };

/// A grid coordinate in [-1, 1] as a pixel coordinate; `grad`: d(pixel)/d(coordinate).
template <typename T> T unnormalize(T coord, int64_t size, bool alignCorners, T *grad) {
  if (alignCorners) {
    *grad = static_cast<T>(size - 1) / 2;
    return (coord + 1) / 2 * static_cast<T>(size - 1);
  }
  *grad = static_cast<T>(size) / 2;
  return ((coord + 1) * static_cast<T>(size) - 1) / 2;
}

template <typename T> T clip(T in, int64_t size, T *grad) {
  if (in <= 0) {
    *grad = 0;
    return 0;
  }
  T max = static_cast<T>(size - 1);
  if (in >= max) {
    *grad = 0;
    return max;
  }
  *grad = 1;
  return in;
}

template <typename T> T reflect(T in, int64_t twiceLow, int64_t twiceHigh, T *grad) {
  if (twiceLow == twiceHigh) {
    *grad = 0;
    return 0;
  }
  T sign = 1;
  T min = static_cast<T>(twiceLow) / 2;
  T span = static_cast<T>(twiceHigh - twiceLow) / 2;
  in = in - min;
  if (in < 0) {
    sign = -1;
    in = -in;
  }
  T extra = std::fmod(in, span);
  auto flips = static_cast<int64_t>(std::floor(in / span));
  if (flips % 2 == 0) {
    *grad = sign;
    return extra + min;
  }
  *grad = -sign;
  return span - extra + min;
}

/// The padding mode applied to a pixel coordinate.
template <typename T>
T applyPadding(T coord, int64_t size, Padding padding, bool alignCorners, T *grad) {
  *grad = 1;
  if (padding == Padding::Border)
    return clip(coord, size, grad);
  if (padding == Padding::Reflection) {
    T reflectGrad, clipGrad;
    coord = alignCorners ? reflect(coord, 0, 2 * (size - 1), &reflectGrad)
                         : reflect(coord, -1, 2 * size - 1, &reflectGrad);
    coord = clip(coord, size, &clipGrad);
    *grad = reflectGrad * clipGrad;
  }
  return coord;
}

template <typename T>
T sourceIndex(T coord, int64_t size, Padding padding, bool alignCorners, T *grad) {
  T scale, padGrad;
  coord = unnormalize(coord, size, alignCorners, &scale);
  coord = applyPadding(coord, size, padding, alignCorners, &padGrad);
  *grad = scale * padGrad;
  return coord;
}

/// Keys's cubic convolution (A = -0.75): the weights of the four taps at
/// offsets -1, 0, 1, 2 from floor(x), t = x - floor(x), and their derivatives.
template <typename T> void cubicWeights(T t, T weights[4], T derivatives[4]) {
  const T a = -0.75;
  auto near = [&](T x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };
  auto far = [&](T x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };
  weights[0] = far(t + 1);
  weights[1] = near(t);
  weights[2] = near(1 - t);
  weights[3] = far(2 - t);
  T x = -1 - t;
  derivatives[0] = (-3 * a * x - 10 * a) * x - 8 * a;
  x = -t;
  derivatives[1] = (-3 * (a + 2) * x - 2 * (a + 3)) * x;
  x = 1 - t;
  derivatives[2] = (3 * (a + 2) * x - 2 * (a + 3)) * x;
  x = 2 - t;
  derivatives[3] = (3 * a * x - 10 * a) * x + 8 * a;
}

template <typename T> struct GridSampler {
  const T *input, *grid, *grad;
  T *gradInput, *gradGrid;
  int64_t n, channels, inH, inW, outH, outW;
  Padding padding;
  bool alignCorners;

  bool inside(int64_t y, int64_t x) const { return y >= 0 && y < inH && x >= 0 && x < inW; }
  size_t at(int64_t b, int64_t c, int64_t y, int64_t x) const {
    return static_cast<size_t>(((b * channels + c) * inH + y) * inW + x);
  }
  /// A bicubic tap: its coordinates padded; whether it reads the input.
  bool tap(int64_t &y, int64_t &x) const {
    T unused;
    y = static_cast<int64_t>(applyPadding(static_cast<T>(y), inH, padding, alignCorners, &unused));
    x = static_cast<int64_t>(applyPadding(static_cast<T>(x), inW, padding, alignCorners, &unused));
    return inside(y, x);
  }

  void run(Interpolation mode) {
    for (int64_t b = 0; b < n; ++b)
      for (int64_t h = 0; h < outH; ++h)
        for (int64_t w = 0; w < outW; ++w) {
          size_t g = static_cast<size_t>(((b * outH + h) * outW + w) * 2);
          T gx = 0, gy = 0, multX, multY;
          if (mode == Interpolation::Bicubic) {
            T ix = unnormalize(grid[g], inW, alignCorners, &multX);
            T iy = unnormalize(grid[g + 1], inH, alignCorners, &multY);
            bicubic(b, h, w, ix, iy, gx, gy);
          } else {
            T ix = sourceIndex(grid[g], inW, padding, alignCorners, &multX);
            T iy = sourceIndex(grid[g + 1], inH, padding, alignCorners, &multY);
            if (mode == Interpolation::Bilinear)
              bilinear(b, h, w, ix, iy, gx, gy);
            else
              nearest(b, h, w, ix, iy);
          }
          gradGrid[g] = multX * gx;
          gradGrid[g + 1] = multY * gy;
        }
  }

  T gradOut(int64_t b, int64_t c, int64_t h, int64_t w) const {
    return grad[((b * channels + c) * outH + h) * outW + w];
  }

  void bilinear(int64_t b, int64_t h, int64_t w, T ix, T iy, T &gx, T &gy) {
    auto x0 = static_cast<int64_t>(std::floor(ix)), y0 = static_cast<int64_t>(std::floor(iy));
    int64_t x1 = x0 + 1, y1 = y0 + 1;
    T east = ix - static_cast<T>(x0), west = static_cast<T>(x1) - ix;
    T south = iy - static_cast<T>(y0), north = static_cast<T>(y1) - iy;
    for (int64_t c = 0; c < channels; ++c) {
      T go = gradOut(b, c, h, w);
      // (corner y, x, weight, d weight / d ix, d weight / d iy)
      const struct {
        int64_t y, x;
        T weight, dx, dy;
      } corners[4] = {{y0, x0, west * north, -north, -west},
                      {y0, x1, east * north, north, -east},
                      {y1, x0, west * south, -south, west},
                      {y1, x1, east * south, south, east}};
      for (const auto &k : corners) {
        if (!inside(k.y, k.x))
          continue;
        size_t i = at(b, c, k.y, k.x);
        gradInput[i] += k.weight * go;
        gx += input[i] * k.dx * go;
        gy += input[i] * k.dy * go;
      }
    }
  }

  void nearest(int64_t b, int64_t h, int64_t w, T ix, T iy) {
    auto x = static_cast<int64_t>(std::nearbyint(ix)), y = static_cast<int64_t>(std::nearbyint(iy));
    if (!inside(y, x))
      return;
    for (int64_t c = 0; c < channels; ++c)
      gradInput[at(b, c, y, x)] += gradOut(b, c, h, w);
  }

  void bicubic(int64_t b, int64_t h, int64_t w, T ix, T iy, T &gx, T &gy) {
    T fx = std::floor(ix), fy = std::floor(iy);
    T wx[4], dx[4], wy[4], dy[4];
    cubicWeights(ix - fx, wx, dx);
    cubicWeights(iy - fy, wy, dy);
    auto x0 = static_cast<int64_t>(fx) - 1, y0 = static_cast<int64_t>(fy) - 1;
    for (int64_t c = 0; c < channels; ++c) {
      T go = gradOut(b, c, h, w);
      for (int64_t i = 0; i < 4; ++i)
        for (int64_t j = 0; j < 4; ++j) {
          int64_t y = y0 + j, x = x0 + i;
          if (!tap(y, x))
            continue;
          size_t k = at(b, c, y, x);
          gradInput[k] += go * wx[i] * wy[j];
          gx -= input[k] * dx[i] * wy[j] * go;
          gy -= input[k] * dy[j] * wx[i] * go;
        }
    }
  }
};

template <typename T>
void sampleBackward(const Tensor &grad, const Tensor &input, const Tensor &grid,
                    Tensor &gradInput, Tensor &gradGrid, Interpolation mode, Padding padding,
                    bool alignCorners) {
  GridSampler<T> s{input.data<T>(),     grid.data<T>(),  grad.data<T>(),  gradInput.data<T>(),
                   gradGrid.data<T>(),  input.size(0),   input.size(1),   input.size(2),
                   input.size(3),       grid.size(1),    grid.size(2),    padding,
                   alignCorners};
  s.run(mode);
}

std::tuple<Tensor, Tensor> gridSamplerBackward(const Tensor &grad, const Tensor &input,
                                               const Tensor &grid, int64_t interpolation,
                                               int64_t padding, bool alignCorners) {
  // The forward checked the modes, ranks and dtypes (float32 or float64).
  Tensor g = hostContiguous(grad).to(input.dtype()), in = hostContiguous(input);
  Tensor points = hostContiguous(grid);
  Tensor gradInput = Tensor::empty(in.sizes(), in.dtype());
  gradInput.fill(0.0);
  Tensor gradGrid = Tensor::empty(points.sizes(), in.dtype());
  auto mode = static_cast<Interpolation>(interpolation);
  auto pad = static_cast<Padding>(padding);
  if (in.dtype() == ScalarType::Double)
    sampleBackward<double>(g, in, points, gradInput, gradGrid, mode, pad, alignCorners);
  else if (in.dtype() == ScalarType::Float)
    sampleBackward<float>(g, in, points, gradInput, gradGrid, mode, pad, alignCorners);
  else
    throw OpalError(std::string("grid_sampler_2d_backward_cpu not implemented for ") +
                    scalarTypeCppName(in.dtype()));
  return {gradInput.to(input.device()), gradGrid.to(input.device())};
}

} // namespace

void opal::library_detail::appendSpatialDerivativeKernels(std::vector<NativeKernel> &kernels) {
  auto add = [&](const char *name, auto callable) {
    kernels.push_back({name, DispatchKey::CompositeExplicitAutograd,
                       KernelFunction::makeFromUnboxedCallable(std::move(callable))});
  };
  add("aten_backward::upsample_nearest2d",
      [](const Tensor &grad, const Tensor &self, Sizes outputSize, Scale h, Scale w) {
        return nearestBackward(grad, self, outputSize, h, w);
      });
  add("aten_backward::upsample_nearest2d.vec",
      [](const Tensor &grad, const Tensor &input, std::optional<Sizes> outputSize,
         std::optional<std::vector<double>> factors) {
        return scatterThroughIndexPlane(grad, input.sizes(), 2, [&](const Tensor &plane) {
          return callTensor("aten::upsample_nearest2d", "vec",
                            {IValue(plane), outputSize ? IValue(*outputSize) : IValue(),
                             factors ? IValue(*factors) : IValue()});
        });
      });
  add("aten_backward::upsample_bilinear2d",
      [](const Tensor &grad, const Tensor &self, Sizes, bool alignCorners, Scale h, Scale w) {
        return bilinearBackward(grad, self, alignCorners, h, w);
      });
  add("aten_backward::upsample_bilinear2d.vec",
      [](const Tensor &grad, const Tensor &input, std::optional<Sizes>, bool alignCorners,
         std::optional<std::vector<double>> factors) {
        return bilinearBackward(grad, input, alignCorners, scaleAt(factors, 0),
                                scaleAt(factors, 1));
      });
  add("aten_backward::col2im", col2imBackward);
  add("aten_backward::grid_sampler_2d", gridSamplerBackward);
}
