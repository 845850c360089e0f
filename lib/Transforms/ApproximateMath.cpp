//===- ApproximateMath.cpp - The opal-approximate-math pass ---------------===//
//
// f32 transcendental math ops become MLIR's polynomial approximations, which
// LLVM's vectorizers turn into SIMD code; libm calls are scalar. Before them,
// powers by constant exponents become products (MLIR's algebraic
// simplification) and the tanh of a log1p (a softplus's) a rational
// function of log1p's operand.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/StringSet.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALAPPROXIMATEMATH
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;

namespace {

/// The approximations use math.fma; libm's fmaf would be one call per
/// element, so fused multiply-adds go straight to the LLVM intrinsic.
struct FmaToIntrinsic : public OpRewritePattern<math::FmaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::FmaOp op, PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::FMAOp>(op, op.getA(), op.getB(), op.getC());
    return success();
  }
};

/// An f32 constant of `type` (f32, or a vector of f32 as a splat).
Value f32Constant(OpBuilder &b, Location loc, Type type, float value) {
  TypedAttr scalar = b.getF32FloatAttr(value);
  if (auto shaped = dyn_cast<ShapedType>(type))
    return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(shaped, scalar));
  return arith::ConstantOp::create(b, loc, scalar);
}

/// f32 erf as one rational function, erf(x) = x P(x^2) / Q(x^2) on
/// |x| <= 3.92 (beyond which erf rounds to +-1 in f32), with P of degree 6
/// and Q of degree 4: a dozen fused multiply-adds and one division, with no
/// interval selection. (MLIR's approximation picks the coefficients of one
/// of three intervals per element: twice the instructions and the registers
/// of a vector loop.) The coefficients are a minimax fit of erf(x)/x in x^2
/// rounded to f32 (scripts/fit_erf.py, which also measures the error).
struct ErfRational : public OpRewritePattern<math::ErfOp> {
  using OpRewritePattern::OpRewritePattern;

  static constexpr float kClamp = 3.92f;
  static constexpr float kNumerator[] = {
      0x1.20dd74p+0f,  0x1.996426p-3f,  0x1.9e449cp-5f, 0x1.e508acp-9f,
      0x1.296eb2p-13f, -0x1.06c618p-19f, 0x1.565440p-26f};
  static constexpr float kDenominator[] = {0x1.000000p+0f, 0x1.055e84p-1f, 0x1.d6fd1ep-4f,
                                           0x1.d6408ep-7f, 0x1.f51ae6p-11f};

  LogicalResult matchAndRewrite(math::ErfOp op, PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32())
      return rewriter.notifyMatchFailure(op, "not f32");
    Location loc = op.getLoc();
    auto constant = [&](float value) { return f32Constant(rewriter, loc, type, value); };
    // maximumf/minimumf keep a NaN input NaN; +-inf clamp to +-1.
    Value x = arith::MaximumFOp::create(rewriter, loc, op.getOperand(), constant(-kClamp));
    x = arith::MinimumFOp::create(rewriter, loc, x, constant(kClamp));
    Value square = arith::MulFOp::create(rewriter, loc, x, x);
    auto horner = [&](llvm::ArrayRef<float> coefficients) {
      Value sum = constant(coefficients.back());
      for (float coefficient : llvm::reverse(coefficients.drop_back()))
        sum = LLVM::FMAOp::create(rewriter, loc, sum, square, constant(coefficient));
      return sum;
    };
    Value numerator = arith::MulFOp::create(rewriter, loc, x, horner(kNumerator));
    Value result = arith::DivFOp::create(rewriter, loc, numerator, horner(kDenominator));
    // The rational stays within one ulp of +-1 at the clamp; never past it.
    result = arith::MinimumFOp::create(rewriter, loc, result, constant(1.0f));
    result = arith::MaximumFOp::create(rewriter, loc, result, constant(-1.0f));
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// f32 exp(x) = 2^n e^r, n = round(x / ln 2), r = x - n ln 2 in [-ln 2 / 2,
/// ln 2 / 2], with e^r the same polynomial as MLIR's approximation (Cephes'
/// coefficients), but 2^n applied by llvm.intr.ldexp: one vscalefps on
/// AVX-512 (`scalef`), which rounds to a subnormal or overflows to inf by
/// itself. So n needs no clamp, nor 2^n its bits built and multiplied: four
/// instructions fewer a vector, and exp(x) for x in [-103.9, -87.3] is the
/// subnormal PyTorch returns rather than 0. x is clamped to [-104, 88.8]
/// (beyond them exp rounds to 0 and inf; r stays small for +-inf), NaN
/// kept.
struct ExpScaled : public OpRewritePattern<math::ExpOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::ExpOp op, PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32())
      return rewriter.notifyMatchFailure(op, "not f32");
    Location loc = op.getLoc();
    auto constant = [&](float value) { return f32Constant(rewriter, loc, type, value); };
    auto fma = [&](Value a, Value b, Value c) -> Value {
      return LLVM::FMAOp::create(rewriter, loc, a, b, c);
    };
    // Clamps as select(x uge lo, x, lo): one max instruction that keeps a
    // NaN x (arith.maximumf costs a NaN test more).
    auto clamp = [&](Value x, float low, float high) {
      Value lo = constant(low), hi = constant(high);
      Value above = arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::UGE, x, lo);
      x = arith::SelectOp::create(rewriter, loc, above, x, lo);
      Value below = arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::ULE, x, hi);
      return arith::SelectOp::create(rewriter, loc, below, x, hi).getResult();
    };
    Value x = clamp(op.getOperand(), -104.0f, 88.8f);
    Value n = math::FloorOp::create(rewriter, loc,
                                    fma(x, constant(0x1.715476p+0f), constant(0.5f)));
    // r = x - n ln 2, ln 2 in two parts (the first exact in n's products).
    Value r = fma(constant(-0.693359375f), n, x);
    r = fma(constant(2.12194440e-4f), n, r);
    Value p = constant(1.9875691500e-4f);
    for (float coefficient : {1.3981999507e-3f, 8.3334519073e-3f, 4.1665795894e-2f,
                              1.6666665459e-1f, 5.0000001201e-1f})
      p = fma(p, r, constant(coefficient));
    p = fma(p, arith::MulFOp::create(rewriter, loc, r, r), r);
    p = arith::AddFOp::create(rewriter, loc, p, constant(1.0f));
    Type i32 = rewriter.getI32Type();
    if (auto shaped = dyn_cast<ShapedType>(type))
      i32 = shaped.clone(i32);
    Value exponent = arith::FPToSIOp::create(rewriter, loc, i32, n);
    rewriter.replaceOpWithNewOp<LLVM::LoadExpOp>(op, type, p, exponent);
    return success();
  }
};

/// tanh(log1p(y)) = ((1 + y)^2 - 1) / ((1 + y)^2 + 1) = n / (n + 2) with
/// n = y (y + 2): the tanh of a softplus (mish's x tanh(softplus(x)), and
/// its derivative) without a logarithm or a tanh. Computed as n / (n + 2)
/// for n <= 1 (no cancellation for small y) and 1 - 2 / (n + 2) above it
/// (1 for an n that overflowed), with one division. A softplus with a
/// threshold is select(x > K, x, log1p(exp(x))): the tanh moves into both
/// sides, and where K >= 9 the tanh of the side x > K is 1 (in f32, tanh
/// rounds to 1 from 9.01).
struct TanhOfLog1p : public OpRewritePattern<math::TanhOp> {
  using OpRewritePattern::OpRewritePattern;

  static constexpr double kSaturated = 9.0;

  LogicalResult matchAndRewrite(math::TanhOp op, PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32())
      return rewriter.notifyMatchFailure(op, "not f32");
    Location loc = op.getLoc();
    auto constant = [&](float value) { return f32Constant(rewriter, loc, type, value); };
    auto rational = [&](Value y) -> Value {
      Value n = arith::MulFOp::create(
          rewriter, loc, y, arith::AddFOp::create(rewriter, loc, y, constant(2.0f)));
      Value inverse = arith::DivFOp::create(
          rewriter, loc, constant(1.0f), arith::AddFOp::create(rewriter, loc, n, constant(2.0f)));
      Value small = arith::MulFOp::create(rewriter, loc, n, inverse);
      Value large = arith::SubFOp::create(
          rewriter, loc, constant(1.0f),
          arith::MulFOp::create(rewriter, loc, constant(2.0f), inverse));
      Value above = arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OGT, n,
                                          constant(1.0f));
      return arith::SelectOp::create(rewriter, loc, above, large, small);
    };
    Value input = op.getOperand();
    if (auto log1p = input.getDefiningOp<math::Log1pOp>()) {
      rewriter.replaceOp(op, rational(log1p.getOperand()));
      return success();
    }
    auto select = input.getDefiningOp<arith::SelectOp>();
    if (!select)
      return rewriter.notifyMatchFailure(op, "neither log1p nor a select");
    auto log1p = select.getFalseValue().getDefiningOp<math::Log1pOp>();
    if (!log1p)
      return rewriter.notifyMatchFailure(op, "no log1p on the select's false side");
    Value other = select.getTrueValue();
    Value otherTanh;
    // select(other > K, other, ...) with K >= 9: tanh(other) is 1 there.
    if (auto compare = select.getCondition().getDefiningOp<arith::CmpFOp>()) {
      auto predicate = compare.getPredicate();
      FloatAttr bound;
      bool greater = predicate == arith::CmpFPredicate::OGT ||
                     predicate == arith::CmpFPredicate::OGE;
      if (greater && compare.getLhs() == other &&
          matchPattern(compare.getRhs(), m_Constant(&bound)) &&
          bound.getValueAsDouble() >= kSaturated)
        otherTanh = constant(1.0f);
    }
    if (!otherTanh)
      otherTanh = math::TanhOp::create(rewriter, loc, other);
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, select.getCondition(), otherTanh,
                                                 rational(log1p.getOperand()));
    return success();
  }
};

struct OpalApproximateMath
    : public opal::ir::impl::OpalApproximateMathBase<OpalApproximateMath> {
  using OpalApproximateMathBase::OpalApproximateMathBase;

  void runOnOperation() override {
    llvm::StringSet<> names;
    if (ops.empty())
      for (const char *name : {"exp", "expm1", "log", "log1p", "log2", "tanh", "erf"})
        names.insert(std::string("math.") + name);
    for (const std::string &name : ops)
      names.insert("math." + name);
    // Algebra first, while the ops it matches are whole: a power by a
    // constant exponent (2, 3, 0.5, -1, ... : a graph's x ** 3 in GPT-2's
    // gelu) as products, a square root or a division, as PyTorch's CPU
    // kernel computes those powers, instead of one libm powf per element.
    RewritePatternSet algebra(&getContext());
    populateMathAlgebraicSimplificationPatterns(algebra);
    if (names.contains("math.tanh"))
      algebra.add<TanhOfLog1p>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(algebra))))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    // opal's own f32 erf; MLIR's approximations for the rest.
    bool erf = names.erase("math.erf");
    bool exp = scalef && names.erase("math.exp");
    populateMathPolynomialApproximationPatterns(
        patterns, [&](StringRef name) { return names.contains(name); });
    if (erf)
      patterns.add<ErfRational>(&getContext());
    if (exp)
      patterns.add<ExpScaled>(&getContext());
    patterns.add<FmaToIntrinsic>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
