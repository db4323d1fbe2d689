// Stored field names: `id` ↔ `_id` at the top level, odm::rename inside the struct
// (odm_model) or outside it (odm::model<T>).

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <string>

namespace rename_test {

/// Renamed from inside.
struct Book {
  std::int32_t id;
  std::string title;
  std::string publisher;
  struct odm_model {
    static constexpr auto fields =
        odm::fields(odm::rename(&Book::title, "book_title"), odm::rename(&Book::publisher, "publisher_id"));
  };
  bool operator==(const Book&) const = default;
};

/// A type "from a vendor": renamed from outside.
struct Point {
  double x;
  double y;
  bool operator==(const Point&) const = default;
};

/// `id` renamed: stored as `key` at every level, never as `_id`.
struct Keyed {
  std::string id;
  std::int32_t n;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::rename(&Keyed::id, "key"));
  };
  bool operator==(const Keyed&) const = default;
};

/// Another member stored as `_id` (the struct has no member called `id`).
struct Slug {
  std::string slug;
  std::string title;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::rename(&Slug::slug, "_id"));
  };
  bool operator==(const Slug&) const = default;
};

/// `id` renamed to `_id` explicitly: the same at the top level, and `_id` inside too.
struct ExplicitId {
  std::int32_t id;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::rename(&ExplicitId::id, "_id"));
  };
  bool operator==(const ExplicitId&) const = default;
};

struct Place {
  std::string id;
  Point location;
  Book book;
  Keyed keyed;
  ExplicitId explicit_id;
  bool operator==(const Place&) const = default;
};

}  // namespace rename_test

template <>
struct odm::model<rename_test::Point> {
  static constexpr auto fields = odm::fields(odm::rename(&rename_test::Point::x, "lon"),
                                             odm::rename(&rename_test::Point::y, "lat"));
};

namespace model_rename_test {

using namespace rename_test;
using odm_test::decode;
using odm_test::encoded;

TEST(Rename, InsideTheStruct) {
  const Book book{1, "Moby-Dick", "oreilly"};
  EXPECT_EQ(encoded(book), odm_test::canonical(R"({"_id": {"$numberInt": "1"}, "book_title": "Moby-Dick",
                                                   "publisher_id": "oreilly"})"));
  EXPECT_EQ(odm_test::round_trip(book), book);
  EXPECT_EQ(odm_test::decode_error<Book>(R"({"_id": 1, "title": "Moby-Dick", "publisher_id": "x"})"),
            "book_title: missing required field");
}

TEST(Rename, OutsideTheStruct) {
  const Point point{13.4, 52.5};
  EXPECT_EQ(encoded(point), odm_test::canonical(R"({"lon": 13.4, "lat": 52.5})"));
  EXPECT_EQ(decode<Point>(R"({"lat": 52.5, "lon": 13.4})"), point);
}

TEST(Rename, RenameOfId) {
  EXPECT_EQ(encoded(Keyed{"k", 1}), odm_test::canonical(R"({"key": "k", "n": 1})"));
  EXPECT_EQ(odm_test::round_trip(Keyed{"k", 1}), (Keyed{"k", 1}));
  EXPECT_EQ(encoded(ExplicitId{5}), odm_test::canonical(R"({"_id": 5})"));
  EXPECT_EQ(encoded(Slug{"moby-dick", "Moby-Dick"}), odm_test::canonical(R"({"_id": "moby-dick", "title": "Moby-Dick"})"));
  EXPECT_EQ(decode<Slug>(R"({"_id": "moby-dick", "title": "Moby-Dick"})"), (Slug{"moby-dick", "Moby-Dick"}));
}

TEST(Rename, AppliesInsideEmbeddedDocumentsToo) {
  const Place place{"berlin", {13.4, 52.5}, {1, "t", "p"}, {"k", 2}, {3}};
  EXPECT_EQ(encoded(place), odm_test::canonical(R"({
    "_id": "berlin",
    "location": {"lon": 13.4, "lat": 52.5},
    "book": {"id": {"$numberInt": "1"}, "book_title": "t", "publisher_id": "p"},
    "keyed": {"key": "k", "n": 2},
    "explicit_id": {"_id": 3}
  })"));
  EXPECT_EQ(odm_test::round_trip(place), place);
}

TEST(Rename, StoredNamesAndFieldName) {
  static_assert(odm::stored_names<Book>[0] == "_id");
  static_assert(odm::stored_names<Book>[1] == "book_title");
  static_assert(odm::stored_names<Book, false>[0] == "id");
  static_assert(odm::stored_names<Point>[1] == "lat");
  static_assert(odm::field_name(&Book::id) == "_id");
  static_assert(odm::field_name(&Book::title) == "book_title");
  static_assert(odm::field_name(&Book::publisher) == "publisher_id");
  static_assert(odm::field_name(&Point::x) == "lon");
  static_assert(odm::field_name(&Keyed::id) == "key");
  static_assert(odm::field_name(&Keyed::n) == "n");
  static_assert(odm::field_name(&Place::location) == "location");
  static_assert(odm::field_name(&Slug::slug) == "_id");
  EXPECT_EQ(odm::field_name(&Book::title), "book_title");
}

}  // namespace model_rename_test
