//===- Exceptions.cpp - Errors and warnings -------------------------------===//

#include "opal/Support/Exceptions.h"

#include <iostream>
#include <mutex>

using namespace opal;

namespace {
std::mutex &handlerMutex() {
  static std::mutex mutex;
  return mutex;
}
WarningHandler &currentHandler() {
  static WarningHandler handler;
  return handler;
}
} // namespace

void opal::warn(const std::string &message) {
  WarningHandler handler;
  {
    std::lock_guard<std::mutex> lock(handlerMutex());
    handler = currentHandler();
  }
  if (handler)
    handler(message);
  else
    std::cerr << "Warning: " << message << std::endl;
}

WarningHandler opal::setWarningHandler(WarningHandler handler) {
  std::lock_guard<std::mutex> lock(handlerMutex());
  WarningHandler previous = std::move(currentHandler());
  currentHandler() = std::move(handler);
  return previous;
}
