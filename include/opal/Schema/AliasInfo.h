//===- AliasInfo.h - Alias annotations of schema types ----------*- C++ -*-===//
//
// The `(a!)`, `(a -> *)`, `(a|b)` and `!` annotations of PyTorch's schema
// grammar. An annotation names the alias sets a value belongs to before the op
// runs and after it, and whether the op writes to it.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_SCHEMA_ALIASINFO_H
#define OPAL_SCHEMA_ALIASINFO_H

#include <string>
#include <vector>

namespace opal {

class AliasInfo {
public:
  /// The name of the wildcard set, `*`.
  static constexpr const char *kWildcard = "*";

  AliasInfo() = default;
  AliasInfo(std::vector<std::string> beforeSets, bool isWrite,
            std::vector<std::string> afterSets)
      : beforeSets_(std::move(beforeSets)), afterSets_(std::move(afterSets)),
        isWrite_(isWrite) {}

  /// The annotation `Tensor!`: a fresh, anonymous set that is written.
  static AliasInfo freshWrite() {
    AliasInfo info;
    info.isWrite_ = true;
    info.isFresh_ = true;
    return info;
  }

  const std::vector<std::string> &beforeSets() const { return beforeSets_; }
  /// Equal to beforeSets() unless the annotation has an explicit `->`.
  const std::vector<std::string> &afterSets() const { return afterSets_; }
  bool isWrite() const { return isWrite_; }
  /// True for `Tensor!` (no set name was written).
  bool isFresh() const { return isFresh_; }
  bool isWildcardBefore() const;
  bool isWildcardAfter() const;

  /// The annotation as written in a schema: `(a!)`, `(a -> *)`, or `!`.
  std::string str() const;

  bool operator==(const AliasInfo &other) const {
    return beforeSets_ == other.beforeSets_ &&
           afterSets_ == other.afterSets_ && isWrite_ == other.isWrite_ &&
           isFresh_ == other.isFresh_;
  }
  bool operator!=(const AliasInfo &other) const { return !(*this == other); }

private:
  std::vector<std::string> beforeSets_;
  std::vector<std::string> afterSets_;
  bool isWrite_ = false;
  bool isFresh_ = false;
};

} // namespace opal

#endif // OPAL_SCHEMA_ALIASINFO_H
