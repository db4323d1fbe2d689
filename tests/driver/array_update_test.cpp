// Updates of array elements ($[] and $[<identifier>] with arrayFilters), with the examples
// and rules of MongoDB's manual:
//   https://www.mongodb.com/docs/manual/reference/operator/update/positional-all/
//   https://www.mongodb.com/docs/manual/reference/operator/update/positional-filtered/

#include "support.hpp"

#include <odm/odm.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace array_updates {
namespace {

using odm_test::json;

struct Student {
  std::int32_t id = 0;
  std::vector<std::int32_t> grades;
  struct odm_model {
    static constexpr std::string_view collection = "students";
  };
};

struct Question {
  std::string type;
  std::vector<std::int32_t> questions;
};

struct Quizzed {
  std::int32_t id = 0;
  std::vector<Question> grades;
  struct odm_model {
    static constexpr std::string_view collection = "students2";
  };
};

class ArrayUpdates : public odm_test::DriverTest {
 protected:
  odm::Collection<Student> students() { return db().collection<Student>(); }
  void insert_students() {
    students().insert_many(std::vector<Student>{{1, {95, 92, 90}}, {2, {98, 100, 102}}, {3, {95, 110, 100}}});
  }
  std::vector<std::vector<std::int32_t>> grades() {
    std::vector<std::vector<std::int32_t>> out;
    for (const Student& s : students().find({}, odm::FindOptions<Student>{}.sort(odm::Sort<Student>::raw(json(R"({"_id": 1})")))).to_vector())
      out.push_back(s.grades);
    return out;
  }
};

TEST_F(ArrayUpdates, AllPositionalUpdatesEveryElement) {
  insert_students();
  const auto result = students().update_many({}, odm::Update<Student>::raw(json(R"({"$inc": {"grades.$[]": 10}})")));
  EXPECT_EQ(result.modified, 3);
  EXPECT_EQ(grades(), (std::vector<std::vector<std::int32_t>>{{105, 102, 100}, {108, 110, 112}, {105, 120, 110}}));
}

TEST_F(ArrayUpdates, FilteredPositionalUpdatesTheElementsItsFilterMatches) {
  insert_students();
  const auto result =
      students().update_many({}, odm::Update<Student>::raw(json(R"({"$set": {"grades.$[element]": 100}})")),
                             odm::UpdateOptions<Student>{}.array_filters({json(R"({"element": {"$gte": 100}})")}));
  EXPECT_EQ(result.matched, 3);
  EXPECT_EQ(result.modified, 2) << "the first student has no grade of 100 or more";
  EXPECT_EQ(grades(), (std::vector<std::vector<std::int32_t>>{{95, 92, 90}, {98, 100, 100}, {95, 100, 100}}));
}

TEST_F(ArrayUpdates, FiltersNestInsideAllPositional) {
  auto coll = db().collection<Quizzed>();
  coll.insert_one(Quizzed{1, {{"quiz", {8, 10, 7}}, {"quiz", {8, 9, 9}}, {"hw", {9, 8, 9}}}});
  coll.update_one(odm::field(&Quizzed::id) == 1,
                  odm::Update<Quizzed>::raw(json(R"({"$inc": {"grades.$[t].questions.$[score]": 2}})")),
                  odm::UpdateOptions<Quizzed>{}.array_filters({json(R"({"t.type": "quiz"})"), json(R"({"score": {"$gte": 8}})")}));
  const Quizzed stored = coll.get_by_id(1);
  EXPECT_EQ(stored.grades[0].questions, (std::vector<std::int32_t>{10, 12, 7}));
  EXPECT_EQ(stored.grades[1].questions, (std::vector<std::int32_t>{10, 11, 11}));
  EXPECT_EQ(stored.grades[2].questions, (std::vector<std::int32_t>{9, 8, 9})) << "homework is not a quiz";
}

TEST_F(ArrayUpdates, EachIdentifierNeedsExactlyOneFilterItUses) {
  ODM_REQUIRE(array_filter_checks);
  insert_students();
  const auto set_grade = [&](const char* update, std::vector<odm::Document> filters = {}) {
    students().update_one(odm::field(&Student::id) == 1, odm::Update<Student>::raw(json(update)),
                          odm::UpdateOptions<Student>{}.array_filters(std::move(filters)));
  };
  // An identifier without a filter: BadValue (2).
  const auto unfiltered = odm_test::error_of([&] { set_grade(R"({"$set": {"grades.$[x]": 0}})"); });
  ASSERT_TRUE(unfiltered) << "$[x] without an array filter was accepted";
  EXPECT_EQ(unfiltered->code(), 2) << unfiltered->what();
  // A filter that no $[<identifier>] uses: FailedToParse (9).
  const auto unused =
      odm_test::error_of([&] { set_grade(R"({"$set": {"grades.0": 0}})", {json(R"({"x": 1})")}); });
  ASSERT_TRUE(unused) << "an unused array filter was accepted";
  EXPECT_EQ(unused->code(), 9) << unused->what();
  // $[] needs the array to exist: BadValue (2).
  const auto missing = odm_test::error_of([&] { set_grade(R"({"$set": {"marks.$[]": 0}})"); });
  ASSERT_TRUE(missing) << "$[] over a missing array was accepted";
  EXPECT_EQ(missing->code(), 2) << missing->what();
  EXPECT_EQ(grades()[0], (std::vector<std::int32_t>{95, 92, 90})) << "nothing was changed";
}

}  // namespace
}  // namespace array_updates
