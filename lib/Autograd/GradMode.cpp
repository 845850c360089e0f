//===- GradMode.cpp - Whether autograd records ----------------------------===//

#include "opal/Autograd/GradMode.h"

using namespace opal::autograd;

namespace {
thread_local bool gradEnabled = true;
} // namespace

bool GradMode::isEnabled() { return gradEnabled; }
void GradMode::setEnabled(bool enabled) { gradEnabled = enabled; }
