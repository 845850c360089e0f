//===- GradMode.h - Whether autograd records --------------------*- C++ -*-===//
//
// PyTorch's grad mode: a thread-local switch, on by default. With it off
// (opal.no_grad()), the Autograd kernels run the op without recording it.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_AUTOGRAD_GRADMODE_H
#define OPAL_AUTOGRAD_GRADMODE_H

namespace opal::autograd {

struct GradMode {
  static bool isEnabled();
  static void setEnabled(bool enabled);
};

/// Sets grad mode for a scope and restores it after.
class AutoGradMode {
public:
  explicit AutoGradMode(bool enabled) : previous_(GradMode::isEnabled()) {
    GradMode::setEnabled(enabled);
  }
  ~AutoGradMode() { GradMode::setEnabled(previous_); }
  AutoGradMode(const AutoGradMode &) = delete;
  AutoGradMode &operator=(const AutoGradMode &) = delete;

private:
  bool previous_;
};

class NoGradGuard : public AutoGradMode {
public:
  NoGradGuard() : AutoGradMode(false) {}
};

} // namespace opal::autograd

#endif // OPAL_AUTOGRAD_GRADMODE_H
