// The seeds' relationship documents declared the way DESIGN.md intends, with
// odm::Ref / odm::ParentRef / odm::RefMany (odm/fields/ref.hpp) instead of bare ids:
// the stored documents must be exactly the same golden documents as the plain
// declarations in seed000..004_test.cpp give.

#include "golden/seed_models.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace relations_seeds {

/// 000: the book referencing its publisher (one-to-many, parent reference by the child).
struct Book {
  std::int32_t id;
  std::string title;
  seed::Authors author;
  seed::Date published_date;
  std::int32_t pages;
  std::string language;
  odm::Ref<seed::Publisher> publisher_id;
  bool operator==(const Book&) const = default;
};

/// 000: tree with parent references (the root's parent is null).
struct Category {
  std::string id;
  odm::ParentRef<Category> parent;
  bool operator==(const Category&) const = default;
};

/// 000: tree with child references.
struct CategoryNode {
  std::string id;
  odm::RefMany<CategoryNode> children;
  bool operator==(const CategoryNode&) const = default;
};

/// 004: child references to parts.
struct Product {
  std::string name;
  std::string manufacturer;
  std::int32_t catalog_number;
  odm::RefMany<seed::Part> parts;
  bool operator==(const Product&) const = default;
};

/// 004: one-to-squillions, the log message points at its host.
struct LogMessage {
  seed::Timestamp time;
  std::string message;
  odm::ParentRef<seed::Host> host;
  bool operator==(const LogMessage&) const = default;
};

/// 003: many-to-many child references to courses.
struct Student {
  odm::ObjectId id;
  std::string first_name;
  std::string last_name;
  std::vector<odm::Embedded<seed::Email>> emails;
  odm::RefMany<seed::Course> courses;
  bool operator==(const Student&) const = default;
};

/// 003: the message names its author.
struct Message {
  odm::ObjectId id;
  std::string subject;
  std::string message;
  seed::Timestamp posted_on;
  odm::ParentRef<Student> posted_by;
  bool operator==(const Message&) const = default;
};

/// 000: the cold half of the movie split points at the hot half.
struct MovieDetails {
  std::int32_t id;
  odm::ParentRef<seed::Movie> movie_id;
  std::string poster;
  std::string plot;
  std::string fullplot;
  seed::Timestamp lastupdated;
  odm::Embedded<seed::Imdb> imdb;
  odm::Embedded<seed::Tomatoes> tomatoes;
  bool operator==(const MovieDetails&) const = default;
};

/// 000: a review in the review collection points at its product (the product itself is
/// money-dependent; only its int32 id matters here).
struct ProductStub {
  std::int32_t id;
  std::string name;
};
struct Review {
  std::int32_t review_id;
  odm::ParentRef<ProductStub> product_id;
  std::string review_author;
  std::string review_text;
  seed::Date published_date;
  bool operator==(const Review&) const = default;
};

using odm_test::day;
using odm_test::golden;
using odm_test::instant;
using odm_test::oid;

TEST(Seed000, BookWithPublisherRef) {
  const Book book{123456789,        "MongoDB: The Definitive Guide", std::vector<std::string>{"Kristina Chodorow", "Mike Dirolf"},
                  day(2010, 9, 24), 216,                             "English",
                  "oreilly"};
  EXPECT_TRUE(golden(book, R"json({
    "_id": {"$numberInt": "123456789"},
    "title": "MongoDB: The Definitive Guide",
    "author": ["Kristina Chodorow", "Mike Dirolf"],
    "published_date": {"$date": {"$numberLong": "1285286400000"}},
    "pages": {"$numberInt": "216"},
    "language": "English",
    "publisher_id": "oreilly"
  })json"));
  const Book read = odm_test::decode<Book>(odm::to_json(book));
  EXPECT_EQ(read.publisher_id.id(), "oreilly");
  EXPECT_FALSE(read.publisher_id.is_loaded());
  EXPECT_THROW((void)read.publisher_id.get(), odm::NotLoadedError);
  // The id has the publisher's id type: a number is refused.
  EXPECT_EQ(odm_test::decode_error<Book>(R"json({"_id": 1, "title": "t", "author": "a",
      "published_date": {"$date": "2010-09-24T00:00:00Z"}, "pages": 1, "language": "l", "publisher_id": 5})json"),
            "publisher_id: expected string, got int");
}

TEST(Seed000, CategoriesWithParentRef) {
  EXPECT_TRUE(golden(Category{"MongoDB", "Databases"}, R"json({"_id": "MongoDB", "parent": "Databases"})json"));
  EXPECT_TRUE(golden(Category{"Programming", "Books"}, R"json({"_id": "Programming", "parent": "Books"})json"));
  EXPECT_TRUE(golden(Category{"Books", std::nullopt}, R"json({"_id": "Books", "parent": null})json",
                     R"json({ "_id": "Books", "parent": null })json"));
  EXPECT_FALSE(odm_test::decode<Category>(R"json({"_id": "Books", "parent": null})json").parent.has_parent());
  EXPECT_EQ(odm_test::decode<Category>(R"json({"_id": "dbm", "parent": "Databases"})json").parent.id(),
            std::optional<std::string>("Databases"));
}

TEST(Seed000, CategoriesWithChildRefs) {
  EXPECT_TRUE(golden(CategoryNode{"Databases", {"MongoDB", "dbm"}},
                     R"json({"_id": "Databases", "children": ["MongoDB", "dbm"]})json"));
  EXPECT_TRUE(golden(CategoryNode{"MongoDB", {}}, R"json({"_id": "MongoDB", "children": []})json"));
  EXPECT_EQ(odm_test::decode<CategoryNode>(R"json({"_id": "Programming", "children": ["Databases", "Languages"]})json")
                .children.ids(),
            (std::vector<std::string>{"Databases", "Languages"}));
}

TEST(Seed000, MovieDetailsWithMovieRef) {
  const MovieDetails details{156,
                             1,
                             "poster",
                             "plot",
                             "fullplot",
                             instant(2015, 8, 15, 10, 6, 53),
                             seed::Imdb{7.3, 5043, 12},
                             seed::Tomatoes{seed::Viewer{3.7, 59}, instant(2020, 1, 29, 0, 2, 53)}};
  EXPECT_TRUE(golden(details, R"json({
    "_id": {"$numberInt": "156"},
    "movie_id": {"$numberInt": "1"},
    "poster": "poster",
    "plot": "plot",
    "fullplot": "fullplot",
    "lastupdated": {"$date": {"$numberLong": "1439633213000"}},
    "imdb": {"rating": {"$numberDouble": "7.3"}, "votes": {"$numberInt": "5043"}, "id": {"$numberInt": "12"}},
    "tomatoes": {
      "viewer": {"rating": {"$numberDouble": "3.7"}, "numReviews": {"$numberInt": "59"}},
      "lastUpdated": {"$date": {"$numberLong": "1580256173000"}}
    }
  })json"));
}

TEST(Seed000, ReviewWithProductRef) {
  const Review review{786, 1, "Kristina", "This is indeed an amazing widget.", day(2019, 2, 18)};
  EXPECT_TRUE(golden(review, R"json({
    "review_id": {"$numberInt": "786"},
    "product_id": {"$numberInt": "1"},
    "review_author": "Kristina",
    "review_text": "This is indeed an amazing widget.",
    "published_date": {"$date": {"$numberLong": "1550448000000"}}
  })json"));
}

TEST(Seed003, StudentWithCourseRefs) {
  const Student sammy{oid("612d1e835ebee16872a109a4"),
                      "Sammy",
                      "Shark",
                      {seed::Email{"[email protected]", seed::EmailType::work},
                       seed::Email{"[email protected]", seed::EmailType::home}},
                      {oid("61741c9cbc9ec583c836170a"), oid("61741c9cbc9ec583c836170b")}};
  EXPECT_TRUE(golden(sammy, R"json({
    "_id": {"$oid": "612d1e835ebee16872a109a4"},
    "first_name": "Sammy",
    "last_name": "Shark",
    "emails": [
      {"email": "[email protected]", "type": "work"},
      {"email": "[email protected]", "type": "home"}
    ],
    "courses": [{"$oid": "61741c9cbc9ec583c836170a"}, {"$oid": "61741c9cbc9ec583c836170b"}]
  })json"));
}

TEST(Seed003, MessageWithPostedByRef) {
  const Message message{oid("61741c9cbc9ec583c836174c"), "Books on kinematics and dynamics",
                        "Hello! Could you recommend a good introductory books covering the topics of kinematics and "
                        "dynamics? Thanks!",
                        instant(2021, 7, 23, 16, 3, 21), oid("612d1e835ebee16872a109a4")};
  EXPECT_TRUE(golden(message, R"json({
    "_id": {"$oid": "61741c9cbc9ec583c836174c"},
    "subject": "Books on kinematics and dynamics",
    "message": "Hello! Could you recommend a good introductory books covering the topics of kinematics and dynamics? Thanks!",
    "posted_on": {"$date": {"$numberLong": "1627056201000"}},
    "posted_by": {"$oid": "612d1e835ebee16872a109a4"}
  })json"));
}

TEST(Seed004, ProductWithPartRefs) {
  const Product product{"left-handed smoke shifter", "Acme Corp", 1234,
                        {oid("00000000000000000000aaaa"), oid("00000000000000000000f17c"), oid("00000000000000000000d2aa")}};
  EXPECT_TRUE(golden(product, R"json({
    "name": "left-handed smoke shifter",
    "manufacturer": "Acme Corp",
    "catalog_number": {"$numberInt": "1234"},
    "parts": [{"$oid": "00000000000000000000aaaa"}, {"$oid": "00000000000000000000f17c"},
              {"$oid": "00000000000000000000d2aa"}]
  })json"));
  EXPECT_EQ(product.parts.size(), 3u);
  EXPECT_THROW((void)product.parts.at(0), odm::NotLoadedError);
}

TEST(Seed004, LogMessageWithHostRef) {
  const LogMessage message{instant(2014, 3, 28, 9, 42, 41, 284), "cpu is on fire!", oid("00000000000000000000aaab")};
  EXPECT_TRUE(golden(message, R"json({
    "time": {"$date": {"$numberLong": "1395999761284"}},
    "message": "cpu is on fire!",
    "host": {"$oid": "00000000000000000000aaab"}
  })json"));
  EXPECT_EQ(odm_test::decode<LogMessage>(odm::to_json(message)).host.id(), oid("00000000000000000000aaab"));
}

}  // namespace relations_seeds
