//===- Packing.h - Panels of a transposed matrix for the products -*- C++ -*-===//
//
// A matrix product whose B comes transposed ([n, k]: linear's weight, read
// in place) packs each block of B into panels `lanes` columns wide, the
// layout opal-tile-matmul's register tiles read (Transforms/TileMatmul.cpp):
// element (k, j) of the panel of columns jj .. jj + lanes at
// (k - k0) * lanes + j - jj. Reading B's rows across into a panel's columns
// is a transpose; done here, compiled once, rather than in every kernel,
// where its vector shuffles and masked loads were about a third of a
// compile of `linear` (193M instructions over `mm`'s 468M). Squares of
// lanes x lanes run as vector loads transposed in registers (AVX-512's
// 16 floats or 8 doubles, or blocks of AVX2's 8 or 4); the rest one
// element at a time.
//
// The functions take their memrefs as a kernel passes them (MLIR's default
// calling convention: allocated and aligned pointer, offset, sizes,
// strides), and are bound for kernels by JIT/KernelRuntime.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_RUNTIME_PACKING_H
#define OPAL_RUNTIME_PACKING_H

#include <cstdint>

extern "C" {
/// Packs rows jj .. jj + columns of the [n, k] matrix B (columns of the
/// product; columns <= lanes), k from k0 to kEnd, into the panel that
/// starts at element `start` of `packed`: (k - k0) * lanes + c holds
/// B[jj + c, k], zeros past `columns`. B's rows are contiguous (its last
/// stride is 1).
void opal_pack_panel_f32(const float *bAllocated, const float *b, int64_t bOffset, int64_t n,
                         int64_t k, int64_t rowStride, int64_t kStride, int64_t jj,
                         int64_t columns, int64_t k0, int64_t kEnd, float *packedAllocated,
                         float *packed, int64_t packedOffset, int64_t packedSize,
                         int64_t packedStride, int64_t start, int64_t lanes);
/// The same for doubles.
void opal_pack_panel_f64(const double *bAllocated, const double *b, int64_t bOffset, int64_t n,
                         int64_t k, int64_t rowStride, int64_t kStride, int64_t jj,
                         int64_t columns, int64_t k0, int64_t kEnd, double *packedAllocated,
                         double *packed, int64_t packedOffset, int64_t packedSize,
                         int64_t packedStride, int64_t start, int64_t lanes);
}

#endif // OPAL_RUNTIME_PACKING_H
