// The one guarded rewrite of a stored document (odm/driver/upgrade.hpp), without a server:
// what it sets and unsets, what its filter compares, and that filter and update together
// stay within MongoDB's 16 MiB.

#include <odm/driver/upgrade.hpp>

#include <odm/bson/document.hpp>
#include <odm/error.hpp>

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace guarded_rewrite_test {
namespace {

odm::Document json(std::string_view text) { return odm::Document::from_json(text); }
std::string canonical(std::string_view text) { return json(text).to_canonical_json(); }

TEST(GuardedRewrite, SetsUnsetsAndMatchesTheDocumentOnlyAsRead) {
  const odm::Document stored = json(R"({"_id": 1, "customer": "ann", "total_cents": 1200, "audit": "x"})");
  const odm::Document target =
      json(R"({"_id": 1, "customer": "ann", "total": 12, "audit": "x", "schema_version": 2})");
  const auto rewrite = odm::detail::guarded_rewrite(stored.get(), target.get());
  ASSERT_TRUE(rewrite.has_value());
  EXPECT_EQ(rewrite->update.to_canonical_json(),
            canonical(R"({"$set": {"total": 12, "schema_version": 2}, "$unset": {"total_cents": 1}})"));
  // The _id, the version as stored (none), every stored field (the step may have read any),
  // and the absence of each field the update adds.
  EXPECT_EQ(rewrite->filter.to_canonical_json(),
            canonical(R"({"_id": 1, "schema_version": {"$exists": false}, "customer": {"$eq": "ann"},
                          "total_cents": {"$eq": 1200}, "audit": {"$eq": "x"},
                          "total": {"$exists": false}})"));
}

TEST(GuardedRewrite, AFieldTheCallerKeepsIsNotUnsetButStillGuarded) {
  const odm::Document stored = json(R"({"_id": 1, "name": "a", "theirs": 5})");
  const odm::Document target = json(R"({"_id": 1, "name": "b"})");
  const auto rewrite = odm::detail::guarded_rewrite(stored.get(), target.get(),
                                                    [](std::string_view key) { return key == "theirs"; });
  ASSERT_TRUE(rewrite.has_value());
  EXPECT_EQ(rewrite->update.to_canonical_json(), canonical(R"({"$set": {"name": "b"}})"));
  EXPECT_NE(rewrite->filter.to_canonical_json().find("theirs"), std::string::npos);
}

// A field the upgrade steps consumed (here a rename's old name) is unset even where the
// caller keeps the fields the model does not declare; another undeclared field is kept.
TEST(GuardedRewrite, AFieldTheUpgradeConsumedIsUnsetWhereUndeclaredFieldsAreKept) {
  const odm::Document stored = json(R"({"_id": 1, "note": "x", "hits": 5})");
  const odm::Document upgraded = json(R"({"_id": 1, "note": "x", "visits": 5, "schema_version": 2})");
  const odm::Document target = json(R"({"_id": 1, "visits": 6, "schema_version": 2})");
  const auto keep = [](std::string_view key) { return key != "schema_version" && key != "visits"; };
  const auto rewrite = odm::detail::guarded_rewrite(stored.get(), target.get(), keep, upgraded.get());
  ASSERT_TRUE(rewrite.has_value());
  EXPECT_EQ(rewrite->update.to_canonical_json(),
            canonical(R"({"$set": {"visits": 6, "schema_version": 2}, "$unset": {"hits": 1}})"));
  // Without the upgraded document, the caller's rule alone: the old name is kept.
  const auto kept = odm::detail::guarded_rewrite(stored.get(), target.get(), keep);
  ASSERT_TRUE(kept.has_value());
  EXPECT_EQ(kept->update.to_canonical_json(), canonical(R"({"$set": {"visits": 6, "schema_version": 2}})"));
}

// Retired names are unset beside an update, merged into its own $unset, except where the
// update touches that path (MongoDB refuses two operators on one path).
TEST(GuardedRewrite, RetiredNamesAreUnsetWhereTheUpdateDoesNotTouchThem) {
  const odm::detail::RetiredNames retired{"hits", "home.road", "items"};
  EXPECT_EQ(odm::detail::with_retired_unset(json(R"({"$inc": {"visits": 1}})").get(), retired).to_canonical_json(),
            canonical(R"({"$inc": {"visits": 1}, "$unset": {"hits": 1, "home.road": 1, "items": 1}})"));
  EXPECT_EQ(odm::detail::with_retired_unset(
                json(R"({"$set": {"home": {"street": "s"}}, "$unset": {"x": 1}, "$push": {"items.0.a": 1}})").get(),
                retired)
                .to_canonical_json(),
            canonical(R"({"$set": {"home": {"street": "s"}}, "$unset": {"x": 1, "hits": 1},
                          "$push": {"items.0.a": 1}})"));
  // A name sharing only a prefix of characters is another path.
  EXPECT_EQ(odm::detail::with_retired_unset(json(R"({"$set": {"hitsx": 1}})").get(), {"hits"}).to_canonical_json(),
            canonical(R"({"$set": {"hitsx": 1}, "$unset": {"hits": 1}})"));
}

TEST(GuardedRewrite, ACurrentDocumentHoldingARetiredNameIsRewrittenWithoutIt) {
  const odm::Document stored = json(R"({"_id": 1, "hits": 5, "visits": 5, "schema_version": 2})");
  const auto rewrite = odm::detail::guarded_retire(stored.get(), {"hits", "items"});
  ASSERT_TRUE(rewrite.has_value());
  EXPECT_EQ(rewrite->update.to_canonical_json(), canonical(R"({"$unset": {"hits": 1}})"));
  EXPECT_NE(rewrite->filter.to_canonical_json().find("\"hits\""), std::string::npos);
  const odm::Document clean = json(R"({"_id": 1, "visits": 5, "schema_version": 2})");
  EXPECT_FALSE(odm::detail::guarded_retire(clean.get(), {"hits"}).has_value());
}

TEST(GuardedRewrite, NothingToWriteIsNullopt) {
  const odm::Document stored = json(R"({"_id": 1, "name": "a", "schema_version": 2})");
  EXPECT_FALSE(odm::detail::guarded_rewrite(stored.get(), stored.get()).has_value());
}

// A 9 MB field the step rewrites: its $set is 9 MB, so comparing its stored 9 MB too would
// be over 16 MiB. The guard leaves it out and keeps the small fields and the version.
TEST(GuardedRewrite, ALargeRewrittenFieldIsLeftOutOfTheGuardSoTheStatementFits) {
  const std::string big(9 * 1024 * 1024, 'b');
  odm::Document stored;
  bson_append_int32(stored.get_mutable(), "_id", 3, 1);
  bson_append_utf8(stored.get_mutable(), "blob", -1, big.data(), static_cast<int>(big.size()));
  bson_append_int64(stored.get_mutable(), "n", -1, 7);
  bson_append_int32(stored.get_mutable(), "schema_version", -1, 1);
  const std::string bigger = big + "!";
  odm::Document target;
  bson_append_int32(target.get_mutable(), "_id", 3, 1);
  bson_append_utf8(target.get_mutable(), "blob", -1, bigger.data(), static_cast<int>(bigger.size()));
  bson_append_int64(target.get_mutable(), "n", -1, 7);
  bson_append_int32(target.get_mutable(), "schema_version", -1, 2);
  const auto rewrite = odm::detail::guarded_rewrite(stored.get(), target.get());
  ASSERT_TRUE(rewrite.has_value());
  EXPECT_LT(rewrite->filter.size() + rewrite->update.size(), odm::detail::max_document_bytes);
  EXPECT_EQ(rewrite->filter.to_canonical_json(),
            canonical(R"({"_id": 1, "schema_version": {"$eq": 1}, "n": {"$eq": {"$numberLong": "7"}}})"));
  // An unchanged 9 MB field beside a small update is compared: it fits.
  odm::Document small_change = odm::Document::copy_of(stored.get());
  bson_append_utf8(small_change.get_mutable(), "note", -1, "new", -1);
  const auto compared = odm::detail::guarded_rewrite(stored.get(), small_change.get());
  ASSERT_TRUE(compared.has_value());
  EXPECT_GT(compared->filter.size(), big.size());
}

TEST(GuardedRewrite, AnUpdateOverTheLimitIsAnEncodeError) {
  const std::string huge(odm::detail::max_document_bytes, 'h');
  odm::Document stored = json(R"({"_id": 1})");
  odm::Document target;
  bson_append_int32(target.get_mutable(), "_id", 3, 1);
  bson_append_utf8(target.get_mutable(), "blob", -1, huge.data(), static_cast<int>(huge.size()));
  EXPECT_THROW((void)odm::detail::guarded_rewrite(stored.get(), target.get()), odm::EncodeError);
}

// A 9 MB field kept beside a 9 MB field the step adds: the update alone fits, the
// document it leaves (18 MB) does not. Refused before anything is sent, naming the _id;
// one byte under the limit passes.
TEST(GuardedRewrite, AResultingDocumentOverTheLimitIsAnEncodeErrorNamingIt) {
  const std::string big(9 * 1024 * 1024, 'b');
  odm::Document stored;
  bson_append_int32(stored.get_mutable(), "_id", 3, 7);
  bson_append_utf8(stored.get_mutable(), "blob", -1, big.data(), static_cast<int>(big.size()));
  odm::Document target = odm::Document::copy_of(stored.get());
  bson_append_utf8(target.get_mutable(), "copy", -1, big.data(), static_cast<int>(big.size()));
  try {
    (void)odm::detail::guarded_rewrite(stored.get(), target.get());
    ADD_FAILURE() << "an 18 MB document was not refused";
  } catch (const odm::EncodeError& e) {
    EXPECT_NE(std::string(e.what()).find(R"("_id" : 7)"), std::string::npos) << e.what();
  }
  // The same when the big field is dropped by the step: the result is 9 MB.
  odm::Document moved;
  bson_append_int32(moved.get_mutable(), "_id", 3, 7);
  bson_append_utf8(moved.get_mutable(), "copy", -1, big.data(), static_cast<int>(big.size()));
  EXPECT_NO_THROW((void)odm::detail::guarded_rewrite(stored.get(), moved.get()));
  // Exactly the limit passes; one byte more does not (5 bytes of length and end, 9 of the
  // int32 _id field, 11 + the string's length for "blob" and for "copy").
  const std::size_t fixed = 5 + 9 + 2 * 11;
  const std::string half((odm::detail::max_document_bytes - fixed) / 2, 'h');
  odm::Document at_limit_stored;
  bson_append_int32(at_limit_stored.get_mutable(), "_id", 3, 7);
  bson_append_utf8(at_limit_stored.get_mutable(), "blob", -1, half.data(), static_cast<int>(half.size()));
  odm::Document at_limit = odm::Document::copy_of(at_limit_stored.get());
  bson_append_utf8(at_limit.get_mutable(), "copy", -1, half.data(), static_cast<int>(half.size()));
  ASSERT_EQ(at_limit.size(), odm::detail::max_document_bytes);
  EXPECT_NO_THROW((void)odm::detail::guarded_rewrite(at_limit_stored.get(), at_limit.get()));
  const std::string longer = half + "!";
  odm::Document over = odm::Document::copy_of(at_limit_stored.get());
  bson_append_utf8(over.get_mutable(), "copy", -1, longer.data(), static_cast<int>(longer.size()));
  EXPECT_THROW((void)odm::detail::guarded_rewrite(at_limit_stored.get(), over.get()), odm::EncodeError);
}

// An upsert whose filter pins `_id` inserts that id: a newer document there stops it.
TEST(PinsId, OnlyATopLevelEqualityOnIdPinsIt) {
  EXPECT_TRUE(odm::detail::pins_id(json(R"({"_id": 5, "name": "x"})").get()));
  EXPECT_TRUE(odm::detail::pins_id(json(R"({"_id": {"$eq": 5}})").get()));
  EXPECT_TRUE(odm::detail::pins_id(json(R"({"_id": {"line": "A", "n": 1}})").get()));
  EXPECT_FALSE(odm::detail::pins_id(json(R"({"name": "x"})").get()));
  EXPECT_FALSE(odm::detail::pins_id(json(R"({"_id": {"$in": [5]}})").get()));
  EXPECT_FALSE(odm::detail::pins_id(json(R"({"_id": {"$eq": 5, "$ne": 6}})").get()));
  EXPECT_FALSE(odm::detail::pins_id(json(R"({"$and": [{"_id": 5}]})").get()));
}

TEST(GuardedRewrite, AFieldNoUpdateCanNameIsAUsageError) {
  const odm::Document stored = json(R"({"_id": 1, "a.b": 1})");
  const odm::Document target = json(R"({"_id": 1})");
  EXPECT_THROW((void)odm::detail::guarded_rewrite(stored.get(), target.get()), odm::UsageError);
}

TEST(VersionOnInsert, IsAddedOrMergedAndNeverOverridesTheUpdate) {
  EXPECT_EQ(odm::detail::with_version_on_insert(json(R"({"$inc": {"n": 1}})").get(), 3).to_canonical_json(),
            canonical(R"({"$inc": {"n": 1}, "$setOnInsert": {"schema_version": 3}})"));
  EXPECT_EQ(odm::detail::with_version_on_insert(json(R"({"$setOnInsert": {"a": 1}, "$set": {"b": 2}})").get(), 3)
                .to_canonical_json(),
            canonical(R"({"$setOnInsert": {"a": 1, "schema_version": 3}, "$set": {"b": 2}})"));
  // An update that names the version itself is sent as written.
  const std::string own = canonical(R"({"$set": {"schema_version": 1}})");
  EXPECT_EQ(odm::detail::with_version_on_insert(json(own).get(), 3).to_canonical_json(), own);
}

}  // namespace
}  // namespace guarded_rewrite_test
