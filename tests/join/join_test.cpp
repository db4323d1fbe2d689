// Batched $in joins: one query per relation and level, order and duplicates kept,
// dangling references handled by policy. Commands are counted with command monitoring.

#include <odm/join/join.hpp>
#include <odm/odm.hpp>

#include "../driver/support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {

using namespace std::chrono;

struct Publisher {
  std::string id;
  std::string name;
  std::int32_t founded = 0;
  std::string location;
  struct odm_model {
    static constexpr std::string_view collection = "publisher";
  };
};

struct Book {
  std::int64_t id = 0;
  std::string title;
  odm::Ref<Publisher> publisher_id;
  struct odm_model {
    static constexpr std::string_view collection = "books";
  };
};

struct Part {
  odm::ObjectId id;
  std::string partno;
  std::string name;
  struct odm_model {
    static constexpr std::string_view collection = "parts";
  };
};

struct Product {
  odm::ObjectId id;
  std::string name;
  odm::RefMany<Part> parts;
  struct odm_model {
    static constexpr std::string_view collection = "products";
  };
};

struct StrictProduct {
  odm::ObjectId id;
  odm::RefMany<Part, odm::Dangling::raise> parts;
  struct odm_model {
    static constexpr std::string_view collection = "products";
  };
};

struct CleanProduct {
  odm::ObjectId id;
  odm::RefMany<Part, odm::Dangling::drop> parts;
  struct odm_model {
    static constexpr std::string_view collection = "products";
  };
};

struct InnerBook {
  std::int64_t id = 0;
  odm::Ref<Publisher, odm::Dangling::drop> publisher_id;
  struct odm_model {
    static constexpr std::string_view collection = "books";
  };
};

struct Department {
  std::string id;
  std::string name;
};

struct Course {
  odm::ObjectId id;
  std::string name;
  odm::Ref<Department> department;
};

struct Student {
  odm::ObjectId id;
  std::string first_name;
  odm::RefMany<Course> courses;
};

struct Host {
  odm::ObjectId id;
  std::string name;
  std::string ipaddr;
  struct odm_model {
    static constexpr std::string_view collection = "hosts";
  };
};

struct LogMessage {
  odm::ObjectId id;
  system_clock::time_point time;
  std::string message;
  odm::ParentRef<Host> host;
  struct odm_model {
    static constexpr std::string_view collection = "logmsg";
  };
};

struct Tag {
  std::string id;
  struct odm_model {
    static constexpr std::string_view collection = "tags";
  };
};

struct Tagged {
  std::int32_t id = 0;
  odm::RefMany<Tag> tags;
};

class Join : public odm_test::DriverTest {};

TEST_F(Join, PublishersOfTenThousandBooksCostOneFind) {
  std::vector<Publisher> publishers;
  for (int p = 0; p < 100; ++p) publishers.push_back({"pub" + std::to_string(p), "Publisher " + std::to_string(p), 1900 + p, "CA"});
  db().collection<Publisher>().insert_many(publishers);
  std::vector<Book> books;
  for (std::int64_t b = 0; b < 10'000; ++b)
    books.push_back({b, "Book " + std::to_string(b), odm::Ref<Publisher>("pub" + std::to_string((b * 7) % 100))});
  db().collection<Book>().insert_many(books);
  log_.clear();

  std::vector<Book> loaded = db().collection<Book>().find({}, odm::FindOptions<Book>{}.sort(odm::Sort<Book>::raw(odm_test::json(R"({"_id": 1})")))).to_vector();
  ASSERT_EQ(loaded.size(), 10'000u);
  odm::resolve(db(), loaded, odm::with(&Book::publisher_id));

  EXPECT_EQ(log_.started("find"), 2) << "one find for the books, one for all their publishers";
  std::map<std::string, const Publisher*> first_seen;
  for (std::size_t b = 0; b < loaded.size(); ++b) {
    const Book& book = loaded[b];
    ASSERT_EQ(book.id, static_cast<std::int64_t>(b)) << "the books keep their order";
    const std::string expected = "pub" + std::to_string((book.id * 7) % 100);
    ASSERT_TRUE(book.publisher_id.is_loaded());
    ASSERT_EQ(book.publisher_id->id, expected);
    EXPECT_EQ(book.publisher_id->founded, 1900 + (book.id * 7) % 100);
    auto [at, inserted] = first_seen.emplace(expected, &*book.publisher_id);
    if (!inserted) {
      ASSERT_EQ(at->second, &*book.publisher_id) << "one shared object per publisher";
    }
  }
  EXPECT_EQ(first_seen.size(), 100u);
}

TEST_F(Join, StartsFromTheCursorAndChains) {
  db().collection<Publisher>().insert_one(Publisher{"oreilly", "O'Reilly Media", 1980, "CA"});
  std::vector<Course> courses = {{{}, "Physics 101", odm::Ref<Department>("phys")}};
  db().collection<Department>().insert_one(Department{"phys", "Department of Physics"});
  db().collection<Course>().insert_many(courses);
  db().collection<Book>().insert_many(std::vector<Book>{{123456789, "MongoDB: The Definitive Guide", odm::Ref<Publisher>("oreilly")},
                                                        {234567890, "50 Tips and Tricks for MongoDB Developer", odm::Ref<Publisher>("oreilly")}});
  log_.clear();
  const std::vector<Book> books = db().collection<Book>().find().with(&Book::publisher_id);
  EXPECT_EQ(log_.started("find"), 2);
  ASSERT_EQ(books.size(), 2u);
  EXPECT_EQ(books[1].publisher_id->name, "O'Reilly Media");
  EXPECT_EQ(&*books[0].publisher_id, &*books[1].publisher_id);

  const auto loaded = db().collection<Course>().find().with(&Course::department).to_vector();
  EXPECT_EQ(loaded.at(0).department->name, "Department of Physics");
}

TEST_F(Join, RefManyKeepsOrderDuplicatesAndDanglingIds) {
  std::vector<Part> parts = {{{}, "123-aff-456", "#4 grommet"}, {{}, "124-aff-456", "#5 grommet"}};
  db().collection<Part>().insert_many(parts);  // assigns the ids
  const odm::ObjectId missing = odm::ObjectId::generate();
  Product product{{}, "left-handed smoke shifter", {parts[1].id, parts[0].id, parts[1].id, missing}};
  db().collection<Product>().insert_one(product);
  log_.clear();

  std::vector<Product> loaded = db().collection<Product>().find().to_vector();
  odm::resolve(db(), loaded, odm::with(&Product::parts));
  EXPECT_EQ(log_.started("find"), 2);
  const auto& refs = loaded.at(0).parts;
  ASSERT_TRUE(refs.is_loaded());
  ASSERT_EQ(refs.size(), 4u) << "the stored list is untouched under Dangling::keep";
  EXPECT_EQ(refs[0].name, "#5 grommet");
  EXPECT_EQ(refs[1].name, "#4 grommet");
  EXPECT_EQ(&refs[0], &refs[2]) << "a duplicate id is the same shared target";
  EXPECT_EQ(refs.id(3), missing);
  EXPECT_THROW((void)refs[3], odm::NotLoadedError);
  EXPECT_EQ(refs.targets().size(), 3u);

  // Dangling::raise names the field and the id.
  std::vector<StrictProduct> strict = db().collection<StrictProduct>().find().to_vector();
  try {
    odm::resolve(db(), strict, odm::with(&StrictProduct::parts));
    ADD_FAILURE() << "a dangling id must raise";
  } catch (const odm::DanglingReference& e) {
    EXPECT_NE(std::string(e.what()).find("parts"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(missing.to_string()), std::string::npos) << e.what();
  }

  // Dangling::drop forgets the missing id and keeps the rest aligned.
  std::vector<CleanProduct> clean = db().collection<CleanProduct>().find().to_vector();
  odm::resolve(db(), clean, odm::with(&CleanProduct::parts));
  ASSERT_EQ(clean.at(0).parts.size(), 3u);
  EXPECT_EQ(clean.at(0).parts[2].name, "#5 grommet");
  EXPECT_EQ(clean.at(0).parts.id(2), parts[1].id);
}

TEST_F(Join, UnresolvedReferenceIsAClearErrorNotAnEmptyObject) {
  Book book{1, "MongoDB: The Definitive Guide", odm::Ref<Publisher>("oreilly")};
  EXPECT_EQ(book.publisher_id.id(), "oreilly");
  try {
    (void)book.publisher_id->name;
    ADD_FAILURE() << "reading an unresolved reference must throw";
  } catch (const odm::NotLoadedError& e) {
    EXPECT_NE(std::string(e.what()).find("oreilly"), std::string::npos) << e.what();
  }
}

TEST_F(Join, DanglingRefUnderDropIsAnInnerJoin) {
  db().collection<Publisher>().insert_one(Publisher{"oreilly", "O'Reilly Media", 1980, "CA"});
  db().collection<Book>().insert_many(std::vector<Book>{
      {1, "a", odm::Ref<Publisher>("oreilly")}, {2, "b", odm::Ref<Publisher>("gone")}, {3, "c", odm::Ref<Publisher>("oreilly")}});
  std::vector<InnerBook> books =
      db().collection<InnerBook>().find({}, odm::FindOptions<InnerBook>{}.sort(odm::Sort<InnerBook>::raw(odm_test::json(R"({"_id": 1})")))).to_vector();
  odm::resolve(db(), books, odm::with(&InnerBook::publisher_id));
  ASSERT_EQ(books.size(), 2u);
  EXPECT_EQ(books[0].id, 1);
  EXPECT_EQ(books[1].id, 3);

  std::vector<Book> kept = db().collection<Book>().find({}, odm::FindOptions<Book>{}.sort(odm::Sort<Book>::raw(odm_test::json(R"({"_id": 1})")))).to_vector();
  odm::resolve(db(), kept, odm::with(&Book::publisher_id));
  ASSERT_EQ(kept.size(), 3u) << "Dangling::keep keeps the document";
  EXPECT_TRUE(kept[1].publisher_id.is_dangling());
  EXPECT_EQ(kept[1].publisher_id.id(), "gone");
  EXPECT_THROW((void)kept[1].publisher_id.get(), odm::NotLoadedError);
}

TEST_F(Join, NestedResolutionCostsOneQueryPerLevel) {
  db().collection<Department>().insert_many(std::vector<Department>{{"phys", "Department of Physics"},
                                                                     {"cs", "Department of Computer Science"}});
  std::vector<Course> courses = {{{}, "Physics 101", odm::Ref<Department>("phys")},
                                 {{}, "Introduction to Cloud Computing", odm::Ref<Department>("cs")},
                                 {{}, "Mechanics", odm::Ref<Department>("phys")}};
  db().collection<Course>().insert_many(courses);
  std::vector<Student> students;
  for (int s = 0; s < 50; ++s)
    students.push_back({{}, "Student " + std::to_string(s), {courses[s % 3].id, courses[(s + 1) % 3].id}});
  db().collection<Student>().insert_many(students);
  log_.clear();

  std::vector<Student> loaded = db().collection<Student>().find().to_vector();
  odm::resolve(db(), loaded, odm::with(&Student::courses, odm::with(&Course::department)));
  EXPECT_EQ(log_.started("find"), 3) << "students, then courses, then departments";
  for (const Student& student : loaded) {
    ASSERT_EQ(student.courses.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
      const Course& course = student.courses[i];
      EXPECT_EQ(course.id, student.courses.id(i));
      const std::string expected = course.name == "Introduction to Cloud Computing" ? "cs" : "phys";
      EXPECT_EQ(course.department->id, expected);
    }
  }
}

TEST_F(Join, LargeIdSetsAreSplitIntoAKnownNumberOfQueries) {
  // 100,000 distinct references (none stored: the split is what is measured).
  Product product{{}, "many", {}};
  for (int i = 0; i < 100'000; ++i) product.parts.push_back(odm::ObjectId::generate());
  std::vector<Product> products{product};
  log_.clear();
  odm::resolve(db(), products, odm::with(&Product::parts));
  EXPECT_EQ(log_.started("find"), 2) << "100,000 ids at the default 50,000 per query";

  log_.clear();
  odm::JoinOptions small;
  small.max_ids_per_query = 30'000;
  odm::resolve(db(), products, odm::with(&Product::parts), small);
  EXPECT_EQ(log_.started("find"), 4) << "ceil(100000 / 30000)";
  EXPECT_EQ(products[0].parts.targets().size(), 0u);
  EXPECT_EQ(products[0].parts.size(), 100'000u);
}

TEST_F(Join, QueriesStayUnderTheCommandSizeLimit) {
  // 60,000 string ids of 200 bytes: 12 MB of ids, more than one command may safely carry.
  Tagged tagged{1, {}};
  for (int i = 0; i < 60'000; ++i) {
    std::string id = std::to_string(i);
    id.resize(200, 'x');
    tagged.tags.push_back(id);
  }
  std::vector<Tagged> documents{tagged};
  log_.clear();
  odm::resolve(db(), documents, odm::with(&Tagged::tags));
  EXPECT_EQ(log_.started("find"), 2) << "split by bytes (8 MiB per query), not by count";
  const auto last = log_.last("find");
  ASSERT_TRUE(last.has_value());
  EXPECT_LT(last->size(), 16u * 1024 * 1024);
}

TEST_F(Join, NewestChildrenOfEachParentInOneQuery) {
  std::vector<Host> hosts;
  for (int h = 0; h < 5; ++h) hosts.push_back({{}, "host" + std::to_string(h) + ".example.com", "127.66.66." + std::to_string(h)});
  db().collection<Host>().insert_many(hosts);
  const auto start = sys_days(year(2014) / 3 / 28) + 9h;
  std::vector<LogMessage> messages;
  for (int m = 0; m < 150; ++m)
    messages.push_back({{}, start + minutes(m), "message " + std::to_string(m), hosts[static_cast<std::size_t>(m % 5)].id});
  db().collection<LogMessage>().insert_many(messages);

  log_.clear();
  const auto all = odm::children_of(db(), hosts, &LogMessage::host);
  EXPECT_EQ(log_.started("find"), 1) << "without a limit: one $in find";
  for (const auto& list : all) EXPECT_EQ(list.size(), 30u);

  // With a limit: one $unionWith aggregate on MongoDB 4.4+ (wire version 9), one find per
  // host before (mongo-java-server says 8); tests/join/children_forms_test.cpp forces each.
  const bool union_with = odm::detail::max_wire_version(db()) >= 9;
  log_.clear();
  odm::ChildrenOptions<LogMessage> newest;
  newest.sort_by(odm::sort(odm::desc(&LogMessage::time))).limit(10);
  const auto children = odm::children_of(db(), hosts, &LogMessage::host, newest);
  EXPECT_EQ(log_.started("aggregate"), union_with ? 1 : 0) << "one command for all five hosts";
  EXPECT_EQ(log_.started("find"), union_with ? 0 : 5) << "one find per host on a server without $unionWith";
  EXPECT_EQ(log_.started("getMore"), 0);
  ASSERT_EQ(children.size(), hosts.size());
  for (std::size_t h = 0; h < hosts.size(); ++h) {
    ASSERT_EQ(children[h].size(), 10u);
    for (std::size_t i = 0; i < children[h].size(); ++i) {
      EXPECT_EQ(*children[h][i].host.id(), hosts[h].id);
      // Host h owns messages h, h+5, ...; the newest ten are the last ten of them.
      const int expected = 145 + static_cast<int>(h) - 5 * static_cast<int>(i);
      EXPECT_EQ(children[h][i].message, "message " + std::to_string(expected));
    }
  }
}

}  // namespace
