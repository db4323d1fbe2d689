// Dotted paths in index declarations are checked against the model's stored names at
// compile time (bson/stored_path.hpp). These are the rules a user relies on when
// declaring `odm::index("addresses.city")`; a path that fails them does not compile
// (tests/compile_fail/index_unknown_path.cpp).

#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace {

using odm::detail::has_stored_path;

struct Address {
  std::string street;
  std::string city;
};
struct Tag {
  std::int32_t weight = 0;
};
struct Part {
  odm::ObjectId id;
  std::string name;
};
struct Review {
  std::int32_t id = 0;
  std::string author;
  std::int64_t published = 0;
};
struct Patron {
  odm::ObjectId id;
  std::string name;
  std::vector<Address> addresses;
  std::optional<odm::Embedded<Address>> home;
  std::map<std::string, Tag> tags;
  odm::RefMany<Part> parts;
  odm::Ref<Part> favourite;
  odm::Money balance;
  std::int32_t visits = 0;
  std::variant<std::string, Address> contact;
  odm::Subset<Review, 3, &Review::published> reviews;
  std::string renamed_in_code;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::rename(&Patron::renamed_in_code, "stored_as"));
  };
};

TEST(StoredPath, TopLevelFieldsUseTheirStoredNames) {
  EXPECT_TRUE(has_stored_path<Patron>("_id"));
  EXPECT_FALSE(has_stored_path<Patron>("id")) << "id is stored as _id at the top level";
  EXPECT_TRUE(has_stored_path<Patron>("stored_as"));
  EXPECT_FALSE(has_stored_path<Patron>("renamed_in_code"));
  EXPECT_FALSE(has_stored_path<Patron>("nmae"));
}

TEST(StoredPath, PathsGoThroughArraysOfDocumentsAndTheirPositions) {
  EXPECT_TRUE(has_stored_path<Patron>("addresses.city"));
  EXPECT_TRUE(has_stored_path<Patron>("addresses.0.city"));
  EXPECT_TRUE(has_stored_path<Patron>("addresses.12"));
  EXPECT_FALSE(has_stored_path<Patron>("addresses.town"));
  EXPECT_FALSE(has_stored_path<Patron>("addresses.0.town"));
  EXPECT_TRUE(has_stored_path<Patron>("reviews.author")) << "a Subset embeds an array of its items";
  EXPECT_FALSE(has_stored_path<Patron>("reviews.title"));
}

TEST(StoredPath, PathsGoThroughOptionalEmbeddedAndMapValues) {
  EXPECT_TRUE(has_stored_path<Patron>("home.street"));
  EXPECT_FALSE(has_stored_path<Patron>("home.street.number")) << "a string has no fields";
  EXPECT_TRUE(has_stored_path<Patron>("tags.any-key.weight"));
  EXPECT_TRUE(has_stored_path<Patron>("tags.any-key"));
  EXPECT_FALSE(has_stored_path<Patron>("tags.any-key.colour"));
  EXPECT_TRUE(has_stored_path<Patron>("contact.city")) << "one alternative of the variant is a document with a city";
  EXPECT_FALSE(has_stored_path<Patron>("contact.zip"));
}

TEST(StoredPath, ScalarsIdsAndReferencesHaveNoFields) {
  EXPECT_FALSE(has_stored_path<Patron>("visits.x"));
  EXPECT_FALSE(has_stored_path<Patron>("_id.x"));
  EXPECT_FALSE(has_stored_path<Patron>("favourite.name")) << "a Ref is stored as the target's id";
  EXPECT_TRUE(has_stored_path<Patron>("parts.0")) << "RefMany is an array of ids";
  EXPECT_FALSE(has_stored_path<Patron>("parts.name"));
}

TEST(StoredPath, DocumentsWithTheirOwnCodecHaveTheFieldsTheirKindNames) {
  // odm::Money's codec says it writes {value, currency} (odm::kinds::document<MoneyFields>).
  EXPECT_TRUE(has_stored_path<Patron>("balance.currency"));
  EXPECT_TRUE(has_stored_path<Patron>("balance.value"));
  EXPECT_FALSE(has_stored_path<Patron>("balance.amount"));
}

TEST(StoredPath, EmptyStepsAreRefused) {
  EXPECT_FALSE(has_stored_path<Patron>(""));
  EXPECT_FALSE(has_stored_path<Patron>("addresses."));
  EXPECT_FALSE(has_stored_path<Patron>(".addresses"));
  EXPECT_FALSE(has_stored_path<Patron>("addresses..city"));
}

// The same rules hold where they matter: in constant evaluation, as index_plan uses them.
static_assert(has_stored_path<Patron>("addresses.0.city"));
static_assert(!has_stored_path<Patron>("addresses.town"));

}  // namespace
