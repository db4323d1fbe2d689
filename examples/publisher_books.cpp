// One-to-many with references (seed 000): books and their publisher. Embedding the
// publisher in every book repeats it (and every copy must be updated together); keeping
// the publisher's book ids in an array in the publisher makes an array that grows
// without bound as the publisher publishes. So each book keeps its publisher's id
// (`publisher_id: "oreilly"`), and a list of books resolves all their publishers with
// one `{_id: {$in: [...]}}` query, however many books there are.
//
// `books` is shared with atomic_checkout.cpp: the seed's book 123456789 is in both, the
// checkout adding `available` and `checkout` to it. This example does not drop the
// collection: it (re)writes each of its two books unless the stored one already holds
// exactly its fields (perhaps with the checkout's fields after them, which it keeps).
#include "example_support.hpp"

#include <odm/join/join.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace {

using Date = std::chrono::sys_days;
/// The seed writes `author` as an array of names in one book and a single name in another.
using Authors = std::variant<std::string, std::vector<std::string>>;

struct Publisher {
  std::string id;
  std::string name;
  std::int32_t founded;
  std::string location;
  bool operator==(const Publisher&) const = default;
  struct odm_model {
    static constexpr std::string_view collection = "publisher";
  };
};

struct Book {
  std::int32_t id;
  std::string title;
  Authors author;
  Date published_date;
  std::int32_t pages;
  std::string language;
  odm::Ref<Publisher> publisher_id;
  struct odm_model {
    static constexpr std::string_view collection = "books";
    // The books of a publisher are found through the field that points at it.
    static constexpr auto indexes = odm::indexes(odm::index(&Book::publisher_id));
  };
};

/// The anti-pattern the seed warns about, for comparison: the publisher listing its
/// books. Every new book is one more element; the document only ever grows.
struct PublisherWithBooks {
  std::string name;
  std::int32_t founded;
  std::string location;
  std::vector<std::int32_t> books;
};

}  // namespace

int main() {
  using example::check;
  using example::day;
  return example::run([] {
    const odm::Client client = example::connect();
    const odm::Database db = example::examples_db(client);
    auto publishers = db.collection<Publisher>();
    auto books = db.collection<Book>();
    publishers.drop();
    const std::vector<std::int32_t> mine{123456789, 234567890};

    example::step("store the publisher once, and each book with the publisher's id");
    const Publisher oreilly{"oreilly", "O'Reilly Media", 1980, "CA"};
    publishers.insert_one(oreilly);
    example::show("publisher", oreilly);
    const std::vector<Book> written{
        Book{123456789, "MongoDB: The Definitive Guide", std::vector<std::string>{"Kristina Chodorow", "Mike Dirolf"},
             day(2010, 9, 24), 216, "English", "oreilly"},
        Book{234567890, "50 Tips and Tricks for MongoDB Developer", std::string("Kristina Chodorow"), day(2011, 5, 6),
             68, "English", "oreilly"},
    };
    for (const Book& book : written) {
      const std::optional<Book> existing = books.find_by_id(book.id);
      if (existing && odm::to_bson(*existing) == odm::to_bson(book)) {
        std::cout << "book " << book.id << " is already stored as written (other fields kept)\n";
        continue;
      }
      // A replace keeps what other programs stored in the book; a new book is inserted, so its
      // fields keep the model's order (an upsert would store them in update order).
      if (existing) {
        books.replace_one(odm::field(&Book::id) == book.id, book);
      } else {
        books.insert_one(book);
      }
    }
    check(books.count(odm::field(&Book::id).in(mine)) == 2, "both books are stored");
    example::show_all("books", written);
    example::sync_indexes<Publisher, Book>(db);

    example::step("read the books and resolve their publishers: one $in query for all of them");
    std::vector<Book> read = books
                                 .find(odm::field(&Book::id).in(mine),
                                       odm::FindOptions<Book>{}.sort(odm::sort(odm::asc(&Book::published_date))))
                                 .to_vector();
    odm::resolve(db, read, odm::with(&Book::publisher_id));
    check(read.size() == 2, "both books read back");
    for (const Book& book : read) {
      example::show("book", book);
      example::show("  publisher_id ->", *book.publisher_id);
    }
    check(read[0].title == "MongoDB: The Definitive Guide" &&
              std::get<std::vector<std::string>>(read[0].author) ==
                  std::vector<std::string>{"Kristina Chodorow", "Mike Dirolf"},
          "the first book has two authors, stored as an array");
    check(std::get<std::string>(read[1].author) == "Kristina Chodorow", "the second has one, stored as a string");
    check(read[0].publisher_id.is_loaded() && *read[0].publisher_id == oreilly, "the publisher was resolved");
    check(read[0].publisher_id.shared() == read[1].publisher_id.shared(),
          "both books share one decoded publisher, not two copies");

    example::step("the publisher's books, without a growing array: {publisher_id: \"oreilly\"}");
    const std::int64_t count = books.count(odm::field(&Book::publisher_id) == "oreilly");
    std::cout << "books by O'Reilly: " << count << "\n";
    check(count >= 2, "the publisher's books are found through publisher_id");

    // What the publisher document would have to hold instead, and keep growing:
    PublisherWithBooks growing{oreilly.name, oreilly.founded, oreilly.location, {}};
    for (const Book& book : read) growing.books.push_back(book.id);
    example::show("the anti-pattern, not stored", growing);
    std::cout << "(each new book would add an id to that array: the publisher document would grow without bound, "
                 "while a book's publisher_id never changes size)\n";
  });
}
