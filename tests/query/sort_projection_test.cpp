#include "query/query_models.hpp"

// Projection structs live in a named namespace: odm reflects only types with linkage.
namespace query_test {

struct MovieSummary {
  std::string title;
  std::int32_t year;
};

struct MovieCard {
  std::int32_t id;
  std::string title;
  std::optional<std::string> plot;
  odm::Embedded<Imdb> imdb;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::rename(&MovieCard::plot, "full_plot"));
  };
};

struct VolumeTitle {
  std::string title;
};

}  // namespace query_test

namespace {

using namespace query_test;
using odm::field;

TEST(SortTest, KeysInOrder) {
  EXPECT_BSON(odm::sort(odm::desc(&Review::published_date), odm::asc(&Review::review_id)),
              R"({"published_date": -1, "review_id": 1})");
  EXPECT_BSON(odm::sort(odm::asc(&Review::id)), R"({"_id": 1})");
  EXPECT_BSON(odm::sort(odm::asc(field(&Patron::addresses) / &Address::city), odm::desc(&Patron::name)),
              R"({"addresses.city": 1, "name": -1})");
  EXPECT_THROW((void)odm::sort(odm::asc(&Review::id), odm::desc(&Review::id)), odm::ValueError);
}

TEST(ProjectionTest, FromTheSmallerStructsStoredNames) {
  const auto summary = odm::projection<Movie, MovieSummary>();
  static_assert(std::is_same_v<decltype(summary), const odm::Projection<Movie, MovieSummary>>);
  EXPECT_BSON(summary, R"({"title": 1, "year": 1, "_id": 0})");
  EXPECT_BSON((odm::projection<Movie, MovieCard>()), R"({"_id": 1, "title": 1, "full_plot": 1, "imdb": 1})");
}

TEST(ProjectionTest, SeedKeywordSearch) {
  // db.volumes.findOne({topics: "voyage"}, {title: 1})
  EXPECT_BSON(field(&Volume::topics) == "voyage", R"({"topics": "voyage"})");
  EXPECT_BSON((odm::projection<Volume, VolumeTitle>()), R"({"title": 1, "_id": 0})");
}

}  // namespace
