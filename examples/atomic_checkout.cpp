// An atomic single-document update (seeds 000 and 002): checking out a book. The copy
// count and the list of checkouts are in the same document, so one update both checks
// that a copy is left and records who took it; no transaction, no race:
//
//   db.books.updateOne({_id: 123456789, available: {$gt: 0}},
//                      {$inc: {available: -1}, $push: {checkout: {by: "abc", date: new Date()}}})
//
// Repeated, it succeeds (matched 1, modified 1) while copies are left, then matches
// nothing (0, 0). `books` is shared with publisher_books.cpp, which stores the same book
// without `available` and `checkout`: this example does not drop the collection. When
// the book is there it sets the two fields to the seed's values (appended after the
// others, as the guide's document has them); otherwise it inserts the whole document.
#include "example_support.hpp"

#include <chrono>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace {

using Date = std::chrono::sys_days;
using Timestamp = std::chrono::system_clock::time_point;
using Authors = std::variant<std::string, std::vector<std::string>>;

struct Checkout {
  std::string by;
  Timestamp date;
  bool operator==(const Checkout&) const = default;
};

struct Book {
  std::int32_t id;
  std::string title;
  Authors author;
  Date published_date;
  std::int32_t pages;
  std::string language;
  std::string publisher_id;
  std::int32_t available;
  std::vector<odm::Embedded<Checkout>> checkout;
  bool operator==(const Book&) const = default;
  struct odm_model {
    static constexpr std::string_view collection = "books";
  };
};

/// {_id: id, available: {$gt: 0}}
odm::Filter<Book> has_copy(std::int32_t id) { return odm::field(&Book::id) == id && odm::field(&Book::available) > 0; }

/// {$inc: {available: -1}, $push: {checkout: {by: who, date: new Date()}}}
odm::Update<Book> check_out(const std::string& who) {
  return odm::field(&Book::available).inc(-1) + odm::field(&Book::checkout).push(Checkout{who, example::now()});
}

}  // namespace

int main() {
  using example::check;
  using example::day;
  using example::instant;
  return example::run([] {
    const odm::Client client = example::connect();
    const odm::Database db = example::examples_db(client);
    // A checkout counts once a majority of the replica set has it (at most 2 s of waiting).
    auto books = db.collection<Book>().write_concern(odm::WriteConcern::majority().timeout(std::chrono::seconds(2)));

    example::step("store the seed's book: 3 copies available, one earlier checkout");
    const Book guide{123456789,
                     "MongoDB: The Definitive Guide",
                     std::vector<std::string>{"Kristina Chodorow", "Mike Dirolf"},
                     day(2010, 9, 24),
                     216,
                     "English",
                     "oreilly",
                     3,
                     {Checkout{"joe", instant(2012, 10, 15)}}};
    const auto reset = books.update_one(odm::field(&Book::id) == guide.id,
                                        odm::field(&Book::available).set(guide.available) +
                                            odm::field(&Book::checkout).set(guide.checkout));
    if (reset.matched == 0) books.insert_one(guide);
    check(books.get_by_id(guide.id) == guide, "the book is stored as the seed shows it");
    example::show("stored", guide);
    example::sync_indexes<Book>(db);

    example::step("check out copies, one atomic update each, until none is left");
    const std::vector<std::string> readers{"abc", "def", "ghi", "jkl"};
    std::vector<std::pair<std::int64_t, std::int64_t>> outcomes;
    for (const std::string& reader : readers) {
      const auto result = books.update_one(has_copy(123456789), check_out(reader));
      std::cout << "checkout by " << reader << ": matched " << result.matched << ", modified " << result.modified << "\n";
      outcomes.emplace_back(result.matched, result.modified);
      if (result.matched == 0) break;
    }
    check(outcomes.size() == 4, "three checkouts, then one that finds no copy");
    check(outcomes[0] == std::pair<std::int64_t, std::int64_t>{1, 1} && outcomes[2] == std::pair<std::int64_t, std::int64_t>{1, 1},
          "while copies are left: matched 1, modified 1");
    check(outcomes[3] == std::pair<std::int64_t, std::int64_t>{0, 0}, "with no copy left: matched 0, modified 0");

    example::step("read the book back");
    const std::vector<Book> listed =
        books.find(odm::field(&Book::id) == 123456789,
                   odm::FindOptions<Book>{}.max_time(std::chrono::seconds(5)).comment("checkout report"))
            .to_vector();
    check(listed.size() == 1, "the report finds the book within its time limit");
    const Book after = listed.front();
    example::show("read", after);
    check(after.available == 0, "no copy is available");
    check(after.checkout.size() == 4, "joe's checkout and three new ones");
    check(after.checkout[0] == guide.checkout[0] && after.checkout[1]->by == "abc" && after.checkout[2]->by == "def" &&
              after.checkout[3]->by == "ghi",
          "the checkouts are recorded in order; jkl got none");
    check(after.title == guide.title && after.publisher_id == "oreilly", "the rest of the book is untouched");
  });
}
