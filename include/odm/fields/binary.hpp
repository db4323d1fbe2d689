#pragma once
// odm::Binary: BSON binary data with its subtype (generic bytes by default).

#include <odm/bson/codec.hpp>
#include <odm/bson/kind.hpp>

#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

namespace odm {

struct Binary {
  std::vector<std::uint8_t> bytes;
  bson_subtype_t subtype = BSON_SUBTYPE_BINARY;

  friend bool operator==(const Binary&, const Binary&) = default;
};

// BSON binData. The deprecated "old binary" subtype 2 is read (libbson unwraps it) and
// written back as generic binary.
template <>
struct codec<Binary> {
  using kind = kinds::scalar<BSON_TYPE_BINARY>;
  static void encode(bson_t* parent, std::string_view key, const Binary& value) {
    if (value.bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max() - 16))
      throw EncodeError("binary value exceeds the maximum BSON size");
    const bson_subtype_t subtype = value.subtype == BSON_SUBTYPE_BINARY_DEPRECATED ? BSON_SUBTYPE_BINARY : value.subtype;
    detail::check_append(bson_append_binary(parent, key.data(), detail::key_length(key), subtype, value.bytes.data(),
                                            static_cast<std::uint32_t>(value.bytes.size())));
  }
  static void decode(const bson_iter_t& it, Binary& out) {
    detail::expect_type(it, BSON_TYPE_BINARY, "binData");
    bson_subtype_t subtype;
    std::uint32_t length = 0;
    const std::uint8_t* data = nullptr;
    bson_iter_binary(&it, &subtype, &length, &data);
    out.subtype = subtype;
    out.bytes.assign(data, data + length);
  }
};

template <>
struct detail::variant_shape<Binary> : detail::decoded_shape<Binary, detail::type_bits(BSON_TYPE_BINARY)> {};

}  // namespace odm
