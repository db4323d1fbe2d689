// Adversarial probes of issue 14 (one member table, typed expressions written once, one
// writer with scoped children, the error contract), written from the README and the
// issue by someone who did not write the code. Each test states MongoDB's documented
// behaviour or the README's promise it checks.

#include "celsius.hpp"
#include "query/query_models.hpp"

#include <odm/bson/kind.hpp>
#include <odm/bson/stored_path.hpp>
#include <odm/join/counts.hpp>

#include <bson/bson.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <variant>
#include <vector>

namespace adversary_14 {
namespace {

using odm_test::Celsius;

using query_test::canonical;
using odm::field;

/// A per-member option of the user's own (the README: "any struct with a `member` pointer").
template <class T, class M>
struct Weight {
  M T::*member;
  int weight;
};

struct Sample {
  std::string probe;
  Celsius value;
};

struct Reading {
  std::int64_t id = 0;
  Celsius temp;
  std::string station;
  std::vector<Celsius> history;
  std::vector<Sample> samples;
  std::optional<std::string> note;
  struct odm_model {
    // Two options of different kinds on one member, one of them unknown to odm.
    static constexpr auto fields = odm::fields(odm::rename(&Reading::station, "st"), Weight<Reading, std::string>{&Reading::station, 7},
                                               odm::rename(&Reading::samples, "s"), odm::rename(&Reading::note, "n"));
  };
};

struct ReadingSummary {
  std::string station;
  Celsius temp;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::rename(&ReadingSummary::station, "st"));
  };
};

// ---- item 1: the member table ---------------------------------------------------------

TEST(Adversary14Members, UserCodecKindIsReadByTheTableAndByPathChecks) {
  using Temp = odm::member_of<&Reading::temp>;
  static_assert(std::is_same_v<Temp::kind, odm::kinds::scalar<BSON_TYPE_DOUBLE>>);
  static_assert(std::is_same_v<Temp::relation, odm::no_relation>);
  // A double has no sub-path: an index path into it is refused (README, "Your own types").
  static_assert(odm::detail::has_stored_path<Reading>("temp"));
  static_assert(!odm::detail::has_stored_path<Reading>("temp.value"));
  static_assert(odm::detail::has_stored_path<Reading>("history.0"));
  static_assert(!odm::detail::has_stored_path<Reading>("history.0.value"));
  // Inside an array of documents, the renamed array and the user type's kind both count.
  static_assert(odm::detail::has_stored_path<Reading>("s.value"));
  static_assert(!odm::detail::has_stored_path<Reading>("s.value.value"));
  static_assert(!odm::detail::has_stored_path<Reading>("samples.value"));
  SUCCEED();
}

TEST(Adversary14Members, UserCodecIsQueriedSortedAndUpdatedAsItsKind) {
  // The value goes through the user's codec: a BSON double, never a sub-document.
  EXPECT_BSON(field(&Reading::temp) > Celsius{20.5}, R"({"temp": {"$gt": {"$numberDouble": "20.5"}}})");
  EXPECT_BSON(field(&Reading::history) == Celsius{3}, R"({"history": {"$numberDouble": "3.0"}})");
  EXPECT_BSON(field(&Reading::history).in({Celsius{1}, Celsius{2}}),
              R"({"history": {"$in": [{"$numberDouble": "1.0"}, {"$numberDouble": "2.0"}]}})");
  EXPECT_BSON(field(&Reading::samples).elem_match([](auto s) { return s / &Sample::value >= Celsius{1}; }),
              R"({"s": {"$elemMatch": {"value": {"$gte": {"$numberDouble": "1.0"}}}}})");
  EXPECT_BSON(field(&Reading::history).elem_match([](auto t) { return t > Celsius{1} && t < Celsius{9}; }),
              R"({"history": {"$elemMatch": {"$gt": {"$numberDouble": "1.0"}, "$lt": {"$numberDouble": "9.0"}}}})");
  EXPECT_BSON(odm::sort(odm::desc(&Reading::temp)), R"({"temp": -1})");
  EXPECT_BSON(field(&Reading::temp).set(Celsius{4}), R"({"$set": {"temp": {"$numberDouble": "4.0"}}})");
  EXPECT_BSON(field(&Reading::history).push_each({Celsius{1}}).sort(odm::descending).slice(-3),
              R"({"$push": {"history": {"$each": [{"$numberDouble": "1.0"}], "$sort": -1, "$slice": -3}}})");
  // The round trip through the table's kind.
  const Reading reading{1, Celsius{21.5}, "north", {Celsius{1}}, {Sample{"p", Celsius{2}}}, std::nullopt};
  EXPECT_EQ(odm::to_bson(reading).to_canonical_json(),
            canonical(R"({"_id": {"$numberLong": "1"}, "temp": {"$numberDouble": "21.5"}, "st": "north",
                          "history": [{"$numberDouble": "1.0"}], "s": [{"probe": "p", "value": {"$numberDouble": "2.0"}}],
                          "n": null})"));
  EXPECT_EQ(odm::from_bson<Reading>(odm::to_bson(reading)).temp, Celsius{21.5});
}

TEST(Adversary14Members, RenamedMembersAreStoredNamesEverywhere) {
  static_assert(odm::member_of<&Reading::station>::stored_name == "st");
  static_assert(odm::member_of<&Reading::samples>::nested_name == "s");
  EXPECT_BSON(field(&Reading::station) == "north", R"({"st": "north"})");
  EXPECT_BSON(!(field(&Reading::note) == std::nullopt), R"({"$nor": [{"n": null}]})");
  EXPECT_BSON(field(&Reading::note).unset() + field(&Reading::station).set("x"), R"({"$unset": {"n": ""}, "$set": {"st": "x"}})");
  EXPECT_BSON((field(&Reading::samples).matched() / &Sample::probe).set("q"), R"({"$set": {"s.$.probe": "q"}})");
  EXPECT_BSON(odm::sort(odm::asc(&Reading::station), odm::asc(field(&Reading::samples) / &Sample::probe)),
              R"({"st": 1, "s.probe": 1})");
  EXPECT_BSON(field(&Reading::samples).push_each({Sample{"a", Celsius{1}}}).sort(odm::desc(&Sample::probe)),
              R"({"$push": {"s": {"$each": [{"probe": "a", "value": {"$numberDouble": "1.0"}}], "$sort": {"probe": -1}}}})");
  // A projection into a summary reads the stored names of the model.
  EXPECT_BSON((odm::projection<Reading, ReadingSummary>()), R"({"st": 1, "temp": 1, "_id": 0})");
}

TEST(Adversary14Members, AnOptionOfTheUsersOwnTravelsInTheTable) {
  using Station = odm::member_of<&Reading::station>;
  using Options = std::remove_cvref_t<decltype(Station::options)>;
  static_assert(std::tuple_size_v<Options> == 2);
  static_assert(std::get<1>(Station::options).weight == 7);
  static_assert(std::get<0>(Station::options).stored_name == "st");
  static_assert(std::tuple_size_v<std::remove_cvref_t<decltype(odm::member_of<&Reading::temp>::options)>> == 0);
  SUCCEED();
}

struct Indexed {
  std::int64_t id = 0;
  std::string station;
  std::vector<Sample> samples;
  struct odm_model {
    static constexpr std::string_view collection = "indexed";
    static constexpr auto fields = odm::fields(odm::rename(&Indexed::station, "st"), odm::rename(&Indexed::samples, "s"));
    static constexpr auto indexes =
        odm::indexes(odm::index(odm::key(&Indexed::station, odm::descending), &Indexed::id), odm::index("s.value"));
  };
};

TEST(Adversary14Members, IndexPlansUseStoredNames) {
  const auto plan = odm::index_plan<Indexed>();
  ASSERT_EQ(plan.size(), 2U);
  EXPECT_EQ(plan[0].keys.to_canonical_json(), canonical(R"({"st": -1, "_id": 1})"));
  EXPECT_EQ(plan[0].name, "st_-1__id_1");
  EXPECT_EQ(plan[1].keys.to_canonical_json(), canonical(R"({"s.value": 1})"));
}

struct Part {
  std::int64_t id = 0;
};
struct PartLine {
  odm::Ref<Part> part;
  odm::RefMany<Part> spares;
  std::int32_t qty = 0;
};
struct Assembly {
  std::int64_t id = 0;
  std::vector<PartLine> lines;
};

TEST(Adversary14Members, ReferencesInsideElementConditionsAreQueriedAsTheirIds) {
  // Issue 14, item 6: Element::operator/ applies the query view that Path::operator/ does.
  EXPECT_BSON(field(&Assembly::lines) / &PartLine::part == std::int64_t{5}, R"({"lines.part": {"$numberLong": "5"}})");
  EXPECT_BSON(field(&Assembly::lines).elem_match([](auto l) {
    return l / &PartLine::part == std::int64_t{5} && (l / &PartLine::spares).size(2);
  }),
              R"({"lines": {"$elemMatch": {"part": {"$numberLong": "5"}, "spares": {"$size": 2}}}})");
  EXPECT_BSON(field(&Assembly::lines).pull([](auto l) { return (l / &PartLine::spares) == std::int64_t{6}; }),
              R"({"$pull": {"lines": {"spares": {"$numberLong": "6"}}}})");
}

// ---- item 2: typed expressions --------------------------------------------------------

using query_test::Book;
using query_test::Checkout;
using F = odm::Filter<Book>;

struct Cell {
  std::int32_t v;
  std::vector<std::int32_t> marks;
};
struct Grid {
  std::int32_t id;
  std::vector<std::vector<std::int32_t>> rows;
  std::vector<Cell> cells;
};

TEST(Adversary14Expressions, DeepCombinationsKeepEveryCondition) {
  const F a = field(&Book::pages) > 1;
  const F b = field(&Book::title) == "x";
  const F c = field(&Book::pages) < 9;
  const F d = field(&Book::available) == 0;
  // !(a || b): not one field's operator, so $nor of the whole $or.
  EXPECT_BSON(!(a || b), R"({"$nor": [{"$or": [{"pages": {"$gt": 1}}, {"title": "x"}]}]})");
  // nor of ands and ors, then && with a repeated key: nothing merged that would lose a key.
  EXPECT_BSON(odm::nor(a && b, c || d) && c,
              R"({"$nor": [{"pages": {"$gt": 1}, "title": "x"}, {"$or": [{"pages": {"$lt": 9}}, {"available": 0}]}],
                  "pages": {"$lt": 9}})");
  EXPECT_BSON((a || b) && (c || d) && !(a || d),
              R"({"$and": [{"$or": [{"pages": {"$gt": 1}}, {"title": "x"}]},
                           {"$or": [{"pages": {"$lt": 9}}, {"available": 0}]},
                           {"$nor": [{"$or": [{"pages": {"$gt": 1}}, {"available": 0}]}]}]})");
  // The same condition twice is kept twice (MongoDB documents: one key once per document).
  EXPECT_BSON(a && a, R"({"$and": [{"pages": {"$gt": 1}}, {"pages": {"$gt": 1}}]})");
  // $not of a regex keeps the regex ($not takes /re/), and collides with the field's key.
  const F re = field(&Book::title).regex("^M", "i");
  EXPECT_BSON(!re && b, R"({"$and": [{"title": {"$not": {"$regularExpression": {"pattern": "^M", "options": "i"}}}},
                                     {"title": "x"}]})");
  // $not of elemMatch is allowed by MongoDB ($not takes any operator expression).
  EXPECT_BSON(!field(&Book::checkout).elem_match([](auto ch) { return ch / &Checkout::by == "ann"; }),
              R"({"checkout": {"$not": {"$elemMatch": {"by": "ann"}}}})");
  // !! is the identity, even over a nor.
  EXPECT_BSON(!!odm::nor(a), R"({"$nor": [{"pages": {"$gt": 1}}]})");
  // The empty filter: {} || a matches everything; nor({}) matches nothing.
  EXPECT_BSON(F{} || a, "{}");
  EXPECT_BSON(odm::nor(F{}), R"({"$nor": [{}]})");
  EXPECT_BSON(!F{}, R"({"$nor": [{}]})");
}

TEST(Adversary14Expressions, ElemMatchInsideElemMatch) {
  // Arrays of arrays: the inner $elemMatch is an operator on the element itself.
  EXPECT_BSON(field(&Grid::rows).elem_match([](auto row) { return row.elem_match([](auto v) { return v > 5 && v < 9; }); }),
              R"({"rows": {"$elemMatch": {"$elemMatch": {"$gt": 5, "$lt": 9}}}})");
  // A negated inner elemMatch, with a size condition on the same element.
  EXPECT_BSON(field(&Grid::rows).elem_match([](auto row) { return !row.elem_match([](auto v) { return v == 0; }) && row.size(3); }),
              R"({"rows": {"$elemMatch": {"$not": {"$elemMatch": {"$eq": 0}}, "$size": 3}}})");
  // A document element's array field: the inner elemMatch is a field condition.
  EXPECT_BSON(field(&Grid::cells).elem_match([](auto cell) {
    return cell / &Cell::v == 1 && (cell / &Cell::marks).elem_match([](auto m) { return m >= 2; });
  }),
              R"({"cells": {"$elemMatch": {"v": 1, "marks": {"$elemMatch": {"$gte": 2}}}}})");
  // Two inner elemMatch on the element itself: the operator form holds each operator once.
  EXPECT_THROW((void)field(&Grid::rows).elem_match([](auto row) {
    return row.elem_match([](auto v) { return v == 1; }) && row.elem_match([](auto v) { return v == 2; });
  }),
               odm::ValueError);
}

TEST(Adversary14Expressions, CombinedUpdatesRefuseConflictingPathsBeforeSending) {
  using odm::ValueError;
  // MongoDB: "you cannot specify a field path in more than one update operator" (conflict).
  EXPECT_THROW((void)(field(&Book::title).set("a") + field(&Book::title).set("b")), ValueError);
  EXPECT_THROW((void)(field(&Book::pages).inc(1) + field(&Book::pages).set_on_insert(1)), ValueError);
  EXPECT_THROW((void)(field(&Book::checkout).push(Checkout{}) + field(&Book::checkout).pop_first()), ValueError);
  EXPECT_THROW((void)(field(&Book::checkout).push(Checkout{}) + (field(&Book::checkout).matched() / &Checkout::by).set("x")),
               ValueError);
  EXPECT_THROW((void)(field(&Book::checkout).pull([](auto ch) { return ch / &Checkout::by == "x"; }) +
                      field(&Book::checkout).all_elements().set(Checkout{})),
               ValueError);
  // A hand-written update combined with a typed one is checked too.
  EXPECT_THROW((void)(odm::Update<Book>::raw(odm::Document::from_json(R"({"$inc": {"pages": 1}})")) + field(&Book::pages).set(2)),
               ValueError);
  // Sharing a prefix is not sharing a path: `title` and `titles` do not conflict.
  struct Named {
    std::int32_t id;
    std::string title;
    std::string titles;
  };
  EXPECT_BSON(field(&Named::title).set("a") + field(&Named::titles).set("b"), R"({"$set": {"title": "a", "titles": "b"}})");
  // The error names both operators and the path.
  try {
    (void)(field(&Book::pages).inc(1) + field(&Book::pages).mul(2));
    ADD_FAILURE() << "no error";
  } catch (const ValueError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("pages"), std::string::npos) << what;
    EXPECT_NE(what.find("$inc"), std::string::npos) << what;
    EXPECT_NE(what.find("$mul"), std::string::npos) << what;
  }
}

TEST(Adversary14Expressions, PushEachModifiersInTheDocumentedOrder) {
  using query_test::Product;
  using query_test::Review;
  EXPECT_BSON(field(&Product::reviews).push_each(std::vector<Review>{}).position(0).sort(odm::desc(&Review::published_date),
                                                                                         odm::asc(&Review::id)).slice(5),
              R"({"$push": {"reviews": {"$each": [], "$position": 0, "$sort": {"published_date": -1, "id": 1}, "$slice": 5}}})");
  // A later .sort replaces the earlier one (one $sort per $push).
  EXPECT_BSON(field(&Product::tags).push_each({"a"}).sort(odm::ascending).sort(odm::descending),
              R"({"$push": {"tags": {"$each": ["a"], "$sort": -1}}})");
  // push_each combines with another operator on another path.
  EXPECT_BSON(field(&Product::tags).push_each({"a"}).slice(-2) + field(&Product::name).set("n"),
              R"({"$push": {"tags": {"$each": ["a"], "$slice": -2}}, "$set": {"name": "n"}})");
}

TEST(Adversary14Expressions, HandWrittenUpdateIsSentAsWritten) {
  // An operator whose document is empty is still an update: `{$set: {}}` is a no-op on
  // MongoDB 5.0+, while `{}` is a replacement document (it would erase every field).
  const auto update = odm::Update<Book>::raw(odm::Document::from_json(R"({"$set": {}})"));
  EXPECT_BSON(update, R"({"$set": {}})");
  // The operators of a hand-written update keep their order and their values' types.
  EXPECT_BSON(odm::Update<Book>::raw(odm::Document::from_json(R"({"$inc": {"sold": {"$numberLong": "2"}}, "$set": {"note": null}})")),
              R"({"$inc": {"sold": {"$numberLong": "2"}}, "$set": {"note": null}})");
}

TEST(Adversary14Expressions, AnUpdateWithoutOperatorsIsNotSendable) {
  // What a write sends: `{}` or a document of fields would be a replacement to MongoDB.
  EXPECT_THROW((void)odm::detail::update_to_send(odm::Update<Book>{}), odm::ValueError);
  EXPECT_THROW((void)odm::detail::update_to_send(odm::Update<Book>::raw(odm::Document::from_json(R"({"title": "t"})"))),
               odm::ValueError);
  EXPECT_EQ(odm::detail::update_to_send(odm::Update<Book>::raw(odm::Document::from_json(R"({"$set": {}})"))).to_json(),
            odm::Document::from_json(R"({"$set": {}})").to_json());
  EXPECT_EQ(odm::detail::update_to_send(field(&Book::pages).inc(1)).to_json(), field(&Book::pages).inc(1).bson().to_json());
}

// ---- options typed by the collection's model ------------------------------------------

using query_test::Movie;
template <class O>
concept has_array_filters = requires(O o) { o.array_filters(std::vector<odm::Document>{}); };
template <class O>
concept has_upsert = requires(O o) { o.upsert(); };
template <class O>
concept has_return_document = requires(O o) { o.return_document(odm::ReturnDocument::after); };
template <class O>
concept has_read_preference = requires(O o) { o.read_preference(odm::ReadPreference(odm::ReadMode::secondary)); };
template <class O>
concept has_write_concern = requires(O o) { o.write_concern(odm::WriteConcern::majority()); };

TEST(Adversary14Options, MeaninglessOptionsDoNotExist) {
  static_assert(has_array_filters<odm::UpdateOptions<Book>>);
  static_assert(!has_array_filters<odm::ReplaceOptions<Book>>);
  static_assert(!has_array_filters<odm::FindOneAndReplaceOptions<Book>>);
  static_assert(has_array_filters<odm::FindOneAndUpdateOptions<Book>>);
  static_assert(!has_upsert<odm::FindOneAndDeleteOptions<Book>>);
  static_assert(!has_return_document<odm::FindOneAndDeleteOptions<Book>>);
  static_assert(!has_array_filters<odm::FindOneAndDeleteOptions<Book>>);
  static_assert(!has_upsert<odm::DeleteOptions<Book>>);
  static_assert(!has_read_preference<odm::UpdateOptions<Book>>);
  static_assert(!has_write_concern<odm::FindOptions<Book>>);
  static_assert(has_read_preference<odm::FindOptions<Book>>);
  static_assert(!has_upsert<odm::InsertOneOptions<Book>>);
  SUCCEED();
}

// ---- item 4: internals stay inside -----------------------------------------------------

template <class S>
concept exposes_session_state = requires(S& session) { session.state(); };
// (A requires-expression outside a template is ill-formed, not false, when the member is
// private: the Decimal check goes through a concept, as the others do.)
template <class D>
concept exposes_decode_bid = requires(const bson_decimal128_t& bid, D& out) { D::decode_bid(bid, out); };
template <class R>
concept exposes_reference_internals =
    requires(R& ref) { ref.raw_id(); } || requires(R& ref) { ref.resolve(nullptr); };

TEST(Adversary14Internals, NoInternalTypeInAPublicSignature) {
  // Issue 14, item 4: "Internal types appear in public signatures (Collection(detail::
  // CollectionCore), Session::state(), Cursor constructors ..., Ref::resolve/raw_id,
  // Decimal::decode_bid, a public PushEach(std::string, Document) constructor)".
  static_assert(!std::is_constructible_v<odm::PushEach<Book, Checkout>, std::string, odm::Document>);
  std::vector<std::string> exposed;
  if (std::is_constructible_v<odm::Collection<Book>, odm::detail::CollectionCore>)
    exposed.push_back("Collection(detail::CollectionCore)");
  if (exposes_session_state<odm::Session>) exposed.push_back("Session::state()");
  if (std::is_constructible_v<odm::Cursor<Book>, odm::detail::CursorCore>) exposed.push_back("Cursor(detail::CursorCore)");
  if (exposes_reference_internals<odm::Ref<Book>>) exposed.push_back("Ref::raw_id/resolve");
  if (exposes_decode_bid<odm::Decimal>)
    exposed.push_back("Decimal::decode_bid");
  if (!exposed.empty()) {
    std::string list;
    for (const auto& name : exposed) list += (list.empty() ? "" : ", ") + name;
    GTEST_SKIP() << "defect (issue 14 item 4 not done): still public: " << list;
  }
}

// ---- item 3: the writer ---------------------------------------------------------------

struct Leaf {
  std::string text;
};
struct Branch {
  std::map<std::string, std::vector<std::optional<odm::Embedded<Leaf>>>> leaves;
  std::variant<std::int32_t, Leaf> either;
};
struct Tree {
  std::int32_t id;
  std::vector<Branch> branches;
};

TEST(Adversary14Writer, EncodeIntoThatThrowsDeepLeavesTheCallersDocumentUsable) {
  const std::string bad = "\xff\xfe";
  for (int where = 0; where < 2; ++where) {
    SCOPED_TRACE(where);
    Tree tree{1, {Branch{{{"k", {Leaf{"ok"}, std::nullopt}}}, 3}, Branch{{}, 4}}};
    if (where == 0)
      tree.branches[1].leaves["k2"] = {std::nullopt, Leaf{bad}};  // inside map, vector, optional, Embedded
    else
      tree.branches[1].either = Leaf{bad};  // inside a variant
    bson_t* out = bson_new();
    ASSERT_TRUE(bson_append_utf8(out, "before", -1, "x", -1));
    try {
      odm::encode_into(out, tree);
      ADD_FAILURE() << "invalid UTF-8 was encoded";
    } catch (const odm::EncodeError& error) {
      EXPECT_EQ(error.path(), where == 0 ? "branches.1.leaves.k2.1.text" : "branches.1.either.text");
    }
    // The caller's document takes further fields and stays valid BSON (libbson aborts on
    // an append to a document whose child is still open).
    EXPECT_TRUE(bson_append_int32(out, "after", -1, 7));
    EXPECT_TRUE(bson_validate(out, BSON_VALIDATE_NONE, nullptr));
    bson_iter_t it;
    EXPECT_TRUE(bson_iter_init_find(&it, out, "after"));
    bson_destroy(out);
  }
}

// ---- item 5: the error contract -------------------------------------------------------

struct Publisher {
  std::string id;
};
struct Novel {
  std::int32_t id;
  odm::Ref<Publisher> publisher;
};

/// `operation` throws an odm::Error (nothing else) whose message starts with `start`.
template <class F>
void expect_odm_error(F&& operation, std::string_view start) {
  try {
    operation();
    ADD_FAILURE() << "no error";
  } catch (const odm::Error& error) {
    EXPECT_EQ(std::string_view(error.what()).substr(0, start.size()), start) << error.what();
  } catch (const std::exception& error) {
    ADD_FAILURE() << "not an odm::Error: " << typeid(error).name() << ": " << error.what();
  }
}

TEST(Adversary14Errors, UnsetRefIdThrowsAnOdmError) {
  const Novel novel{};
  expect_odm_error([&] { (void)novel.publisher.id(); }, "Ref::id: ");
}

TEST(Adversary14Errors, ChildCountsIndexOutOfRangeIsAnOdmError) {
  const odm::ChildCounts<Publisher> counts;
  expect_odm_error([&] { (void)counts[0]; }, "ChildCounts[0]");
}

TEST(Adversary14Errors, MessagesHaveNoOdmPrefix) {
  // error.hpp: "no "odm:" prefix (the type says where it comes from) ... they start with
  // what they are about".
  const auto message_of = [](auto&& operation) -> std::string {
    try {
      operation();
    } catch (const odm::Error& error) {
      return error.what();
    }
    return "(no error)";
  };
  using namespace std::chrono_literals;
  const std::string messages[] = {
      message_of([] { (void)odm::FindOptions<Book>{}.max_time(-1ms); }),
      message_of([] { (void)odm::FindOptions<Book>{}.comment("\xff"); }),
      message_of([] { (void)odm::CountOptions<Book>{}.limit(0); }),
      message_of([] { (void)odm::WriteConcern::nodes(-1); }),
      message_of([] { (void)odm::Collation("fr").strength(9); }),
  };
  for (const std::string& message : messages) {
    EXPECT_NE(message, "(no error)");
    EXPECT_NE(message.rfind("odm", 0), 0U) << message;
  }
}

}  // namespace
}  // namespace adversary_14
