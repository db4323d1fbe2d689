// Golden tests of seed 000 (Bulgarian guide: embedding, the subset pattern, references,
// trees, atomic operations, keyword search). Each test writes the seed's document as
// canonical Extended JSON by hand (the golden text) and as the seed shows it (relaxed
// Extended JSON), and checks that the struct encodes to exactly the golden document and
// that both texts decode back to the struct. See odm_test::golden.

#include "golden/seed_models.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

namespace golden_seed000_test {

using odm_test::day;
using odm_test::golden;
using odm_test::instant;

// ---- one-to-one with embedded documents ------------------------------------------

TEST(Seed000, ClientDocument) {
  const seed::Client joe{"joe", "Joe Bookreader"};
  EXPECT_TRUE(golden(joe, R"json({"_id": "joe", "name": "Joe Bookreader"})json",
                     R"json({ "_id": "joe", "name": "Joe Bookreader" })json"));
}

TEST(Seed000, NormalizedAddressDocument) {
  const seed::ClientAddress address{"joe", "123 Fake Street", "Faketon", "MA", "12345"};
  EXPECT_TRUE(golden(address,
                     R"json({"client_id": "joe", "street": "123 Fake Street", "city": "Faketon", "state": "MA",
                             "zip": "12345"})json",
                     R"json({
                       "client_id": "joe",
                       "street": "123 Fake Street",
                       "city": "Faketon",
                       "state": "MA",
                       "zip": "12345"
                     })json"));
}

TEST(Seed000, ClientWithEmbeddedAddress) {
  const seed::ClientWithAddress joe{"joe", "Joe Bookreader",
                                    seed::Address{"123 Fake Street", "Faketon", "MA", "12345"}};
  EXPECT_TRUE(golden(joe,
                     R"json({"_id": "joe", "name": "Joe Bookreader",
                             "address": {"street": "123 Fake Street", "city": "Faketon", "state": "MA",
                                         "zip": "12345"}})json",
                     R"json({
                       "_id": "joe",
                       "name": "Joe Bookreader",
                       "address": {
                         "street": "123 Fake Street",
                         "city": "Faketon",
                         "state": "MA",
                         "zip": "12345"
                       }
                     })json"));
  // The embedded value reads like the struct it wraps.
  EXPECT_EQ(joe.address->city, "Faketon");
}

// ---- one-to-many with embedded documents -----------------------------------------

TEST(Seed000, NormalizedAddressDocuments) {
  const seed::ClientAddress first{"joe", "123 Fake Street", "Faketon", "MA", "12345"};
  const seed::ClientAddress second{"joe", "1 Some Other Street", "Boston", "MA", "12345"};
  EXPECT_TRUE(golden(first,
                     R"json({"client_id": "joe", "street": "123 Fake Street", "city": "Faketon", "state": "MA",
                             "zip": "12345"})json"));
  EXPECT_TRUE(golden(second,
                     R"json({"client_id": "joe", "street": "1 Some Other Street", "city": "Boston", "state": "MA",
                             "zip": "12345"})json",
                     R"json({
                       "client_id": "joe",
                       "street": "1 Some Other Street",
                       "city": "Boston",
                       "state": "MA",
                       "zip": "12345"
                     })json"));
}

TEST(Seed000, ClientWithEmbeddedAddresses) {
  const seed::Patron joe{"joe",
                         "Joe Bookreader",
                         {seed::Address{"123 Fake Street", "Faketon", "MA", "12345"},
                          seed::Address{"1 Some Other Street", "Boston", "MA", "12345"}}};
  EXPECT_TRUE(golden(joe,
                     R"json({"_id": "joe", "name": "Joe Bookreader", "addresses": [
                               {"street": "123 Fake Street", "city": "Faketon", "state": "MA", "zip": "12345"},
                               {"street": "1 Some Other Street", "city": "Boston", "state": "MA", "zip": "12345"}]})json",
                     R"json({
                       "_id": "joe",
                       "name": "Joe Bookreader",
                       "addresses": [
                         {
                           "street": "123 Fake Street",
                           "city": "Faketon",
                           "state": "MA",
                           "zip": "12345"
                         },
                         {
                           "street": "1 Some Other Street",
                           "city": "Boston",
                           "state": "MA",
                           "zip": "12345"
                         }
                       ]
                     })json"));
}

// ---- subset pattern: the movie split ---------------------------------------------

constexpr const char* kPlot =
    "A group of people are standing in a straight line along the platform of a railway station, waiting for a "
    "train, which is seen coming at some distance. When the train stops at the platform, ...";
constexpr const char* kFullplot =
    "A group of people are standing in a straight line along the platform of a railway station, waiting for a "
    "train, which is seen coming at some distance. When the train stops at the platform, the line dissolves. The "
    "doors of the railway-cars open, and people on the platform help passengers to get off.";

TEST(Seed000, FullMovie) {
  const seed::FullMovie movie{
      1,
      "The Arrival of a Train",
      1896,
      1,
      day(1896, 1, 25),
      "http://ia.media-imdb.com/images/M/MV5BMjEyNDk5MDYzOV5BMTI5BanBnXkFtZTgwNjIxMTEwMzE@._V1_SX300.jpg",
      kPlot,
      kFullplot,
      instant(2015, 8, 15, 10, 6, 53),
      "movie",
      {"Auguste Lumière", "Louis Lumière"},
      seed::Imdb{7.3, 5043, 12},
      {"France"},
      {"Documentary", "Short"},
      seed::Tomatoes{seed::Viewer{3.7, 59}, instant(2020, 1, 9, 0, 2, 53)}};
  EXPECT_TRUE(golden(movie, R"json({
    "_id": {"$numberInt": "1"},
    "title": "The Arrival of a Train",
    "year": {"$numberInt": "1896"},
    "runtime": {"$numberInt": "1"},
    "released": {"$date": {"$numberLong": "-2333145600000"}},
    "poster": "http://ia.media-imdb.com/images/M/MV5BMjEyNDk5MDYzOV5BMTI5BanBnXkFtZTgwNjIxMTEwMzE@._V1_SX300.jpg",
    "plot": "A group of people are standing in a straight line along the platform of a railway station, waiting for a train, which is seen coming at some distance. When the train stops at the platform, ...",
    "fullplot": "A group of people are standing in a straight line along the platform of a railway station, waiting for a train, which is seen coming at some distance. When the train stops at the platform, the line dissolves. The doors of the railway-cars open, and people on the platform help passengers to get off.",
    "lastupdated": {"$date": {"$numberLong": "1439633213000"}},
    "type": "movie",
    "directors": ["Auguste Lumière", "Louis Lumière"],
    "imdb": {"rating": {"$numberDouble": "7.3"}, "votes": {"$numberInt": "5043"}, "id": {"$numberInt": "12"}},
    "countries": ["France"],
    "genres": ["Documentary", "Short"],
    "tomatoes": {
      "viewer": {"rating": {"$numberDouble": "3.7"}, "numReviews": {"$numberInt": "59"}},
      "lastUpdated": {"$date": {"$numberLong": "1578528173000"}}
    }
  })json",
                     // The seed writes ISODate("01-25-1896") and ISODate("2015-08-15T10:06:53"): UTC.
                     R"json({
    "_id": 1,
    "title": "The Arrival of a Train",
    "year": 1896,
    "runtime": 1,
    "released": {"$date": "1896-01-25T00:00:00Z"},
    "poster": "http://ia.media-imdb.com/images/M/MV5BMjEyNDk5MDYzOV5BMTI5BanBnXkFtZTgwNjIxMTEwMzE@._V1_SX300.jpg",
    "plot": "A group of people are standing in a straight line along the platform of a railway station, waiting for a train, which is seen coming at some distance. When the train stops at the platform, ...",
    "fullplot": "A group of people are standing in a straight line along the platform of a railway station, waiting for a train, which is seen coming at some distance. When the train stops at the platform, the line dissolves. The doors of the railway-cars open, and people on the platform help passengers to get off.",
    "lastupdated": {"$date": "2015-08-15T10:06:53Z"},
    "type": "movie",
    "directors": [ "Auguste Lumière", "Louis Lumière" ],
    "imdb": {
      "rating": 7.3,
      "votes": 5043,
      "id": 12
    },
    "countries": [ "France" ],
    "genres": [ "Documentary", "Short" ],
    "tomatoes": {
      "viewer": {
        "rating": 3.7,
        "numReviews": 59
      },
      "lastUpdated": {"$date": "2020-01-09T00:02:53Z"}
    }
  })json"));
}

TEST(Seed000, MovieHotFields) {
  const seed::Movie movie{1,      "The Arrival of a Train",           1896,         1, day(1896, 1, 25),
                          "movie", {"Auguste Lumière", "Louis Lumière"}, {"France"}, {"Documentary", "Short"}};
  EXPECT_TRUE(golden(movie, R"json({
    "_id": {"$numberInt": "1"},
    "title": "The Arrival of a Train",
    "year": {"$numberInt": "1896"},
    "runtime": {"$numberInt": "1"},
    "released": {"$date": {"$numberLong": "-2333145600000"}},
    "type": "movie",
    "directors": ["Auguste Lumière", "Louis Lumière"],
    "countries": ["France"],
    "genres": ["Documentary", "Short"]
  })json",
                     // (the seed's trailing comma after "genres" is not JSON and is left out)
                     R"json({
    "_id": 1,
    "title": "The Arrival of a Train",
    "year": 1896,
    "runtime": 1,
    "released": {"$date": "1896-01-25T00:00:00Z"},
    "type": "movie",
    "directors": [ "Auguste Lumière", "Louis Lumière" ],
    "countries": [ "France" ],
    "genres": [ "Documentary", "Short" ]
  })json"));
}

TEST(Seed000, MovieDetailsWithMovieId) {
  const seed::MovieDetails details{
      156,
      1,
      "http://ia.media-imdb.com/images/M/MV5BMjEyNDk5MDYzOV5BMl5BanBnXkFtZTgwNjIxMTEwMzE@._V1_SX300.jpg",
      kPlot,
      kFullplot,
      instant(2015, 8, 15, 10, 6, 53),
      seed::Imdb{7.3, 5043, 12},
      seed::Tomatoes{seed::Viewer{3.7, 59}, instant(2020, 1, 29, 0, 2, 53)}};
  EXPECT_TRUE(golden(details, R"json({
    "_id": {"$numberInt": "156"},
    "movie_id": {"$numberInt": "1"},
    "poster": "http://ia.media-imdb.com/images/M/MV5BMjEyNDk5MDYzOV5BMl5BanBnXkFtZTgwNjIxMTEwMzE@._V1_SX300.jpg",
    "plot": "A group of people are standing in a straight line along the platform of a railway station, waiting for a train, which is seen coming at some distance. When the train stops at the platform, ...",
    "fullplot": "A group of people are standing in a straight line along the platform of a railway station, waiting for a train, which is seen coming at some distance. When the train stops at the platform, the line dissolves. The doors of the railway-cars open, and people on the platform help passengers to get off.",
    "lastupdated": {"$date": {"$numberLong": "1439633213000"}},
    "imdb": {"rating": {"$numberDouble": "7.3"}, "votes": {"$numberInt": "5043"}, "id": {"$numberInt": "12"}},
    "tomatoes": {
      "viewer": {"rating": {"$numberDouble": "3.7"}, "numReviews": {"$numberInt": "59"}},
      "lastUpdated": {"$date": {"$numberLong": "1580256173000"}}
    }
  })json",
                     R"json({
    "_id": 156,
    "movie_id": 1,
    "poster": "http://ia.media-imdb.com/images/M/MV5BMjEyNDk5MDYzOV5BMl5BanBnXkFtZTgwNjIxMTEwMzE@._V1_SX300.jpg",
    "plot": "A group of people are standing in a straight line along the platform of a railway station, waiting for a train, which is seen coming at some distance. When the train stops at the platform, ...",
    "fullplot": "A group of people are standing in a straight line along the platform of a railway station, waiting for a train, which is seen coming at some distance. When the train stops at the platform, the line dissolves. The doors of the railway-cars open, and people on the platform help passengers to get off.",
    "lastupdated": {"$date": "2015-08-15T10:06:53Z"},
    "imdb": {
      "rating": 7.3,
      "votes": 5043,
      "id": 12
    },
    "tomatoes": {
      "viewer": {
        "rating": 3.7,
        "numReviews": 59
      },
      "lastUpdated": {"$date": "2020-01-29T00:02:53Z"}
    }
  })json"));
}

TEST(Seed000, ImdbIdStaysIdInsideTheMovie) {
  // `id` becomes `_id` only at the top level: the embedded imdb document keeps `id`, and
  // the same struct stored as a document of its own gets `_id`.
  const seed::Imdb imdb{7.3, 5043, 12};
  EXPECT_TRUE(golden(imdb, R"json({"rating": {"$numberDouble": "7.3"}, "votes": {"$numberInt": "5043"},
                                   "_id": {"$numberInt": "12"}})json"));
  EXPECT_EQ(odm_test::decode_error<seed::Imdb>(R"json({"rating": 7.3, "votes": 5043, "id": 12})json"),
            "_id: missing required field");
}

// ---- subset pattern: the review collection ---------------------------------------

TEST(Seed000, ReviewDocuments) {
  const seed::Review kristina{786, 1, "Kristina", "This is indeed an amazing widget.", day(2019, 2, 18)};
  const seed::Review trina{785, 1, "Trina", "Nice product. Slow shipping.", day(2019, 2, 17)};
  const seed::Review hans{1, 1, "Hans", "Meh, it's okay.", day(2017, 12, 6)};
  EXPECT_TRUE(golden(kristina, R"json({
    "review_id": {"$numberInt": "786"},
    "product_id": {"$numberInt": "1"},
    "review_author": "Kristina",
    "review_text": "This is indeed an amazing widget.",
    "published_date": {"$date": {"$numberLong": "1550448000000"}}
  })json",
                     R"json({
    "review_id": 786,
    "product_id": 1,
    "review_author": "Kristina",
    "review_text": "This is indeed an amazing widget.",
    "published_date": {"$date": "2019-02-18T00:00:00Z"}
  })json"));
  EXPECT_TRUE(golden(trina, R"json({
    "review_id": {"$numberInt": "785"},
    "product_id": {"$numberInt": "1"},
    "review_author": "Trina",
    "review_text": "Nice product. Slow shipping.",
    "published_date": {"$date": {"$numberLong": "1550361600000"}}
  })json",
                     R"json({
    "review_id": 785,
    "product_id": 1,
    "review_author": "Trina",
    "review_text": "Nice product. Slow shipping.",
    "published_date": {"$date": "2019-02-17T00:00:00Z"}
  })json"));
  EXPECT_TRUE(golden(hans, R"json({
    "review_id": {"$numberInt": "1"},
    "product_id": {"$numberInt": "1"},
    "review_author": "Hans",
    "review_text": "Meh, it's okay.",
    "published_date": {"$date": {"$numberLong": "1512518400000"}}
  })json",
                     R"json({
    "review_id": 1,
    "product_id": 1,
    "review_author": "Hans",
    "review_text": "Meh, it's okay.",
    "published_date": {"$date": "2017-12-06T00:00:00Z"}
  })json"));
}

// ---- one-to-many with references: publishers and books -----------------------------

const seed::PublisherInfo kOreilly{"O'Reilly Media", 1980, "CA"};

TEST(Seed000, BookWithEmbeddedPublisherAndAuthorArray) {
  const seed::BookWithPublisher book{"MongoDB: The Definitive Guide",
                                     std::vector<std::string>{"Kristina Chodorow", "Mike Dirolf"},
                                     day(2010, 9, 24),
                                     216,
                                     "English",
                                     kOreilly};
  EXPECT_TRUE(golden(book, R"json({
    "title": "MongoDB: The Definitive Guide",
    "author": ["Kristina Chodorow", "Mike Dirolf"],
    "published_date": {"$date": {"$numberLong": "1285286400000"}},
    "pages": {"$numberInt": "216"},
    "language": "English",
    "publisher": {"name": "O'Reilly Media", "founded": {"$numberInt": "1980"}, "location": "CA"}
  })json",
                     R"json({
    "title": "MongoDB: The Definitive Guide",
    "author": [ "Kristina Chodorow", "Mike Dirolf" ],
    "published_date": {"$date": "2010-09-24T00:00:00Z"},
    "pages": 216,
    "language": "English",
    "publisher": {
      "name": "O'Reilly Media",
      "founded": 1980,
      "location": "CA"
    }
  })json"));
  EXPECT_EQ(odm_test::decode<seed::BookWithPublisher>(odm::to_json(book)).author.index(), 1u);
}

TEST(Seed000, BookWithEmbeddedPublisherAndAuthorString) {
  const seed::BookWithPublisher book{"50 Tips and Tricks for MongoDB Developer", std::string("Kristina Chodorow"),
                                     day(2011, 5, 6),  68, "English", kOreilly};
  EXPECT_TRUE(golden(book, R"json({
    "title": "50 Tips and Tricks for MongoDB Developer",
    "author": "Kristina Chodorow",
    "published_date": {"$date": {"$numberLong": "1304640000000"}},
    "pages": {"$numberInt": "68"},
    "language": "English",
    "publisher": {"name": "O'Reilly Media", "founded": {"$numberInt": "1980"}, "location": "CA"}
  })json",
                     R"json({
    "title": "50 Tips and Tricks for MongoDB Developer",
    "author": "Kristina Chodorow",
    "published_date": {"$date": "2011-05-06T00:00:00Z"},
    "pages": 68,
    "language": "English",
    "publisher": {
      "name": "O'Reilly Media",
      "founded": 1980,
      "location": "CA"
    }
  })json"));
  EXPECT_EQ(odm_test::decode<seed::BookWithPublisher>(odm::to_json(book)).author.index(), 0u);
}

TEST(Seed000, PublisherWithGrowingBooksArray) {
  // The seed elides the rest of the array ("..."); the two ids it shows are int32.
  const seed::PublisherWithBooks publisher{"O'Reilly Media", 1980, "CA", {123456789, 234567890}};
  EXPECT_TRUE(golden(publisher, R"json({
    "name": "O'Reilly Media",
    "founded": {"$numberInt": "1980"},
    "location": "CA",
    "books": [{"$numberInt": "123456789"}, {"$numberInt": "234567890"}]
  })json",
                     R"json({
    "name": "O'Reilly Media",
    "founded": 1980,
    "location": "CA",
    "books": [123456789, 234567890]
  })json"));
}

TEST(Seed000, BooksWithoutPublisher) {
  const seed::Book guide{123456789,
                         "MongoDB: The Definitive Guide",
                         std::vector<std::string>{"Kristina Chodorow", "Mike Dirolf"},
                         day(2010, 9, 24),
                         216,
                         "English"};
  const seed::Book tips{234567890, "50 Tips and Tricks for MongoDB Developer", std::string("Kristina Chodorow"),
                        day(2011, 5, 6), 68, "English"};
  EXPECT_TRUE(golden(guide, R"json({
    "_id": {"$numberInt": "123456789"},
    "title": "MongoDB: The Definitive Guide",
    "author": ["Kristina Chodorow", "Mike Dirolf"],
    "published_date": {"$date": {"$numberLong": "1285286400000"}},
    "pages": {"$numberInt": "216"},
    "language": "English"
  })json",
                     R"json({
    "_id": 123456789,
    "title": "MongoDB: The Definitive Guide",
    "author": [ "Kristina Chodorow", "Mike Dirolf" ],
    "published_date": {"$date": "2010-09-24T00:00:00Z"},
    "pages": 216,
    "language": "English"
  })json"));
  EXPECT_TRUE(golden(tips, R"json({
    "_id": {"$numberInt": "234567890"},
    "title": "50 Tips and Tricks for MongoDB Developer",
    "author": "Kristina Chodorow",
    "published_date": {"$date": {"$numberLong": "1304640000000"}},
    "pages": {"$numberInt": "68"},
    "language": "English"
  })json",
                     R"json({
    "_id": 234567890,
    "title": "50 Tips and Tricks for MongoDB Developer",
    "author": "Kristina Chodorow",
    "published_date": {"$date": "2011-05-06T00:00:00Z"},
    "pages": 68,
    "language": "English"
  })json"));
}

TEST(Seed000, PublisherDocument) {
  const seed::Publisher oreilly{"oreilly", "O'Reilly Media", 1980, "CA"};
  EXPECT_TRUE(golden(oreilly,
                     R"json({"_id": "oreilly", "name": "O'Reilly Media", "founded": {"$numberInt": "1980"},
                             "location": "CA"})json",
                     R"json({
                       "_id": "oreilly",
                       "name": "O'Reilly Media",
                       "founded": 1980,
                       "location": "CA"
                     })json"));
}

TEST(Seed000, BooksWithPublisherId) {
  const seed::BookWithPublisherId guide{123456789,
                                        "MongoDB: The Definitive Guide",
                                        std::vector<std::string>{"Kristina Chodorow", "Mike Dirolf"},
                                        day(2010, 9, 24),
                                        216,
                                        "English",
                                        "oreilly"};
  const seed::BookWithPublisherId tips{234567890, "50 Tips and Tricks for MongoDB Developer",
                                       std::string("Kristina Chodorow"), day(2011, 5, 6), 68, "English", "oreilly"};
  EXPECT_TRUE(golden(guide, R"json({
    "_id": {"$numberInt": "123456789"},
    "title": "MongoDB: The Definitive Guide",
    "author": ["Kristina Chodorow", "Mike Dirolf"],
    "published_date": {"$date": {"$numberLong": "1285286400000"}},
    "pages": {"$numberInt": "216"},
    "language": "English",
    "publisher_id": "oreilly"
  })json",
                     R"json({
    "_id": 123456789,
    "title": "MongoDB: The Definitive Guide",
    "author": [ "Kristina Chodorow", "Mike Dirolf" ],
    "published_date": {"$date": "2010-09-24T00:00:00Z"},
    "pages": 216,
    "language": "English",
    "publisher_id": "oreilly"
  })json"));
  EXPECT_TRUE(golden(tips, R"json({
    "_id": {"$numberInt": "234567890"},
    "title": "50 Tips and Tricks for MongoDB Developer",
    "author": "Kristina Chodorow",
    "published_date": {"$date": {"$numberLong": "1304640000000"}},
    "pages": {"$numberInt": "68"},
    "language": "English",
    "publisher_id": "oreilly"
  })json",
                     R"json({
    "_id": 234567890,
    "title": "50 Tips and Tricks for MongoDB Developer",
    "author": "Kristina Chodorow",
    "published_date": {"$date": "2011-05-06T00:00:00Z"},
    "pages": 68,
    "language": "English",
    "publisher_id": "oreilly"
  })json"));
}

// ---- trees -----------------------------------------------------------------------

TEST(Seed000, CategoriesWithParentReferences) {
  struct Case {
    seed::CategoryWithParent category;
    const char* golden_json;
    const char* seed_json;
  };
  const Case cases[] = {
      {{"MongoDB", "Databases"}, R"json({"_id": "MongoDB", "parent": "Databases"})json",
       R"json({ "_id": "MongoDB", "parent": "Databases" })json"},
      {{"dbm", "Databases"}, R"json({"_id": "dbm", "parent": "Databases"})json",
       R"json({ "_id": "dbm", "parent": "Databases" })json"},
      {{"Databases", "Programming"}, R"json({"_id": "Databases", "parent": "Programming"})json",
       R"json({ "_id": "Databases", "parent": "Programming" })json"},
      {{"Languages", "Programming"}, R"json({"_id": "Languages", "parent": "Programming"})json",
       R"json({ "_id": "Languages", "parent": "Programming" })json"},
      {{"Programming", "Books"}, R"json({"_id": "Programming", "parent": "Books"})json",
       R"json({ "_id": "Programming", "parent": "Books" })json"},
      // The root: nullopt is stored as null, as the seed shows.
      {{"Books", std::nullopt}, R"json({"_id": "Books", "parent": null})json",
       R"json({ "_id": "Books", "parent": null })json"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.golden_json);
    EXPECT_TRUE(golden(c.category, c.golden_json, c.seed_json));
  }
  // A root written without the field at all reads the same.
  EXPECT_EQ(odm_test::decode<seed::CategoryWithParent>(R"json({"_id": "Books"})json"),
            (seed::CategoryWithParent{"Books", std::nullopt}));
}

TEST(Seed000, CategoriesWithChildReferences) {
  struct Case {
    seed::CategoryWithChildren category;
    const char* golden_json;
    const char* seed_json;
  };
  const Case cases[] = {
      {{"MongoDB", {}}, R"json({"_id": "MongoDB", "children": []})json",
       R"json({ "_id": "MongoDB", "children": [] })json"},
      {{"dbm", {}}, R"json({"_id": "dbm", "children": []})json", R"json({ "_id": "dbm", "children": [] })json"},
      {{"Databases", {"MongoDB", "dbm"}}, R"json({"_id": "Databases", "children": ["MongoDB", "dbm"]})json",
       R"json({ "_id": "Databases", "children": [ "MongoDB", "dbm" ] })json"},
      {{"Languages", {}}, R"json({"_id": "Languages", "children": []})json",
       R"json({ "_id": "Languages", "children": [] })json"},
      {{"Programming", {"Databases", "Languages"}},
       R"json({"_id": "Programming", "children": ["Databases", "Languages"]})json",
       R"json({ "_id": "Programming", "children": [ "Databases", "Languages" ] })json"},
      {{"Books", {"Programming"}}, R"json({"_id": "Books", "children": ["Programming"]})json",
       R"json({ "_id": "Books", "children": [ "Programming" ] })json"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.golden_json);
    EXPECT_TRUE(golden(c.category, c.golden_json, c.seed_json));
  }
}

// ---- atomic single-document update -------------------------------------------------

TEST(Seed000, BookWithAvailableAndCheckout) {
  const seed::BookWithCheckout book{123456789,
                                    "MongoDB: The Definitive Guide",
                                    std::vector<std::string>{"Kristina Chodorow", "Mike Dirolf"},
                                    day(2010, 9, 24),
                                    216,
                                    "English",
                                    "oreilly",
                                    3,
                                    {seed::Checkout{"joe", instant(2012, 10, 15)}}};
  EXPECT_TRUE(golden(book, R"json({
    "_id": {"$numberInt": "123456789"},
    "title": "MongoDB: The Definitive Guide",
    "author": ["Kristina Chodorow", "Mike Dirolf"],
    "published_date": {"$date": {"$numberLong": "1285286400000"}},
    "pages": {"$numberInt": "216"},
    "language": "English",
    "publisher_id": "oreilly",
    "available": {"$numberInt": "3"},
    "checkout": [{"by": "joe", "date": {"$date": {"$numberLong": "1350259200000"}}}]
  })json",
                     R"json({
    "_id": 123456789,
    "title": "MongoDB: The Definitive Guide",
    "author": [ "Kristina Chodorow", "Mike Dirolf" ],
    "published_date": {"$date": "2010-09-24T00:00:00Z"},
    "pages": 216,
    "language": "English",
    "publisher_id": "oreilly",
    "available": 3,
    "checkout": [
      {
        "by": "joe",
        "date": {"$date": "2012-10-15T00:00:00Z"}
      }
    ]
  })json"));
}

TEST(Seed000, CheckoutEntryPushedByTheUpdate) {
  // `$push: { checkout: { by: "abc", date: new Date() } }`: a full instant, which the
  // codec stores to the millisecond.
  const seed::Checkout entry{"abc", instant(2021, 3, 14, 9, 26, 53, 589)};
  EXPECT_TRUE(golden(entry, R"json({"by": "abc", "date": {"$date": {"$numberLong": "1615714013589"}}})json",
                     R"json({ "by": "abc", "date": {"$date": "2021-03-14T09:26:53.589Z"} })json"));
}

TEST(Seed000, UpdateOneResult) {
  const seed::UpdateResult result{true, 1, 1};
  EXPECT_TRUE(golden(result,
                     R"json({"acknowledged": true, "matchedCount": {"$numberInt": "1"},
                             "modifiedCount": {"$numberInt": "1"}})json",
                     R"json({ "acknowledged" : true, "matchedCount" : 1, "modifiedCount" : 1 })json"));
}

// ---- keyword search ----------------------------------------------------------------

TEST(Seed000, MobyDickVolumeWithTopics) {
  const seed::Volume moby{"Moby-Dick",
                          "Herman Melville",
                          1851,
                          451526996,
                          {"whaling", "allegory", "revenge", "American", "novel", "nautical", "voyage", "Cape Cod"}};
  // The shell reads the seed's `ISBN : 0451526996` as the number 451526996 (a leading
  // zero is not octal when a digit is 8 or 9), which fits an int32. JSON allows no
  // leading zero, so the seed text below drops it.
  EXPECT_TRUE(golden(moby, R"json({
    "title": "Moby-Dick",
    "author": "Herman Melville",
    "published": {"$numberInt": "1851"},
    "ISBN": {"$numberInt": "451526996"},
    "topics": ["whaling", "allegory", "revenge", "American", "novel", "nautical", "voyage", "Cape Cod"]
  })json",
                     R"json({
    "title" : "Moby-Dick",
    "author" : "Herman Melville",
    "published" : 1851,
    "ISBN" : 451526996,
    "topics" : [ "whaling", "allegory", "revenge", "American", "novel", "nautical", "voyage", "Cape Cod" ]
  })json"));
}

}  // namespace golden_seed000_test
