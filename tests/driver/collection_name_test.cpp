// Collection names: from the metadata (inside or outside the struct), else the type's
// unqualified name in snake_case.

#include "models.hpp"

#include <odm/model/collection_name.hpp>

#include <gtest/gtest.h>

namespace odm_test {
namespace shop {
struct BookReview {
  int id = 0;
};
struct HTTPLog {
  int id = 0;
};
struct MP3Player {
  int id = 0;
};
template <class T>
struct Page {
  T item;
};
}  // namespace shop

static_assert(odm::collection_name<Book> == "books");          // nested odm_model
static_assert(odm::collection_name<Movie> == "movie");         // odm::model<Movie>
static_assert(odm::collection_name<Note> == "note");           // default
static_assert(odm::collection_name<MovieSummary> == "movie_summary");
static_assert(odm::collection_name<shop::BookReview> == "book_review");
static_assert(odm::collection_name<shop::HTTPLog> == "http_log");
static_assert(odm::collection_name<shop::MP3Player> == "mp3_player");
static_assert(odm::collection_name<shop::Page<shop::BookReview>> == "page");

namespace {
struct LocalToThisFile {
  int id = 0;
};
}  // namespace
static_assert(odm::collection_name<LocalToThisFile> == "local_to_this_file");

TEST(CollectionName, DefaultsAndMetadata) {
  EXPECT_EQ(odm::default_collection_name<Book>, "book");
  EXPECT_EQ(odm::collection_name<Book>, "books");
}

}  // namespace odm_test
