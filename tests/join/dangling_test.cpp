// Joins under every Dangling policy, for every id type a reference may hold, through the
// server: the targets each reference gets, the ids that saving the documents stores, and
// nested relations that act on the fetched targets' own references only.

#include "id_types.hpp"

#include <odm/join/join.hpp>
#include <odm/odm.hpp>

#include "../driver/support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using namespace id_types;

template <class C>
class RefManyJoin : public odm_test::DriverTest {
 protected:
  using Id = typename C::id_type;
  static constexpr odm::Dangling policy = C::policy;
  using Owner = Holder<Id, policy>;

  static std::vector<Id> ids(const std::vector<int>& numbers) {
    std::vector<Id> out;
    for (int n : numbers) out.push_back(make_id<Id>(n));
    return out;
  }
  void store_targets() {
    std::vector<Target<Id>> targets;
    for (int n : {1, 2, 3}) targets.push_back({make_id<Id>(n), "target " + std::to_string(n)});
    db().template collection<Target<Id>>().insert_many(targets);
  }
  void store_owner(std::int32_t id, const std::vector<int>& numbers) {
    db().template collection<Owner>().insert_one(Owner{id, ids(numbers)});
  }
  std::vector<Owner> load() {
    return db().template collection<Owner>().find({}, odm::FindOptions<Owner>{}.sort(odm::Sort<Owner>::raw(odm_test::json(R"({"_id": 1})")))).to_vector();
  }
  /// The ids stored for owner `id`, read back as they are.
  std::vector<Id> stored_ids(std::int32_t id) { return db().template collection<Owner>().get_by_id(id).refs.ids(); }
  static std::vector<std::string> names(const Owner& owner) {
    std::vector<std::string> out;
    for (const auto& target : owner.refs.targets()) out.push_back(target->name);
    return out;
  }
};

TYPED_TEST_SUITE(RefManyJoin, AllCases);

// [p1, p2, p1, ghost, p3], [p3], [], [ghost]: duplicates, a ghost, an empty list, only a ghost.
TYPED_TEST(RefManyJoin, TargetsAndTheIdsSavingStores) {
  using Self = TestFixture;
  this->store_targets();
  this->store_owner(1, {1, 2, 1, 99, 3});
  this->store_owner(2, {3});
  this->store_owner(3, {});
  this->store_owner(4, {98});
  auto owners = this->load();
  this->log_.clear();
  if constexpr (Self::policy == odm::Dangling::raise) {
    try {
      odm::resolve(this->db(), owners, odm::with(&Self::Owner::refs));
      ADD_FAILURE() << "a ghost must raise";
    } catch (const odm::DanglingReference& e) {
      EXPECT_NE(std::string(e.what()).find("refs: no document with _id"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("in collection targets"), std::string::npos) << e.what();
    }
    // Without the ghosts the same join resolves every target.
    std::vector<typename Self::Owner> clean{owners[0], owners[1], owners[2]};
    clean[0].refs = Self::ids({1, 2, 1, 3});
    odm::resolve(this->db(), clean, odm::with(&Self::Owner::refs));
    EXPECT_EQ(Self::names(clean[0]), (std::vector<std::string>{"target 1", "target 2", "target 1", "target 3"}));
    EXPECT_EQ(clean[0].refs.ids(), Self::ids({1, 2, 1, 3}));
    EXPECT_EQ(Self::names(clean[1]), (std::vector<std::string>{"target 3"}));
    EXPECT_EQ(clean[1].refs.ids(), Self::ids({3}));
    EXPECT_TRUE(clean[2].refs.targets().empty());
    return;
  } else {
    odm::resolve(this->db(), owners, odm::with(&Self::Owner::refs));
    EXPECT_EQ(this->log_.started("find"), 1) << "one $in for the four owners";
    ASSERT_EQ(owners.size(), 4u) << "a RefMany never removes its document";
    EXPECT_EQ(Self::names(owners[0]), (std::vector<std::string>{"target 1", "target 2", "target 1", "target 3"}));
    EXPECT_EQ(&owners[0].refs[0], &owners[0].refs[2]) << "a duplicate is the same shared target";
    EXPECT_EQ(Self::names(owners[1]), (std::vector<std::string>{"target 3"}));
    EXPECT_EQ(owners[1].refs.ids(), Self::ids({3}));
    EXPECT_TRUE(owners[2].refs.targets().empty());
    EXPECT_TRUE(owners[3].refs.targets().empty());
    const bool drop = Self::policy == odm::Dangling::drop;
    EXPECT_EQ(owners[0].refs.ids(), drop ? Self::ids({1, 2, 1, 3}) : Self::ids({1, 2, 1, 99, 3}));
    EXPECT_EQ(owners[3].refs.ids(), drop ? Self::ids({}) : Self::ids({98}));
    if (!drop) {
      EXPECT_THROW((void)owners[0].refs[3], odm::NotLoadedError);
    }

    // Saving stores exactly the ids the join left.
    auto collection = this->db().template collection<typename Self::Owner>();
    for (const auto& owner : owners)
      collection.replace_one(odm::Filter<typename Self::Owner>::raw(odm_test::json(R"({"_id": )" + std::to_string(owner.id) + "}")),
                             owner);
    EXPECT_EQ(this->stored_ids(1), owners[0].refs.ids());
    EXPECT_EQ(this->stored_ids(2), Self::ids({3}));
    EXPECT_EQ(this->stored_ids(3), Self::ids({}));
    EXPECT_EQ(this->stored_ids(4), owners[3].refs.ids());
  }
}

// ---- Nested relations act on the targets' own references ------------------------------

struct Department {
  std::string id;
  std::string name;
  struct odm_model {
    static constexpr std::string_view collection = "departments";
  };
};

struct Course {
  std::string id;
  std::string name;
  odm::Ref<Department, odm::Dangling::drop> dept;  // inner join, for a list of courses
  odm::RefMany<Department, odm::Dangling::drop> also;
  struct odm_model {
    static constexpr std::string_view collection = "courses";
  };
};

template <odm::Dangling P>
struct Student {
  std::int32_t id = 0;
  odm::RefMany<Course, P> courses;
  struct odm_model {
    static constexpr std::string_view collection = "students";
  };
};

template <odm::Dangling P>
struct Enrollment {
  std::int32_t id = 0;
  odm::Ref<Course, P> course;
  struct odm_model {
    static constexpr std::string_view collection = "enrollments";
  };
};

class NestedJoin : public odm_test::DriverTest {
 protected:
  void SetUp() override {
    odm_test::DriverTest::SetUp();
    db().collection<Department>().insert_one(Department{"phys", "Physics"});
    db().collection<Course>().insert_many(std::vector<Course>{
        {"mech", "Mechanics", std::string("phys"), std::vector<std::string>{"phys", "lost"}},
        {"orphan", "A course whose department is gone", std::string("lost"), std::vector<std::string>{"lost"}}});
    db().run_command(odm_test::json(
        R"({"insert": "students", "documents": [{"_id": 1, "courses": ["mech", "orphan", "mech"]}]})"));
    db().run_command(odm_test::json(
        R"({"insert": "enrollments", "documents": [{"_id": 1, "course": "orphan"}, {"_id": 2, "course": "mech"}]})"));
    log_.clear();
  }

  template <class S>
  static void expect_courses_intact(const S& student) {
    ASSERT_EQ(student.courses.size(), 3u);
    EXPECT_EQ(student.courses[0].name, "Mechanics");
    EXPECT_EQ(student.courses[1].name, "A course whose department is gone");
    EXPECT_EQ(&student.courses[0], &student.courses[2]);
    // The inner step acted on the course's own references.
    EXPECT_EQ(student.courses[0].dept->name, "Physics");
    EXPECT_TRUE(student.courses[1].dept.is_dangling()) << "under drop, a target's Ref stays dangling";
    EXPECT_EQ(student.courses[1].dept.id(), "lost");
    EXPECT_EQ(student.courses[0].also.ids(), (std::vector<std::string>{"phys"})) << "a target's RefMany forgets the ghost";
    EXPECT_TRUE(student.courses[1].also.empty());
  }
};

TEST_F(NestedJoin, InnerDropNeverMakesAnOuterTargetMissingUnderRaise) {
  auto students = db().collection<Student<odm::Dangling::raise>>().find().to_vector();
  log_.clear();
  odm::resolve(db(), students,
               odm::with(&Student<odm::Dangling::raise>::courses, odm::with(&Course::dept), odm::with(&Course::also)));
  EXPECT_EQ(log_.started("find"), 3) << "courses, then the departments once per relation";
  ASSERT_EQ(students.size(), 1u);
  expect_courses_intact(students[0]);
}

TEST_F(NestedJoin, InnerDropNeverMakesAnOuterTargetDanglingUnderKeep) {
  auto students = db().collection<Student<odm::Dangling::keep>>().find().to_vector();
  odm::resolve(db(), students,
               odm::with(&Student<odm::Dangling::keep>::courses, odm::with(&Course::dept), odm::with(&Course::also)));
  ASSERT_EQ(students.size(), 1u);
  expect_courses_intact(students[0]);
}

TEST_F(NestedJoin, InnerDropNeverRemovesAnOuterTargetUnderDrop) {
  auto students = db().collection<Student<odm::Dangling::drop>>().find().to_vector();
  odm::resolve(db(), students,
               odm::with(&Student<odm::Dangling::drop>::courses, odm::with(&Course::dept), odm::with(&Course::also)));
  ASSERT_EQ(students.size(), 1u);
  expect_courses_intact(students[0]);
  EXPECT_EQ(students[0].courses.ids(), (std::vector<std::string>{"mech", "orphan", "mech"})) << "nothing dropped";
}

TEST_F(NestedJoin, OuterRefUnderDropKeepsItsDocumentsWhenOnlyTheInnerIsDangling) {
  using E = Enrollment<odm::Dangling::drop>;
  auto enrollments = db().collection<E>().find({}, odm::FindOptions<E>{}.sort(odm::Sort<E>::raw(odm_test::json(R"({"_id": 1})")))).to_vector();
  odm::resolve(db(), enrollments, odm::with(&E::course, odm::with(&Course::dept)));
  ASSERT_EQ(enrollments.size(), 2u) << "both courses exist: no enrollment is dropped";
  EXPECT_EQ(enrollments[0].course->name, "A course whose department is gone");
  EXPECT_TRUE(enrollments[0].course->dept.is_dangling());
  EXPECT_EQ(enrollments[1].course->dept->name, "Physics");

  // At the top level, drop still drops: courses whose department is gone.
  auto courses = db().collection<Course>().find({}, odm::FindOptions<Course>{}.sort(odm::Sort<Course>::raw(odm_test::json(R"({"_id": 1})")))).to_vector();
  odm::resolve(db(), courses, odm::with(&Course::dept));
  ASSERT_EQ(courses.size(), 1u);
  EXPECT_EQ(courses[0].id, "mech");
}

}  // namespace
