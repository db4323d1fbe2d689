// Adversarial probes of server-side joins (issue 13 item 4): the README promises that
// `odm::find_joined` with JoinSide::server gives exactly the client form's results,
// order, duplicates, dangling policy and decode errors. Each probe runs both forms on
// the same data (written as raw Extended JSON, as another program would) and compares.
// A probe that shows a defect is kept, skipped with `defect:` and its reason.

#include <odm/join/lookup.hpp>
#include <odm/odm.hpp>

#include "../driver/support.hpp"
#include "show_refs.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <iostream>
#include <string>
#include <vector>

namespace adv13 {

struct Tag {
  odm::ObjectId id;
  std::string name;
  struct odm_model {
    static constexpr std::string_view collection = "tags";
  };
};

template <odm::Dangling P>
struct PostT {
  std::int32_t id = 0;
  odm::RefMany<Tag, P> tags;
  odm::Ref<Tag, P> main;
  struct odm_model {
    static constexpr std::string_view collection = "posts";
  };
};

// A model that keeps the fields it does not declare.
struct KeepingPost {
  std::int32_t id = 0;
  odm::RefMany<Tag> tags;
  odm::Ref<Tag> main;
  odm::Extra rest;
  struct odm_model {
    static constexpr std::string_view collection = "posts";
  };
};

// A model that refuses the fields it does not declare.
struct StrictPost {
  std::int32_t id = 0;
  odm::RefMany<Tag> tags;
  odm::Ref<Tag> main;
  struct odm_model {
    static constexpr std::string_view collection = "posts";
    static constexpr bool strict = true;
  };
};

struct Blob {
  std::int32_t id = 0;
  std::string data;
  struct odm_model {
    static constexpr std::string_view collection = "blobs";
  };
};
struct Holder {
  std::int32_t id = 0;
  odm::RefMany<Blob> blobs;
  struct odm_model {
    static constexpr std::string_view collection = "holders";
  };
};

// A target model with schema versions: version 1 stored `label`, version 2 `name`.
struct MakerV1 {
  std::string id;
  std::string label;
};
struct MakerV2 {
  std::string id;
  std::string name;
};
inline MakerV2 label_to_name(const MakerV1& old) { return {old.id, old.label}; }
struct Maker {
  std::string id;
  std::string name;
  struct odm_model {
    static constexpr std::string_view collection = "makers";
    static constexpr auto schema = odm::schema_versions<2>(odm::upgrade<1>(&label_to_name));
  };
};
struct Gadget {
  std::int32_t id = 0;
  odm::Ref<Maker> maker;
  struct odm_model {
    static constexpr std::string_view collection = "gadgets";
  };
};

}  // namespace adv13

namespace {

using namespace adv13;
using odm_test::json;
using odm_test::show_many;
using odm_test::show_one;

std::string oid(int n) {
  std::string hex = std::to_string(n);
  return R"({"$oid": "5f00000000000000000000)" + std::string(2 - hex.size(), '0') + hex + R"("})";
}

class Adversary13Lookup : public odm_test::DriverTest {
 protected:
  void insert(const std::string& collection, const std::string& documents) {
    db().run_command(json(R"({"insert": ")" + collection + R"(", "documents": )" + documents + "}"));
  }
  static odm::JoinOptions side(odm::JoinSide s) {
    odm::JoinOptions options;
    options.side = s;
    return options;
  }
  // Tags 1..3 exist; posts point at them with ObjectId ids, duplicates and ghosts (9).
  void insert_posts() {
    insert("tags", "[{\"_id\": " + oid(1) + R"(, "name": "one"}, {"_id": )" + oid(2) + R"(, "name": "two"},
                    {"_id": )" + oid(3) + R"(, "name": "three"}])");
    insert("posts", "[{\"_id\": 1, \"main\": " + oid(2) + ", \"tags\": [" + oid(3) + "," + oid(9) + "," + oid(3) + "," +
                        oid(1) + "," + oid(9) + "]}, {\"_id\": 2, \"main\": " + oid(9) + ", \"tags\": []}, " +
                        "{\"_id\": 3, \"main\": " + oid(1) + ", \"tags\": [" + oid(2) + "," + oid(2) + "]}]");
  }
  /// Runs the join on one side: the rendered result, or "error: <type> <message>".
  template <odm::Dangling P>
  std::string run(odm::JoinSide s, odm::BadDocuments bad = odm::BadDocuments::raise) {
    using Post = PostT<P>;
    odm::JoinOptions options = side(s);
    options.bad_documents = bad;
    try {
      const auto resolved = odm::find_joined(db(), {}, odm::Sort<Post>::raw(json(R"({"_id": 1})")), options,
                                             odm::with(&Post::tags), odm::with(&Post::main));
      std::string out;
      for (const Post& p : resolved) out += std::to_string(p.id) + ": " + show_one(p.main) + " " + show_many(p.tags) + "\n";
      for (const odm::SkippedDocument& skipped : resolved.skipped()) out += "skipped " + skipped.id.to_json() + "\n";
      return out;
    } catch (const odm::DanglingReference& error) {
      return std::string("error: DanglingReference ") + error.what();
    } catch (const odm::DecodeError& error) {
      return std::string("error: DecodeError ") + error.path();
    }
  }
};

// ObjectId ids, RefMany duplicates and ghost ids, a dangling Ref: both forms agree under
// every Dangling policy.
TEST_F(Adversary13Lookup, ObjectIdsDuplicatesAndGhostsUnderEveryPolicy) {
  insert_posts();
  const std::string keep = run<odm::Dangling::keep>(odm::JoinSide::client);
  EXPECT_NE(keep.find("=three"), std::string::npos) << keep;
  EXPECT_EQ(run<odm::Dangling::keep>(odm::JoinSide::server), keep);
  const std::string drop = run<odm::Dangling::drop>(odm::JoinSide::client);
  EXPECT_EQ(drop.find("2: "), std::string::npos) << "post 2's main is gone: left out under drop\n" << drop;
  EXPECT_EQ(run<odm::Dangling::drop>(odm::JoinSide::server), drop);
  const std::string raise = run<odm::Dangling::raise>(odm::JoinSide::client);
  EXPECT_EQ(raise.rfind("error: DanglingReference", 0), 0u) << raise;
  EXPECT_EQ(run<odm::Dangling::raise>(odm::JoinSide::server), raise);
}

// Random posts over tags 1..6 (ids 7..9 are ghosts), duplicates and empty lists included:
// both forms give the same text under every policy. The seed is printed on failure;
// rerun with ODM_LOOKUP_SEED=<seed>.
TEST_F(Adversary13Lookup, RandomPostsGiveTheSameResultOnBothSides) {
  const char* from_env = std::getenv("ODM_LOOKUP_SEED");
  const std::uint32_t seed = from_env != nullptr ? static_cast<std::uint32_t>(std::stoul(from_env)) : 20261124u;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 random(seed);
  std::string tags = "[";
  for (int t = 1; t <= 6; ++t) tags += (t > 1 ? "," : "") + ("{\"_id\": " + oid(t) + ", \"name\": \"t" + std::to_string(t) + "\"}");
  insert("tags", tags + "]");
  std::string posts = "[";
  for (int p = 1; p <= 150; ++p) {
    std::string list;
    const int n = static_cast<int>(random() % 6);
    for (int i = 0; i < n; ++i) list += (i ? "," : "") + oid(1 + static_cast<int>(random() % 9));
    posts += (p > 1 ? "," : "") + ("{\"_id\": " + std::to_string(p) + ", \"main\": " + oid(1 + static_cast<int>(random() % 9)) +
                                   ", \"tags\": [" + list + "]}");
  }
  insert("posts", posts + "]");
  EXPECT_EQ(run<odm::Dangling::keep>(odm::JoinSide::server), run<odm::Dangling::keep>(odm::JoinSide::client));
  EXPECT_EQ(run<odm::Dangling::drop>(odm::JoinSide::server), run<odm::Dangling::drop>(odm::JoinSide::client));
  EXPECT_EQ(run<odm::Dangling::raise>(odm::JoinSide::server), run<odm::Dangling::raise>(odm::JoinSide::client));
}

// A target that does not decode (a tag whose name is a number), under every policy, with
// bad documents thrown and skipped: both forms agree (a skipped target counts as missing).
TEST_F(Adversary13Lookup, ATargetThatDoesNotDecodeUnderEveryPolicyAndBothBadDocumentChoices) {
  insert_posts();
  db().run_command(json(R"({"update": "tags", "updates": [{"q": {"_id": )" + oid(3) + R"(}, "u": {"$set": {"name": 3}}}]})"));
  for (const odm::BadDocuments bad : {odm::BadDocuments::raise, odm::BadDocuments::skip}) {
    const char* how = bad == odm::BadDocuments::skip ? "skip" : "raise";
    const std::string keep = run<odm::Dangling::keep>(odm::JoinSide::client, bad);
    EXPECT_EQ(run<odm::Dangling::keep>(odm::JoinSide::server, bad), keep) << how;
    const std::string drop = run<odm::Dangling::drop>(odm::JoinSide::client, bad);
    EXPECT_EQ(run<odm::Dangling::drop>(odm::JoinSide::server, bad), drop) << how;
    const std::string raise = run<odm::Dangling::raise>(odm::JoinSide::client, bad);
    EXPECT_EQ(run<odm::Dangling::raise>(odm::JoinSide::server, bad), raise) << how;
    if (bad == odm::BadDocuments::raise) {
      EXPECT_EQ(keep, "error: DecodeError name") << keep;
    } else {
      EXPECT_NE(keep.find("skipped"), std::string::npos) << keep;
      EXPECT_EQ(raise.rfind("error: DanglingReference", 0), 0u) << raise;
    }
  }
}

// Another program stored a field named like odm's `$lookup` fields (`__odm_7`: no step of
// this join writes it). A model with an odm::Extra keeps every field it does not
// declare: both forms must give it the same fields, else a replace after a server-side
// join erases that field from the stored document.
TEST_F(Adversary13Lookup, AStoredFieldNamedLikeALookupFieldIsKeptOnBothSides) {
  insert_posts();
  db().run_command(json(R"({"update": "posts", "updates": [{"q": {"_id": 1}, "u": {"$set": {"__odm_7": "mine",
                                                                                                "note": "kept"}}}]})"));
  const auto load = [&](odm::JoinSide s) {
    return odm::find_joined(db(), odm::field(&KeepingPost::id) == 1, side(s), odm::with(&KeepingPost::main));
  };
  const auto client = load(odm::JoinSide::client);
  const auto server = load(odm::JoinSide::server);
  ASSERT_EQ(client.size(), 1u);
  ASSERT_EQ(server.size(), 1u);
  EXPECT_TRUE(client[0].rest.contains("__odm_7"));
  EXPECT_TRUE(server[0].rest.contains("note"));
  EXPECT_TRUE(server[0].rest.contains("__odm_7"));
  // What the user would lose otherwise: a replace of the object as loaded server-side.
  db().collection<KeepingPost>().replace_one(odm::field(&KeepingPost::id) == 1, server[0]);
  const auto stored = db().collection<KeepingPost>().find_one<odm::Document>(odm::field(&KeepingPost::id) == 1);
  ASSERT_TRUE(stored.has_value());
  EXPECT_TRUE(odm_test::has_key(*stored, "__odm_7")) << "a replace of the object loaded server-side erased it";
}

// The same for a strict model: both forms must agree on whether the document fits.
TEST_F(Adversary13Lookup, AStrictModelJudgesAStoredLookupNamedFieldAlikeOnBothSides) {
  insert_posts();
  db().run_command(json(R"({"update": "posts", "updates": [{"q": {"_id": 1}, "u": {"$set": {"__odm_7": 1}}}]})"));
  const auto fits = [&](odm::JoinSide s) -> std::string {
    try {
      return std::to_string(
          odm::find_joined(db(), odm::field(&StrictPost::id) == 1, side(s), odm::with(&StrictPost::main)).size());
    } catch (const odm::DecodeError& error) {
      return std::string("DecodeError ") + error.path();
    }
  };
  const std::string client = fits(odm::JoinSide::client);
  const std::string server = fits(odm::JoinSide::server);
  EXPECT_EQ(client, server) << "a strict model reading a document with a stored `__odm_7` field";
}

// Targets of an older schema version read upgraded on both sides, as find() reads them.
TEST_F(Adversary13Lookup, TargetsOfAnOlderSchemaVersionReadUpgradedOnBothSides) {
  insert("makers", R"([{"_id": "m1", "label": "Acme"}, {"_id": "m2", "name": "Zeta", "schema_version": 2}])");
  insert("gadgets", R"([{"_id": 1, "maker": "m1"}, {"_id": 2, "maker": "m2"}])");
  for (const odm::JoinSide s : {odm::JoinSide::client, odm::JoinSide::server}) {
    const char* name = s == odm::JoinSide::server ? "server" : "client";
    try {
      const auto found = odm::find_joined(db(), {}, odm::Sort<Gadget>::raw(json(R"({"_id": 1})")), side(s),
                                          odm::with(&Gadget::maker));
      ASSERT_EQ(found.size(), 2u) << name;
      EXPECT_EQ(found[0].maker->name, "Acme") << name;
      EXPECT_EQ(found[1].maker->name, "Zeta") << name;
    } catch (const odm::DecodeError& error) {
      ADD_FAILURE() << name << ": a version-1 target was not upgraded: " << error.what();
    }
  }
}

// A document whose targets together exceed 16 MiB: MongoDB's $lookup fails the
// aggregate (its matches exceed the maximum document size: code 4568, or the row,
// BSONObjectTooLarge 10334) where the client form works. The server form must then throw
// odm::ServerError with that code, naming the aggregate, never crash, and never return a
// partial result; the client form returns everything. (An engine without the limit may
// answer in full: then it must be the client form's result.)
TEST_F(Adversary13Lookup, TargetsBeyondSixteenMebibytesFailClearlyOrMatchTheClientForm) {
  const std::string big(600 * 1024, 'x');
  std::vector<Blob> blobs;
  for (std::int32_t i = 1; i <= 30; ++i) blobs.push_back(Blob{i, big});
  for (const Blob& b : blobs) db().collection<Blob>().insert_one(b);
  Holder holder{1, {}};
  std::vector<std::int32_t> ids;
  for (std::int32_t i = 1; i <= 30; ++i) ids.push_back(i);
  holder.blobs = odm::RefMany<Blob>(ids);
  db().collection<Holder>().insert_one(holder);

  const auto client = odm::find_joined(db(), {}, side(odm::JoinSide::client), odm::with(&Holder::blobs));
  ASSERT_EQ(client.size(), 1u);
  ASSERT_EQ(client[0].blobs.size(), 30u);
  EXPECT_EQ(client[0].blobs.at(29).data.size(), big.size());
  try {
    const auto server = odm::find_joined(db(), {}, side(odm::JoinSide::server), odm::with(&Holder::blobs));
    ASSERT_EQ(server.size(), 1u);
    ASSERT_EQ(server[0].blobs.size(), 30u);
    for (std::size_t i = 0; i < 30; ++i) EXPECT_EQ(server[0].blobs.at(i).id, client[0].blobs.at(i).id);
    std::cout << "the server answered the $lookup form (" << 30 * big.size() << " bytes of targets)\n";
  } catch (const odm::ServerError& error) {
    std::cout << "the server refused the $lookup form: " << error.what() << "\n";
    EXPECT_TRUE(error.code() == 4568 || error.code() == 10334) << error.code();
    EXPECT_NE(std::string(error.what()).find("aggregate on "), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find(".holders"), std::string::npos) << error.what();
  }
}

}  // namespace
