// Documents another driver writes in the guides' shapes are what odm reads: pymongo
// (Debian's python3-pymongo, which the test server needs anyway) writes them, odm reads
// them with the examples' kind of models and must get every value exactly, references
// resolved. The other direction is tests/crosscheck/check_examples.py.

#include <odm/join/join.hpp>
#include <odm/odm.hpp>

#include "../driver/support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace crosscheck {
namespace {

using namespace std::chrono;

// What pymongo writes: the guides' documents, with pymongo's own types.
constexpr const char* kPymongoWriter = R"PY(
import datetime
import sys
import pymongo
from bson import ObjectId
from bson.decimal128 import Decimal128
from bson.int64 import Int64

db = pymongo.MongoClient(URI, serverSelectionTimeoutMS=10000)[DB]
db.publisher.insert_one({'_id': 'oreilly', 'name': "O'Reilly Media", 'founded': 1980,
                         'location': 'CA'})
db.books.insert_one({'_id': 123456789, 'title': 'MongoDB: The Definitive Guide',
                     'author': ['Kristina Chodorow', 'Mike Dirolf'],
                     'published_date': datetime.datetime(2010, 9, 24), 'pages': 216,
                     'language': 'English', 'publisher_id': 'oreilly'})
db.product.insert_one({
    '_id': 1, 'name': 'Super Widget',
    'description': 'This is the most useful item in your toolbox.',
    'price': {'value': Decimal128('119.99'), 'currency': 'USD'},
    'reviews': [
        {'review_id': 786, 'review_author': 'Kristina',
         'review_text': 'This is indeed an amazing widget.',
         'published_date': datetime.datetime(2019, 2, 18)},
        {'review_id': 785, 'review_author': 'Trina', 'review_text': 'Nice product. Slow shipping.',
         'published_date': datetime.datetime(2019, 2, 17)}]})
db.gasprices.insert_one({'_id': 1, 'date': datetime.datetime(2019, 3, 1, 10, 6, 53, 123000),
                         'price': Decimal128('2.0990'), 'station': 'Quikstop',
                         'grade': 'regular'})
db.clothes.insert_one({'_id': 1, 'description': 'T-Shirt', 'size': 'M', 'price': Int64(1999)})
db.courses.insert_one({'_id': ObjectId('61741c9cbc9ec583c836170a'), 'name': 'Physics 101',
                       'department': 'Department of Physics', 'points': 7})
db.students.insert_one({'_id': ObjectId('612d1e835ebee16872a109a4'), 'first_name': 'Sammy',
                        'last_name': 'Shark',
                        'emails': [{'email': 'sammy@example.com', 'type': 'work'}],
                        'courses': [ObjectId('61741c9cbc9ec583c836170a')]})
db.categories.insert_many([{'_id': 'Books', 'parent': None, 'children': ['Programming']},
                           {'_id': 'Programming', 'parent': 'Books', 'children': []}])
# Several kinds in one field, under other ODMs' discriminators (tag last, as some write it).
db.activity.insert_one({'_id': 1,
                        'mongoose': [{'element': 'buy', '__t': 'Click'}, {'__t': 'Purchase', 'amount': 3}],
                        'spring': {'_class': 'com.shop.Purchase', 'amount': 4},
                        'csharp': {'_t': 'Click', 'element': 'back'},
                        'mongoid': {'amount': 5, '_type': 'Purchase'}})
)PY";

// What pymongo checks of the kinds odm writes: the tag is the first field, a string.
constexpr const char* kPymongoTagReader = R"PY(
import sys
import pymongo
doc = pymongo.MongoClient(URI, serverSelectionTimeoutMS=10000)[DB].activity.find_one({'_id': 2})
kinds = [(list(e.items())[0]) for e in doc['mongoose']] + [list(doc['mongoid'].items())[0]]
expected = [('__t', 'Purchase'), ('__t', 'Click'), ('_type', 'Purchase')]
if kinds != expected:
    print('tags as pymongo reads them:', kinds, 'expected:', expected)
    sys.exit(1)
)PY";

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
  std::int32_t id = 0;
  std::string title;
  std::variant<std::string, std::vector<std::string>> author;
  sys_days published_date;
  std::int32_t pages = 0;
  std::string language;
  odm::Ref<Publisher> publisher_id;
  struct odm_model {
    static constexpr std::string_view collection = "books";
  };
};

struct Product;

/// A review as the product embeds it (in `review` it also has product_id).
struct Review {
  std::int32_t review_id = 0;
  odm::ParentRef<Product> product_id;
  std::string review_author;
  std::string review_text;
  sys_days published_date;
};

struct Product {
  std::int32_t id = 0;
  std::string name;
  std::string description;
  odm::Money price;
  odm::Subset<Review, 10, &Review::published_date> reviews;
  struct odm_model {
    static constexpr std::string_view collection = "product";
  };
};

struct GasPrice {
  std::int32_t id = 0;
  system_clock::time_point date;
  odm::Decimal price;
  std::string station;
  std::string grade;
  struct odm_model {
    static constexpr std::string_view collection = "gasprices";
  };
};

struct ClothesInCents {
  std::int32_t id = 0;
  std::string description;
  std::string size;
  odm::ScaledAmount<100> price;
  struct odm_model {
    static constexpr std::string_view collection = "clothes";
  };
};

enum class EmailType { work, home };

struct Email {
  std::string email;
  EmailType type;
};

struct Course {
  odm::ObjectId id;
  std::string name;
  std::string department;
  std::int32_t points = 0;
  struct odm_model {
    static constexpr std::string_view collection = "courses";
  };
};

struct Student {
  odm::ObjectId id;
  std::string first_name;
  std::string last_name;
  std::vector<odm::Embedded<Email>> emails;
  odm::RefMany<Course> courses;
  struct odm_model {
    static constexpr std::string_view collection = "students";
  };
};

struct Category {
  std::string id;
  odm::ParentRef<Category> parent;
  odm::RefMany<Category> children;
  struct odm_model {
    static constexpr std::string_view collection = "categories";
  };
};

// The kinds of the activity documents, each named the way another ODM names it.

struct Click {
  std::string element;
  struct odm_model {
    static constexpr auto tag = odm::tag("Click").stored_in("__t");
  };
  bool operator==(const Click&) const = default;
};
struct Purchase {
  std::int32_t amount = 0;
  struct odm_model {
    static constexpr auto tag = odm::tag("Purchase").stored_in("__t");
  };
  bool operator==(const Purchase&) const = default;
};
struct SpringPurchase {
  std::int32_t amount = 0;
  struct odm_model {
    static constexpr auto tag = odm::tag("com.shop.Purchase").stored_in("_class");
  };
};
struct CsharpClick {
  std::string element;
  struct odm_model {
    static constexpr auto tag = odm::tag("Click").stored_in("_t");
  };
};
struct MongoidPurchase {
  std::int32_t amount = 0;
  struct odm_model {
    static constexpr auto tag = odm::tag("Purchase");  // `_type`, odm's default, is Mongoid's
  };
};
struct MongoidClick {
  std::string element;
  struct odm_model {
    static constexpr auto tag = odm::tag("Click");
  };
};

struct Activity {
  std::int32_t id = 0;
  std::vector<std::variant<Click, Purchase>> mongoose;
  std::variant<SpringPurchase, odm::UnknownKind> spring;
  std::variant<CsharpClick, odm::UnknownKind> csharp;
  std::variant<MongoidClick, MongoidPurchase> mongoid;
  struct odm_model {
    static constexpr std::string_view collection = "activity";
  };
};

/// A Python string literal holding `text` (as hex, so that nothing needs escaping).
std::string python_literal(const std::string& text) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out = "bytes.fromhex('";
  for (const unsigned char c : text) {
    out += hex[c >> 4];
    out += hex[c & 15];
  }
  return out + "').decode()";
}

class Pymongo : public odm_test::DriverTest {
 protected:
  /// Runs the writer with Debian's python3; false (and a message) when it failed.
  ::testing::AssertionResult write_with_pymongo() { return run_pymongo(kPymongoWriter); }
  /// Runs `program` (pymongo, with URI and DB set) with Debian's python3.
  ::testing::AssertionResult run_pymongo(const char* program) {
    std::FILE* python = ::popen("timeout 60 /usr/bin/python3 - 2>&1", "w");
    if (python == nullptr) return ::testing::AssertionFailure() << "cannot start /usr/bin/python3";
    const std::string script =
        "URI = " + python_literal(uri_) + "\nDB = " + python_literal(db_name_) + "\n" + program;
    std::fputs(script.c_str(), python);
    const int status = ::pclose(python);
    if (status != 0) return ::testing::AssertionFailure() << "the pymongo program exited with status " << status;
    return ::testing::AssertionSuccess();
  }
};

TEST_F(Pymongo, WhatPymongoWritesOdmReads) {
  ASSERT_TRUE(write_with_pymongo());

  std::vector<Book> books{db().collection<Book>().get_by_id(123456789)};
  odm::resolve(db(), books, odm::with(&Book::publisher_id));
  const Book& book = books[0];
  EXPECT_EQ(book.title, "MongoDB: The Definitive Guide");
  EXPECT_EQ(std::get<std::vector<std::string>>(book.author), (std::vector<std::string>{"Kristina Chodorow", "Mike Dirolf"}));
  EXPECT_EQ(book.published_date, sys_days(year(2010) / 9 / 24));
  EXPECT_EQ(book.pages, 216);
  ASSERT_TRUE(book.publisher_id.is_loaded());
  EXPECT_EQ(book.publisher_id->name, "O'Reilly Media");

  const Product product = db().collection<Product>().get_by_id(1);
  EXPECT_EQ(product.price, odm::Money("119.99", "USD"));
  EXPECT_TRUE(product.price.amount().same_representation(odm::Decimal("119.99")));
  ASSERT_EQ(product.reviews.size(), 2u);
  EXPECT_EQ(product.reviews[0].review_id, 786);
  EXPECT_EQ(product.reviews[1].review_author, "Trina");
  EXPECT_EQ(product.reviews[1].published_date, sys_days(year(2019) / 2 / 17));

  const GasPrice gas = db().collection<GasPrice>().get_by_id(1);
  EXPECT_EQ(gas.price.to_string(), "2.0990") << "the stored digits, trailing zero included";
  EXPECT_EQ(gas.date, sys_days(year(2019) / 3 / 1) + 10h + 6min + 53s + 123ms);

  const ClothesInCents shirt = db().collection<ClothesInCents>().get_by_id(1);
  EXPECT_EQ(shirt.price.units(), 1999) << "NumberLong(1999) at a scale factor of 100";
  EXPECT_EQ(shirt.price.to_decimal().to_string(), "19.99");

  std::vector<Student> students = db().collection<Student>().find().to_vector();
  odm::resolve(db(), students, odm::with(&Student::courses));
  ASSERT_EQ(students.size(), 1u);
  EXPECT_EQ(students[0].emails[0]->type, EmailType::work);
  ASSERT_EQ(students[0].courses.size(), 1u);
  EXPECT_EQ(students[0].courses[0].name, "Physics 101");

  const Category root = db().collection<Category>().get_by_id("Books");
  EXPECT_FALSE(root.parent.has_parent()) << "parent: null is the root";
  EXPECT_EQ(root.children.size(), 1u);
  const Category programming = db().collection<Category>().get_by_id("Programming");
  EXPECT_EQ(programming.parent.id(), std::optional<std::string>("Books"));
}

TEST_F(Pymongo, KindsTaggedByOtherOdmsReadAndOdmsTagsAreFirst) {
  ASSERT_TRUE(write_with_pymongo());
  auto activity = db().collection<Activity>();
  const Activity read = activity.get_by_id(1);
  EXPECT_EQ(read.mongoose, (std::vector<std::variant<Click, Purchase>>{Click{"buy"}, Purchase{3}}));
  ASSERT_EQ(read.spring.index(), 0u);
  EXPECT_EQ(std::get<SpringPurchase>(read.spring).amount, 4);
  ASSERT_EQ(read.csharp.index(), 0u);
  EXPECT_EQ(std::get<CsharpClick>(read.csharp).element, "back");
  ASSERT_EQ(read.mongoid.index(), 1u);
  EXPECT_EQ(std::get<MongoidPurchase>(read.mongoid).amount, 5);

  Activity written = read;
  written.id = 2;
  written.mongoose = {Purchase{7}, Click{"x"}};
  activity.insert_one(written);
  EXPECT_TRUE(run_pymongo(kPymongoTagReader));
}

}  // namespace
}  // namespace crosscheck
