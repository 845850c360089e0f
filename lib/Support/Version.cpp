//===- Version.cpp - What every opal tool says to --version ---------------===//

#include "opal/Support/Version.h"

#include "opal/Config.h"
#include "opal/Support/BuildId.h"

std::string opal::versionText() {
  std::string build = buildIdOf(reinterpret_cast<const void *>(&opal::versionText));
  return std::string("opal ") + OPAL_VERSION + " (build " + build.substr(0, 16) + ")";
}
