// A vector of trivially copyable values that keeps its first N elements inline: task graphs
// have thousands of short dependency lists, and allocating each one dominated building them.
#pragma once
#include <cstdlib>
#include <cstring>
#include <type_traits>

namespace autopar {

template <class T, int N>
class SmallVector {
  static_assert(std::is_trivially_copyable<T>::value, "SmallVector holds plain values");

 public:
  SmallVector() = default;
  SmallVector(const SmallVector& o) { *this = o; }
  SmallVector& operator=(const SmallVector& o) {
    if (this == &o) return *this;
    clear();
    reserve(o.size_);
    std::memcpy(data(), o.data(), sizeof(T) * size_t(o.size_));
    size_ = o.size_;
    return *this;
  }
  // Moves take the heap storage (so growing a vector of tasks copies no lists and allocates
  // nothing); the moved-from vector is left empty.
  SmallVector(SmallVector&& o) noexcept { take(o); }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this == &o) return *this;
    if (heap_) std::free(heap_);
    heap_ = nullptr;
    take(o);
    return *this;
  }
  ~SmallVector() { if (heap_) std::free(heap_); }
  // Appends a value.
  void push_back(T v) {
    if (size_ == capacity_) reserve(capacity_ * 2);
    data()[size_++] = v;
  }
  // Removes every element for which doomed(element) holds, keeping the order of the rest, and
  // calls on_erase(position, element) for each with the position it had when the ones before it
  // were gone (so that inserting them back at those positions, last first, restores the list).
  template <class P, class F>
  void erase_if(P doomed, F on_erase) {
    T* d = data();
    int w = 0;
    for (int r = 0; r < size_; ++r) {
      if (doomed(d[r])) on_erase(w, d[r]);
      else d[w++] = d[r];
    }
    size_ = w;
  }
  // Inserts v at position i (0 <= i <= size()), shifting the rest right.
  void insert(int i, T v) {
    if (size_ == capacity_) reserve(capacity_ * 2);
    T* d = data();
    std::memmove(d + i + 1, d + i, sizeof(T) * size_t(size_ - i));
    d[i] = v;
    ++size_;
  }
  // Removes the last element (the list is not empty).
  void pop_back() { --size_; }
  // Removes all elements (keeps the storage).
  void clear() { size_ = 0; }
  int size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return heap_ ? heap_ : inline_; }
  const T* data() const { return heap_ ? heap_ : inline_; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T operator[](int i) const { return data()[i]; }

 private:
  // Takes o's elements and storage (this has no heap storage).
  void take(SmallVector& o) {
    if (o.heap_) {
      heap_ = o.heap_;
      capacity_ = o.capacity_;
    } else {
      // All N, a fixed size the compiler copies inline (the used count would call memcpy).
      std::memcpy(inline_, o.inline_, sizeof inline_);
      capacity_ = N;
    }
    size_ = o.size_;
    o.heap_ = nullptr;
    o.size_ = 0;
    o.capacity_ = N;
  }
  void reserve(int n) {
    if (n <= capacity_) return;
    T* fresh = static_cast<T*>(std::malloc(sizeof(T) * size_t(n)));
    if (!fresh) std::abort();  // out of memory: nothing sensible is left to do
    std::memcpy(fresh, data(), sizeof(T) * size_t(size_));
    if (heap_) std::free(heap_);
    heap_ = fresh;
    capacity_ = n;
  }
  T inline_[N];
  T* heap_ = nullptr;
  int size_ = 0;
  int capacity_ = N;
};

}  // namespace autopar
