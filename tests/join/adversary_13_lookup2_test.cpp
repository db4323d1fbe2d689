// Adversarial probes of server-side joins after their rewrite (each root decoded from a copy
// taken by `$addFields: {__odm_doc: "$$ROOT"}` before the `$lookup`s). The README promises
// that `odm::find_joined` with JoinSide::server gives exactly the client form's results,
// order, duplicates, dangling policy and decode errors, and that find options select the
// same roots. Each probe writes its data as raw Extended JSON (as another program would),
// runs both forms and compares. A probe that shows a defect is kept, skipped with `defect:`.

#include <odm/join/lookup.hpp>
#include <odm/odm.hpp>

#include "../driver/support.hpp"
#include "show_refs.hpp"
#include "id_types.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace adv13b {

struct Num {
  std::int64_t id = 0;
  std::string name;
  struct odm_model {
    static constexpr std::string_view collection = "nums";
  };
};

template <odm::Dangling P>
struct NumHolder {
  std::int32_t id = 0;
  odm::RefMany<Num, P> refs;
  odm::Ref<Num, P> one;
  struct odm_model {
    static constexpr std::string_view collection = "num_holders";
  };
};

using Part = id_types::Target<id_types::PartNumber>;

template <odm::Dangling P>
struct PartHolder {
  std::int32_t id = 0;
  odm::RefMany<Part, P> refs;
  struct odm_model {
    static constexpr std::string_view collection = "holders";
  };
};

struct Tag {
  std::int32_t id = 0;
  std::string name;
  struct odm_model {
    static constexpr std::string_view collection = "tags";
  };
};

struct KeptPost {
  std::int32_t id = 0;
  odm::RefMany<Tag> tags;
  odm::Extra rest;
  struct odm_model {
    static constexpr std::string_view collection = "posts";
  };
};

struct Parent {
  std::int32_t id = 0;
  std::string name;
  struct odm_model {
    static constexpr std::string_view collection = "parents";
  };
};

struct Child {
  std::int32_t id = 0;
  odm::ParentRef<Parent> parent;
  std::optional<odm::Ref<Parent>> other;
  struct odm_model {
    static constexpr std::string_view collection = "children";
  };
};

}  // namespace adv13b

namespace {

using namespace adv13b;
using odm_test::json;
using odm_test::show_many;
using odm_test::show_one;

using odm_test::same_source;
const auto side = odm_test::join_side;

const char* name_of(odm::JoinSide s) { return s == odm::JoinSide::server ? "server" : "client"; }

class Adversary13Lookup2 : public odm_test::DriverTest {
 protected:
  void insert(const std::string& collection, const std::string& documents) {
    db().run_command(json(R"({"insert": ")" + collection + R"(", "documents": )" + documents + "}"));
  }

  /// Posts with their tags read by find_joined with these skip and limit, or "error".
  std::string load_posts(odm::JoinSide s, std::optional<std::int64_t> skip, std::optional<std::int64_t> limit) {
    try {
      odm::FindOptions<KeptPost> options;
      options.sort(odm::Sort<KeptPost>::raw(json(R"({"_id": 1})")));
      if (skip) options.skip(*skip);
      if (limit) options.limit(*limit);
      const auto found = odm::find_joined(db(), {}, options, side(s), odm::with(&KeptPost::tags));
      std::string out;
      for (const KeptPost& post : found) out += std::to_string(post.id) + ": " + show_many(post.tags) + "\n";
      return out;
    } catch (const odm::Error&) {
      return "error";  // messages differ between find and aggregate; the kind must not
    }
  }
  void insert_posts() {
    insert("tags", R"([{"_id": 1, "name": "one"}])");
    insert("posts", R"([{"_id": 1, "tags": [1]}, {"_id": 2, "tags": [1, 1]}, {"_id": 3, "tags": []}])");
  }

  template <odm::Dangling P>
  std::string run_parts(odm::JoinSide s) {
    using Holder = PartHolder<P>;
    try {
      const auto resolved = odm::find_joined(db(), {}, odm::Sort<Holder>::raw(json(R"({"_id": 1})")), side(s),
                                             odm::with(&Holder::refs));
      std::string out;
      for (const Holder& h : resolved) out += std::to_string(h.id) + ": " + show_many(h.refs) + "\n";
      return out;
    } catch (const odm::Error& error) {
      return "error: " + same_source(error.what());
    }
  }

  template <odm::Dangling P>
  std::string run_nums(odm::JoinSide s) {
    using Holder = NumHolder<P>;
    try {
      const auto resolved = odm::find_joined(db(), {}, odm::Sort<Holder>::raw(json(R"({"_id": 1})")), side(s),
                                             odm::with(&Holder::refs), odm::with(&Holder::one));
      std::string out;
      for (const Holder& h : resolved) out += std::to_string(h.id) + ": " + show_one(h.one) + " " + show_many(h.refs) + "\n";
      return out;
    } catch (const odm::Error& error) {
      return "error: " + same_source(error.what());
    }
  }
};

// A reference to a sub-document id is stored by another program with its fields in another
// order than odm writes them ({number, line} instead of {line, number}). The client form
// decodes the id and sends it re-encoded in `$in`; the server form's `$lookup` compares the
// stored bytes. MongoDB compares embedded documents field by field, in order, so the two
// forms would find different targets. The README promises identical results.
TEST_F(Adversary13Lookup2, ASubDocumentIdStoredInAnotherFieldOrderJoinsAlike) {
  insert("targets", R"([{"_id": {"line": "A", "number": 7}, "name": "seven"},
                        {"_id": {"line": "B", "number": 8}, "name": "eight"}])");
  // Holder 2 alone holds the reordered form: the server form's pools are shared by all rows,
  // so a target some other row matched would hide the difference.
  insert("holders", R"([{"_id": 1, "refs": [{"line": "B", "number": 8}]},
                        {"_id": 2, "refs": [{"number": 7, "line": "A"}, {"line": "B", "number": 8}]}])");
  // MongoDB matches embedded documents exactly, field order included
  // (https://www.mongodb.com/docs/manual/tutorial/query-embedded-documents/); on an engine
  // that ignores the order both forms find every target, and must agree just the same.
  const std::string client = run_parts<odm::Dangling::keep>(odm::JoinSide::client);
  const std::string server = run_parts<odm::Dangling::keep>(odm::JoinSide::server);
  EXPECT_EQ(server, client);
  EXPECT_EQ(run_parts<odm::Dangling::drop>(odm::JoinSide::server), run_parts<odm::Dangling::drop>(odm::JoinSide::client));
  EXPECT_EQ(run_parts<odm::Dangling::raise>(odm::JoinSide::server),
            run_parts<odm::Dangling::raise>(odm::JoinSide::client));
}

// The same with a stored reference carrying a field the id type does not read: decoded, it
// is the id {line, number}; stored, it is another value.
TEST_F(Adversary13Lookup2, ASubDocumentIdStoredWithAFieldTheCodecIgnoresJoinsAlike) {
  insert("targets", R"([{"_id": {"line": "A", "number": 7}, "name": "seven"}])");
  insert("holders", R"([{"_id": 1, "refs": [{"line": "A", "number": 7, "note": "x"}]}])");
  const std::string client = run_parts<odm::Dangling::keep>(odm::JoinSide::client);
  const std::string server = run_parts<odm::Dangling::keep>(odm::JoinSide::server);
  EXPECT_EQ(server, client);
}

// Numeric ids of equal value stored as int32, int64 and double, in the roots and in the
// targets: MongoDB's `$in` and `$lookup` both compare numbers by value, and a decoded id
// is re-encoded as the model's type. Both forms agree under every policy, duplicates and
// a ghost included.
TEST_F(Adversary13Lookup2, NumericIdsOfEqualValueInEveryNumberTypeJoinAlike) {
  insert("nums", R"([{"_id": 1, "name": "one"}, {"_id": {"$numberLong": "2"}, "name": "two"},
                     {"_id": {"$numberLong": "3"}, "name": "three"}])");
  insert("num_holders", R"([{"_id": 1, "one": {"$numberLong": "1"}, "refs": [2, {"$numberLong": "3"}, 2, 9]},
                            {"_id": 2, "one": 3, "refs": [{"$numberLong": "1"}, 1, 1]},
                            {"_id": 3, "one": {"$numberLong": "9"}, "refs": []}])");
  for (const odm::JoinSide s : {odm::JoinSide::client, odm::JoinSide::server}) {
    SCOPED_TRACE(name_of(s));
    const std::string keep = run_nums<odm::Dangling::keep>(s);
    EXPECT_EQ(keep, "1: 1=one [2=two, 3=three, 2=two, 9?]\n2: 3=three [1=one, 1=one, 1=one]\n3: 9? []\n");
  }
  EXPECT_EQ(run_nums<odm::Dangling::drop>(odm::JoinSide::server), run_nums<odm::Dangling::drop>(odm::JoinSide::client));
  EXPECT_EQ(run_nums<odm::Dangling::raise>(odm::JoinSide::server),
            run_nums<odm::Dangling::raise>(odm::JoinSide::client));
}

// A reference stored as a double of an integral value (another program's JavaScript wrote
// it): both forms read it, or refuse it, alike.
TEST_F(Adversary13Lookup2, AReferenceStoredAsADoubleReadsAlikeOnBothSides) {
  insert("nums", R"([{"_id": 1, "name": "one"}, {"_id": 2.0, "name": "two"}])");
  insert("num_holders", R"([{"_id": 1, "one": 2.0, "refs": [1.0, 2]}])");
  EXPECT_EQ(run_nums<odm::Dangling::keep>(odm::JoinSide::server), run_nums<odm::Dangling::keep>(odm::JoinSide::client));
  EXPECT_EQ(run_nums<odm::Dangling::drop>(odm::JoinSide::server), run_nums<odm::Dangling::drop>(odm::JoinSide::client));
}

// Limits and skips at the ends of int64: find's semantics (a negative limit is one batch
// of -limit) hold on both sides, or both refuse them with an odm error.
TEST_F(Adversary13Lookup2, ExtremeSkipsAndLimitsSelectTheSameRootsOrFailAlike) {
  insert_posts();
  constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t min = std::numeric_limits<std::int64_t>::min();
  for (const std::optional<std::int64_t> limit : std::vector<std::optional<std::int64_t>>{
           std::nullopt, 0, 1, -1, 2, -2, max, min + 1}) {
    std::vector<std::optional<std::int64_t>> skips{std::nullopt, 0, 2, 3};
    if (!missing_capability(odm_test::Capability::huge_skips)) skips.insert(skips.end(), {1LL << 40, max});
    for (const std::optional<std::int64_t> skip : skips) {
      SCOPED_TRACE("skip " + (skip ? std::to_string(*skip) : "unset") + ", limit " +
                   (limit ? std::to_string(*limit) : "unset"));
      const std::string client = load_posts(odm::JoinSide::client, skip, limit);
      EXPECT_EQ(load_posts(odm::JoinSide::server, skip, limit), client);
      if (!limit && !skip) {
        EXPECT_EQ(client, "1: [1=one]\n2: [1=one, 1=one]\n3: []\n");
      }
    }
  }
}

// INT64_MIN has no positive counterpart: `-limit` would overflow (undefined behaviour); both
// forms must still agree: both read it as one batch of INT64_MAX (detail::one_batch_limit).
TEST_F(Adversary13Lookup2, ALimitOfInt64MinSelectsTheSameRootsOnBothSides) {
  insert_posts();
  constexpr std::int64_t min = std::numeric_limits<std::int64_t>::min();
  for (const std::optional<std::int64_t> skip : std::vector<std::optional<std::int64_t>>{std::nullopt, 1}) {
    SCOPED_TRACE("limit INT64_MIN");
    EXPECT_EQ(load_posts(odm::JoinSide::server, skip, min), load_posts(odm::JoinSide::client, skip, min));
  }
}

// Filters find accepts but `$match` refuses (MongoDB's manual, $match restrictions: "$where
// cannot be used in $match queries"; "$near and $nearSphere ... cannot be used in $match";
// use $geoNear): the README says a find_joined filter selects the roots "as find() reads
// them" on both sides. On an engine whose find cannot run them either, nothing to compare.
TEST_F(Adversary13Lookup2, FiltersFindAcceptsButMatchRefusesBehaveAlikeOrAreRefusedClearly) {
  insert("tags", R"([{"_id": 1, "name": "one"}])");
  insert("posts", R"([{"_id": 1, "tags": [1], "loc": [0, 0]}, {"_id": 2, "tags": [], "loc": [5, 5]}])");
  try {
    db().run_command(json(R"({"createIndexes": "posts", "indexes": [{"key": {"loc": "2d"}, "name": "loc_2d"}]})"));
  } catch (const odm::Error&) {
  }
  std::string refused;  // by this engine's find: nothing to compare
  int compared = 0;
  for (const char* filter : {R"({"loc": {"$near": [0, 0], "$maxDistance": 1}})", R"({"$where": "this._id == 1"})"}) {
    SCOPED_TRACE(filter);
    const auto load = [&](odm::JoinSide s) {
      const auto found = odm::find_joined(db(), odm::Filter<KeptPost>::raw(json(filter)), odm::FindOptions<KeptPost>(),
                                          side(s), odm::with(&KeptPost::tags));
      std::string out;
      for (const KeptPost& post : found) out += std::to_string(post.id) + ": " + show_many(post.tags) + "\n";
      return out;
    };
    std::string client;
    try {
      client = load(odm::JoinSide::client);
    } catch (const odm::Error& error) {
      refused += std::string(filter) + ": " + error.what() + "\n";
      continue;
    }
    ++compared;
    EXPECT_EQ(client, "1: [1=one]\n");
    try {
      EXPECT_EQ(load(odm::JoinSide::server), client);
    } catch (const odm::UsageError&) {
      // refused before sending, naming the reason: acceptable
    } catch (const odm::Error& error) {
      ADD_FAILURE() << "defect: the client form reads these roots, the server form fails with the server's $match "
                       "error instead of the same result or a clear odm::UsageError: "
                    << error.what();
    }
  }
  if (compared == 0) GTEST_SKIP() << "this engine's find runs none of these filters (MongoDB's does):\n" << refused;
}

// `$lookup` matches a null or missing localField with foreign documents whose field is null
// or missing (MongoDB's manual, $lookup: "If an input document does not contain the
// localField, $lookup treats the field as having a value of null for matching purposes").
// A target collection may hold a document with `_id: null` (another program wrote it), one
// that odm's model cannot read. A root reference (null ParentRef) or an absent optional
// Ref refers to nothing: the client form never fetches that document, and the server form
// must not fail on it or report it either.
TEST_F(Adversary13Lookup2, ANullOrMissingReferenceNeverReachesATargetWhoseIdIsNull) {
  insert("parents", R"([{"_id": 1, "name": "one"}, {"_id": null, "name": 7}])");
  insert("children", R"([{"_id": 1, "parent": null}, {"_id": 2, "parent": 1, "other": 1}, {"_id": 3, "other": null},
                         {"_id": 4}])");
  for (const odm::BadDocuments bad : {odm::BadDocuments::raise, odm::BadDocuments::skip}) {
    const auto load = [&](odm::JoinSide s) {
      odm::JoinOptions options = side(s);
      options.bad_documents = bad;
      try {
        const auto found = odm::find_joined(db(), {}, odm::Sort<Child>::raw(json(R"({"_id": 1})")), options,
                                            odm::with(&Child::parent), odm::with(&Child::other));
        std::string out;
        for (const Child& c : found)
          out += std::to_string(c.id) + ": " + (c.parent.has_parent() ? show_one(c.parent) : std::string("root")) + " " +
                 (c.other ? show_one(*c.other) : std::string("-")) + "\n";
        for (const odm::SkippedDocument& skipped : found.skipped()) out += "skipped " + skipped.id.to_json() + "\n";
        return out;
      } catch (const odm::Error& error) {
        return "error: " + same_source(error.what());
      }
    };
    const std::string client = load(odm::JoinSide::client);
    EXPECT_EQ(client, "1: root -\n2: 1=one 1=one\n3: root -\n4: root -\n");
    EXPECT_EQ(load(odm::JoinSide::server), client);
  }
}

// A projection that leaves out `_id` or the relation itself: both forms select the same
// fields of the same roots, and the relation reads as the client form reads it.
TEST_F(Adversary13Lookup2, ProjectionsWithoutTheIdOrTheRelationJoinAlike) {
  insert("tags", R"([{"_id": 1, "name": "one"}, {"_id": 2, "name": "two"}])");
  insert("posts", R"([{"_id": 1, "tags": [2, 1, 2], "x": 1}, {"_id": 2, "tags": [3], "x": 2}])");
  for (const char* projection : {R"({"_id": 0, "tags": 1})", R"({"tags": 0})", R"({"x": 1})", R"({"_id": 0})"}) {
    SCOPED_TRACE(projection);
    const auto load = [&](odm::JoinSide s) {
      try {
        odm::FindOptions<KeptPost> options;
        options.sort(odm::Sort<KeptPost>::raw(json(R"({"x": 1})")));
        options.projection(odm::Projection<KeptPost>::raw(json(projection)));
        const auto found = odm::find_joined(db(), {}, options, side(s), odm::with(&KeptPost::tags));
        std::string out;
        for (const KeptPost& post : found)
          out += std::to_string(post.id) + ": " + show_many(post.tags) + " " + post.rest.fields().to_json() + "\n";
        return out;
      } catch (const odm::Error& error) {
        return "error: " + same_source(error.what());
      }
    };
    EXPECT_EQ(load(odm::JoinSide::server), load(odm::JoinSide::client));
  }
}

// Stored fields named like the join's own fields, nested and dotted (`__odm_doc` holding
// `__odm_0`, `__odm_0.x`, `__odm_doc.__odm_doc`), deep nesting: read on the server, a
// replace stores every field back as it was.
TEST_F(Adversary13Lookup2, OddlyNamedAndDeeplyNestedStoredFieldsSurviveAServerReadAndAReplace) {
  ODM_REQUIRE(add_fields_replaces);
  std::string deep = R"({"leaf": 1})";
  for (int i = 0; i < 60; ++i) deep = R"({"__odm_doc": )" + deep + "}";
  insert("tags", R"([{"_id": 1, "name": "one"}])");
  insert("posts", R"([{"_id": 1, "tags": [1, 7], "__odm_doc": {"__odm_0": [{"_id": 7, "name": "fake"}], "tags": [7]},
                       "__odm_0.x": "dotted", "__odm_": [], "__odm_1": {"__odm_doc": 5}, "__odm": "$$ROOT",
                       "deep": )" + deep + "}]");
  odm::Document before;
  for (odm::Document& d : db().collection<KeptPost>().find<odm::Document>({})) before = std::move(d);
  const std::string stored = before.to_json();

  const auto server = odm::find_joined(db(), {}, odm::FindOptions<KeptPost>(), side(odm::JoinSide::server),
                                       odm::with(&KeptPost::tags));
  ASSERT_EQ(server.size(), 1u);
  EXPECT_EQ(show_many(server.begin()->tags), "[1=one, 7?]");
  const auto client = odm::find_joined(db(), {}, odm::FindOptions<KeptPost>(), side(odm::JoinSide::client),
                                       odm::with(&KeptPost::tags));
  EXPECT_EQ(server.begin()->rest.fields().to_json(), client.begin()->rest.fields().to_json());

  db().collection<KeptPost>().replace_one(odm::field(&KeptPost::id) == 1, *server.begin());
  odm::Document after;
  for (odm::Document& d : db().collection<KeptPost>().find<odm::Document>({})) after = std::move(d);
  EXPECT_EQ(after.to_json(), stored);
}

}  // namespace
