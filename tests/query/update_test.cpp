#include "query/query_models.hpp"

namespace {

using namespace query_test;
using odm::field;

TEST(UpdateTest, SeedAtomicCheckoutIsOneTypedStatement) {
  const Timestamp now = std::chrono::sys_days(std::chrono::year{2012} / 10 / 15) + std::chrono::hours(9);
  const auto filter = field(&Book::id) == 123456789 && field(&Book::available) > 0;
  const auto update = field(&Book::available).inc(-1) + field(&Book::checkout).push(Checkout{"abc", now});
  EXPECT_BSON(filter, R"({"_id": 123456789, "available": {"$gt": 0}})");
  EXPECT_BSON(update, R"({"$inc": {"available": -1}, "$push": {"checkout": {"by": "abc", "date": )" + date_json(now) +
                          "}}}");
  static_assert(std::is_same_v<decltype(filter), const odm::Filter<Book>>);
  static_assert(std::is_same_v<decltype(update), const odm::Update<Book>>);
}

TEST(UpdateTest, FieldOperators) {
  EXPECT_BSON(field(&Book::title).set("New"), R"({"$set": {"title": "New"}})");
  EXPECT_BSON(field(&Book::note).set("n"), R"({"$set": {"note": "n"}})");
  EXPECT_BSON(field(&Book::note).set(std::nullopt), R"({"$set": {"note": null}})");
  EXPECT_BSON(field(&Book::note).unset(), R"({"$unset": {"note": ""}})");
  EXPECT_BSON(field(&Book::sold).inc(2), R"({"$inc": {"sold": {"$numberLong": "2"}}})");
  EXPECT_BSON(field(&Book::rating).mul(2), R"({"$mul": {"rating": 2.0}})");
  EXPECT_BSON(field(&Book::pages).min(100), R"({"$min": {"pages": 100}})");
  EXPECT_BSON(field(&Book::pages).max(900), R"({"$max": {"pages": 900}})");
  EXPECT_BSON(field(&Book::title).set_on_insert("Untitled"), R"({"$setOnInsert": {"title": "Untitled"}})");
}

TEST(UpdateTest, NestedPathsAndRenames) {
  EXPECT_BSON((field(&Movie::imdb) / &Imdb::votes).inc(1), R"({"$inc": {"imdb.votes": 1}})");
  EXPECT_BSON(field(&Movie::plot).unset(), R"({"$unset": {"full_plot": ""}})");
  EXPECT_BSON((field(&Patron::home) / &Address::city).set("Boston"), R"({"$set": {"home.city": "Boston"}})");
}

TEST(UpdateTest, ArrayOperators) {
  EXPECT_BSON(field(&Volume::topics).push("whaling"), R"({"$push": {"topics": "whaling"}})");
  EXPECT_BSON(field(&Volume::topics).add_to_set("voyage"), R"({"$addToSet": {"topics": "voyage"}})");
  EXPECT_BSON(field(&Volume::topics).add_to_set_each({"a", "b"}),
              R"({"$addToSet": {"topics": {"$each": ["a", "b"]}}})");
  EXPECT_BSON(field(&Volume::topics).pull("novel"), R"({"$pull": {"topics": "novel"}})");
  EXPECT_BSON(field(&Volume::topics).pull_all({"a", "b"}), R"({"$pullAll": {"topics": ["a", "b"]}})");
  EXPECT_BSON(field(&Movie::scores).pull([](auto s) { return s < 50; }), R"({"$pull": {"scores": {"$lt": 50}}})");
  EXPECT_BSON(field(&Book::checkout).pull([](auto c) { return c / &Checkout::by == "joe"; }),
              R"({"$pull": {"checkout": {"by": "joe"}}})");
  EXPECT_BSON(field(&Volume::topics).pop_first(), R"({"$pop": {"topics": -1}})");
  EXPECT_BSON(field(&Volume::topics).pop_last(), R"({"$pop": {"topics": 1}})");
}

TEST(UpdateTest, PushEachWithModifiers) {
  const Timestamp t{std::chrono::milliseconds(1000)};
  const std::vector<Review> latest{{1, "ann", 9, t}};
  EXPECT_BSON(field(&Product::reviews).push_each(latest).sort(odm::desc(&Review::published_date)).slice(10),
              R"({"$push": {"reviews": {"$each": [{"review_id": 1, "user": "ann", "id": 9, "published_date": )" +
                  date_json(t) + R"(}], "$sort": {"published_date": -1}, "$slice": 10}}})");
  // Inside the element, `id` is `id`, not `_id`.
  EXPECT_BSON(field(&Product::reviews).push_each(latest).sort(odm::asc(&Review::id), odm::desc(&Review::user)),
              R"({"$push": {"reviews": {"$each": [{"review_id": 1, "user": "ann", "id": 9, "published_date": )" +
                  date_json(t) + R"(}], "$sort": {"id": 1, "user": -1}}}})");
  EXPECT_BSON(field(&Movie::scores).push_each({90, 80}).position(0).sort(odm::descending).slice(-5),
              R"({"$push": {"scores": {"$each": [90, 80], "$position": 0, "$sort": -1, "$slice": -5}}})");
  EXPECT_BSON(field(&Movie::scores).push_each({1}) + field(&Movie::title).set("x"),
              R"({"$push": {"scores": {"$each": [1]}}, "$set": {"title": "x"}})");
}

TEST(UpdateTest, PositionalPaths) {
  const Timestamp t{std::chrono::milliseconds(5)};
  EXPECT_BSON((field(&Book::checkout).matched() / &Checkout::date).set(t),
              R"({"$set": {"checkout.$.date": )" + date_json(t) + "}}");
  EXPECT_BSON(field(&Movie::scores).all_elements().inc(1), R"({"$inc": {"scores.$[]": 1}})");
  EXPECT_BSON(field(&Movie::scores).matched().set(5), R"({"$set": {"scores.$": 5}})");
  EXPECT_BSON((field(&Patron::addresses).all_elements() / &Address::city).set("Boston"),
              R"({"$set": {"addresses.$[].city": "Boston"}})");
  static_assert(decltype(field(&Movie::scores).matched())::positional);
  static_assert(!decltype(field(&Movie::scores))::positional);
}

TEST(UpdateTest, CombiningMergesOperators) {
  auto update = field(&Book::title).set("a") + field(&Book::pages).set(3) + field(&Book::available).inc(1);
  update += field(&Book::sold).inc(1);
  EXPECT_BSON(update, R"({"$set": {"title": "a", "pages": 3}, "$inc": {"available": 1, "sold": {"$numberLong": "1"}}})");
  EXPECT_BSON(odm::Update<Book>{} + field(&Book::pages).set(3), R"({"$set": {"pages": 3}})");
}

TEST(UpdateTest, TwoOperatorsOnOnePathAreRefused) {
  EXPECT_THROW((void)(field(&Book::available).inc(1) + field(&Book::available).set(0)), odm::ValueError);
  EXPECT_THROW((void)(field(&Book::available).inc(1) + field(&Book::available).inc(1)), odm::ValueError);
  EXPECT_THROW((void)(field(&Patron::home).set(Address{}) + (field(&Patron::home) / &Address::city).set("x")),
               odm::ValueError);
  try {
    (void)(field(&Book::available).inc(1) + field(&Book::available).set(0));
  } catch (const odm::ValueError& e) {
    EXPECT_STREQ(e.what(),
                 "the update changes `available` with $inc and `available` with $set; MongoDB refuses two "
                 "operators on the same path");
  }
  // A name that merely starts like another is no conflict; a path inside another is.
  EXPECT_FALSE(odm::detail::paths_conflict("page", "pages"));
  EXPECT_TRUE(odm::detail::paths_conflict("home", "home.city"));
  EXPECT_TRUE(odm::detail::paths_conflict("home.city", "home"));
}

TEST(UpdateTest, UserStringsStayValues) {
  EXPECT_BSON(field(&Book::title).set(R"({"$gt": ""})"), R"({"$set": {"title": "{\"$gt\": \"\"}"}})");
  const std::map<std::string, std::int32_t> injected{{"$inc", 1}};
  EXPECT_THROW((void)field(&Movie::counts).set(injected), odm::EncodeError);
}

}  // namespace
