//===- Decimal.h - Decimal numbers in opal's text formats and knobs -*- C++ -*-===//
//
// The one reader of the unsigned decimals opal's own formats and knobs hold
// (kernel descriptions, cache manifests, remote entries, OPAL_* values): no
// sign, no spaces, a bounded number of digits, so nothing overflows.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_SUPPORT_DECIMAL_H
#define OPAL_SUPPORT_DECIMAL_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace opal {

/// Reads `digits` (1 to `maxDigits` of 0-9, maxDigits at most 19) into
/// `value`; false, with `value` untouched, for anything else.
bool readDecimal(std::string_view digits, size_t maxDigits, uint64_t &value);

/// A byte count: digits with an optional K, M or G (powers of 1024).
std::optional<uint64_t> parseByteCount(std::string_view text);

} // namespace opal

#endif // OPAL_SUPPORT_DECIMAL_H
