#pragma once
// odm::ObjectId: MongoDB's 12-byte identifier (4-byte timestamp, 5-byte random value,
// 3-byte counter), generated, parsed and printed by libbson.

#include <odm/bson/codec.hpp>
#include <odm/bson/kind.hpp>

#include <array>
#include <chrono>
#include <compare>
#include <cstddef>
#include <cstring>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace odm {

class ObjectId {
 public:
  /// The all-zero id, which odm treats as "not assigned yet".
  constexpr ObjectId() noexcept = default;
  explicit ObjectId(const bson_oid_t& oid) noexcept { std::memcpy(bytes_.data(), oid.bytes, 12); }

  /// A new, unique id (libbson's generator: timestamp, per-process random value, counter).
  static ObjectId generate() {
    bson_oid_t oid;
    bson_oid_init(&oid, nullptr);
    return ObjectId(oid);
  }

  /// Parses 24 hexadecimal digits. Throws odm::ValueError naming the text otherwise.
  static ObjectId parse(std::string_view hex) {
    if (hex.size() != 24 || !bson_oid_is_valid(hex.data(), hex.size()))
      throw ValueError("\"" + std::string(hex.substr(0, 64)) + "\" is not an ObjectId (24 hexadecimal digits)");
    bson_oid_t oid;
    bson_oid_init_from_string(&oid, std::string(hex).c_str());
    return ObjectId(oid);
  }

  /// 24 lowercase hexadecimal digits.
  std::string to_string() const {
    char text[25];
    const bson_oid_t oid = to_bson_oid();
    bson_oid_to_string(&oid, text);
    return std::string(text, 24);
  }

  /// When the id was generated, to the second.
  std::chrono::sys_seconds timestamp() const noexcept {
    const bson_oid_t oid = to_bson_oid();
    return std::chrono::sys_seconds(std::chrono::seconds(bson_oid_get_time_t(&oid)));
  }

  bool is_zero() const noexcept { return *this == ObjectId(); }
  const std::array<std::uint8_t, 12>& bytes() const noexcept { return bytes_; }

  bson_oid_t to_bson_oid() const noexcept {
    bson_oid_t oid;
    std::memcpy(oid.bytes, bytes_.data(), 12);
    return oid;
  }

  friend constexpr bool operator==(const ObjectId&, const ObjectId&) noexcept = default;
  /// Byte order, which is MongoDB's order (and so roughly creation order).
  friend constexpr auto operator<=>(const ObjectId&, const ObjectId&) noexcept = default;
  friend std::ostream& operator<<(std::ostream& out, const ObjectId& id) { return out << id.to_string(); }

 private:
  std::array<std::uint8_t, 12> bytes_{};
};

// BSON ObjectId.
template <>
struct codec<ObjectId> {
  using kind = kinds::scalar<BSON_TYPE_OID>;
  static void encode(bson_t* parent, std::string_view key, const ObjectId& value) {
    const bson_oid_t oid = value.to_bson_oid();
    detail::check_append(bson_append_oid(parent, key.data(), detail::key_length(key), &oid));
  }
  static void decode(const bson_iter_t& it, ObjectId& out) {
    detail::expect_type(it, BSON_TYPE_OID, "objectId");
    out = ObjectId(*bson_iter_oid(&it));
  }
};

template <>
struct detail::variant_shape<ObjectId> : detail::decoded_shape<ObjectId, detail::type_bits(BSON_TYPE_OID)> {};

}  // namespace odm

template <>
struct std::hash<odm::ObjectId> {
  std::size_t operator()(const odm::ObjectId& id) const noexcept {
    std::size_t h = 1469598103934665603ull;
    for (auto b : id.bytes()) h = (h ^ b) * 1099511628211ull;
    return h;
  }
};
