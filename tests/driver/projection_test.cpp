// Reading a smaller struct fetches only its fields: MovieSummary (the seed's hot
// fields) from the movie collection. Command monitoring shows the projection the find
// command carried.

#include "models.hpp"
#include "support.hpp"

#include <odm/driver/client.hpp>
#include <odm/query.hpp>

#include <gtest/gtest.h>

namespace odm_test {
namespace {

class Projection : public DriverTest {};

Movie arrival_of_a_train() {
  Movie movie;
  movie.id = 1;
  movie.title = "The Arrival of a Train";
  movie.year = 1896;
  movie.runtime = 1;
  movie.type = "movie";
  movie.directors = {"Auguste Lumière", "Louis Lumière"};
  movie.countries = {"France"};
  movie.genres = {"Documentary", "Short"};
  movie.plot = "A group of people are standing in a straight line along the platform of a railway station...";
  movie.fullplot = std::string(2000, 'x');
  movie.imdb = Imdb{7.3, 5043, 12};
  return movie;
}

TEST_F(Projection, SummaryReadsOnlyItsFieldsFromTheServer) {
  auto movies = db().collection<Movie>();
  EXPECT_EQ(movies.name(), "movie");
  movies.insert_one(arrival_of_a_train());
  Movie second = arrival_of_a_train();
  second.id = 2;
  second.title = "Le Voyage dans la Lune";
  second.year = 1902;
  movies.insert_one(second);
  log_.clear();

  const std::vector<MovieSummary> summaries =
      movies.find<MovieSummary>(odm::Filter<Movie>(), odm::FindOptions<Movie>{}.sort(odm::sort(odm::asc(&Movie::year)))).to_vector();
  ASSERT_EQ(summaries.size(), 2u);
  EXPECT_EQ(summaries[0].id, 1);
  EXPECT_EQ(summaries[0].title, "The Arrival of a Train");
  EXPECT_EQ(summaries[0].year, 1896);
  EXPECT_EQ(summaries[0].genres, (std::vector<std::string>{"Documentary", "Short"}));
  EXPECT_EQ(summaries[1].year, 1902);

  ASSERT_EQ(log_.started("find"), 1);
  const std::optional<odm::Document> command = log_.last("find");
  ASSERT_TRUE(command);
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init_find(&it, command->get(), "projection")) << command->to_json();
  std::uint32_t length = 0;
  const std::uint8_t* data = nullptr;
  bson_iter_document(&it, &length, &data);
  const odm::Document projection = odm::Document::from_bytes({data, length});
  EXPECT_EQ(projection, json(R"({"_id": 1, "title": 1, "year": 1, "genres": 1})"));

  // The documents that came back hold nothing else (read them raw with the same projection).
  const auto raw = movies
                       .find<odm::Document>(odm::Filter<Movie>::raw(json(R"({"_id": 1})")),
                                            odm::FindOptions<Movie>{}.projection(odm::projection<Movie, MovieSummary>()))
                       .to_vector();
  ASSERT_EQ(raw.size(), 1u);
  EXPECT_FALSE(has_key(raw[0], "fullplot"));
  EXPECT_FALSE(has_key(raw[0], "imdb"));
  EXPECT_TRUE(has_key(raw[0], "title"));
}

TEST_F(Projection, FindOneReadsASummary) {
  auto movies = db().collection<Movie>();
  movies.insert_one(arrival_of_a_train());
  const std::optional<MovieSummary> one = movies.find_one<MovieSummary>(odm::Filter<Movie>::raw(json(R"({"_id": 1})")));
  ASSERT_TRUE(one);
  EXPECT_EQ(one->title, "The Arrival of a Train");
}

}  // namespace
}  // namespace odm_test
