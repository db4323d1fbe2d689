// odm::changes_between: the update from one version of a document to the next, at the
// deepest changed path, with appended array elements pushed.

#include "test_support.hpp"

#include <odm/evolution/changes.hpp>

#include <string>
#include <string_view>

namespace changes_test {

std::string changes(std::string_view before, std::string_view after) {
  return odm_test::canonical(odm::changes_between(odm_test::doc_from_json(before), odm_test::doc_from_json(after)));
}

TEST(ChangesBetween, TheSameDocumentNeedsNoUpdate) {
  EXPECT_EQ(changes(R"({"a": 1, "b": {"c": [1, 2]}})", R"({"a": 1, "b": {"c": [1, 2]}})"), "{ }");
}

TEST(ChangesBetween, ChangedAddedAndRemovedFields) {
  EXPECT_EQ(changes(R"({"_id": 1, "a": 1, "b": "x", "gone": true})", R"({"_id": 1, "a": 2, "b": "x", "new": null})"),
            odm_test::canonical(R"({"$set": {"a": 2, "new": null}, "$unset": {"gone": 1}})"));
}

TEST(ChangesBetween, ATypeChangeIsAChangeEvenWhenTheNumberIsEqual) {
  EXPECT_EQ(changes(R"({"a": {"$numberInt": "1"}})", R"({"a": {"$numberLong": "1"}})"),
            odm_test::canonical(R"({"$set": {"a": {"$numberLong": "1"}}})"));
  EXPECT_EQ(changes(R"({"a": {"b": 1}})", R"({"a": 5})"), odm_test::canonical(R"({"$set": {"a": 5}})"));
}

TEST(ChangesBetween, ASubDocumentIsFollowedToTheDeepestChangedPath) {
  EXPECT_EQ(changes(R"({"c": {"name": "a", "address": {"city": "Sofia", "zip": "1000"}}})",
                    R"({"c": {"name": "a", "address": {"city": "Oslo", "zip": "1000", "floor": 3}}})"),
            odm_test::canonical(R"({"$set": {"c.address.city": "Oslo", "c.address.floor": 3}})"));
  EXPECT_EQ(changes(R"({"c": {"a": 1, "b": 2}})", R"({"c": {"b": 2}})"),
            odm_test::canonical(R"({"$unset": {"c.a": 1}})"));
}

TEST(ChangesBetween, FieldsInAnotherOrderAreNotChanges) {
  EXPECT_EQ(changes(R"({"a": 1, "b": 2, "c": 3})", R"({"c": 3, "a": 1, "b": 2})"), "{ }");
}

TEST(ChangesBetween, AppendedElementsArePushed) {
  EXPECT_EQ(changes(R"({"tags": ["a", "b"]})", R"({"tags": ["a", "b", "c", {"d": 1}]})"),
            odm_test::canonical(R"({"$push": {"tags": {"$each": ["c", {"d": 1}]}}})"));
  EXPECT_EQ(changes(R"({"tags": []})", R"({"tags": [1]})"), odm_test::canonical(R"({"$push": {"tags": {"$each": [1]}}})"));
}

TEST(ChangesBetween, ChangedElementsOfAnArrayOfTheSameLengthAreSetWhereTheyChanged) {
  EXPECT_EQ(changes(R"({"lines": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 1}, 7]})",
                    R"({"lines": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 4}, 8]})"),
            odm_test::canonical(R"({"$set": {"lines.1.qty": 4, "lines.2": 8}})"));
}

TEST(ChangesBetween, AShrunkOrReorderedArrayIsSetWhole) {
  EXPECT_EQ(changes(R"({"a": [1, 2, 3]})", R"({"a": [1, 2]})"), odm_test::canonical(R"({"$set": {"a": [1, 2]}})"));
  EXPECT_EQ(changes(R"({"a": [1, 2]})", R"({"a": [2, 1, 3]})"), odm_test::canonical(R"({"$set": {"a": [2, 1, 3]}})"));
}

TEST(ChangesBetween, KeysThatCannotBePathStepsSetTheirParentWhole) {
  EXPECT_EQ(changes(R"({"m": {"a.b": 1, "c": 1}})", R"({"m": {"a.b": 2, "c": 1}})"),
            odm_test::canonical(R"({"$set": {"m": {"a.b": 2, "c": 1}}})"));
  EXPECT_EQ(changes(R"({"m": {"x": 1}})", R"({"m": {"x": 1, "$y": 1}})"),
            odm_test::canonical(R"({"$set": {"m": {"x": 1, "$y": 1}}})"));
  // At the top level there is no parent to set: a clear error, nothing sent.
  EXPECT_EQ(odm_test::error_of([] { (void)changes(R"({"a.b": 1})", R"({"a.b": 2})"); }),
            "the field \"a.b\" changed, but its name cannot be part of an update path (empty, a '$' or a '.')");
  EXPECT_EQ(changes(R"({"a.b": 1, "c": 1})", R"({"a.b": 1, "c": 2})"), odm_test::canonical(R"({"$set": {"c": 2}})"))
      << "an unchanged field with such a name is no problem";
}

}  // namespace changes_test
