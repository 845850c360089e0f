//===- Version.h - What every opal tool says to --version -------*- C++ -*-===//

#ifndef OPAL_SUPPORT_VERSION_H
#define OPAL_SUPPORT_VERSION_H

#include <string>

namespace opal {

/// "opal 0.1.0 (build 1f2e3d4c5b6a7988)": the version and the GNU build id
/// of libopal, which changes with every build (and keys the kernel caches).
std::string versionText();

} // namespace opal

#endif // OPAL_SUPPORT_VERSION_H
