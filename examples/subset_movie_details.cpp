// The subset pattern, one-to-one split (seed 000): a movie document with everything is
// large, but lists and searches need only a few fields. The hot fields stay in `movie`;
// the cold ones (poster, plots, ratings) move to `movie_details`, which points back at
// its movie with `movie_id`. The movie is loaded by default, its details on demand.
#include "example_support.hpp"

#include <odm/join/join.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using Date = std::chrono::sys_days;
using Timestamp = std::chrono::system_clock::time_point;

/// The `movie` collection: the hot fields.
struct Movie {
  std::int32_t id;
  std::string title;
  std::int32_t year;
  std::int32_t runtime;
  Date released;
  std::string type;
  std::vector<std::string> directors;
  std::vector<std::string> countries;
  std::vector<std::string> genres;
  bool operator==(const Movie&) const = default;
  struct odm_model {
    static constexpr std::string_view collection = "movie";
  };
};

/// `imdb: {rating, votes, id}`: embedded, so `id` stays `id`.
struct Imdb {
  double rating;
  std::int32_t votes;
  std::int32_t id;
  bool operator==(const Imdb&) const = default;
};

struct Viewer {
  double rating;
  std::int32_t numReviews;
  bool operator==(const Viewer&) const = default;
};

struct Tomatoes {
  odm::Embedded<Viewer> viewer;
  Timestamp lastUpdated;
  bool operator==(const Tomatoes&) const = default;
};

/// The `movie_details` collection: the cold fields, `movie_id` pointing at the movie.
struct MovieDetails {
  std::int32_t id;
  odm::ParentRef<Movie> movie_id;
  std::string poster;
  std::string plot;
  std::string fullplot;
  Timestamp lastupdated;
  odm::Embedded<Imdb> imdb;
  odm::Embedded<Tomatoes> tomatoes;
  struct odm_model {
    static constexpr std::string_view collection = "movie_details";
  };
};

/// What a movie list shows: {_id: 1, title: 1, year: 1, genres: 1}.
struct MovieListEntry {
  std::int32_t id;
  std::string title;
  std::int32_t year;
  std::vector<std::string> genres;
};

constexpr const char* kPlot =
    "A group of people are standing in a straight line along the platform of a railway station, waiting for a "
    "train, which is seen coming at some distance. When the train stops at the platform, ...";
constexpr const char* kFullplot =
    "A group of people are standing in a straight line along the platform of a railway station, waiting for a "
    "train, which is seen coming at some distance. When the train stops at the platform, the line dissolves. The "
    "doors of the railway-cars open, and people on the platform help passengers to get off.";

}  // namespace

int main() {
  using example::check;
  using example::day;
  using example::instant;
  return example::run([] {
    const odm::Client client = example::connect();
    const odm::Database db = example::examples_db(client);
    auto movies = db.collection<Movie>();
    auto details = db.collection<MovieDetails>();
    movies.drop();
    details.drop();

    example::step("store the hot fields in `movie` and the cold ones in `movie_details`");
    const Movie train{1,
                      "The Arrival of a Train",
                      1896,
                      1,
                      day(1896, 1, 25),
                      "movie",
                      {"Auguste Lumière", "Louis Lumière"},
                      {"France"},
                      {"Documentary", "Short"}};
    movies.insert_one(train);
    example::show("movie", train);
    const MovieDetails train_details{
        156,
        1,
        "http://ia.media-imdb.com/images/M/MV5BMjEyNDk5MDYzOV5BMl5BanBnXkFtZTgwNjIxMTEwMzE@._V1_SX300.jpg",
        kPlot,
        kFullplot,
        instant(2015, 8, 15, 10, 6, 53),
        Imdb{7.3, 5043, 12},
        Tomatoes{Viewer{3.7, 59}, instant(2020, 1, 29, 0, 2, 53)}};
    details.insert_one(train_details);
    example::show("movie_details", train_details);
    // The ParentRef implies {movie_id: 1} on movie_details: details are found by movie.
    const auto report = example::sync_indexes<Movie, MovieDetails>(db);
    check(report.created.size() + report.unchanged.size() == 1, "one index planned: movie_details {movie_id: 1}");

    example::step("a movie list reads only the hot fields it shows");
    const auto list = movies
                          .find<MovieListEntry>(odm::field(&Movie::genres) == "Short",
                                                odm::FindOptions<Movie>{}.sort(odm::sort(odm::asc(&Movie::year))))
                          .to_vector();
    example::show_all("list", list);
    check(list.size() == 1 && list[0].title == "The Arrival of a Train" && list[0].year == 1896,
          "the list entry holds the title and the year");

    example::step("the movie page loads the movie by default ...");
    const Movie page = movies.get_by_id(1);
    example::show("movie", page);
    check(page == train, "the movie reads back exactly as stored");

    example::step("... and its details on demand: {movie_id: 1}, through the ParentRef's index");
    const std::vector<Movie> shown{page};
    const auto on_demand = odm::children_of(db, shown, &MovieDetails::movie_id);
    check(on_demand.size() == 1 && on_demand[0].size() == 1, "one details document for the movie");
    const MovieDetails& cold = on_demand[0][0];
    example::show("movie_details", cold);
    check(cold.id == 156 && *cold.movie_id.id() == 1, "the details point back at movie 1");
    check(cold.plot == kPlot && cold.fullplot == kFullplot && cold.imdb->rating == 7.3 &&
              cold.tomatoes->viewer->numReviews == 59 && cold.lastupdated == instant(2015, 8, 15, 10, 6, 53),
          "the cold fields read back as stored");

    example::step("from the details back to the movie: one $in query resolves movie_id");
    std::vector<MovieDetails> all_details = details.find(odm::field(&MovieDetails::imdb) / &Imdb::rating > 7.0).to_vector();
    odm::resolve(db, all_details, odm::with(&MovieDetails::movie_id));
    check(all_details.size() == 1 && all_details[0].movie_id.is_loaded(), "the movie reference was resolved");
    example::show("details.movie_id ->", *all_details[0].movie_id);
    check(all_details[0].movie_id->title == "The Arrival of a Train", "the resolved movie is the right one");
  });
}
