// The bot's randomness: one seeded generator, and the picks every game needs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <google/protobuf/repeated_field.h>

class Rng {
 public:
  explicit Rng(uint64_t seed = 0) : gen_(seed) {}

  void reseed(uint64_t seed) { gen_.seed(seed); }

  // A number from 0 to n - 1 (n > 0).
  size_t below(size_t n) {
    if (n == 0) throw std::logic_error("Rng::below(0)");
    return std::uniform_int_distribution<size_t>(0, n - 1)(gen_);
  }

  bool coin() { return below(2) == 1; }

  // A number from lo to hi, both included.
  size_t between(size_t lo, size_t hi) { return lo + below(hi - lo + 1); }

  template <class T>
  const T& pick(const std::vector<T>& items) { return items.at(below(items.size())); }

  template <class T>
  const T& pick(const google::protobuf::RepeatedPtrField<T>& items) { return items.Get(below(items.size())); }

  template <class T>
  T pick(const google::protobuf::RepeatedField<T>& items) { return items.Get(below(items.size())); }

  // A random subset of `items` with between lo and hi members (clamped to the items there are), in random order.
  template <class T>
  std::vector<T> sample(std::vector<T> items, size_t lo, size_t hi) {
    hi = std::min(hi, items.size());
    lo = std::min(lo, hi);
    std::shuffle(items.begin(), items.end(), gen_);
    items.resize(between(lo, hi));
    return items;
  }

 private:
  std::mt19937_64 gen_;
};

// A seed from ARENA_BOT_SEED: the number itself when it is one, else a hash of the text.
inline uint64_t seed_from(const std::string& text) {
  if (!text.empty() && std::all_of(text.begin(), text.end(), ::isdigit) && text.size() < 20) return std::stoull(text);
  uint64_t hash = 1469598103934665603ULL;  // FNV-1a
  for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ULL;
  return hash;
}

template <class T>
std::vector<T> to_vector(const google::protobuf::RepeatedPtrField<T>& items) {
  return std::vector<T>(items.begin(), items.end());
}

template <class T>
std::vector<T> to_vector(const google::protobuf::RepeatedField<T>& items) {
  return std::vector<T>(items.begin(), items.end());
}
