// odm::Binary: BSON binData with its subtype.

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace bson_binary_test {

using odm_test::decode;
using odm_test::decode_error;
using odm_test::encoded;

struct Blob {
  odm::Binary data;
  bool operator==(const Blob&) const = default;
};

TEST(Binary, GenericSubtypeByDefault) {
  const Blob blob{{{1, 2, 3}}};
  EXPECT_EQ(blob.data.subtype, BSON_SUBTYPE_BINARY);
  EXPECT_EQ(encoded(blob), odm_test::canonical(R"({"data": {"$binary": {"base64": "AQID", "subType": "00"}}})"));
  EXPECT_EQ(odm_test::round_trip(blob), blob);
}

TEST(Binary, SubtypesAreKept) {
  const std::vector<std::uint8_t> sixteen = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                                             0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};
  const Blob uuid{{sixteen, BSON_SUBTYPE_UUID}};
  EXPECT_EQ(encoded(uuid),
            odm_test::canonical(R"({"data": {"$binary": {"base64": "ABEiM0RVZneImaq7zN3u/w==", "subType": "04"}}})"));
  EXPECT_EQ(odm_test::round_trip(uuid), uuid);
  for (bson_subtype_t subtype : {BSON_SUBTYPE_FUNCTION, BSON_SUBTYPE_UUID_DEPRECATED, BSON_SUBTYPE_MD5,
                                 BSON_SUBTYPE_ENCRYPTED, BSON_SUBTYPE_USER, static_cast<bson_subtype_t>(0xff)}) {
    SCOPED_TRACE(static_cast<int>(subtype));
    const Blob blob{{sixteen, subtype}};
    EXPECT_EQ(odm_test::round_trip(blob), blob);
  }
  EXPECT_EQ(decode<Blob>(R"({"data": {"$binary": {"base64": "AQID", "subType": "80"}}})"),
            (Blob{{{1, 2, 3}, BSON_SUBTYPE_USER}}));
}

TEST(Binary, EmptyBytes) {
  const Blob empty{};
  EXPECT_EQ(encoded(empty), odm_test::canonical(R"({"data": {"$binary": {"base64": "", "subType": "00"}}})"));
  EXPECT_EQ(odm_test::round_trip(empty), empty);
}

TEST(Binary, DeprecatedOldBinaryIsReadAndWrittenAsGeneric) {
  const Blob read = decode<Blob>(R"({"data": {"$binary": {"base64": "AQID", "subType": "02"}}})");
  EXPECT_EQ(read.data.bytes, (std::vector<std::uint8_t>{1, 2, 3}));
  EXPECT_EQ(encoded(Blob{{{1, 2, 3}, BSON_SUBTYPE_BINARY_DEPRECATED}}),
            odm_test::canonical(R"({"data": {"$binary": {"base64": "AQID", "subType": "00"}}})"));
}

TEST(Binary, WrongTypeIsAnError) {
  EXPECT_EQ(decode_error<Blob>(R"({"data": "AQID"})"), "data: expected binData, got string");
}

}  // namespace bson_binary_test
