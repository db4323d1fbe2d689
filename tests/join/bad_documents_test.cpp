// Results that survive a bad document: a query that skips documents not fitting the model
// (the base query's and every join level's) reports each with its _id and DecodeError,
// and a reference to a skipped target follows its Dangling policy as if it were missing.
// By default a bad document still throws.

#include <odm/join/join.hpp>
#include <odm/odm.hpp>

#include "../driver/support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace {

using odm_test::json;

struct Publisher {
  std::string id;
  std::string name;
  std::int32_t founded = 0;
  struct odm_model {
    static constexpr std::string_view collection = "publishers";
  };
};

template <odm::Dangling P>
struct Book {
  std::int64_t id = 0;
  std::string title;
  odm::Ref<Publisher, P> publisher_id;
  struct odm_model {
    static constexpr std::string_view collection = "books";
  };
};

template <odm::Dangling P>
struct Shelf {
  std::int64_t id = 0;
  odm::RefMany<Publisher, P> publishers;
  struct odm_model {
    static constexpr std::string_view collection = "shelves";
  };
};

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
  odm::Ref<Department> department;
  struct odm_model {
    static constexpr std::string_view collection = "courses";
  };
};

struct Student {
  std::int64_t id = 0;
  odm::RefMany<Course> courses;
  struct odm_model {
    static constexpr std::string_view collection = "students";
  };
};

/// Two references of one model, for resolving several relations with one set of options.
struct Edition {
  std::int64_t id = 0;
  odm::Ref<Publisher, odm::Dangling::keep> publisher;
  odm::Ref<Department, odm::Dangling::keep> department;  // never stored: no collection named
};

class BadDocuments : public odm_test::DriverTest {
 protected:
  /// Stores documents as written, whatever the models say.
  void insert_raw(const std::string& collection, const std::string& documents) {
    db().run_command(json(R"({"insert": ")" + collection + R"(", "documents": )" + documents + "}"));
  }
  /// p1 and p3 fit Publisher; p2's `founded` is a string; p4 does not exist.
  void store_publishers() {
    insert_raw("publishers", R"([{"_id": "p1", "name": "One", "founded": 1980},
                                 {"_id": "p2", "name": "Two", "founded": "last year"},
                                 {"_id": "p3", "name": "Three", "founded": 1990}])");
  }
  static std::vector<std::string> skipped_ids(const std::vector<odm::SkippedDocument>& skipped) {
    std::vector<std::string> ids;
    for (const odm::SkippedDocument& s : skipped) ids.push_back(s.id.to_json());
    return ids;
  }
};

TEST_F(BadDocuments, AQueryThrowsOnTheFirstBadDocumentByDefault) {
  insert_raw("books", R"([{"_id": 1, "title": "a", "publisher_id": "p1"}, {"_id": 2, "title": 5, "publisher_id": "p1"}])");
  try {
    db().collection<Book<odm::Dangling::keep>>().find().to_vector();
    ADD_FAILURE() << "book 2 does not fit the model";
  } catch (const odm::DecodeError& error) {
    EXPECT_EQ(error.path(), "title");
    EXPECT_NE(std::string(error.what()).find(R"("_id" : 2)"), std::string::npos) << error.what();
  }
}

TEST_F(BadDocuments, ASkippingQueryReportsEachBadDocumentAndGoesOn) {
  insert_raw("books", R"([{"_id": 1, "title": "a", "publisher_id": "p1"},
                         {"_id": 2, "title": 5, "publisher_id": "p1"},
                         {"_id": 3, "title": "c", "publisher_id": "p3"},
                         {"_id": 4, "publisher_id": "p3"},
                         {"_id": 5, "title": "e", "publisher_id": "p1"}])");
  auto cursor = db().collection<Book<odm::Dangling::keep>>().find(
      {}, odm::FindOptions<Book<odm::Dangling::keep>>{}.sort(odm::sort(odm::asc(&Book<odm::Dangling::keep>::id))).batch_size(2));
  cursor.skip_bad_documents();
  const auto books = cursor.to_vector();
  ASSERT_EQ(books.size(), 3u);
  EXPECT_EQ(books[0].id, 1);
  EXPECT_EQ(books[1].id, 3);
  EXPECT_EQ(books[2].id, 5);
  EXPECT_GE(log_.started("getMore"), 2) << "batches of 2: the bad documents sit in the middle of the cursor";
  ASSERT_EQ(cursor.skipped().size(), 2u);
  EXPECT_EQ(skipped_ids(cursor.skipped()), (std::vector<std::string>{R"({ "_id" : 2 })", R"({ "_id" : 4 })"}));
  EXPECT_EQ(cursor.skipped()[0].error.path(), "title");
  EXPECT_NE(std::string(cursor.skipped()[0].error.what()).find("expected string"), std::string::npos);
  EXPECT_NE(std::string(cursor.skipped()[1].error.what()).find("title"), std::string::npos)
      << cursor.skipped()[1].error.what();
  EXPECT_NE(std::string(cursor.skipped()[1].error.what()).find("find on " + db_name_ + ".books"), std::string::npos);
  // Nothing changed on the server.
  EXPECT_EQ(db().collection<Book<odm::Dangling::keep>>().count(), 5);
}

TEST_F(BadDocuments, ADocumentWithoutAnIdIsReportedWithAnEmptyId) {
  insert_raw("books", R"([{"_id": 1, "title": "a", "publisher_id": "p1"}, {"_id": 2, "title": 5, "publisher_id": "p1"}])");
  // An aggregate may return documents without _id.
  auto cursor = db().collection<Book<odm::Dangling::keep>>().aggregate<Book<odm::Dangling::keep>>(
      {json(R"({"$sort": {"_id": 1}})"), json(R"({"$project": {"_id": 0, "title": 1, "publisher_id": 1}})")});
  cursor.skip_bad_documents();
  const auto books = cursor.to_vector();
  EXPECT_TRUE(books.empty()) << "neither fits: the model needs an _id, and book 2's title is a number";
  ASSERT_EQ(cursor.skipped().size(), 2u);
  EXPECT_TRUE(cursor.skipped()[0].id.empty());
  EXPECT_TRUE(cursor.skipped()[1].id.empty());
  EXPECT_NE(std::string(cursor.skipped()[0].error.what()).find("without _id"), std::string::npos)
      << cursor.skipped()[0].error.what();
}

template <class Policy>
class BadTargets : public BadDocuments {};

template <odm::Dangling P>
struct PolicyCase {
  static constexpr odm::Dangling policy = P;
};
using Policies =
    ::testing::Types<PolicyCase<odm::Dangling::keep>, PolicyCase<odm::Dangling::drop>, PolicyCase<odm::Dangling::raise>>;
TYPED_TEST_SUITE(BadTargets, Policies);

TYPED_TEST(BadTargets, ABadTargetIsReportedAndItsReferencesFollowTheirPolicy) {
  constexpr odm::Dangling policy = TypeParam::policy;
  using B = Book<policy>;
  this->store_publishers();
  this->insert_raw("books", R"([{"_id": 1, "title": "a", "publisher_id": "p1"},
                               {"_id": 2, "title": "b", "publisher_id": "p2"},
                               {"_id": 3, "title": "c", "publisher_id": "p3"},
                               {"_id": 4, "title": "d", "publisher_id": "p2"}])");
  auto books = this->db().template collection<B>().find({}, odm::FindOptions<B>{}.sort(odm::sort(odm::asc(&B::id)))).to_vector();

  // By default the bad target throws, whatever the policy.
  auto copy = books;
  EXPECT_THROW(odm::resolve(this->db(), copy, odm::with(&B::publisher_id)), odm::DecodeError);

  odm::JoinOptions skip;
  skip.bad_documents = odm::BadDocuments::skip;
  this->log_.clear();
  if constexpr (policy == odm::Dangling::raise) {
    EXPECT_THROW(odm::resolve(this->db(), books, odm::with(&B::publisher_id), skip), odm::DanglingReference)
        << "a skipped target is missing, and raise raises for a missing target";
    return;
  } else {
    const auto skipped = odm::resolve(this->db(), books, odm::with(&B::publisher_id), skip);
    EXPECT_EQ(this->log_.started("find"), 1);
    ASSERT_EQ(skipped.size(), 1u) << "p2 is fetched once for the two books that point at it";
    EXPECT_EQ(skipped[0].id.to_json(), R"({ "_id" : "p2" })");
    EXPECT_EQ(skipped[0].error.path(), "founded");
    if constexpr (policy == odm::Dangling::keep) {
      ASSERT_EQ(books.size(), 4u);
      EXPECT_EQ(books[0].publisher_id->name, "One");
      EXPECT_TRUE(books[1].publisher_id.is_dangling());
      EXPECT_EQ(books[1].publisher_id.id(), "p2") << "dangling, with its id";
      EXPECT_EQ(books[2].publisher_id->name, "Three");
      EXPECT_TRUE(books[3].publisher_id.is_dangling());
    } else {
      ASSERT_EQ(books.size(), 2u) << "an inner join leaves out the books of the skipped publisher";
      EXPECT_EQ(books[0].id, 1);
      EXPECT_EQ(books[1].id, 3);
    }
  }
}

TYPED_TEST(BadTargets, ABadTargetInAListFollowsTheListsPolicy) {
  constexpr odm::Dangling policy = TypeParam::policy;
  using S = Shelf<policy>;
  this->store_publishers();
  this->insert_raw("shelves", R"([{"_id": 1, "publishers": ["p2", "p1", "p2", "p3"]}, {"_id": 2, "publishers": []},
                                 {"_id": 3, "publishers": ["p3"]}])");
  auto shelves = this->db().template collection<S>().find({}, odm::FindOptions<S>{}.sort(odm::sort(odm::asc(&S::id)))).to_vector();
  odm::JoinOptions skip;
  skip.bad_documents = odm::BadDocuments::skip;
  if constexpr (policy == odm::Dangling::raise) {
    EXPECT_THROW(odm::resolve(this->db(), shelves, odm::with(&S::publishers), skip), odm::DanglingReference);
  } else {
    const auto skipped = odm::resolve(this->db(), shelves, odm::with(&S::publishers), skip);
    EXPECT_EQ(BadDocuments::skipped_ids(skipped), (std::vector<std::string>{R"({ "_id" : "p2" })"}));
    ASSERT_EQ(shelves.size(), 3u) << "a list never removes its document";
    if constexpr (policy == odm::Dangling::keep) {
      ASSERT_EQ(shelves[0].publishers.size(), 4u) << "the ids stay, dangling where skipped";
      EXPECT_THROW(shelves[0].publishers.at(0), odm::NotLoadedError);
      EXPECT_EQ(shelves[0].publishers.at(1).name, "One");
      EXPECT_THROW(shelves[0].publishers.at(2), odm::NotLoadedError);
      EXPECT_EQ(shelves[0].publishers.at(3).name, "Three");
    } else {
      EXPECT_EQ(shelves[0].publishers.ids(), (std::vector<std::string>{"p1", "p3"})) << "the skipped ids are forgotten";
    }
    EXPECT_EQ(shelves[1].publishers.size(), 0u);
    EXPECT_EQ(shelves[2].publishers[0].name, "Three");
  }
}

TEST_F(BadDocuments, EveryLevelOfAChainedJoinReports) {
  insert_raw("departments", R"([{"_id": "math", "name": "Mathematics"}, {"_id": "bad", "name": 7}])");
  insert_raw("courses", R"([{"_id": "c1", "name": "Algebra", "department": "math"},
                           {"_id": "c2", "name": "Logic", "department": "bad"},
                           {"_id": "c3", "name": 3, "department": "math"}])");
  insert_raw("students", R"([{"_id": 1, "courses": ["c1", "c2", "c3"]},
                            {"_id": 2, "courses": "not a list"},
                            {"_id": 3, "courses": ["c2"]}])");
  log_.clear();
  const auto students = db().collection<Student>()
                            .find({}, odm::FindOptions<Student>{}.sort(odm::sort(odm::asc(&Student::id))))
                            .skip_bad_documents()
                            .with(&Student::courses, odm::with(&Course::department));
  EXPECT_EQ(log_.started("find"), 3) << "students, courses, departments";
  EXPECT_EQ(skipped_ids(students.skipped()),
            (std::vector<std::string>{R"({ "_id" : 2 })", R"({ "_id" : "c3" })", R"({ "_id" : "bad" })"}))
      << "the base query's first, then each level's";
  EXPECT_NE(std::string(students.skipped()[1].error.what()).find(db_name_ + ".courses"), std::string::npos);
  ASSERT_EQ(students.size(), 2u);
  EXPECT_EQ(students[0].id, 1);
  const auto& courses = students[0].courses;
  ASSERT_EQ(courses.size(), 3u);
  EXPECT_EQ(courses.at(0).department->name, "Mathematics");
  EXPECT_TRUE(courses.at(1).department.is_dangling()) << "its department was skipped: kept dangling, with its id";
  EXPECT_EQ(courses.at(1).department.id(), "bad");
  EXPECT_THROW(courses.at(2), odm::NotLoadedError) << "course c3 was skipped: dangling";
  EXPECT_EQ(students[1].courses[0].name, "Logic");

  // Without skip_bad_documents the same query throws at the first bad student.
  EXPECT_THROW(db().collection<Student>().find().with(&Student::courses), odm::DecodeError);
}

TEST_F(BadDocuments, MatchesAReferenceModelOnRandomData) {
  const unsigned seed = 424242;  // fixed, so a failure replays
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 random(seed);
  // Publishers p0..p19: each is good, bad or missing; books 1..120 (some bad) point at one each.
  std::map<std::string, char> publisher;  // 'g', 'b' or 'm'
  std::string publishers = "[";
  for (int p = 0; p < 20; ++p) {
    const std::string id = "p" + std::to_string(p);
    const char kind = "ggbm"[random() % 4];
    publisher[id] = kind;
    if (kind == 'm') continue;
    if (publishers.size() > 1) publishers += ",";
    publishers += R"({"_id": ")" + id + R"(", "name": "n", "founded": )" + (kind == 'g' ? "1" : "\"x\"") + "}";
  }
  insert_raw("publishers", publishers + "]");
  std::map<std::int64_t, std::string> book_publisher;
  std::set<std::int64_t> bad_books;
  std::string books = "[";
  for (std::int64_t b = 1; b <= 120; ++b) {
    const std::string p = "p" + std::to_string(random() % 20);
    const bool bad = random() % 7 == 0;
    if (bad)
      bad_books.insert(b);
    else
      book_publisher[b] = p;
    if (books.size() > 1) books += ",";
    books += R"({"_id": )" + std::to_string(b) + R"(, "title": )" + (bad ? "1" : "\"t\"") + R"(, "publisher_id": ")" + p + "\"}";
  }
  insert_raw("books", books + "]");

  for (const std::int32_t batch : {1, 7, 50}) {
    SCOPED_TRACE("batch size " + std::to_string(batch));
    using B = Book<odm::Dangling::keep>;
    const auto result = db().collection<B>()
                            .find({}, odm::FindOptions<B>{}.sort(odm::sort(odm::asc(&B::id))).batch_size(batch))
                            .skip_bad_documents()
                            .with(&B::publisher_id);
    // The model: every good book in order; its publisher loaded if good, dangling otherwise;
    // skipped: the bad books in order, then each bad publisher that a good book points at.
    ASSERT_EQ(result.size(), book_publisher.size());
    std::size_t i = 0;
    std::set<std::string> referenced_bad;
    for (const auto& [id, p] : book_publisher) {
      EXPECT_EQ(result[i].id, id);
      EXPECT_EQ(result[i].publisher_id.is_loaded(), publisher[p] == 'g') << "book " << id << " -> " << p;
      if (publisher[p] == 'b') referenced_bad.insert(p);
      ++i;
    }
    std::set<std::string> want_skipped;
    for (const std::int64_t b : bad_books) want_skipped.insert(R"({ "_id" : )" + std::to_string(b) + " }");
    for (const std::string& p : referenced_bad) want_skipped.insert(R"({ "_id" : ")" + p + "\" }");
    const auto got = skipped_ids(result.skipped());
    EXPECT_EQ(std::set<std::string>(got.begin(), got.end()), want_skipped);
    EXPECT_EQ(got.size(), want_skipped.size()) << "each skipped document reported once";
    ASSERT_GE(got.size(), bad_books.size());
    for (std::size_t k = 0; k < bad_books.size(); ++k)
      EXPECT_EQ(got[k], R"({ "_id" : )" + std::to_string(*std::next(bad_books.begin(), static_cast<long>(k))) + " }")
          << "the base query's come first, in the server's order";
  }
}

}  // namespace

TEST_F(BadDocuments, SeveralRelationsTakeOneSetOfOptionsAndReportWhatEachSkipped) {
  store_publishers();
  insert_raw("departments", R"([{"_id": "math", "name": "Mathematics"}, {"_id": "bad", "name": 7}])");
  std::vector<Edition> editions(2);
  editions[0].id = 1;
  editions[0].publisher = odm::Ref<Publisher, odm::Dangling::keep>("p2");
  editions[0].department = odm::Ref<Department, odm::Dangling::keep>("math");
  editions[1].id = 2;
  editions[1].publisher = odm::Ref<Publisher, odm::Dangling::keep>("p1");
  editions[1].department = odm::Ref<Department, odm::Dangling::keep>("bad");

  auto copy = editions;
  EXPECT_THROW(odm::resolve(db(), copy, odm::with(&Edition::publisher), odm::with(&Edition::department)),
               odm::DecodeError)
      << "without options, the first bad target throws";

  odm::JoinOptions skip;
  skip.bad_documents = odm::BadDocuments::skip;
  const auto skipped = odm::resolve(db(), editions, skip, odm::with(&Edition::publisher), odm::with(&Edition::department));
  EXPECT_EQ(skipped_ids(skipped), (std::vector<std::string>{R"({ "_id" : "p2" })", R"({ "_id" : "bad" })"}))
      << "the first relation's, then the second's";
  EXPECT_TRUE(editions[0].publisher.is_dangling());
  EXPECT_EQ(editions[0].department->name, "Mathematics");
  EXPECT_EQ(editions[1].publisher->name, "One");
  EXPECT_TRUE(editions[1].department.is_dangling());
}

TEST_F(BadDocuments, AChainOfWithsHeldByAutoRefStaysValid) {
  insert_raw("departments", R"([{"_id": "math", "name": "Mathematics"}])");
  insert_raw("courses", R"([{"_id": "c1", "name": "Algebra", "department": "math"}])");
  insert_raw("students", R"([{"_id": 1, "courses": ["c1"]}, {"_id": 2, "courses": "not a list"}])");
  // Each .with(...) returns the result by value: `auto&&` extends its life (under
  // AddressSanitizer, a reference to the destroyed temporary is a stack-use-after-scope).
  auto&& students = db().collection<Student>()
                        .find({}, odm::FindOptions<Student>{}.sort(odm::sort(odm::asc(&Student::id))))
                        .skip_bad_documents()
                        .with(&Student::courses)
                        .with(&Student::courses, odm::with(&Course::department));
  ASSERT_EQ(students.size(), 1u);
  EXPECT_EQ(students[0].courses.at(0).department->name, "Mathematics");
  EXPECT_EQ(skipped_ids(students.skipped()), (std::vector<std::string>{R"({ "_id" : 2 })"}));
}
