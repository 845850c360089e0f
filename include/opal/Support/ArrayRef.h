//===- ArrayRef.h - Views of int arrays, and small inline vectors -*- C++ -*-===//
//
// Tensor shapes are short: `IntArrayRef` views one without owning it, and
// `DimVector` stores one inline (up to kInlineDims entries without touching
// the heap), so making a tensor costs no allocation for its shape.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_SUPPORT_ARRAYREF_H
#define OPAL_SUPPORT_ARRAYREF_H

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <ostream>
#include <vector>

namespace opal {

/// A read-only view of contiguous int64_t values (a shape or strides).
class IntArrayRef {
public:
  IntArrayRef() = default;
  IntArrayRef(const int64_t *data, size_t size) : data_(data), size_(size) {}
  IntArrayRef(const std::vector<int64_t> &values)
      : data_(values.data()), size_(values.size()) {}
  // For arguments such as `empty({2, 3})`: the list lives until the end of
  // the call's full expression, which is all a view of it needs.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  IntArrayRef(std::initializer_list<int64_t> values)
      : data_(values.begin()), size_(values.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

  const int64_t *data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const int64_t *begin() const { return data_; }
  const int64_t *end() const { return data_ + size_; }
  int64_t operator[](size_t i) const { return data_[i]; }
  int64_t front() const { return data_[0]; }
  int64_t back() const { return data_[size_ - 1]; }
  std::vector<int64_t> vec() const { return std::vector<int64_t>(begin(), end()); }

  friend bool operator==(IntArrayRef a, IntArrayRef b) {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator!=(IntArrayRef a, IntArrayRef b) { return !(a == b); }
  friend bool operator==(IntArrayRef a, const std::vector<int64_t> &b) {
    return a == IntArrayRef(b);
  }
  friend bool operator==(const std::vector<int64_t> &a, IntArrayRef b) {
    return IntArrayRef(a) == b;
  }
  friend std::ostream &operator<<(std::ostream &os, IntArrayRef values) {
    os << "[";
    for (size_t i = 0; i < values.size(); ++i)
      os << (i ? ", " : "") << values[i];
    return os << "]";
  }

private:
  const int64_t *data_ = nullptr;
  size_t size_ = 0;
};

/// An int64_t vector that keeps up to kInlineDims entries inline.
class DimVector {
public:
  static constexpr size_t kInlineDims = 6;

  DimVector() = default;
  DimVector(IntArrayRef values) { assign(values); }
  DimVector(size_t size, int64_t value) {
    resize(size);
    std::fill(data(), data() + size, value);
  }
  DimVector(const DimVector &other) { assign(other); }
  DimVector &operator=(const DimVector &other) {
    if (this != &other)
      assign(other);
    return *this;
  }
  DimVector(DimVector &&other) noexcept { *this = std::move(other); }
  DimVector &operator=(DimVector &&other) noexcept {
    if (this == &other)
      return *this;
    if (other.heap_.empty()) {
      heap_.clear();
      std::memcpy(inline_, other.inline_, sizeof(inline_));
    } else {
      heap_ = std::move(other.heap_);
    }
    size_ = other.size_;
    other.size_ = 0;
    other.heap_.clear();
    return *this;
  }

  operator IntArrayRef() const { return IntArrayRef(data(), size_); }
  int64_t *data() { return heap_.empty() ? inline_ : heap_.data(); }
  const int64_t *data() const { return heap_.empty() ? inline_ : heap_.data(); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t &operator[](size_t i) { return data()[i]; }
  int64_t operator[](size_t i) const { return data()[i]; }
  int64_t *begin() { return data(); }
  int64_t *end() { return data() + size_; }
  int64_t back() const { return data()[size_ - 1]; }
  const int64_t *begin() const { return data(); }
  const int64_t *end() const { return data() + size_; }

  void resize(size_t size) {
    if (size > kInlineDims && heap_.empty()) {
      heap_.assign(inline_, inline_ + size_);
      heap_.resize(size);
    } else if (!heap_.empty()) {
      heap_.resize(std::max(size, kInlineDims + 1));
    }
    size_ = size;
  }
  void push_back(int64_t value) {
    resize(size_ + 1);
    data()[size_ - 1] = value;
  }
  void insert(size_t position, int64_t value) {
    resize(size_ + 1);
    int64_t *d = data();
    std::memmove(d + position + 1, d + position, (size_ - 1 - position) * sizeof(int64_t));
    d[position] = value;
  }
  void erase(size_t position) {
    int64_t *d = data();
    std::memmove(d + position, d + position + 1, (size_ - 1 - position) * sizeof(int64_t));
    --size_;
  }
  std::vector<int64_t> vec() const { return std::vector<int64_t>(begin(), end()); }

private:
  void assign(IntArrayRef values) {
    heap_.clear();
    size_ = 0;
    resize(values.size());
    std::copy(values.begin(), values.end(), data());
  }

  int64_t inline_[kInlineDims] = {};
  std::vector<int64_t> heap_; // used only beyond kInlineDims entries
  size_t size_ = 0;
};

} // namespace opal

#endif // OPAL_SUPPORT_ARRAYREF_H
