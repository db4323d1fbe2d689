// odm::ObjectId: generation, parsing, printing, ordering, timestamp, BSON objectId.

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <sstream>
#include <unordered_set>
#include <vector>

namespace bson_object_id_test {

using odm_test::decode_error;

struct Host {
  odm::ObjectId id;
  odm::ObjectId parent;
  bool operator==(const Host&) const = default;
};

TEST(ObjectId, GeneratedIdsAreUnique) {
  std::unordered_set<odm::ObjectId> seen;
  std::set<odm::ObjectId> ordered;
  for (int i = 0; i < 10000; ++i) {
    const odm::ObjectId id = odm::ObjectId::generate();
    EXPECT_FALSE(id.is_zero());
    EXPECT_TRUE(seen.insert(id).second);
    ordered.insert(id);
  }
  EXPECT_EQ(ordered.size(), 10000u);
}

TEST(ObjectId, GeneratedIdsIncreaseWithinAProcess) {
  // Same second and process: the counter makes later ids compare greater (wrap-around of
  // the 3-byte counter aside, which 1000 ids are unlikely to hit).
  std::vector<odm::ObjectId> ids;
  for (int i = 0; i < 1000; ++i) ids.push_back(odm::ObjectId::generate());
  std::size_t increasing = 0;
  for (std::size_t i = 1; i < ids.size(); ++i) increasing += ids[i - 1] < ids[i] ? 1 : 0;
  EXPECT_GE(increasing, ids.size() - 2);
}

TEST(ObjectId, TimestampIsCloseToNow) {
  const auto now = std::chrono::system_clock::now();
  const auto stamp = odm::ObjectId::generate().timestamp();
  EXPECT_LE(std::chrono::abs(std::chrono::duration_cast<std::chrono::seconds>(now - stamp)), std::chrono::seconds(5));
  EXPECT_EQ(odm_test::oid("61741c9cbc9ec583c836170a").timestamp(),
            std::chrono::sys_seconds(std::chrono::seconds(0x61741c9c)));
}

TEST(ObjectId, ParseValid) {
  const odm::ObjectId id = odm::ObjectId::parse("612d1e835ebee16872a109a4");
  EXPECT_EQ(id.to_string(), "612d1e835ebee16872a109a4");
  EXPECT_EQ(id.bytes()[0], 0x61);
  EXPECT_EQ(id.bytes()[11], 0xa4);
  // Upper case is read; the text form is lower case.
  EXPECT_EQ(odm::ObjectId::parse("612D1E835EBEE16872A109A4"), id);
  EXPECT_EQ(odm::ObjectId::parse("000000000000000000000000"), odm::ObjectId());
  EXPECT_TRUE(odm::ObjectId().is_zero());
  EXPECT_EQ(odm::ObjectId().to_string(), "000000000000000000000000");
}

TEST(ObjectId, ParseInvalidThrowsValueError) {
  for (const char* text : {"", "612d1e835ebee16872a109a", "612d1e835ebee16872a109a45", "612d1e835ebee16872a109ag",
                           "612d1e835ebee16872a109a-", " 612d1e835ebee16872a109a", "AAAA",
                           "zzzzzzzzzzzzzzzzzzzzzzzz"}) {
    SCOPED_TRACE(text);
    EXPECT_THROW((void)odm::ObjectId::parse(text), odm::ValueError);
  }
  EXPECT_EQ(odm_test::error_of([] { (void)odm::ObjectId::parse("AAAA"); }),
            "\"AAAA\" is not an ObjectId (24 hexadecimal digits)");
  // A 24-character view into a longer buffer: only the view is read.
  const std::string longer = "612d1e835ebee16872a109a4ff";
  EXPECT_EQ(odm::ObjectId::parse(std::string_view(longer).substr(0, 24)).to_string(), "612d1e835ebee16872a109a4");
  const std::string with_nul("612d1e835ebee16872a109a\0", 24);
  EXPECT_THROW((void)odm::ObjectId::parse(with_nul), odm::ValueError);
}

TEST(ObjectId, ToStringAndStream) {
  const odm::ObjectId id = odm::ObjectId::generate();
  EXPECT_EQ(odm::ObjectId::parse(id.to_string()), id);
  EXPECT_EQ(id.to_string().size(), 24u);
  std::ostringstream out;
  out << id;
  EXPECT_EQ(out.str(), id.to_string());
}

TEST(ObjectId, OrderingIsByteOrder) {
  const auto a = odm_test::oid("000000000000000000000001");
  const auto b = odm_test::oid("000000000000000000000002");
  const auto c = odm_test::oid("100000000000000000000000");
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_GT(c, a);
  EXPECT_EQ(a <=> a, std::strong_ordering::equal);
  EXPECT_NE(a, b);
  EXPECT_NE(std::hash<odm::ObjectId>{}(a), std::hash<odm::ObjectId>{}(b));
}

TEST(ObjectId, StoredAsBsonObjectId) {
  const Host host{odm_test::oid("00000000000000000000aaab"), odm_test::oid("612d1e835ebee16872a109a4")};
  EXPECT_EQ(odm_test::encoded(host), odm_test::canonical(R"({"_id": {"$oid": "00000000000000000000aaab"},
                                                               "parent": {"$oid": "612d1e835ebee16872a109a4"}})"));
  EXPECT_EQ(odm_test::round_trip(host), host);
  EXPECT_EQ(decode_error<Host>(R"({"_id": "00000000000000000000aaab", "parent": {"$oid": "612d1e835ebee16872a109a4"}})"),
            "_id: expected objectId, got string");
}

TEST(ObjectId, FromBsonOid) {
  bson_oid_t raw;
  bson_oid_init_from_string(&raw, "61741c9cbc9ec583c836174c");
  const odm::ObjectId id(raw);
  EXPECT_EQ(id.to_string(), "61741c9cbc9ec583c836174c");
  const bson_oid_t back = id.to_bson_oid();
  EXPECT_TRUE(bson_oid_equal(&raw, &back));
}

}  // namespace bson_object_id_test
