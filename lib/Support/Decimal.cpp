//===- Decimal.cpp - Decimal numbers in opal's text formats and knobs -----===//

#include "opal/Support/Decimal.h"

using namespace opal;

bool opal::readDecimal(std::string_view digits, size_t maxDigits, uint64_t &value) {
  if (digits.empty() || digits.size() > maxDigits || digits.size() > 19)
    return false;
  uint64_t result = 0;
  for (char c : digits) {
    if (c < '0' || c > '9')
      return false;
    result = result * 10 + static_cast<uint64_t>(c - '0');
  }
  value = result;
  return true;
}

std::optional<uint64_t> opal::parseByteCount(std::string_view text) {
  uint64_t scale = 1;
  if (!text.empty()) {
    switch (text.back()) {
    case 'K': case 'k': scale = 1ull << 10; break;
    case 'M': case 'm': scale = 1ull << 20; break;
    case 'G': case 'g': scale = 1ull << 30; break;
    default: break;
    }
  }
  uint64_t count = 0;
  if (!readDecimal(scale == 1 ? text : text.substr(0, text.size() - 1), 15, count))
    return std::nullopt;
  return count * scale;
}
