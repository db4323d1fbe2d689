// References are queried, set and pushed as the ids they store.

#include <odm/odm.hpp>

#include "../test_support.hpp"

#include <gtest/gtest.h>

namespace reference_queries {

struct Publisher {
  std::string id;
};
struct Course {
  odm::ObjectId id;
};
struct Category {
  std::string id;
  odm::ParentRef<Category> parent;
};
struct Student {
  odm::ObjectId id;
  odm::RefMany<Course> courses;
};
struct Book {
  std::int64_t id = 0;
  odm::Ref<Publisher> publisher_id;
};
struct Line {
  odm::Ref<Publisher> publisher;
  std::int32_t copies = 0;
};
struct Order {
  odm::ObjectId id;
  std::vector<Line> lines;
};

std::string json(const odm::Document& document) { return document.to_json(); }

TEST(ReferenceFields, RefIsComparedAsTheTargetsId) {
  EXPECT_EQ(json((odm::field(&Book::publisher_id) == "oreilly").bson()), R"({ "publisher_id" : "oreilly" })");
  EXPECT_EQ(json(odm::field(&Book::publisher_id).set("acme").bson()), R"({ "$set" : { "publisher_id" : "acme" } })");
}

TEST(ReferenceFields, ParentRefMayBeNull) {
  EXPECT_EQ(json((odm::field(&Category::parent) == "Databases").bson()), R"({ "parent" : "Databases" })");
  EXPECT_EQ(json((odm::field(&Category::parent) == std::nullopt).bson()), R"({ "parent" : null })");
}

TEST(ReferenceFields, RefManyMatchesAnElementAndPushesIds) {
  const auto course = odm::ObjectId::parse("61741c9cbc9ec583c836170a");
  EXPECT_EQ(json((odm::field(&Student::courses) == course).bson()),
            R"({ "courses" : { "$oid" : "61741c9cbc9ec583c836170a" } })");
  EXPECT_EQ(json(odm::field(&Student::courses).push(course).bson()),
            R"({ "$push" : { "courses" : { "$oid" : "61741c9cbc9ec583c836170a" } } })");
}

// Regression: a Ref inside an array element is the same id whether the path is written
// from the model (`/`) or from an element condition (elem_match, pull).
TEST(ReferenceFields, ARefInsideAnElementConditionIsItsId) {
  EXPECT_EQ(json((odm::field(&Order::lines) / &Line::publisher == "oreilly").bson()),
            R"({ "lines.publisher" : "oreilly" })");
  EXPECT_EQ(json(odm::field(&Order::lines)
                     .elem_match([](auto line) { return line / &Line::publisher == "oreilly" && line / &Line::copies > 1; })
                     .bson()),
            R"({ "lines" : { "$elemMatch" : { "publisher" : "oreilly", "copies" : { "$gt" : 1 } } } })");
  EXPECT_EQ(json(odm::field(&Order::lines).pull([](auto line) { return line / &Line::publisher == "acme"; }).bson()),
            R"({ "$pull" : { "lines" : { "publisher" : "acme" } } })");
  static_assert(std::is_same_v<decltype(odm::Element<Line>{} / &Line::publisher)::value_type, std::string>);
}

}  // namespace reference_queries
