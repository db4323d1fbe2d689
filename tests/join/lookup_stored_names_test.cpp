// Server-side joins (`$lookup`) over stored documents whose field names are anything,
// including the names the join's own fields have (`__odm_0`, `__odm_doc`): another
// program may have written them. Both forms must read every document alike (a model
// that keeps unknown fields keeps all of them, a strict one refuses them alike), and a
// replace of an object read either way must store every field it was read with.

#include <odm/join/lookup.hpp>
#include <odm/odm.hpp>

#include "../driver/support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace stored_names {

struct Tag {
  std::int32_t id = 0;
  std::string name;
  struct odm_model {
    static constexpr std::string_view collection = "tags";
  };
};

// Keeps the fields it does not declare.
struct KeptPost {
  std::int32_t id = 0;
  odm::RefMany<Tag> tags;
  odm::Ref<Tag> main;
  odm::Extra rest;
  struct odm_model {
    static constexpr std::string_view collection = "posts";
  };
};

// Refuses the fields it does not declare.
struct StrictPost {
  std::int32_t id = 0;
  odm::RefMany<Tag> tags;
  odm::Ref<Tag> main;
  struct odm_model {
    static constexpr std::string_view collection = "posts";
    static constexpr bool strict = true;
  };
};

// Relations stored under the names the join would use for its own fields.
struct OddPost {
  std::int32_t id = 0;
  odm::RefMany<Tag> tags;
  odm::Ref<Tag> main;
  odm::Extra rest;
  struct odm_model {
    static constexpr std::string_view collection = "posts";
    static constexpr auto fields = odm::fields(odm::rename(&OddPost::tags, "__odm_0"), odm::rename(&OddPost::main, "__odm_doc"));
  };
};

// Ignores the fields it does not declare; a missing `tags` reads as none.
struct PlainPost {
  std::int32_t id = 0;
  odm::RefMany<Tag> tags;
  odm::Ref<Tag> main;
  struct odm_model {
    static constexpr std::string_view collection = "posts";
    static constexpr auto fields = odm::fields(odm::defaulted(&PlainPost::tags));
  };
};

}  // namespace stored_names

namespace {

using namespace stored_names;
using odm_test::json;

/// Each field of a document, by name, as Extended JSON: equal maps hold the same fields
/// and values, in any order.
std::map<std::string, std::string> fields_of(const odm::Document& document) {
  std::map<std::string, std::string> fields;
  bson_iter_t it;
  if (!bson_iter_init(&it, document.get())) return fields;
  while (bson_iter_next(&it)) {
    odm::Document one;
    bson_append_iter(one.get_mutable(), bson_iter_key(&it), -1, &it);
    fields[bson_iter_key(&it)] = one.to_json();
  }
  return fields;
}

template <class Post>
std::string render(const Post& post) {
  std::string out = std::to_string(post.id) + ": main ";
  if (post.main.is_loaded())
    out += post.main->name;
  else
    out += post.main.is_dangling() ? "dangling" : "-";
  out += ", tags [";
  for (std::size_t i = 0; i < post.tags.size(); ++i) {
    try {
      out += post.tags.at(i).name + " ";
    } catch (const odm::NotLoadedError&) {
      out += "? ";
    }
  }
  return out + "]";
}

class LookupStoredNames : public odm_test::DriverTest {
 protected:
  static odm::JoinOptions side(odm::JoinSide s, odm::BadDocuments bad = odm::BadDocuments::raise) {
    odm::JoinOptions options;
    options.side = s;
    options.bad_documents = bad;
    return options;
  }
  std::vector<odm::Document> stored_posts() {
    std::vector<odm::Document> posts;
    odm::FindOptions<KeptPost> by_id;
    by_id.sort(odm::Sort<KeptPost>::raw(json(R"({"_id": 1})")));
    for (odm::Document& post : db().collection<KeptPost>().find<odm::Document>({}, by_id)) posts.push_back(std::move(post));
    return posts;
  }
};

// Random posts whose extra fields have random names from a list that holds every name
// the join's fields take (and near misses) and random values (strings, numbers, null,
// documents and arrays of documents shaped like $lookup matches). Both forms give the
// same objects, extra fields included; a replace of each object read on either side
// leaves every stored document as it was; a strict model refuses the same documents with
// the same error on both sides. The seed is printed on failure; rerun with
// ODM_LOOKUP_NAMES_SEED=<seed>.
TEST_F(LookupStoredNames, RandomExtraFieldsNamedLikeTheJoinsOwnAreKeptAlikeAndSurviveAReplace) {
  ODM_REQUIRE(add_fields_replaces);  // a stored `__odm_doc` sub-document among the extra fields
  const char* from_env = std::getenv("ODM_LOOKUP_NAMES_SEED");
  const std::uint32_t seed = from_env != nullptr ? static_cast<std::uint32_t>(std::stoul(from_env)) : 20261124u;
  SCOPED_TRACE("seed " + std::to_string(seed) + " (ODM_LOOKUP_NAMES_SEED)");
  std::mt19937 random(seed);
  const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(random() % n); };

  db().run_command(json(R"({"insert": "tags", "documents": [{"_id": 1, "name": "one"}, {"_id": 2, "name": "two"},
                                                            {"_id": 3, "name": "three"}]})"));
  const std::vector<std::string> names{"__odm_0", "__odm_1",  "__odm_2",   "__odm_doc", "__odm_",  "__odm__0",
                                       "__odm_7", "__odm_00", "__odm__doc", "_odm_0",   "__odm_0x", "note"};
  const std::vector<std::string> values{R"("mine")", "7", "null", R"({"_id": 1, "name": "fake"})",
                                        R"([{"_id": 2, "name": "fake"}])", "[]", R"({"a": {"b": [1, 2]}})"};
  std::string posts = "[";
  for (int p = 1; p <= 80; ++p) {
    std::string post = "{\"_id\": " + std::to_string(p) + ", \"main\": " + std::to_string(1 + pick(5)) + ", \"tags\": [";
    const std::size_t tags = pick(4);
    for (std::size_t t = 0; t < tags; ++t) post += (t ? "," : "") + std::to_string(1 + pick(5));
    post += "]";
    std::vector<bool> used(names.size(), false);
    const std::size_t extras = pick(4);
    for (std::size_t e = 0; e < extras; ++e) {
      const std::size_t name = pick(names.size());
      if (used[name]) continue;
      used[name] = true;
      post += ", \"" + names[name] + "\": " + values[pick(values.size())];
    }
    posts += (p > 1 ? "," : "") + post + "}";
  }
  db().run_command(json(R"({"insert": "posts", "documents": )" + posts + "]}"));
  const std::vector<odm::Document> before = stored_posts();
  ASSERT_EQ(before.size(), 80u);

  const auto by_id = odm::Sort<KeptPost>::raw(json(R"({"_id": 1})"));
  for (const odm::JoinSide first : {odm::JoinSide::server, odm::JoinSide::client}) {
    const char* name = first == odm::JoinSide::server ? "read on the server" : "read on the client";
    const auto client = odm::find_joined(db(), {}, by_id, side(odm::JoinSide::client), odm::with(&KeptPost::tags),
                                         odm::with(&KeptPost::main));
    const auto server = odm::find_joined(db(), {}, by_id, side(odm::JoinSide::server), odm::with(&KeptPost::tags),
                                         odm::with(&KeptPost::main));
    ASSERT_EQ(client.size(), 80u) << name;
    ASSERT_EQ(server.size(), 80u) << name;
    for (std::size_t i = 0; i < 80; ++i) {
      EXPECT_EQ(render(server[i]), render(client[i])) << name;
      EXPECT_EQ(server[i].rest.fields().to_json(), client[i].rest.fields().to_json()) << name << ", post " << i + 1;
    }
    // A replace of every object as one side read it.
    const auto& read = first == odm::JoinSide::server ? server : client;
    for (const KeptPost& post : read)
      db().collection<KeptPost>().replace_one(odm::field(&KeptPost::id) == post.id, post);
    const std::vector<odm::Document> after = stored_posts();
    ASSERT_EQ(after.size(), before.size()) << name;
    for (std::size_t i = 0; i < before.size(); ++i)
      EXPECT_EQ(fields_of(after[i]), fields_of(before[i])) << name << ": a replace changed post " << i + 1;
  }

  // A strict model: the same documents refused, with the same error, on both sides.
  const auto strict = [&](odm::JoinSide s) {
    const auto found = odm::find_joined(db(), {}, odm::Sort<StrictPost>::raw(json(R"({"_id": 1})")),
                                        side(s, odm::BadDocuments::skip), odm::with(&StrictPost::tags),
                                        odm::with(&StrictPost::main));
    std::string out;
    for (const StrictPost& post : found) out += render(post) + "\n";
    for (const odm::SkippedDocument& skipped : found.skipped())
      out += "skipped " + skipped.id.to_json() + ": " + skipped.error.path() + "\n";
    return out;
  };
  const std::string strict_client = strict(odm::JoinSide::client);
  EXPECT_NE(strict_client.find("skipped"), std::string::npos) << strict_client;
  EXPECT_EQ(strict(odm::JoinSide::server), strict_client);
}

// A model whose relations are stored under `__odm_0` and `__odm_doc`: the join's own
// fields take other names, so both relations still read their stored ids and both forms
// agree, and the pipeline never writes a field a later stage reads.
TEST_F(LookupStoredNames, RelationsStoredUnderTheJoinsOwnNamesStillJoin) {
  db().run_command(json(R"({"insert": "tags", "documents": [{"_id": 1, "name": "one"}, {"_id": 2, "name": "two"}]})"));
  db().run_command(json(R"({"insert": "posts", "documents": [{"_id": 1, "__odm_doc": 2, "__odm_0": [1, 2, 1],
                                                             "__odm__0": "kept"}]})"));
  for (const odm::JoinSide s : {odm::JoinSide::client, odm::JoinSide::server}) {
    const auto found = odm::find_joined(db(), {}, side(s), odm::with(&OddPost::tags), odm::with(&OddPost::main));
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(render(found[0]), "1: main two, tags [one two one ]");
    EXPECT_TRUE(found[0].rest.contains("__odm__0"));
  }
  const auto tags = odm::with(&OddPost::tags);
  const auto main = odm::with(&OddPost::main);
  odm::detail::LookupResults results;
  const odm::Document pipeline = odm::detail::lookup_pipeline({}, {&tags.step(), &main.step()}, results);
  EXPECT_EQ(results.document_field(), "__odm__doc") << pipeline.to_json();
  EXPECT_EQ(results.output_field(1), "__odm__1");
}

// find_joined's find options on both sides: sort, skip, limit (none, positive, negative:
// find's one batch) and projection select the same roots, joined alike, as find() reads
// them; a projection that leaves out a relation's field leaves nothing to resolve.
TEST_F(LookupStoredNames, SkipLimitAndProjectionSelectTheSameRootsOnBothSides) {
  db().run_command(json(R"({"insert": "tags", "documents": [{"_id": 1, "name": "one"}, {"_id": 2, "name": "two"},
                                                            {"_id": 3, "name": "three"}]})"));
  std::string posts = "[";
  for (int p = 1; p <= 30; ++p)
    posts += (p > 1 ? "," : "") + ("{\"_id\": " + std::to_string(p) + ", \"main\": " + std::to_string(1 + p % 4) +
                                   ", \"tags\": [" + std::to_string(1 + p % 3) + ", 4, " + std::to_string(1 + p % 2) + "]}");
  db().run_command(json(R"({"insert": "posts", "documents": )" + posts + "]}"));

  const auto load = [&](odm::JoinSide s, std::int64_t skip, std::int64_t limit, bool project) {
    odm::FindOptions<PlainPost> options;
    options.sort(odm::Sort<PlainPost>::raw(json(R"({"_id": -1})")));
    if (skip != 0) options.skip(skip);
    if (limit != 0) options.limit(limit);
    if (project) options.projection(odm::Projection<PlainPost>::raw(json(R"({"main": 1})")));
    const auto found = odm::find_joined(db(), odm::Filter<PlainPost>::raw(json(R"({"_id": {"$gt": 2}})")), options,
                                        side(s), odm::with(&PlainPost::tags), odm::with(&PlainPost::main));
    std::string out;
    for (const PlainPost& post : found) out += render(post) + "\n";
    return out;
  };
  for (const std::int64_t skip : {0, 3, 27, 40}) {
    for (const std::int64_t limit : {0, 5, -4}) {
      for (const bool project : {false, true}) {
        SCOPED_TRACE("skip " + std::to_string(skip) + ", limit " + std::to_string(limit) +
                     (project ? ", projection {main: 1}" : ""));
        const std::string client = load(odm::JoinSide::client, skip, limit, project);
        EXPECT_EQ(load(odm::JoinSide::server, skip, limit, project), client);
        // 28 matches (_id 3..30), newest first.
        const std::int64_t left = std::max<std::int64_t>(0, 28 - skip);
        const std::int64_t expected = limit == 0 ? left : std::min<std::int64_t>(left, limit < 0 ? -limit : limit);
        EXPECT_EQ(static_cast<std::int64_t>(std::count(client.begin(), client.end(), '\n')), expected) << client;
        if (expected > 0) {
          EXPECT_EQ(client.substr(0, client.find(':')), std::to_string(30 - skip)) << client;
          EXPECT_EQ(client.find("tags []") != std::string::npos, project) << client;
        }
      }
    }
  }
}

// A collation would also change how `$lookup` matches ids, which the client form's `$in`
// does not: the server form refuses it before anything is sent.
TEST_F(LookupStoredNames, ACollationIsRefusedOnTheServerSide) {
  db().run_command(json(R"({"insert": "posts", "documents": [{"_id": 1, "main": 1, "tags": []}]})"));
  odm::FindOptions<PlainPost> options;
  options.collation(odm::Collation("en"));
  EXPECT_THROW((void)odm::find_joined(db(), {}, options, side(odm::JoinSide::server), odm::with(&PlainPost::main)),
               odm::UsageError);
}

}  // namespace
