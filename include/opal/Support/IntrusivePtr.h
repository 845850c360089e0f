//===- IntrusivePtr.h - Reference counting in the object --------*- C++ -*-===//
//
// Tensors, storages and kernel functors are shared by pointer and counted in
// the object itself: one atomic increment to copy a handle, no control block.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_SUPPORT_INTRUSIVEPTR_H
#define OPAL_SUPPORT_INTRUSIVEPTR_H

#include <atomic>
#include <cstdint>
#include <utility>

namespace opal {

/// Base of every intrusively counted object. Starts with a count of zero;
/// the first IntrusivePtr takes it to one.
class RefCounted {
public:
  RefCounted() = default;
  RefCounted(const RefCounted &) = delete;
  RefCounted &operator=(const RefCounted &) = delete;
  virtual ~RefCounted() = default;

  void retain() const { refCount_.fetch_add(1, std::memory_order_relaxed); }
  void release() const {
    if (refCount_.fetch_sub(1, std::memory_order_acq_rel) == 1)
      delete this;
  }
  uint32_t useCount() const { return refCount_.load(std::memory_order_relaxed); }

private:
  mutable std::atomic<uint32_t> refCount_{0};
};

template <typename T> class IntrusivePtr {
public:
  IntrusivePtr() = default;
  IntrusivePtr(std::nullptr_t) {}
  explicit IntrusivePtr(T *object) : ptr_(object) {
    if (ptr_)
      ptr_->retain();
  }
  IntrusivePtr(const IntrusivePtr &other) : ptr_(other.ptr_) {
    if (ptr_)
      ptr_->retain();
  }
  IntrusivePtr(IntrusivePtr &&other) noexcept : ptr_(other.ptr_) {
    other.ptr_ = nullptr;
  }
  template <typename U>
  IntrusivePtr(IntrusivePtr<U> other) : ptr_(other.release()) {}
  ~IntrusivePtr() {
    if (ptr_)
      ptr_->release();
  }
  IntrusivePtr &operator=(IntrusivePtr other) noexcept {
    std::swap(ptr_, other.ptr_);
    return *this;
  }

  /// Takes over a reference that was given up with release().
  static IntrusivePtr adopt(T *object) {
    IntrusivePtr ptr;
    ptr.ptr_ = object;
    return ptr;
  }

  template <typename... Args> static IntrusivePtr make(Args &&...args) {
    return IntrusivePtr(new T(std::forward<Args>(args)...));
  }

  T *get() const { return ptr_; }
  T *operator->() const { return ptr_; }
  T &operator*() const { return *ptr_; }
  explicit operator bool() const { return ptr_ != nullptr; }
  bool operator==(const IntrusivePtr &other) const { return ptr_ == other.ptr_; }
  bool operator!=(const IntrusivePtr &other) const { return ptr_ != other.ptr_; }

  /// Gives up ownership without releasing.
  T *release() {
    T *object = ptr_;
    ptr_ = nullptr;
    return object;
  }

private:
  T *ptr_ = nullptr;
};

} // namespace opal

#endif // OPAL_SUPPORT_INTRUSIVEPTR_H
