#pragma once
// Models of the query tests, after the seeds' books, volumes, patrons, movies and products.

#include <odm/query.hpp>
#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace query_test {

using Timestamp = std::chrono::system_clock::time_point;

struct Checkout {
  std::string by;
  Timestamp date;
};

/// Seed 000's book (atomic checkout).
struct Book {
  std::int32_t id;
  std::string title;
  std::vector<std::string> author;
  std::int32_t pages;
  std::string publisher_id;
  std::int32_t available;
  std::vector<Checkout> checkout;
  std::optional<std::string> note;
  std::int64_t sold;
  double rating;
  bool in_print;
};

/// Seed 000's volume (keyword search).
struct Volume {
  std::string title;
  std::string author;
  std::int32_t published;
  std::int64_t ISBN;
  std::vector<std::string> topics;
};

struct Address {
  std::string street;
  std::string city;
  std::string zip;
  std::int32_t id;  // embedded: stays `id`
};

struct Patron {
  std::string id;
  std::string name;
  std::vector<odm::Embedded<Address>> addresses;
  odm::Embedded<Address> home;
  std::optional<Address> work;
};

struct Imdb {
  double rating;
  std::int32_t votes;
  std::int32_t id;
};

struct Movie {
  std::int32_t id;
  std::string title;
  std::int32_t year;
  odm::Embedded<Imdb> imdb;
  std::optional<std::string> plot;
  std::vector<std::int32_t> scores;
  std::map<std::string, std::int32_t> counts;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::rename(&Movie::plot, "full_plot"));
  };
};

struct Review {
  std::int32_t review_id;
  std::string user;
  std::int32_t id;
  Timestamp published_date;
};

struct Product {
  std::int32_t id;
  std::string name;
  std::vector<Review> reviews;
  std::vector<std::string> tags;
};

/// Canonical Extended JSON of `json` (relaxed input), for golden comparisons.
inline std::string canonical(std::string_view json) { return odm::Document::from_json(json).to_canonical_json(); }

/// `{"$date": {"$numberLong": "<ms>"}}` of a time point.
inline std::string date_json(Timestamp t) {
  const auto ms = std::chrono::floor<std::chrono::milliseconds>(t).time_since_epoch().count();
  return R"({"$date": {"$numberLong": ")" + std::to_string(ms) + R"("}})";
}

}  // namespace query_test

namespace query_test {
/// The query piece's BSON equals the document written as (relaxed) Extended JSON,
/// types included.
template <class Piece>
void expect_bson(const Piece& piece, std::string_view json) {
  EXPECT_EQ(piece.bson().to_canonical_json(), canonical(json));
}
}  // namespace query_test

#define EXPECT_BSON(...)                     \
  do {                                       \
    SCOPED_TRACE("EXPECT_BSON");             \
    ::query_test::expect_bson(__VA_ARGS__);  \
  } while (false)
