#pragma once
// odm::Embedded<T>: "this value lives inside its parent document". It stores exactly as
// T does (a sub-document); the wrapper documents the modelling decision in the type,
// where relationship fields (Ref, ParentRef, Subset) say the opposite.

#include <odm/bson/codec.hpp>
#include <odm/bson/kind.hpp>

#include <compare>
#include <string_view>
#include <type_traits>
#include <utility>

namespace odm {

template <class T>
class Embedded {
 public:
  using value_type = T;

  Embedded() = default;
  Embedded(const T& value) : value_(value) {}                 // NOLINT(google-explicit-constructor): transparent
  Embedded(T&& value) noexcept(std::is_nothrow_move_constructible_v<T>) : value_(std::move(value)) {}  // NOLINT
  /// Builds the value in place: T(args...), or T{args...} for an aggregate (clang 14 has
  /// no parenthesized aggregate initialization).
  template <class... Args>
    requires std::is_constructible_v<T, Args...> || requires(Args&&... args) { T{std::forward<Args>(args)...}; }
  explicit Embedded(std::in_place_t, Args&&... args) : value_(make(std::forward<Args>(args)...)) {}

  T& operator*() & noexcept { return value_; }
  const T& operator*() const& noexcept { return value_; }
  T&& operator*() && noexcept { return std::move(value_); }
  T* operator->() noexcept { return &value_; }
  const T* operator->() const noexcept { return &value_; }
  T& get() noexcept { return value_; }
  const T& get() const noexcept { return value_; }

  friend bool operator==(const Embedded&, const Embedded&) = default;

 private:
  template <class... Args>
  static T make(Args&&... args) {
    if constexpr (std::is_constructible_v<T, Args...>)
      return T(std::forward<Args>(args)...);
    else
      return T{std::forward<Args>(args)...};
  }
  T value_{};
};

template <class T>
Embedded(T) -> Embedded<T>;

// Stored exactly as T.
template <mappable T>
struct codec<Embedded<T>> {
  using kind = kind_of<T>;
  static void encode(bson_t* parent, std::string_view key, const Embedded<T>& value) {
    codec<T>::encode(parent, key, *value);
  }
  static void decode(const bson_iter_t& it, Embedded<T>& out) { codec<T>::decode(it, *out); }
};

template <class T>
struct detail::variant_shape<Embedded<T>> : detail::variant_shape<T> {};

}  // namespace odm
