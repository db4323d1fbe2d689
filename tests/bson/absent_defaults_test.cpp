// Defaults for absent fields: a field added to a model in use. Documents written before
// the field existed lack it; a member marked odm::defaulted (or every member of a model
// whose `when_absent` is odm::Absent::initial_value) then reads its default member
// initializer, written once in C++. Required stays the default, and odm::required brings
// it back for one member. std::optional keeps absent, null and present apart.

#include "test_support.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace absent_defaults_test {

struct Address {
  std::string city;
  std::string country = "BG";  // added later, defaulted by the model below
  struct odm_model {
    static constexpr auto when_absent = odm::Absent::initial_value;
    static constexpr auto fields = odm::fields(odm::required(&Address::city));
  };
};

// g++ 12 crashes on a braced list of std::string as a default member initializer of a
// struct Boost.PFR reflects (an internal compiler error): such defaults come from a function.
inline std::vector<std::string> new_tags() { return {"new"}; }
inline std::map<std::string, std::int32_t> default_limits() { return {{"daily", 10}}; }

/// v1 had id, customer and total; v2 added the rest.
struct OrderV2 {
  std::int64_t id = 0;
  std::string customer;
  std::int64_t total = 0;
  std::int32_t retries = 3;                        // defaulted: old documents read 3
  std::vector<std::string> tags = new_tags();      // defaulted: old documents read ["new"]
  std::string channel = "web";                     // not marked: still required
  std::optional<std::string> note = "untouched";   // optional: absent reads the initializer, null nullopt
  std::optional<std::string> memo;                 // optional without initializer: absent reads nullopt
  std::vector<Address> addresses;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::defaulted(&OrderV2::retries), odm::defaulted(&OrderV2::tags),
                                               odm::defaulted(&OrderV2::addresses));
  };
};

/// The whole model defaults, but `customer` stays required and `coupon` (an optional)
/// must be stored, as a value or null.
struct Lenient {
  std::int64_t id = 0;
  std::string customer = "anonymous";
  std::int32_t priority = 5;
  std::map<std::string, std::int32_t> limits = default_limits();
  std::optional<std::int32_t> coupon;
  struct odm_model {
    static constexpr auto when_absent = odm::Absent::initial_value;
    static constexpr auto fields = odm::fields(odm::required(&Lenient::customer), odm::required(&Lenient::coupon));
  };
};

/// Neither: every member without an empty state is required (today's behaviour).
struct Plain {
  std::int64_t id = 0;
  std::int32_t retries = 3;
  std::optional<std::int32_t> note;
};

/// A model that says `refused` itself, with one member defaulted.
struct Explicit {
  std::int64_t id = 0;
  std::int32_t a = 1;
  std::int32_t b = 2;
  struct odm_model {
    static constexpr auto when_absent = odm::Absent::refused;
    static constexpr auto fields = odm::fields(odm::defaulted(&Explicit::b));
  };
};

// The member table says what each member does, for every combination of model-level and
// member-level setting: (model: none | initial_value | refused) x (member: none |
// defaulted | required) x (type: plain | optional).
using odm::Absent;
static_assert(odm::member_of<&OrderV2::customer>::when_absent == Absent::refused);         // none, none
static_assert(odm::member_of<&OrderV2::retries>::when_absent == Absent::initial_value);    // none, defaulted
static_assert(odm::member_of<&OrderV2::note>::when_absent == Absent::initial_value);       // none, none, optional
static_assert(odm::member_of<&Lenient::priority>::when_absent == Absent::initial_value);   // initial, none
static_assert(odm::member_of<&Lenient::customer>::when_absent == Absent::refused);         // initial, required
static_assert(odm::member_of<&Lenient::coupon>::when_absent == Absent::refused);           // initial, required, optional
static_assert(odm::member_of<&Explicit::a>::when_absent == Absent::refused);               // refused, none
static_assert(odm::member_of<&Explicit::b>::when_absent == Absent::initial_value);         // refused, defaulted
static_assert(odm::member_of<&Plain::retries>::when_absent == Absent::refused);
static_assert(odm::member_of<&Plain::note>::when_absent == Absent::initial_value);

TEST(AbsentDefaults, AnOldDocumentReadsTheInitializersOfTheFieldsAddedSince) {
  const auto order = odm_test::decode<OrderV2>(R"({"_id": 1, "customer": "ana", "total": 990, "channel": "shop"})");
  EXPECT_EQ(order.retries, 3);
  EXPECT_EQ(order.tags, std::vector<std::string>{"new"});
  EXPECT_EQ(order.note, "untouched") << "an absent optional reads its initializer (and null reads nullopt)";
  EXPECT_EQ(order.memo, std::nullopt);
  EXPECT_TRUE(order.addresses.empty());
  EXPECT_EQ(order.customer, "ana");
  EXPECT_EQ(order.total, 990);
}

TEST(AbsentDefaults, AStoredValueWinsOverTheInitializer) {
  const auto order = odm_test::decode<OrderV2>(
      R"({"_id": 1, "customer": "ana", "total": 1, "retries": 0, "tags": [], "channel": "c", "note": null})");
  EXPECT_EQ(order.retries, 0);
  EXPECT_TRUE(order.tags.empty());
  EXPECT_EQ(order.note, std::nullopt);
  const auto noted = odm_test::decode<OrderV2>(R"({"_id": 1, "customer": "a", "total": 1, "channel": "c", "note": "x"})");
  EXPECT_EQ(noted.note, "x");
}

TEST(AbsentDefaults, ARequiredFieldStillErrorsWithItsPath) {
  EXPECT_EQ(odm_test::decode_error<OrderV2>(R"({"_id": 1, "customer": "ana", "total": 1})"),
            "channel: missing required field");
  EXPECT_EQ(odm_test::decode_error<Plain>(R"({"_id": 1})"), "retries: missing required field");
  EXPECT_EQ(odm_test::decode_error<Lenient>(R"({"_id": 1, "coupon": null})"), "customer: missing required field");
  EXPECT_EQ(odm_test::decode_error<Explicit>(R"({"_id": 1, "b": 7})"), "a: missing required field");
  // Inside an embedded document and an array, the path says where.
  EXPECT_EQ(odm_test::decode_error<OrderV2>(
                R"({"_id": 1, "customer": "a", "total": 1, "channel": "c", "addresses": [{"city": "x"}, {}]})"),
            "addresses.1.city: missing required field");
}

TEST(AbsentDefaults, AModelLevelSettingDefaultsEveryMemberButTheRequiredOnes) {
  const auto lenient = odm_test::decode<Lenient>(R"({"customer": "bo", "coupon": null})");
  EXPECT_EQ(lenient.id, 0);
  EXPECT_EQ(lenient.priority, 5);
  EXPECT_EQ(lenient.limits, (std::map<std::string, std::int32_t>{{"daily", 10}}));
  EXPECT_EQ(lenient.coupon, std::nullopt);
  EXPECT_EQ(odm_test::decode_error<Lenient>(R"({"customer": "bo"})"), "coupon: missing required field")
      << "odm::required on an optional: null is nullopt, a missing field an error";
  EXPECT_EQ(odm_test::decode<Lenient>(R"({"customer": "bo", "coupon": 4})").coupon, 4);
  const auto explicit_ = odm_test::decode<Explicit>(R"({"_id": 1, "a": 9})");
  EXPECT_EQ(explicit_.a, 9);
  EXPECT_EQ(explicit_.b, 2);
}

TEST(AbsentDefaults, EmbeddedDocumentsInArraysReadTheirOwnDefaults) {
  const auto order = odm_test::decode<OrderV2>(
      R"({"_id": 1, "customer": "a", "total": 1, "channel": "c",
          "addresses": [{"city": "Sofia"}, {"city": "Oslo", "country": "NO"}, {"country": "X", "city": "Y"}]})");
  ASSERT_EQ(order.addresses.size(), 3u);
  EXPECT_EQ(order.addresses[0].country, "BG");
  EXPECT_EQ(order.addresses[1].country, "NO");
  EXPECT_EQ(order.addresses[2].country, "X");
  EXPECT_EQ(order.addresses[2].city, "Y");
}

TEST(AbsentDefaults, FieldsInAnyOrderAndUnknownFieldsDoNotDisturbTheDefaults) {
  // The slow path (fields out of declaration order, an unknown field) reaches the same result.
  const auto order =
      odm_test::decode<OrderV2>(R"({"channel": "c", "legacy": true, "total": 2, "customer": "a", "_id": 5})");
  EXPECT_EQ(order.id, 5);
  EXPECT_EQ(order.retries, 3);
  EXPECT_EQ(order.tags, std::vector<std::string>{"new"});
}

TEST(AbsentDefaults, ADefaultedFieldIsWrittenLikeAnyOther) {
  OrderV2 order;
  order.customer = "a";
  EXPECT_EQ(odm_test::encoded(order),
            odm_test::canonical(R"({"_id": {"$numberLong": "0"}, "customer": "a", "total": {"$numberLong": "0"},
                                    "retries": 3, "tags": ["new"], "channel": "web", "note": "untouched",
                                    "memo": null, "addresses": []})"));
  EXPECT_EQ(odm_test::round_trip(order).note, "untouched");
}

TEST(AbsentDefaults, AVariantPicksAStructWhoseMissingFieldsAreDefaulted) {
  struct Holder {
    std::variant<std::int32_t, Address> where;
  };
  const auto holder = odm_test::decode<Holder>(R"({"where": {"city": "Sofia"}})");
  ASSERT_TRUE(std::holds_alternative<Address>(holder.where));
  EXPECT_EQ(std::get<Address>(holder.where).country, "BG");
}

}  // namespace absent_defaults_test
