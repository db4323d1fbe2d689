// The seeds' atomic single-document update: checking out a copy of a book decrements
// `available` and records the checkout in one update, guarded by `available > 0`. Twenty
// threads racing for a book with three copies: exactly three succeed. Filter and update
// are built with the typed builders (odm/query.hpp).

#include "models.hpp"
#include "support.hpp"

#include <odm/driver/client.hpp>
#include <odm/query.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <latch>
#include <string>
#include <thread>
#include <vector>

namespace odm_test {
namespace {

using namespace std::chrono;

class Checkout_ : public DriverTest {};

Millis date_of(int y, unsigned m, unsigned d) { return Millis(sys_days(year_month_day(year(y), month(m), day(d)))); }

Book definitive_guide() {
  return Book{123456789,
              "MongoDB: The Definitive Guide",
              {"Kristina Chodorow", "Mike Dirolf"},
              date_of(2010, 9, 24),
              216,
              "English",
              "oreilly",
              3,
              {Checkout{"joe", date_of(2012, 10, 15)}}};
}

/// { _id: 123456789, available: { $gt: 0 } }
odm::Filter<Book> has_copy(std::int64_t id) { return odm::field(&Book::id) == id && odm::field(&Book::available) > 0; }

/// { $inc: { available: -1 }, $push: { checkout: { by: who, date: now } } }
odm::Update<Book> check_out(const std::string& who) {
  const Millis now = time_point_cast<milliseconds>(system_clock::now());
  return odm::field(&Book::available).inc(-1) + odm::field(&Book::checkout).push(Checkout{who, now});
}

TEST_F(Checkout_, SeedCheckoutIsOneAtomicUpdate) {
  auto books = db().collection<Book>();
  EXPECT_EQ(books.name(), "books");
  books.insert_one(definitive_guide());
  log_.clear();

  const auto result = books.update_one(has_copy(123456789), check_out("abc"));
  EXPECT_EQ(result.matched, 1);
  EXPECT_EQ(result.modified, 1);
  EXPECT_EQ(log_.started("update"), 1);

  const Book book = books.get_by_id(123456789);
  EXPECT_EQ(book.available, 2);
  ASSERT_EQ(book.checkout.size(), 2u);
  EXPECT_EQ(book.checkout[0].by, "joe");
  EXPECT_EQ(book.checkout[1].by, "abc");

  // No copy left: matched 0, modified 0, nothing changes.
  books.update_one(odm::field(&Book::id) == std::int64_t{123456789}, odm::field(&Book::available).set(0));
  const auto none = books.update_one(has_copy(123456789), check_out("late"));
  EXPECT_EQ(none.matched, 0);
  EXPECT_EQ(none.modified, 0);
  EXPECT_EQ(books.get_by_id(123456789).checkout.size(), 2u);
}

TEST_F(Checkout_, TwentyThreadsRaceForThreeCopies) {
  auto books = db().collection<Book>();
  Book book = definitive_guide();
  book.checkout.clear();
  books.insert_one(book);

  constexpr int threads = 20;
  std::atomic<int> succeeded{0};
  std::atomic<int> failed{0};
  std::atomic<int> errors{0};
  std::latch start(threads);
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) {
    pool.emplace_back([&, i] {
      auto mine = books;  // collections are cheap copies sharing the client's pool
      start.arrive_and_wait();
      try {
        const auto result = mine.update_one(has_copy(123456789), check_out("reader-" + std::to_string(i)));
        (result.modified == 1 ? succeeded : failed)++;
      } catch (const odm::Error&) {
        errors++;
      }
    });
  }
  for (auto& thread : pool) thread.join();

  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(succeeded.load(), 3);
  EXPECT_EQ(failed.load(), threads - 3);
  const Book after = books.get_by_id(123456789);
  EXPECT_EQ(after.available, 0);
  EXPECT_EQ(after.checkout.size(), 3u);
  EXPECT_EQ(log_.started("update"), threads);
}

}  // namespace
}  // namespace odm_test
