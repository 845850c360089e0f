//===- AliasInfo.cpp - Alias annotations of schema types ------------------===//

#include "opal/Schema/AliasInfo.h"

#include <algorithm>

using namespace opal;

static bool containsWildcard(const std::vector<std::string> &sets) {
  return std::find(sets.begin(), sets.end(), AliasInfo::kWildcard) !=
         sets.end();
}

bool AliasInfo::isWildcardBefore() const { return containsWildcard(beforeSets_); }
bool AliasInfo::isWildcardAfter() const { return containsWildcard(afterSets_); }

static void joinSets(std::string &out, const std::vector<std::string> &sets) {
  for (size_t i = 0; i < sets.size(); ++i) {
    if (i)
      out += '|';
    out += sets[i];
  }
}

std::string AliasInfo::str() const {
  if (isFresh_)
    return "!";
  std::string out = "(";
  joinSets(out, beforeSets_);
  if (isWrite_)
    out += '!';
  if (beforeSets_ != afterSets_) {
    out += " -> ";
    joinSets(out, afterSets_);
  }
  out += ')';
  return out;
}
