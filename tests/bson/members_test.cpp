// The member table (odm/bson/members.hpp): every fact about a member stated once, from
// the model (names, options) and from the member type's codec (kind, relation, absence),
// and read the same way by every layer.

#include "celsius.hpp"
#include "test_support.hpp"

#include <odm/bson/stored_path.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace members_test {

using odm_test::Celsius;

/// An option of the user's own: the table carries it for the member it names.
template <class T, class M>
struct Unit {
  M T::*member;
  std::string_view symbol;
};

struct Publisher {
  std::string id;
  std::string name;
};

struct Reading {
  odm::ObjectId id;
  Celsius temperature;
  std::optional<std::string> note;
  odm::Ref<Publisher> source;
  odm::ParentRef<Publisher> owner;
  odm::RefMany<Publisher, odm::Dangling::drop> mirrors;
  odm::Money cost;
  std::int32_t count = 7;
  std::int32_t renamed = 0;
  struct odm_model {
    static constexpr auto fields =
        odm::fields(odm::rename(&Reading::renamed, "r"), Unit<Reading, Celsius>{&Reading::temperature, "°C"},
                    odm::rename(&Reading::count, "n"));
  };
};

using odm::member;
using odm::member_of;

// Names: the C++ name, the stored name at the top level and inside an embedded document.
static_assert(member<Reading, 0>::name == "id");
static_assert(member<Reading, 0>::stored_name == "_id");
static_assert(member<Reading, 0>::nested_name == "id");
static_assert(member_of<&Reading::renamed>::stored_name == "r");
static_assert(member_of<&Reading::renamed>::index == 8);

// Kinds: what the codecs store, a user codec's included.
static_assert(std::is_same_v<member_of<&Reading::temperature>::kind, odm::kinds::scalar<BSON_TYPE_DOUBLE>>);
static_assert(std::is_same_v<member_of<&Reading::note>::kind, odm::kinds::nullable<odm::kinds::scalar<BSON_TYPE_UTF8>>>);
static_assert(std::is_same_v<member_of<&Reading::source>::kind, odm::kinds::id_of<Publisher>>);
static_assert(std::is_same_v<odm::detail::resolved_kind_t<member_of<&Reading::source>::kind>,
                             odm::kinds::scalar<BSON_TYPE_UTF8>>);
static_assert(std::is_same_v<member_of<&Reading::cost>::kind, odm::kinds::document<odm::detail::MoneyFields>>);

// Relations: what joins and index plans read.
static_assert(member_of<&Reading::count>::relation::kind == odm::Relationship::none);
static_assert(member_of<&Reading::source>::relation::kind == odm::Relationship::reference);
static_assert(member_of<&Reading::owner>::relation::kind == odm::Relationship::parent_reference);
static_assert(member_of<&Reading::mirrors>::relation::many);
static_assert(member_of<&Reading::mirrors>::relation::policy == odm::Dangling::drop);
static_assert(std::is_same_v<member_of<&Reading::mirrors>::relation::target, Publisher>);

// The stored value: a reference's id(s), what typed queries compare and set.
static_assert(std::is_same_v<member_of<&Reading::source>::value_type, std::string>);
static_assert(std::is_same_v<member_of<&Reading::owner>::value_type, std::optional<std::string>>);
static_assert(std::is_same_v<member_of<&Reading::mirrors>::value_type, std::vector<std::string>>);
static_assert(std::is_same_v<member_of<&Reading::count>::value_type, std::int32_t>);

// Absence: optional types and ParentRef keep their initial value; others are refused.
static_assert(member_of<&Reading::note>::when_absent == odm::Absent::initial_value);
static_assert(member_of<&Reading::owner>::when_absent == odm::Absent::initial_value);
static_assert(member_of<&Reading::count>::when_absent == odm::Absent::refused);

// Options: each member carries its own, of any kind.
static_assert(std::tuple_size_v<std::remove_cvref_t<decltype(member_of<&Reading::temperature>::options)>> == 1);
static_assert(std::get<0>(member_of<&Reading::temperature>::options).symbol == "°C");
static_assert(std::tuple_size_v<std::remove_cvref_t<decltype(member_of<&Reading::id>::options)>> == 0);
static_assert(std::get<0>(member_of<&Reading::count>::options).stored_name == "n");

/// An option that states what a missing field becomes, read by the codec through the table.
template <class T, class M>
struct KeepInitializer {
  M T::*member;
  static constexpr odm::Absent when_absent = odm::Absent::initial_value;
};

struct Settings {
  std::string name;
  std::int32_t retries = 3;
  struct odm_model {
    static constexpr auto fields = odm::fields(KeepInitializer<Settings, std::int32_t>{&Settings::retries});
  };
};
static_assert(member_of<&Settings::retries>::when_absent == odm::Absent::initial_value);

TEST(MemberTable, AnOptionCanSayWhatAMissingFieldBecomes) {
  EXPECT_EQ(odm_test::decode<Settings>(R"({"name": "a"})").retries, 3);
  EXPECT_EQ(odm_test::decode<Settings>(R"({"name": "a", "retries": 5})").retries, 5);
  EXPECT_EQ(odm_test::decode_error<Reading>(R"({"_id": {"$oid": "5f0c3b3b3b3b3b3b3b3b3b3b"}})"),
            "temperature: missing required field");
}

TEST(MemberTable, AUserCodecIsStoredAsItsKindSays) {
  const Reading reading{odm::ObjectId(), Celsius{21.5}, std::nullopt, "p", std::nullopt, {}, {}, 1, 2};
  const odm::Document bson = odm::to_bson(reading);
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init_find(&it, bson.get(), "temperature"));
  EXPECT_EQ(bson_iter_type(&it), member_of<&Reading::temperature>::kind::type);
  EXPECT_EQ(odm::from_bson<Reading>(bson).temperature, reading.temperature);
}

TEST(MemberTable, PathChecksReadTheKinds) {
  using odm::detail::has_stored_path;
  // A user codec that says it stores a double has no fields inside.
  EXPECT_FALSE(has_stored_path<Reading>("temperature.value"));
  EXPECT_TRUE(has_stored_path<Reading>("temperature"));
  // Money describes its document: {value, currency}, nothing else.
  EXPECT_TRUE(has_stored_path<Reading>("cost.currency"));
  EXPECT_TRUE(has_stored_path<Reading>("cost.value"));
  EXPECT_FALSE(has_stored_path<Reading>("cost.amount"));
  EXPECT_TRUE(has_stored_path<Reading>("n"));
  EXPECT_FALSE(has_stored_path<Reading>("count"));
}

}  // namespace members_test
