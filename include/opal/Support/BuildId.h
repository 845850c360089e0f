//===- BuildId.h - GNU build ids of opal's shared objects -------*- C++ -*-===//
//
// The kernel caches key their entries on the build ids of libopal and
// libopal_compiler, so a rebuilt opal never reuses an old entry.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_SUPPORT_BUILDID_H
#define OPAL_SUPPORT_BUILDID_H

#include <string>

namespace opal {

/// The hex GNU build id of the loaded shared object that contains
/// `address`; "no-build-id" when it has none.
std::string buildIdOf(const void *address);
/// The hex GNU build id of the ELF file at `path`, read from its program
/// headers without loading it; "" when it cannot be read or has none.
std::string buildIdOfFile(const std::string &path);

} // namespace opal

#endif // OPAL_SUPPORT_BUILDID_H
