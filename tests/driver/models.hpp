#pragma once
// Models of the integration tests, shaped like the seeds' example documents.

#include <odm/fields/object_id.hpp>
#include <odm/bson/convert.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace odm_test {

using Millis = std::chrono::sys_time<std::chrono::milliseconds>;

// Seed 000/002: the book whose copies are checked out atomically.
struct Checkout {
  std::string by;
  Millis date;
};

struct Book {
  std::int64_t id = 0;
  std::string title;
  std::vector<std::string> author;
  Millis published_date;
  std::int32_t pages = 0;
  std::string language;
  std::string publisher_id;
  std::int32_t available = 0;
  std::vector<Checkout> checkout;

  struct odm_model {
    static constexpr std::string_view collection = "books";
  };
};

// Seed 000: the movie (hot fields) of the subset pattern, with the cold fields still in
// the same document, and the summary that reads only the hot ones.
struct Imdb {
  double rating = 0;
  std::int32_t votes = 0;
  std::int32_t id = 0;
};

struct Movie {
  std::int32_t id = 0;
  std::string title;
  std::int32_t year = 0;
  std::int32_t runtime = 0;
  std::string type;
  std::vector<std::string> directors;
  std::vector<std::string> countries;
  std::vector<std::string> genres;
  std::string plot;
  std::string fullplot;
  Imdb imdb;
};

struct MovieSummary {
  std::int32_t id = 0;
  std::string title;
  std::int32_t year = 0;
  std::vector<std::string> genres;
};

/// A model with a generated ObjectId id and a default collection name ("note").
struct Note {
  odm::ObjectId id;
  std::string text;
  std::int32_t n = 0;
};

/// Numbered documents for batch and cursor tests ("counter").
struct Counter {
  std::int32_t id = 0;
  std::int32_t value = 0;
  std::string group;
};

/// A model without an id member: the server-side _id is an ObjectId odm generates.
struct LogLine {
  std::string host;
  std::string text;
};

}  // namespace odm_test

template <>
struct odm::model<odm_test::Movie> {
  static constexpr std::string_view collection = "movie";
};
