// Updates of array elements ($[] and $[<identifier>] with arrayFilters) and unique indexes
// over array fields, with the examples and rules of MongoDB's manual:
//   https://www.mongodb.com/docs/manual/reference/operator/update/positional-all/
//   https://www.mongodb.com/docs/manual/reference/operator/update/positional-filtered/
//   https://www.mongodb.com/docs/manual/core/index-unique/#unique-constraint-across-separate-documents

#include "support.hpp"

#include <odm/index/sync.hpp>
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

struct Tagged {
  std::int32_t id = 0;
  std::vector<std::string> tags;
  struct odm_model {
    static constexpr std::string_view collection = "tagged";
    static constexpr auto indexes = odm::indexes(odm::index(&Tagged::tags).unique());
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
    for (const Student& s : students().find({}, odm::FindOptions{}.sort(json(R"({"_id": 1})"))).to_vector())
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
                             odm::UpdateOptions{}.array_filters({json(R"({"element": {"$gte": 100}})")}));
  EXPECT_EQ(result.matched, 3);
  EXPECT_EQ(result.modified, 2) << "the first student has no grade of 100 or more";
  EXPECT_EQ(grades(), (std::vector<std::vector<std::int32_t>>{{95, 92, 90}, {98, 100, 100}, {95, 100, 100}}));
}

TEST_F(ArrayUpdates, FiltersNestInsideAllPositional) {
  auto coll = db().collection<Quizzed>();
  coll.insert_one(Quizzed{1, {{"quiz", {8, 10, 7}}, {"quiz", {8, 9, 9}}, {"hw", {9, 8, 9}}}});
  coll.update_one(odm::field(&Quizzed::id) == 1,
                  odm::Update<Quizzed>::raw(json(R"({"$inc": {"grades.$[t].questions.$[score]": 2}})")),
                  odm::UpdateOptions{}.array_filters({json(R"({"t.type": "quiz"})"), json(R"({"score": {"$gte": 8}})")}));
  const Quizzed stored = coll.get_by_id(1);
  EXPECT_EQ(stored.grades[0].questions, (std::vector<std::int32_t>{10, 12, 7}));
  EXPECT_EQ(stored.grades[1].questions, (std::vector<std::int32_t>{10, 11, 11}));
  EXPECT_EQ(stored.grades[2].questions, (std::vector<std::int32_t>{9, 8, 9})) << "homework is not a quiz";
}

TEST_F(ArrayUpdates, EachIdentifierNeedsExactlyOneFilterItUses) {
  insert_students();
  // An identifier without a filter: BadValue (2).
  try {
    students().update_one(odm::field(&Student::id) == 1,
                          odm::Update<Student>::raw(json(R"({"$set": {"grades.$[x]": 0}})")));
    FAIL() << "$[x] without an array filter was accepted";
  } catch (const odm::ServerError& error) {
    EXPECT_EQ(error.code(), 2) << error.what();
  }
  // A filter that no $[<identifier>] uses: FailedToParse (9).
  try {
    students().update_one(odm::field(&Student::id) == 1,
                          odm::Update<Student>::raw(json(R"({"$set": {"grades.0": 0}})")),
                          odm::UpdateOptions{}.array_filters({json(R"({"x": 1})")}));
    FAIL() << "an unused array filter was accepted";
  } catch (const odm::ServerError& error) {
    EXPECT_EQ(error.code(), 9) << error.what();
  }
  // $[] needs the array to exist: BadValue (2).
  try {
    students().update_one(odm::field(&Student::id) == 1,
                          odm::Update<Student>::raw(json(R"({"$set": {"marks.$[]": 0}})")));
    FAIL() << "$[] over a missing array was accepted";
  } catch (const odm::ServerError& error) {
    EXPECT_EQ(error.code(), 2) << error.what();
  }
  EXPECT_EQ(grades()[0], (std::vector<std::int32_t>{95, 92, 90})) << "nothing was changed";
}

TEST_F(ArrayUpdates, AUniqueIndexOverAnArrayKeepsEachElementInOneDocument) {
  odm::sync_indexes<Tagged>(db());
  auto tagged = db().collection<Tagged>();
  tagged.insert_one(Tagged{1, {"a", "b", "a"}});  // one document may repeat an element
  try {
    tagged.insert_one(Tagged{2, {"c", "b"}});
    FAIL() << "two documents share the element b";
  } catch (const odm::DuplicateKeyError& error) {
    EXPECT_EQ(error.key_value().to_json(), json(R"({"tags": "b"})").to_json());
  }
  tagged.insert_one(Tagged{2, {"c", "d"}});
  EXPECT_THROW(tagged.update_one(odm::field(&Tagged::id) == 2, odm::field(&Tagged::tags).push(std::string("a"))),
               odm::DuplicateKeyError);
  tagged.update_one(odm::field(&Tagged::id) == 1, odm::field(&Tagged::tags).pull(std::string("b")));
  EXPECT_NO_THROW(tagged.update_one(odm::field(&Tagged::id) == 2, odm::field(&Tagged::tags).push(std::string("b"))))
      << "an element a document gave up is free again";
  EXPECT_EQ(tagged.get_by_id(2).tags, (std::vector<std::string>{"c", "d", "b"}));
}

}  // namespace
}  // namespace array_updates
