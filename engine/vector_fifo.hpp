// A first-in first-out queue over one vector: empty, it owns no memory (std::deque allocates
// a block as soon as it exists), which matters for the scheduler's thousands of streams.
#pragma once

#include <cstddef>
#include <vector>

namespace opsim {

template <typename T>
class VectorFifo {
 public:
  bool empty() const { return head_ == items_.size(); }
  std::size_t size() const { return items_.size() - head_; }
  const T& front() const { return items_[head_]; }
  void push_back(const T& item) { items_.push_back(item); }
  void pop_front() {
    ++head_;
    if (head_ == items_.size()) {  // drained: start over at the front
      items_.clear();
      head_ = 0;
    } else if (head_ >= 64 && 2 * head_ >= items_.size()) {  // mostly popped: drop them
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }

 private:
  std::vector<T> items_;
  std::size_t head_ = 0;
};

}  // namespace opsim
