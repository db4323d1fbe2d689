// Server-side joins over references whose target `_id` is a sub-document (a user id type
// with its own codec), stored by another program in another form than the codec writes:
// fields in another order, or a field the codec ignores. The client form decodes each
// reference and sends its codec's encoding in `$in`; `$lookup` compares the stored values,
// and MongoDB compares embedded documents field by field, in order
// (https://www.mongodb.com/docs/manual/tutorial/query-embedded-documents/). odm asks for
// the ids the `$lookup` found nothing for with the client form's `$in` (one find, only
// when one is missing), so both forms give the same result under every Dangling policy,
// at every level and inside embedded documents, and a save after a `drop` join stores
// every id the client form keeps.

#include <odm/join/lookup.hpp>
#include <odm/odm.hpp>

#include "../driver/support.hpp"
#include "id_types.hpp"
#include "show_refs.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace lookup_encoded_ids {

using id_types::PartNumber;

struct Maker {
  std::int32_t id = 0;
  std::string name;
  struct odm_model {
    static constexpr std::string_view collection = "makers";
  };
};

struct Widget {
  PartNumber id;
  std::string name;
  odm::Ref<Maker> maker;
  struct odm_model {
    static constexpr std::string_view collection = "widgets";
  };
};

template <odm::Dangling P>
struct Shelf {
  std::int32_t id = 0;
  odm::RefMany<Widget, P> widgets;
  odm::Ref<Widget, P> first;
  struct odm_model {
    static constexpr std::string_view collection = "shelves";
  };
};

struct Line {
  odm::Ref<Widget> widget;
  std::int32_t count = 0;
};

struct Order {
  std::int32_t id = 0;
  std::vector<odm::Embedded<Line>> lines;
  struct odm_model {
    static constexpr std::string_view collection = "orders";
  };
};

/// A model whose references hold a built-in id type (int32).
struct Product {
  std::int32_t id = 0;
  odm::Ref<Maker> maker;
  struct odm_model {
    static constexpr std::string_view collection = "products";
  };
};

}  // namespace lookup_encoded_ids

namespace {

using namespace lookup_encoded_ids;
using odm_test::json;
using odm_test::show_many;
using odm_test::show_one;

using odm_test::same_source;
const auto side = odm_test::join_side;

template <class R>
std::string show_widget(const R& widget) {
  if (!widget.is_loaded()) return show_one(widget);
  return show_one(widget) + "(" + show_one(widget->maker) + ")";
}

class LookupEncodedIds : public odm_test::DriverTest {
 protected:
  void insert(const std::string& collection, const std::string& documents) {
    db().run_command(json(R"({"insert": ")" + collection + R"(", "documents": )" + documents + "}"));
  }

  /// Widgets stored with their codec's form (1, 2) and in another field order (3), and
  /// their makers (5 is missing).
  void insert_widgets() {
    insert("makers", R"([{"_id": 1, "name": "m1"}, {"_id": 2, "name": "m2"}])");
    insert("widgets", R"([{"_id": {"line": "A", "number": 1}, "name": "w1", "maker": 1},
                          {"_id": {"line": "A", "number": 2}, "name": "w2", "maker": 2},
                          {"_id": {"number": 3, "line": "A"}, "name": "w3", "maker": 5}])");
  }

  /// Shelf 1 refers in the codec's form; shelf 2 in another field order, with a field the
  /// codec ignores, a duplicate and a missing widget; shelf 3 to the widget stored in
  /// another order; shelf 4 has no widgets.
  void insert_shelves() {
    insert("shelves", R"([
      {"_id": 1, "widgets": [{"line": "A", "number": 1}], "first": {"line": "A", "number": 1}},
      {"_id": 2, "widgets": [{"number": 1, "line": "A"}, {"line": "A", "number": 2, "note": "x"},
                             {"line": "A", "number": 1}, {"line": "A", "number": 9}],
       "first": {"line": "A", "number": 2, "note": "x"}},
      {"_id": 3, "widgets": [{"number": 3, "line": "A"}], "first": {"number": 1, "line": "A"}},
      {"_id": 4, "widgets": [], "first": {"number": 2, "line": "A"}}])");
  }

  template <odm::Dangling P>
  std::vector<Shelf<P>> load_shelves(odm::JoinSide s) {
    return odm::find_joined(db(), {}, odm::Sort<Shelf<P>>::raw(json(R"({"_id": 1})")), side(s),
                            odm::with(&Shelf<P>::widgets), odm::with(&Shelf<P>::first))
        .to_vector();
  }

  template <odm::Dangling P>
  std::string show_shelves(odm::JoinSide s) {
    try {
      std::string out;
      for (const Shelf<P>& shelf : load_shelves<P>(s))
        out += std::to_string(shelf.id) + ": " + show_one(shelf.first) + " " + show_many(shelf.widgets) + "\n";
      return out;
    } catch (const odm::Error& error) {
      return "error: " + same_source(error.what());
    }
  }
};

TEST_F(LookupEncodedIds, EveryPolicyJoinsAlikeWhateverFormTheIdIsStoredIn) {
  insert_widgets();
  insert_shelves();
  EXPECT_EQ(show_shelves<odm::Dangling::keep>(odm::JoinSide::server), show_shelves<odm::Dangling::keep>(odm::JoinSide::client));
  EXPECT_EQ(show_shelves<odm::Dangling::drop>(odm::JoinSide::server), show_shelves<odm::Dangling::drop>(odm::JoinSide::client));
  const std::string raised = show_shelves<odm::Dangling::raise>(odm::JoinSide::client);
  EXPECT_EQ(show_shelves<odm::Dangling::raise>(odm::JoinSide::server), raised);
  EXPECT_NE(raised.find("error: widgets: no document with _id"), std::string::npos) << raised;

  // What holds on every engine: references in another form than the codec's, to widgets
  // stored in the codec's form, are found by the client form's $in, so by both forms.
  for (const odm::JoinSide s : {odm::JoinSide::client, odm::JoinSide::server}) {
    SCOPED_TRACE(s == odm::JoinSide::server ? "server" : "client");
    const std::vector<Shelf<odm::Dangling::keep>> kept = load_shelves<odm::Dangling::keep>(s);
    ASSERT_EQ(kept.size(), 4u);
    const auto& widgets = kept[1].widgets;
    ASSERT_EQ(widgets.size(), 4u);
    EXPECT_EQ(widgets.at(0).name, "w1");
    EXPECT_EQ(widgets.at(1).name, "w2") << "stored with a field the codec ignores";
    EXPECT_EQ(widgets.at(2).name, "w1");
    EXPECT_THROW((void)widgets.at(3), odm::NotLoadedError) << "A-9 is missing";
    EXPECT_EQ(kept[1].first->name, "w2");
    EXPECT_EQ(kept[3].first->name, "w2") << "stored in another field order";
  }
}

// The silent data loss this prevents: under `drop` the server form forgot the ids its
// `$lookup` did not match, and saving the object stored the list without them.
TEST_F(LookupEncodedIds, ASaveAfterADropJoinOnTheServerKeepsEveryIdTheClientFormKeeps) {
  insert_widgets();
  insert_shelves();
  using DropShelf = Shelf<odm::Dangling::drop>;
  const std::vector<DropShelf> client = load_shelves<odm::Dangling::drop>(odm::JoinSide::client);
  const std::vector<DropShelf> server = load_shelves<odm::Dangling::drop>(odm::JoinSide::server);
  ASSERT_EQ(server.size(), client.size());
  ASSERT_GE(server.size(), 2u);
  const DropShelf& shelf = server[1];
  ASSERT_EQ(shelf.id, 2);
  EXPECT_EQ(show_many(shelf.widgets), show_many(client[1].widgets));
  ASSERT_EQ(shelf.widgets.size(), 3u) << "only the missing A-9 is forgotten";
  db().collection<DropShelf>().replace_one(odm::field(&DropShelf::id) == 2, shelf);
  std::size_t stored = 0;
  for (const odm::Document& found :
       db().collection<DropShelf>().find<odm::Document>(odm::Filter<DropShelf>::raw(json(R"({"_id": 2})")))) {
    bson_iter_t it;
    bson_iter_t element;
    ASSERT_TRUE(bson_iter_init_find(&it, found.get(), "widgets") && bson_iter_recurse(&it, &element));
    while (bson_iter_next(&element)) ++stored;
  }
  EXPECT_EQ(stored, 3u);
}

// A widget the `$lookup` missed is fetched by a find, after the `$lookup` of the next level
// ran: its maker is not in that level's results, and is fetched too, as the client form does.
TEST_F(LookupEncodedIds, NestedRelationsOfTargetsTheLookupMissedResolveToo) {
  ODM_REQUIRE(lookup_through_arrays);
  insert_widgets();
  insert_shelves();
  for (const odm::JoinSide s : {odm::JoinSide::client, odm::JoinSide::server}) {
    SCOPED_TRACE(s == odm::JoinSide::server ? "server" : "client");
    using KeepShelf = Shelf<odm::Dangling::keep>;
    const auto shelves = odm::find_joined(db(), {}, odm::Sort<KeepShelf>::raw(json(R"({"_id": 1})")), side(s),
                                          odm::with(&KeepShelf::widgets, odm::with(&Widget::maker)),
                                          odm::with(&KeepShelf::first, odm::with(&Widget::maker)));
    ASSERT_EQ(shelves.size(), 4u);
    EXPECT_EQ(shelves[1].first->maker->name, "m2") << "first: stored with a field the codec ignores";
    EXPECT_EQ(shelves[1].widgets.at(1).maker->name, "m2");
    EXPECT_EQ(shelves[1].widgets.at(0).maker->name, "m1");
    EXPECT_EQ(shelves[3].first->maker->name, "m2") << "stored in another field order";
  }
  // Everything else (the widget stored in another order, its missing maker): alike.
  const auto show = [&](odm::JoinSide s) {
    using KeepShelf = Shelf<odm::Dangling::keep>;
    std::string out;
    for (const KeepShelf& shelf :
         odm::find_joined(db(), {}, odm::Sort<KeepShelf>::raw(json(R"({"_id": 1})")), side(s),
                          odm::with(&KeepShelf::widgets, odm::with(&Widget::maker)),
                          odm::with(&KeepShelf::first, odm::with(&Widget::maker)))) {
      out += std::to_string(shelf.id) + ": " + show_widget(shelf.first) + " [";
      for (std::size_t i = 0; i < shelf.widgets.size(); ++i) {
        try {
          out += shelf.widgets.at(i).name + "(" + show_one(shelf.widgets.at(i).maker) + ") ";
        } catch (const odm::NotLoadedError&) {
          out += "? ";
        }
      }
      out += "]\n";
    }
    return out;
  };
  EXPECT_EQ(show(odm::JoinSide::server), show(odm::JoinSide::client));
}

TEST_F(LookupEncodedIds, ReferencesInsideEmbeddedDocumentsJoinAlike) {
  ODM_REQUIRE(lookup_through_arrays);
  insert_widgets();
  insert("orders", R"([{"_id": 1, "lines": [{"widget": {"line": "A", "number": 2, "note": "x"}, "count": 1},
                                            {"widget": {"number": 1, "line": "A"}, "count": 2},
                                            {"widget": {"number": 3, "line": "A"}, "count": 3}]},
                        {"_id": 2, "lines": []}])");
  const auto show = [&](odm::JoinSide s) {
    std::string out;
    for (const Order& order : odm::find_joined(db(), {}, odm::Sort<Order>::raw(json(R"({"_id": 1})")), side(s),
                                               odm::with(&Order::lines, odm::with(&Line::widget, odm::with(&Widget::maker))))) {
      out += std::to_string(order.id) + ":";
      for (const auto& line : order.lines) out += " " + show_widget(line->widget);
      out += "\n";
    }
    return out;
  };
  const std::string client = show(odm::JoinSide::client);
  EXPECT_EQ(show(odm::JoinSide::server), client);
  EXPECT_NE(client.find("=w2(2=m2)"), std::string::npos) << client;
  EXPECT_NE(client.find("=w1(1=m1)"), std::string::npos) << client;
}

// The find is sent only when the `$lookup` missed an id of a user type, or when a level
// acts on targets such a find brought: references in the codec's form, and built-in ids
// (which `$lookup` and `$in` compare alike), cost the one aggregate, missing ones included.
TEST_F(LookupEncodedIds, AFindOnlyForIdsTheLookupMayHaveMissed) {
  insert_widgets();
  insert("shelves", R"([{"_id": 1, "widgets": [{"line": "A", "number": 1}, {"line": "A", "number": 2}],
                         "first": {"line": "A", "number": 1}}])");
  insert("products", R"([{"_id": 1, "maker": 1}, {"_id": 2, "maker": 7}])");
  using KeepShelf = Shelf<odm::Dangling::keep>;
  log_.clear();
  auto shelves = odm::find_joined(db(), {}, side(odm::JoinSide::server), odm::with(&KeepShelf::widgets),
                                  odm::with(&KeepShelf::first));
  EXPECT_EQ(log_.started("aggregate"), 1);
  EXPECT_EQ(log_.started("find"), 0) << "every id in the codec's form was found by the $lookup";
  ASSERT_EQ(shelves.size(), 1u);
  EXPECT_EQ(shelves[0].widgets.at(1).name, "w2");

  log_.clear();
  const auto products =
      odm::find_joined(db(), {}, odm::Sort<Product>::raw(json(R"({"_id": 1})")), side(odm::JoinSide::server),
                       odm::with(&Product::maker));
  EXPECT_EQ(log_.started("aggregate"), 1);
  EXPECT_EQ(log_.started("find"), 0) << "a missing int32 id is dangling: $lookup and $in compare numbers alike";
  ASSERT_EQ(products.size(), 2u);
  EXPECT_TRUE(products[1].maker.is_dangling());

  insert("shelves", R"([{"_id": 2, "widgets": [{"line": "A", "number": 2, "note": "x"}, {"line": "A", "number": 9}],
                         "first": {"line": "A", "number": 2, "note": "y"}}])");
  log_.clear();
  shelves = odm::find_joined(db(), {}, odm::Sort<KeepShelf>::raw(json(R"({"_id": 1})")), side(odm::JoinSide::server),
                             odm::with(&KeepShelf::widgets), odm::with(&KeepShelf::first));
  EXPECT_EQ(log_.started("aggregate"), 1);
  // The pools are shared by the rows: shelf 1's references found w1 and w2 for their own
  // relation, so what each relation misses is shelf 2's references of w2 in another form.
  EXPECT_EQ(log_.started("find"), 2) << "one find per relation whose $lookup missed an id";
  ASSERT_EQ(shelves.size(), 2u);
  EXPECT_EQ(shelves[1].widgets.at(0).name, "w2");
  EXPECT_EQ(shelves[1].first->name, "w2");
}

}  // namespace

namespace {

using odm_test::json;

/// The message of the UsageError lookup_pipeline throws for `filter`, or "" when it builds.
std::string refusal(const odm::Document& filter) {
  odm::detail::LookupResults results;
  odm::detail::LookupQuery query;
  query.filter = filter;
  const auto relation = odm::with(&lookup_encoded_ids::Product::maker);
  try {
    (void)odm::detail::lookup_pipeline(query, {&relation.step()}, results);
    return "";
  } catch (const odm::UsageError& error) {
    return error.what();
  }
}

// MongoDB's manual, $match restrictions: "You cannot use $where in $match queries as part of
// the aggregation pipeline"; "You cannot use $near or $nearSphere in $match queries as part
// of the aggregation pipeline" (use $geoNear, or $geoWithin). find runs them, so the client
// form does: the server form refuses them before anything is sent, naming the operator,
// wherever the query grammar puts them.
TEST(LookupFilter, OperatorsMatchDoesNotRunAreRefusedNamingThem) {
  const std::pair<const char*, const char*> refused[] = {
      {R"({"$where": "this._id == 1"})", "$where"},
      {R"({"loc": {"$near": [0, 0], "$maxDistance": 1}})", "$near"},
      {R"({"loc": {"$nearSphere": {"$geometry": {"type": "Point", "coordinates": [0, 0]}}}})", "$nearSphere"},
      {R"({"x": 1, "$and": [{"y": 2}, {"$or": [{"z": 3}, {"$nor": [{"$where": "true"}]}]}]})", "$where"},
      {R"({"stops": {"$elemMatch": {"loc": {"$near": [0, 0]}}}})", "$near"},
      {R"({"loc": {"$not": {"$nearSphere": [0, 0]}}})", "$nearSphere"},
  };
  for (const auto& [filter, op] : refused) {
    SCOPED_TRACE(filter);
    const std::string message = refusal(json(filter));
    EXPECT_NE(message.find("the filter uses " + std::string(op) + ", which MongoDB does not run in an aggregation's $match"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("JoinSide::client"), std::string::npos) << message;
  }
  for (const char* filter :
       {R"({"loc": {"$geoWithin": {"$center": [[0, 0], 1]}}})", R"({"$text": {"$search": "near"}})",
        R"({"note": "$where"})", R"({"note": {"text": "$near"}})", R"({"$expr": {"$eq": ["$a", "$b"]}})",
        R"({"tags": {"$elemMatch": {"$gt": 1}}})", R"({"$or": [{"a": 1}, {"b": {"$in": [1, 2]}}]})"}) {
    SCOPED_TRACE(filter);
    EXPECT_EQ(refusal(json(filter)), "") << "$match runs it";
  }
}

// A filter nested deeper than any server accepts is neither searched without bound (no
// stack exhaustion) nor refused by odm: the server refuses it, on both sides alike.
TEST(LookupFilter, ADeeplyNestedFilterIsSearchedWithinABound) {
  odm::Document filter = json(R"({"x": 1})");
  for (int level = 0; level < 3000; ++level) {
    odm::Document outer;
    bson_t list;
    ASSERT_TRUE(bson_append_array_begin(outer.get_mutable(), "$and", 4, &list));
    ASSERT_TRUE(bson_append_document(&list, "0", 1, filter.get()));
    ASSERT_TRUE(bson_append_array_end(outer.get_mutable(), &list));
    filter = std::move(outer);
  }
  EXPECT_EQ(refusal(filter), "");
}

class LookupFilterSent : public odm_test::DriverTest {};

TEST_F(LookupFilterSent, ARefusedFilterSendsNothing) {
  odm::JoinOptions options;
  options.side = odm::JoinSide::server;
  log_.clear();
  EXPECT_THROW((void)odm::find_joined(db(), odm::Filter<lookup_encoded_ids::Product>::raw(json(R"({"$where": "true"})")),
                                      options, odm::with(&lookup_encoded_ids::Product::maker)),
               odm::UsageError);
  EXPECT_EQ(log_.started("aggregate") + log_.started("find"), 0);
}

}  // namespace
